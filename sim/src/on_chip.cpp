#include "fasim/on_chip.hpp"

#include "fasim/hbm.hpp"

namespace fasim {

Tile::Tile(OnChip* owner, Placement where, std::int64_t rows, std::int64_t cols, DType dtype,
           bool with_values, TileMatrix* scratch)
    : owner_(owner), where_(where), rows_(rows), cols_(cols), dtype_(dtype) {
  if (with_values) scratch_ = scratch;
  if (with_values && where == Placement::registers && !scratch) data = TileMatrix::Zero(rows, cols);
  owner_->reserve(where_, bytes());
}

Tile& Tile::operator=(Tile&& other) noexcept {
  if (this != &other) {
    release();
    data = std::move(other.data);
    owner_ = std::exchange(other.owner_, nullptr);
    where_ = other.where_;
    rows_ = other.rows_;
    cols_ = other.cols_;
    dtype_ = other.dtype_;
    src_ = std::exchange(other.src_, nullptr);
    runs_ = std::move(other.runs_);
    other.runs_.clear();
    scratch_ = std::exchange(other.scratch_, nullptr);
  }
  return *this;
}

void Tile::release() {
  if (owner_) owner_->free(where_, bytes());
  owner_ = nullptr;
}

void Tile::forget(std::int64_t row0, std::int64_t n) {
  for (std::size_t i = 0; i < runs_.size();) {
    Run& r = runs_[i];
    const std::int64_t a = std::max(r.row0, row0), b = std::min(r.row0 + r.rows, row0 + n);  // overlap [a, b)
    if (a >= b) {
      ++i;
      continue;
    }
    const Run tail{b, r.row0 + r.rows - b, r.first + (b - r.row0) * cols_};
    r.rows = a - r.row0;  // what is left before the overlap
    if (r.rows == 0 && tail.rows == 0) {
      runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (r.rows == 0) {
      r = tail;
      ++i;
    } else if (tail.rows > 0) {
      runs_.insert(runs_.begin() + static_cast<std::ptrdiff_t>(i) + 1, tail);
      i += 2;
    } else {
      ++i;
    }
  }
}

void Tile::refer(std::int64_t row0, std::int64_t n, const HbmValues& src, std::int64_t first) {
  if (src_ != &src && !runs_.empty()) held(0, rows_);  // rows of another tensor: copy them in first
  src_ = &src;
  forget(row0, n);
  runs_.push_back({row0, n, first});
}

TileMatrix& Tile::held(std::int64_t row0, std::int64_t n) {
  if (data.size() == 0) data = TileMatrix::Zero(rows_, cols_);
  for (const Run& r : runs_) {  // rows of [row0, row0 + n) that stay in HBM: copy them in
    const std::int64_t a = std::max(r.row0, row0), b = std::min(r.row0 + r.rows, row0 + n);
    if (a < b)
      src_->read(static_cast<std::size_t>(r.first + (a - r.row0) * cols_), static_cast<std::size_t>((b - a) * cols_),
                 &data(a, 0));
  }
  forget(row0, n);
  return data;
}

TileMatrix& Tile::step_values() {
  TileMatrix& x = *scratch_;
  if (x.rows() != rows_ || x.cols() != cols_) x.resize(rows_, cols_);
  return x;
}

const TileMatrix& Tile::values() const {
  if (where_ == Placement::registers && scratch_ != nullptr) return *scratch_;  // a step register tile
  if (runs_.empty()) return data;
  TileMatrix& x = *scratch_;
  if (x.rows() != rows_ || x.cols() != cols_) x.resize(rows_, cols_);
  std::int64_t in_hbm = 0;
  for (const Run& r : runs_) in_hbm += r.rows;
  if (in_hbm < rows_) {  // the other rows: held, or never loaded (zeros)
    if (data.size() == 0) x.setZero();
    else x = data;
  }
  for (const Run& r : runs_)
    src_->read(static_cast<std::size_t>(r.first), static_cast<std::size_t>(r.rows * cols_), &x(r.row0, 0));
  return x;
}

}  // namespace fasim
