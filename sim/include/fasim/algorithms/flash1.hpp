// FlashAttention forward, the paper's Algorithm 1: key/value blocks outer,
// query blocks inner. One thread block per (batch, head) runs the whole loop
// nest (FlashAttention-1 parallelised over batch and heads only). K_j and V_j
// are loaded once; for every (j, i) the block loads Q_i and the running O_i,
// l_i, m_i from HBM, updates them and writes them back. With a mask, (j, i)
// pairs that share no visible (query, key) pair are skipped.
#pragma once

#include "fasim/program.hpp"

namespace fasim::flash1 {

/// @brief Shared: K, V, Q tiles; registers: S/P tile, O_i, l_i and m_i.
OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief Adds l and m (bh, N, 1) fp32, the running statistics kept in HBM.
void declare(const Workload& w, const Mapping& m, Hbm& hbm, bool with_values);
/// @brief One kernel of bh blocks.
Program build(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief The paper's block sizes from the SRAM size M (in elements of the
/// dtype): Bc = ceil(M / 4d), Br = min(Bc, d).
Mapping paper_tiles(const Workload& w, const DeviceSpec& dev);

}  // namespace fasim::flash1
