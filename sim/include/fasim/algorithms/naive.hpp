// Standard attention as three kernels, each tiled with the same Br and Bc:
//   1. S = scale * Q K^T  — block per query block; loads Q_i once, every K_j; stores S
//   2. P = softmax(S)     — block per Br rows; one pass if the rows fit in SRAM,
//                           otherwise two passes over S (online max/sum, then P)
//   3. O = P V            — block per query block; loads P_ij and V_j; stores O_i
// S and P are (N, N_kv) per query head. A causal or window mask is applied in
// kernel 2 only, as standard attention does: the bytes are those of no mask.
#pragma once

#include "fasim/program.hpp"

namespace fasim::naive {

/// @brief True if kernel 2 keeps a block's Br full rows of S in SRAM (one pass).
bool softmax_rows_fit(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief The most any of the three kernels needs.
OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief Adds S and P (bh, N, N) in the workload's dtype.
void declare(const Workload& w, const Mapping& m, Hbm& hbm, bool with_values);
/// @brief The three kernels.
Program build(const Workload& w, const Mapping& m, const DeviceSpec& dev);

}  // namespace fasim::naive
