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
/// numerics {max_abs_error, max_rel_error, nonfinite_inputs,
/// propagated_values, overflowed_values, overflow {cause, fix} (only when
/// overflowed_values > 0)} (only when computed; NumericsResult), plus
/// l2 {read_bytes, write_bytes, hit_bytes, miss_bytes, start}, dram
/// {read_bytes, write_bytes, dirty_bytes_at_end}, time {seconds, cycles,
/// bound, tflops, dram_gbps, hbm_request_gbps, kernels: [...]},
/// arithmetic_intensity, steps, kernels, blocks_per_sm, and device_spec
/// (device_spec_json of the device it ran on; "device" stays its name).
nlohmann::json report_json(const Simulation& sim, const std::optional<NumericsResult>& numerics);

/// @brief A device's figures as JSON: name, description, sm_count, clock_hz,
/// sram_bytes_per_sm, sram_bytes_per_block, sram_bandwidth_per_sm,
/// register_bytes_per_sm, register_bytes_per_block, l2_bytes, l2_line_bytes,
/// l2_sector_bytes, l2_partitions, l2_bandwidth, l2_latency_s, hbm_bytes,
/// hbm_bandwidth, hbm_latency_s, matmul_flops {fp32, fp16, bf16}, fp32_flops,
/// exp_rate, launch_overhead_s, and balance_point {fp32, fp16, bf16}: matmul
/// FLOP/s over HBM bytes/s, the intensity where the two roofs meet. Units as
/// in DeviceSpec: bytes, bytes/s, FLOP/s, seconds, Hz.
nlohmann::json device_spec_json(const DeviceSpec& device);

/// @brief FLOPs per HBM byte (matmul + other over read + write).
double arithmetic_intensity(const Ledger& ledger);

}  // namespace fasim
