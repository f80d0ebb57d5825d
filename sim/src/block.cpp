// Where an HBM byte is counted: Block::load and Block::store. Nothing else in
// the simulator adds HBM traffic.
#include "fasim/block.hpp"

#include <stdexcept>
#include <string>

namespace fasim {

namespace {
// The inputs: nothing writes them once the run has started, so a tile may
// refer to their rows instead of copying them (on_chip.hpp).
bool is_input(TensorId t) { return t == TensorId::Q || t == TensorId::K || t == TensorId::V; }
}  // namespace

Step& Block::load(Tile& dst, TensorId t, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                  std::int64_t cols, std::int64_t dst_col0) {
  return load_from(dst, t, bh_, row0, rows, col0, cols, 0, dst_col0);
}

Step& Block::store(TensorId t, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                   std::int64_t cols, const Tile& src, std::int64_t src_col0) {
  return store_to(t, bh_, row0, rows, col0, cols, src, 0, src_col0);
}

Step& Block::load_from(Tile& dst, TensorId t, std::int64_t head, std::int64_t row0, std::int64_t rows,
                       std::int64_t col0, std::int64_t cols, std::int64_t dst_row0, std::int64_t dst_col0) {
  const HbmTensor& src = hbm_.at(t);
  if (numerics_) {
    if (is_input(t) && col0 == 0 && dst_col0 == 0 && cols == src.cols && cols == dst.cols()) {
      dst.refer(dst_row0, rows, src.values, src.offset(head, row0, 0));  // whole rows, one after another in HBM
    } else {
      TileMatrix& data = dst.held(dst_row0, rows);
      for (std::int64_t r = 0; r < rows; ++r)  // a tile row is contiguous in HBM and on chip
        src.values.read(static_cast<std::size_t>(src.offset(head, row0 + r, col0)), static_cast<std::size_t>(cols),
                        &data(dst_row0 + r, dst_col0));
    }
  }
  Step& s = make(StepKind::load, "load", t, rows, cols);
  s.bh = head;
  s.row0 = row0;
  s.col0 = col0;
  s.hbm_read_bytes = rows * cols * src.elem_bytes();
  return s;
}

Step& Block::store_to(TensorId t, std::int64_t head, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                      std::int64_t cols, const Tile& src, std::int64_t src_row0, std::int64_t src_col0) {
  HbmTensor& dst = hbm_.at(t);
  if (numerics_) {
    if (is_input(t))
      throw std::logic_error("a tile program stores to input " + std::string(name(t)) + ", which tiles refer to");
    const TileMatrix& values = src.values();
    for (std::int64_t r = 0; r < rows; ++r)  // rounded to the tensor's dtype as it is written
      dst.values.write(static_cast<std::size_t>(dst.offset(head, row0 + r, col0)), static_cast<std::size_t>(cols),
                       &values(src_row0 + r, src_col0));
  }
  Step& s = make(StepKind::store, "store", t, rows, cols);
  s.bh = head;
  s.row0 = row0;
  s.col0 = col0;
  s.hbm_write_bytes = rows * cols * dst.elem_bytes();
  return s;
}

}  // namespace fasim
