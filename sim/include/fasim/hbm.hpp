// HBM: the tensors that live in device memory, with their values.
// In counting-only mode the tensors have shapes but no values.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "fasim/dtype.hpp"
#include "fasim/tensor.hpp"

namespace fasim {

/// @brief One tensor in HBM: bh independent (rows, cols) row-major matrices
/// stored as `dtype` (values kept as float, already rounded to dtype).
struct HbmTensor {
  std::int64_t bh = 0;  ///< independent matrices: batch * heads (or pages)
  std::int64_t rows = 0;  ///< rows of each matrix
  std::int64_t cols = 0;  ///< columns of each matrix
  DType dtype = DType::fp32;  ///< storage type; it sets the bytes each element moves
  std::vector<float> values;  ///< empty when counting only

  /// @brief Offset of element (h, r, c) in values.
  std::int64_t offset(std::int64_t h, std::int64_t r, std::int64_t c) const {
    return (h * rows + r) * cols + c;
  }
  /// @brief Bytes of one element as stored.
  std::int64_t elem_bytes() const { return bytes_of(dtype); }
  /// @brief True if values are held (execute mode).
  bool has_values() const { return !values.empty(); }
};

/// @brief All tensors in HBM, indexed by TensorId; absent ones are unused.
struct Hbm {
  std::array<std::optional<HbmTensor>, kTensorCount> tensors;  ///< by index(TensorId); absent if the algorithm does not use it
  /// Paged K/V: physical page of each (sequence, logical page); empty when
  /// K and V are contiguous (see paged_kv.hpp).
  std::vector<std::int64_t> block_table;

  /// @brief The tensor `t`; it must have been declared.
  HbmTensor& at(TensorId t) { return *tensors[index(t)]; }
  /// @brief The tensor `t`; it must have been declared.
  const HbmTensor& at(TensorId t) const { return *tensors[index(t)]; }
  /// @brief True if tensor `t` was declared.
  bool has(TensorId t) const { return tensors[index(t)].has_value(); }

  /// @brief Declares a tensor; allocates (zeroed) values if with_values.
  HbmTensor& add(TensorId t, std::int64_t bh, std::int64_t rows, std::int64_t cols,
                 DType dtype, bool with_values);
};

}  // namespace fasim
