// The fp64 reference: softmax(scale * Q K^T) V computed in double precision
// from the same stored inputs, to measure the simulated algorithm's error.
#pragma once

#include <cstdint>
#include <vector>

#include "fasim/hbm.hpp"

namespace fasim {

/// @brief O_ref for head h, (N, d) row-major, in double. Works on 128 query
/// rows at a time so it never holds an N x N matrix.
std::vector<double> reference_attention(const HbmTensor& q, const HbmTensor& k,
                                        const HbmTensor& v, std::int64_t h, double scale);

}  // namespace fasim
