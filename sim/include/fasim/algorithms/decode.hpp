// Flash-Decoding (split-KV): attention for a few query rows against a long
// key cache. One query row per head cannot fill a GPU one block per query
// block, so the keys are split into `splits` chunks, each its own block:
//
//   kernel 1 (split): one block per (K/V head, query block, split). It loads
//     its query rows once, walks its chunk of key tiles with the online
//     softmax, and writes a normalised partial output Opart (fp32) and its
//     log-sum-exp Lpart.
//   kernel 2 (combine): one block per (K/V head, query block). It reads every
//     split's Lpart and Opart and combines them with the same online softmax,
//     one "score" L_s per split: O = sum_s exp(L_s - L) Opart_s with
//     L = log sum_s exp(L_s). It writes O and L.
// With splits = 1 there is nothing to combine: kernel 1 writes O and L itself.
//
// GQA-aware: the G = heads / kv_heads query heads that share a K/V head are
// one block's rows ("packed": packed row p is query row p mod N of head
// p / N of the group), so each K/V tile is read once per group, not once per
// query head. A group's rows of Q and O are adjacent in memory, so each
// packed tile is one load and one store. Query blocks have Br packed rows.
//
// Splits divide the key tiles a query block sees as evenly as they can:
// split s of n tiles gets tiles [s*n/S, (s+1)*n/S). A split that gets no tile
// (only with a mask) writes Opart = 0 and Lpart = -inf, which weigh nothing.
#pragma once

#include "fasim/program.hpp"

namespace fasim::decode {

/// @brief Packed query rows per K/V head: (heads / kv_heads) * N.
std::int64_t packed_rows(const Workload& w);
/// @brief Splits when none are given: enough blocks for every SM,
/// ceil(SMs / (batch * kv_heads * ceil(packed rows / Br))), at most the
/// most key tiles a query block sees, at least 1.
std::int64_t default_splits(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief The larger of the split kernel (Q, K, V tiles; S/P, O, m, l) and
/// the combine kernel (Opart, Lpart tiles; O, m, l).
OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec& dev);
/// @brief Adds L (bh, N, 1) fp32 and, with splits > 1, Opart (batch*kv_heads,
/// splits * packed rows, d) and Lpart (batch*kv_heads, splits * packed rows, 1), fp32.
void declare(const Workload& w, const Mapping& m, Hbm& hbm, bool with_values);
/// @brief The split kernel and, with splits > 1, the combine kernel. Needs
/// m.splits >= 1 (the Simulation resolves 0 to default_splits).
Program build(const Workload& w, const Mapping& m, const DeviceSpec& dev);

}  // namespace fasim::decode
