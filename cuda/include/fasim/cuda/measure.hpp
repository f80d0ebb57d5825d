// One measurement of an attention forward pass on the GPU, everything that
// `fasim gpu run` prints and `fasim compare` sets beside the simulator:
//
//   1. the kernel's own HBM byte counters (one counting launch), which equal
//      the simulator's Ledger exactly, and its output O against an fp64
//      reference computed from the same inputs;
//   2. the median (min, max) time of at least 20 launches with CUDA events,
//      no counting and no profiler, L2 flushed before each (cold) or not (warm);
//   3. the CUPTI hardware counters (DRAM, L2 requests, hit rate, global
//      load/store bytes) over one range, in separate launches; with several
//      placements, again with the buffers allocated anew on other pages.
//
//   const auto m = fasim::cuda::measure(dev, w, mapping, L2Start::cold, seed);
//   m.own_total().read_bytes, m.hw->dram_read_bytes, m.time.median_s, m.max_abs_error
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fasim/cuda/gpu_timer.hpp"
#include "fasim/cuda/hw_counters.hpp"
#include "fasim/cuda/runner.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/machine.hpp"

namespace fasim::cuda {

/// @brief The GPU and its driver, as a run records them.
struct GpuInfo {
  std::string name;         ///< e.g. "NVIDIA H200"
  std::string description;  ///< gpu_description(): name, sm_XY, SMs, shared memory
  std::string driver;       ///< e.g. "580.159.04"; "CUDA 13.0 driver" if the version file is missing
  /// streaming multiprocessors
  int sms = 0;
  /// L2 size
  std::int64_t l2_bytes = 0;
};

/// @brief Reads the GPU's name, description and driver version. Needs a GPU.
GpuInfo gpu_info();

/// @brief How to measure.
struct MeasureOptions {
  std::optional<KernelVersion> version;  ///< unset: default_version(w, m)
  int warmup = 3;                        ///< untimed launches before the timed ones
  int timed_runs = 20;                   ///< timed launches (the median needs at least 20)
  bool counters = true;                  ///< read the CUPTI counters
  int counter_runs = 1;                  ///< profiled ranges per placement; hw is the median of all (median_of)
  /// Buffer placements the counters see. Placement k (from 0) allocates the
  /// tensors again after a pad of k * kPlacementStep bytes, the earlier
  /// placements' buffers still held while free memory allows, so they sit on
  /// other physical pages; near the L2's size that moves DRAM bytes by up
  /// to 80% (docs/results/h200-2026-11-23-flash1-placement.md).
  int placements = 1;
  bool check = true;                     ///< compare O with the fp64 reference
};

/// @brief What measure() found.
struct Measurement {
  /// the kernel version measured
  KernelVersion version = KernelVersion::flash2;
  /// the GPU it ran on
  GpuInfo gpu;
  /// L2 cold (flushed) or warm before each run
  L2Start l2 = L2Start::cold;
  /// seed of the random inputs
  std::uint64_t seed = 1;
  ByteCounts own{};                     ///< the kernels' own counters, per tensor (version 5: closed form)
  bool own_counted = true;              ///< false: `own` is the closed form, not counted (version 5)
  std::vector<int> blocks_per_sm;       ///< blocks one SM held of each kernel (RunResult::blocks_per_sm)
  bool causal = false;                  ///< the workload was causal (matmul_flops halved)
  std::optional<HwCounters> hw;         ///< CUPTI counters (the median of hw_runs); unset if unavailable
  std::vector<HwCounters> hw_runs;      ///< every profiled range, in order (placement by placement)
  int placements = 1;                   ///< buffer placements the ranges cover
  /// earlier placements whose buffers were freed before the last one, for
  /// want of memory (their pages may have come back); 0: every placement
  /// had pages no other one had
  int placements_released = 0;
  std::string hw_unavailable;           ///< why hw is unset (one line), else empty
  TimeStats time;                       ///< unprofiled, uncounted launches
  double matmul_flops = 0;              ///< 4 * batch * heads * N^2 * d, halved when causal (FlashAttention-2's count)
  bool checked = false;                 ///< numerics below were computed
  double max_abs_error = 0;             ///< max |O - O_ref|
  double max_rel_error = 0;             ///< max |O - O_ref| / max |O_ref| (normwise, as the simulator)
  double max_abs_reference = 0;         ///< max |O_ref|

  /// @brief The own counters of all tensors together.
  Traffic own_total() const;
  /// @brief matmul FLOPs / median time, in TFLOP/s.
  double tflops() const { return time.median_s > 0 ? matmul_flops / time.median_s / 1e12 : 0; }
};

/// @brief Runs the workload on the GPU (device 0) with the simulator's random
/// inputs for `seed` and measures it as above. `dev` is the simulated device:
/// it decides, as in the simulator, whether naive's softmax keeps its rows in
/// shared memory. Throws UserError if there is no usable GPU or the kernel
/// cannot run this shape (one line naming the fix), CudaError if CUDA fails.
/// If only CUPTI fails, the result has no hw and says why in hw_unavailable.
Measurement measure(const DeviceSpec& dev, const Workload& w, const Mapping& m, L2Start l2,
                    std::uint64_t seed, const MeasureOptions& options = {});

/// @brief The blocks per SM the kernels got, for a summary line: "2 blocks
/// per SM", "scores 4, softmax 8, output 2 blocks per SM" (naive), with "
/// (held by --blocks-per-sm K)" when m.blocks_per_sm is set.
std::string occupancy_text(const Measurement& measured, const Mapping& m);

/// @brief The measurement as JSON: gpu {name, description, driver}, kernel
/// {version, name, blocks_per_sm [one per kernel]}, l2_start, seed, hbm {read_bytes, write_bytes, by_tensor,
/// counted, source},
/// counters {available, reason | chip, passes, dram {read_bytes, write_bytes},
/// l2 {read_bytes, write_bytes, read_hit_sectors, read_miss_sectors, hit_rate},
/// global {load_bytes, store_bytes}, range_seconds, runs, dram_runs [{read_bytes,
/// write_bytes}] (with more than one run)}, time {median_s, min_s,
/// max_s, runs, warmup, samples_s}, matmul_flops, causal, tflops, numerics {max_abs_error,
/// max_rel_error} (when checked).
nlohmann::json to_json(const Measurement& m);

}  // namespace fasim::cuda
