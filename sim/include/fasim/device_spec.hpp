// DeviceSpec: the hardware a simulation runs on, parsed from
// configs/devices/*.toml (built into the binary) or a user's TOML file.
// Immutable once parsed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/dtype.hpp"

namespace fasim {
/// @brief Ways of an L2 set, where a device profile does not say ([l2] ways).
/// A fit, not a datasheet figure (NVIDIA does not publish it). First 32, on
/// the H200 sweep alone (docs/results/h200-2026-11-21-sweep.csv: DRAM reads
/// within 10% at 54, 56 and 54 of 60 points with 16, 32 and 64 ways). Since
/// 2026-11-29, 64: with small grids placed as the GPUs place them
/// (block_placement.hpp), the sharper edge fits flash1 at the L2's size and
/// the GPU's own-rows re-reads (docs/results/readers-2026-11-29.md). Over
/// the 29 recorded sets CI holds, DRAM writes in bar went from 467 to 483 of
/// 700, reads from 658 to 654 (small-grid-placement-2026-11-28.md).
/// The H200's own sets, measured since (docs/results/l2-evset-2026-11-30.md),
/// have 16 ways, LRU, and an address index that gives every set its share
/// of a run to within a line; the model's sets are random, so 64 random
/// ways stand in for 16 even ones (a run turns over as sharply).
inline constexpr std::int64_t kL2Ways = 64;
/// @brief The most ways a profile may give: beyond it, a set is as good as
/// fully associative (0 ways), and its table of chances costs more to build.
inline constexpr std::int64_t kL2MaxWays = 1024;
}  // namespace fasim

namespace fasim {

/// @brief DRAM bytes of machine code that one cold run of each of fasim's
/// CUDA kernel families reads: the first launch after an L2 flush fetches its
/// instructions from DRAM, once ([code_fetch] in a device TOML, in KiB).
/// Instructions reach the SMs without L2 requests, so only the DRAM counter
/// sees them. The defaults are the medians of the cold runs that fit in L2,
/// recorded on an H200 and an H100 with this repository's kernels built by
/// CUDA 13.0 (docs/results/code-fetch-2026-11-29.md); a kernel's code, and
/// so its figure, changes with the build, and `fasim gpu calibrate` measures
/// it again.
struct CodeFetch {
  double naive = 240 * 1024.0;      ///< the three naive kernels, bytes ([code_fetch] naive_kib)
  double flash1 = 220 * 1024.0;     ///< flash1 ([code_fetch] flash1_kib)
  double flash2 = 280 * 1024.0;     ///< flash2 on the FP32 units, versions 1 and 2 ([code_fetch] flash2_kib)
  double flash2_mma = 72 * 1024.0;  ///< flash2 on tensor cores, version 4 ([code_fetch] flash2_mma_kib)
};

/// @brief Figures of one GPU. Bandwidths in bytes/s, rates in operations/s,
/// sizes in bytes, latencies in seconds.
struct DeviceSpec {
  std::string name;         ///< short name, e.g. "h100"
  std::string description;  ///< e.g. "NVIDIA H100 SXM5 80GB"
  std::string source;       ///< "built-in" or the TOML path it came from

  // Compute units
  std::int64_t sm_count = 0;  ///< streaming multiprocessors (SMs) on the chip ([compute] sm_count)
  double clock_hz = 0;        ///< SM clock in Hz ([compute] clock_ghz x 1e9); per-clock rates scale with it

  // On-chip memory (SRAM = shared memory) and registers
  std::int64_t sram_bytes_per_sm = 0;          ///< bytes of shared memory on one SM, shared by its resident blocks
  std::int64_t sram_bytes_per_block = 0;       ///< most one block may use
  std::int64_t register_bytes_per_sm = 0;      ///< bytes of register file on one SM, shared by its resident blocks
  std::int64_t register_bytes_per_block = 0;   ///< most one block may use
  double sram_bandwidth_per_sm = 0;            ///< bytes/s, one SM

  // L2
  std::int64_t l2_bytes = 0;         ///< L2 capacity in bytes, all partitions together
  std::int64_t l2_line_bytes = 0;    ///< bytes of one L2 line (the unit of tags and eviction), e.g. 128
  std::int64_t l2_sector_bytes = 0;  ///< bytes of one L2 sector (the unit of a transfer), e.g. 32
  double l2_bandwidth = 0;   ///< bytes/s, whole chip
  double l2_latency_s = 0;   ///< seconds one load waits when everything it reads hits in L2
  /// L2 partitions ([l2] partitions, default 1): SMs read far partitions'
  /// data through a copy in their own (see l2_partitions.hpp)
  std::int64_t l2_partitions = 1;
  /// L2 ways ([l2] ways, default kL2Ways): lines of one set; 0 is one set,
  /// fully associative (see l2_sets.hpp)
  std::int64_t l2_ways = kL2Ways;
  /// The GPU's first-wave block order ([l2] first_wave_runs, default none):
  /// a large grid's first blocks fill SMs next to one partition, then the
  /// next, in runs of these many blocks (summing to sm_count). Empty: blocks
  /// dealt to the partitions in turn (see block_placement.hpp)
  std::vector<std::int64_t> l2_first_wave_runs;
  /// The GPU's order for grids of one wave or less ([l2] small_grid_fill,
  /// default none): one letter an SM, the L2 half next to the SM the GPU
  /// fills k-th, A the first SM's half and B the other (two partitions
  /// only). A grid of n blocks sits next to the halves of the first n
  /// letters. Empty: dealt in turn (see block_placement.hpp)
  std::string l2_small_grid_fill;
  /// A sample of the GPU's own L2 sets ([l2] sampled_sets, default none):
  /// the name of a built-in sample (configs/l2-sets/NAME.txt). Given, runs
  /// that fit its window on grids that fill the GPU use the line-level L2 of
  /// those sets (l2_lines.hpp); the others, and devices without one, the
  /// count model (l2_partitions.hpp)
  std::string l2_sampled_sets;

  // HBM
  std::int64_t hbm_bytes = 0;  ///< HBM capacity in bytes (the largest workload that fits)
  double hbm_bandwidth = 0;  ///< bytes/s
  double hbm_latency_s = 0;  ///< seconds one load waits when any of it misses in L2 and goes to DRAM
  /// Bytes/s the GPU writes to DRAM with no kernel asking ([hbm]
  /// background_write_mib_per_s, default 0): measured in a counter range
  /// around a kernel that touches no memory. Not the kernel's traffic, so the
  /// ledger leaves it out; predicted_metrics adds it for the counter's view.
  double dram_background_write_rate = 0;
  /// DRAM bytes of code a cold run of each CUDA kernel family reads
  /// ([code_fetch], defaults in CodeFetch); predicted_metrics adds them.
  CodeFetch code_fetch;

  // Arithmetic rates (whole chip)
  double matmul_flops_fp32 = 0;  ///< FLOP/s of fp32 matmul
  double matmul_flops_fp16 = 0;  ///< FLOP/s of fp16 tensor-core matmul, fp32 accumulate
  double matmul_flops_bf16 = 0;  ///< FLOP/s of bf16 tensor-core matmul, fp32 accumulate
  double fp32_flops = 0;         ///< FLOP/s of non-matmul fp32 work
  double exp_rate = 0;           ///< exponentials/s (special function units)
  double launch_overhead_s = 0;  ///< cost of one kernel launch

  /// @brief Matmul rate for a storage type.
  double matmul_flops(DType t) const;
};

/// @brief Parses a device TOML text; `origin` names it in error messages.
/// Throws UserError naming the file, line and column of a syntax error, or the
/// missing/invalid key.
DeviceSpec parse_device(std::string_view toml_text, const std::string& origin);

/// @brief Loads a device by built-in name ("h100") or by TOML path
/// (anything ending in ".toml" or containing '/'). Throws UserError listing
/// the known names if unknown.
DeviceSpec load_device(std::string_view name_or_path);

/// @brief All built-in devices, in a stable order.
std::vector<DeviceSpec> builtin_devices();

}  // namespace fasim
