// FlashAttention-2 forward: one thread block per (batch*head, query block).
// Each block loads its Q tile once, walks all K/V tiles keeping the running
// max m and sum l on chip (online softmax), divides O by l once at the end,
// and writes O and the log-sum-exp L = m + log(l) once.
#pragma once

#include "fasim/program.hpp"

namespace fasim::flash2 {

/// @brief Shared: Q, K, V tiles; registers: S/P tile, O accumulator, m and l.
OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief Adds L (bh, N, 1) fp32.
void declare(const Workload& w, Hbm& hbm, bool with_values);
/// @brief One kernel of bh * ceil(N / Br) blocks.
Program build(const Workload& w, const Mapping& m, const DeviceSpec& dev);

}  // namespace fasim::flash2
