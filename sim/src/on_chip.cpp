#include "fasim/on_chip.hpp"

namespace fasim {

Tile::Tile(OnChip* owner, Placement where, std::int64_t rows, std::int64_t cols, DType dtype,
           bool with_values)
    : owner_(owner), where_(where), rows_(rows), cols_(cols), dtype_(dtype) {
  if (with_values) data = TileMatrix::Zero(rows, cols);
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
  }
  return *this;
}

void Tile::release() {
  if (owner_) owner_->free(where_, bytes());
  owner_ = nullptr;
}

}  // namespace fasim
