// Report: the numbers of a finished simulation as one JSON object, the form
// that `fasim run --json` prints and that tests, lessons and docs read.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "fasim/simulation.hpp"

namespace fasim {

/// @brief The stable keys: workload {batch, heads, N, d, dtype, kv_heads,
/// N_kv, causal, window, page_size} (kv_heads and N_kv resolved: never 0;
/// causal is true with a window, which implies it), mapping {algo, br, bc,
/// splits, double_buffer} (splits: 0 except for decode), device (name), hbm {read_bytes, write_bytes, by_tensor:
/// {NAME: {read_bytes, write_bytes}}}, flops {matmul, other, exp},
/// sram {peak_bytes_per_block, capacity_bytes_per_block}, registers {...},
/// numerics {max_abs_error, max_rel_error} (only when computed), plus
/// l2 {read_bytes, write_bytes, hit_bytes, miss_bytes, start}, dram
/// {read_bytes, write_bytes, dirty_bytes_at_end}, time {seconds, cycles,
/// bound, tflops, dram_gbps, hbm_request_gbps, kernels: [...]},
/// arithmetic_intensity, steps, kernels, blocks_per_sm.
nlohmann::json report_json(const Simulation& sim, const std::optional<NumericsResult>& numerics);

/// @brief FLOPs per HBM byte (matmul + other over read + write).
double arithmetic_intensity(const Ledger& ledger);

}  // namespace fasim
