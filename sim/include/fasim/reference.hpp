// The fp64 reference: softmax(scale * Q K^T + mask) V computed in double
// precision from the same stored inputs, to measure the simulated algorithm's
// error.
#pragma once

#include <cstdint>
#include <vector>

#include "fasim/hbm.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief O_ref for head h of plain attention (no mask; K and V have the same
/// heads as Q), (q.rows, d) row-major, in double. Works on 128 query rows at a
/// time so it never holds a full score matrix.
std::vector<double> reference_attention(const HbmTensor& q, const HbmTensor& k,
                                        const HbmTensor& v, std::int64_t h, double scale);

/// @brief O_ref for query head bh of workload w: reads K/V head
/// w.kv_head_of(bh) (through the block table when paged) and applies the
/// causal or window mask; a row that sees no key gets 0. (N, d) row-major.
/// Each row uses only the keys it sees: a NaN or Inf in Q row i, or in the K
/// or V row of a key that row i sees, makes row i NaN or Inf (as IEEE
/// arithmetic gives); a non-finite value in a hidden key's row does not
/// reach it (docs/variants.md, "Non-finite inputs").
std::vector<double> reference_attention(const Hbm& hbm, const Workload& w, std::int64_t bh);

}  // namespace fasim
