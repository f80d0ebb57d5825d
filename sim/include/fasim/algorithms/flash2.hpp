// FlashAttention-2 forward: one thread block per (batch*head, query block).
// Each block loads its Q tile once, walks all K/V tiles keeping the running
// max m and sum l on chip (online softmax), divides O by l once at the end,
// and writes O and the log-sum-exp L = m + log(l) once.
//
// Variants (workload.hpp): a block visits only the key tiles its rows see
// under a causal or window mask (a skipped tile costs no load and no FLOP)
// and masks scores elementwise inside a partially visible tile. Each query
// head reads K/V head h / (heads / kv_heads), so GQA does not change the
// bytes requested, only the K/V tensors' size (and the DRAM bytes behind L2).
// Paged K/V tiles are one load per page they touch.
#pragma once

#include "fasim/program.hpp"

namespace fasim::flash2 {

/// @brief Shared: Q, K, V tiles; registers: S/P tile, O accumulator, m and l.
OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief Adds L (bh, N, 1) fp32.
void declare(const Workload& w, const Mapping& m, Hbm& hbm, bool with_values);
/// @brief One kernel of bh * ceil(N / Br) blocks.
Program build(const Workload& w, const Mapping& m, const DeviceSpec& dev);

}  // namespace fasim::flash2
