#include "fasim/hbm.hpp"

namespace fasim {

HbmTensor& Hbm::add(TensorId t, std::int64_t bh, std::int64_t rows, std::int64_t cols,
                    DType dtype, bool with_values) {
  HbmTensor& tensor = tensors[index(t)].emplace();
  tensor.bh = bh;
  tensor.rows = rows;
  tensor.cols = cols;
  tensor.dtype = dtype;
  if (with_values) tensor.values = HbmValues(dtype, static_cast<std::size_t>(bh * rows * cols));
  return tensor;
}

}  // namespace fasim
