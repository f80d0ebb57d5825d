// Workload: the attention shape being computed (what, not how).
#pragma once

#include <cmath>
#include <cstdint>

#include "fasim/dtype.hpp"

namespace fasim {

/// @brief One attention forward pass: O = softmax(scale * Q K^T) V for every
/// (batch, head). Q, K, V and O are (N, d) per head; scale = 1 / sqrt(d).
struct Workload {
  std::int64_t batch = 1;   ///< sequences
  std::int64_t heads = 1;   ///< attention heads per sequence
  std::int64_t N = 1024;    ///< sequence length (query rows = key rows)
  std::int64_t d = 64;      ///< head dimension
  DType dtype = DType::fp16;

  /// @brief batch * heads: independent attention problems.
  std::int64_t bh() const { return batch * heads; }
  /// @brief Elements of one (N, d) tensor of one head.
  std::int64_t head_elems() const { return N * d; }
  /// @brief Bytes per stored element.
  std::int64_t elem_bytes() const { return bytes_of(dtype); }
  /// @brief Softmax scale 1 / sqrt(d).
  double scale() const { return 1.0 / std::sqrt(static_cast<double>(d)); }
};

}  // namespace fasim
