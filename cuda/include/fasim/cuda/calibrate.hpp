// `fasim gpu calibrate`: microbenchmarks that measure, on the GPU at hand,
// each figure of the device TOML that the timing model uses
// (docs/timing-model.md), and a device TOML written from them.
//
//   const fasim::cuda::Calibration c = fasim::cuda::calibrate({}, progress);   // needs a GPU
//   const std::string text = fasim::cuda::device_toml(c);   // parses with fasim::parse_device
//   for (const auto& f : fasim::cuda::figures(c, stock))  ... f.value, f.stock, f.source, f.how
//
// What each benchmark does (all: warm-up launches first, CUDA events around
// each timed launch, the median of at least 20 timed launches, every CUDA
// call checked):
//   HBM bandwidth   a copy (read + write) of a buffer of >= 32 x L2, and a
//                   read-only pass over it; back to back, so each run finds
//                   the steady state of the one before (dirty lines written back)
//   L2 bandwidth    every SM reads (ld.global.cg, no L1) a working set of
//                   L2 / 8 over and over
//   shared memory   one block of 1024 threads per SM (128 KiB of shared memory
//                   forces it) reads 16-byte words without bank conflicts;
//                   bytes per SM clock from clock64() inside each block
//   matmul          mma.sync m16n8k16, fp16 or bf16 in, fp32 accumulate,
//                   operands in registers (what fasim's tensor-core kernel
//                   issues; wgmma, which the datasheet peak needs, is faster)
//   FP32            independent FMA chains in registers (2 FLOP per FMA);
//                   also the fp32 "matmul" rate: fasim's fp32 kernels multiply
//                   on the FP32 units
//   exp             ex2.approx.ftz.f32 chains (MUFU.EX2); __expf and expf beside it
//   latency         one thread chasing pointers in random order, 256 B apart:
//                   over L2 / 8 (warm, L2 hits), and over 2 x L2 after an L2
//                   flush (every step a miss, HBM)
//   launch          1000 empty kernels back to back, time per launch
//   DRAM background CUPTI ranges around a kernel that waits 0.5 s and touches
//                   no memory: DRAM bytes written / range time (the GPU's
//                   own writes, which every counter range also counts)
//   kernel code     fasim's own kernels, each family at d = 64 and 128 on a
//                   shape that fits in L2, cold (L2 flushed), in CUPTI ranges:
//                   DRAM bytes read beyond the data the simulator predicts
//                   (its inputs, once) are the code the launch fetched
//   clock           the SM clock seen during each compute benchmark, from
//                   clock64() against %globaltimer (clocks are never changed)
// Sizes, SM count, shared memory and registers come from
// cudaGetDeviceProperties; the L2 line and sector sizes from the CUDA guide.
//
// This header is plain C++17 (no CUDA types, no simulator headers, so that
// calibrate.cu, compiled as C++17 by nvcc, includes it): the TOML writer, the
// table and the JSON work without a GPU (tests/cuda/test_calibrate.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fasim {
struct DeviceSpec;  // fasim/device_spec.hpp
}

namespace fasim::cuda {

/// @brief Which HBM figure goes into the TOML's [hbm] bandwidth_gbps.
enum class HbmFigure {
  copy,  ///< read + write (the model's one HBM server carries both directions)
  read,  ///< read only
};
/// @brief "copy" or "read".
std::string_view name(HbmFigure f);

/// @brief How to calibrate.
struct CalibrateOptions {
  int runs = 20;                      ///< timed launches per benchmark (the median; at least 20)
  int warmup = 3;                     ///< untimed launches first
  HbmFigure hbm = HbmFigure::copy;    ///< the HBM figure the TOML gets
  double work = 1.0;                  ///< scales each launch's work (tests use less; 1 = about 1-10 ms each)
};

/// @brief One cold run of a fasim kernel that measured its family's code.
struct CodeFetchRun {
  std::string family;       ///< the [code_fetch] key without "_kib": naive, flash1, flash2, flash2_mma
  std::string shape;        ///< e.g. "fp32, 4 heads, N = 512, d = 64"
  double data_bytes = 0;    ///< DRAM bytes the simulator predicts for the data (cold; it fits in L2)
  double read_bytes = 0;    ///< DRAM bytes the GPU read: the median of Calibration::code_fetch_ranges
  /// @brief The bytes read beyond the data (the code), never below 0.
  double code_bytes() const { return read_bytes > data_bytes ? read_bytes - data_bytes : 0.0; }
};

/// @brief Everything calibrate() found, and how. All rates are medians.
struct Calibration {
  // Provenance
  std::string gpu;           ///< cudaDeviceProp::name, e.g. "NVIDIA H100 80GB HBM3"
  std::string driver;        ///< e.g. "580.65.06"
  std::string date;          ///< UTC, "2025-11-21"
  std::string cuda_runtime;  ///< e.g. "13.0"
  std::string stock;         ///< the built-in profile of this GPU ("h100"), or empty
  /** @var cc_minor
   *  Compute capability, minor. */
  /// Compute capability, major (9 for Hopper).
  int cc_major = 0, cc_minor = 0;
  /** @var warmup
   *  Untimed runs before them. */
  /// Timed runs of each benchmark; the figures are their medians.
  int runs = 20, warmup = 3;

  // cudaGetDeviceProperties
  /// multiProcessorCount
  std::int64_t sm_count = 0;
  std::int64_t sram_bytes_per_sm = 0;         ///< sharedMemPerMultiprocessor
  std::int64_t sram_bytes_per_block = 0;      ///< sharedMemPerBlockOptin
  std::int64_t register_bytes_per_sm = 0;     ///< regsPerMultiprocessor x 4 B
  std::int64_t register_bytes_per_block = 0;  ///< regsPerBlock x 4 B
  std::int64_t l2_bytes = 0;                  ///< l2CacheSize
  std::int64_t hbm_bytes = 0;                 ///< totalGlobalMem
  double peak_clock_ghz = 0;                  ///< cudaDevAttrClockRate (the peak, not the current)

  // CUDA C++ Programming Guide (not measurable from a program without counters)
  /// L2 line, from the guide
  std::int64_t l2_line_bytes = 128;
  /// L2 sector, from the guide: what L2 fills and writes back
  std::int64_t l2_sector_bytes = 32;
  /// L2 partitions, from the A100 and H100 whitepapers: 2 from sm_80 on, else 1
  std::int64_t l2_partitions = 1;

  // Copied from the stock profile of the same GPU (not measured by calibrate)
  /// the first wave's block order ([l2] first_wave_runs), when the stock
  /// profile has one and the same SM count and partitions; else empty
  std::vector<std::int64_t> first_wave_runs;
  /// the order a grid of one wave fills SMs next to the halves ([l2]
  /// small_grid_fill), on the same terms
  std::string small_grid_fill;
  /// the GPU's sampled L2 sets ([l2] sampled_sets), when the stock profile
  /// names one and has the same SM count, partitions and L2 size; else empty
  std::string sampled_sets;

  // Measured
  double clock_ghz = 0;          ///< SM clock during the FP32 benchmark
  double clock_matmul_ghz = 0;   ///< SM clock during the fp16 mma.sync benchmark
  double hbm_copy_gbps = 0;      ///< (read + written bytes) / time
  double hbm_read_gbps = 0;      ///< read bytes / time
  /// Which HBM figure goes into the TOML: copy or read bandwidth.
  HbmFigure hbm_figure = HbmFigure::copy;
  /// L2 bandwidth, GB/s, reading a working set that fits in L2
  double l2_gbps = 0;
  /// shared-memory bytes per clock per SM
  double sram_bytes_per_clock_per_sm = 0;
  double matmul_fp16_tflops = 0;  ///< mma.sync m16n8k16 f16 -> f32
  double matmul_bf16_tflops = 0;  ///< mma.sync m16n8k16 bf16 -> f32
  double fp32_tflops = 0;         ///< FMA, 2 FLOP each
  double exp_per_clock_per_sm = 0;   ///< ex2.approx.ftz.f32
  double expf_fast_per_clock_per_sm = 0;  ///< __expf (FMUL + ex2.approx)
  double expf_per_clock_per_sm = 0;  ///< expf, the library function fasim's fp32 kernels call
  /// L2 hit latency, ns (pointer chase)
  double l2_latency_ns = 0;
  /// L2 hit latency, SM clocks
  double l2_latency_cycles = 0;
  /// HBM latency, ns (pointer chase past L2)
  double hbm_latency_ns = 0;
  /// HBM latency, SM clocks
  double hbm_latency_cycles = 0;
  double launch_overhead_us = 0;  ///< per empty kernel, back to back
  /// DRAM MiB/s written in counter ranges around an idle kernel (median of
  /// background_ranges); unset if CUPTI could not run (background_why_not)
  std::optional<double> background_write_mib_per_s;
  /// why the background writes were not measured
  std::string background_why_not;
  /// the cold runs that measured each kernel family's code, in family order;
  /// empty if they could not run (code_fetch_why_not)
  std::vector<CodeFetchRun> code_fetch_runs;
  /// why the kernels' code was not measured
  std::string code_fetch_why_not;

  // What was run (for the "how" of each figure)
  std::int64_t hbm_buffer_bytes = 0;      ///< each of source and destination
  /// bytes the L2 bandwidth benchmark reads over and over
  std::int64_t l2_working_set_bytes = 0;
  /** @var l2_chase_steps
   *  Dependent loads it times. */
  /// Bytes of the L2 latency pointer chase.
  std::int64_t l2_chase_bytes = 0, l2_chase_steps = 0;
  /** @var hbm_chase_steps
   *  Dependent loads it times. */
  /// Bytes of the HBM latency pointer chase.
  std::int64_t hbm_chase_bytes = 0, hbm_chase_steps = 0;
  /// distance between the chased pointers
  std::int64_t chase_stride_bytes = 256;
  /// empty kernels timed for the launch overhead
  int launches_per_run = 1000;
  /// seconds the idle kernel of each background range waits
  double background_idle_s = 0.5;
  /// counter ranges for the background writes (each needs one idle kernel per profiler pass)
  int background_ranges = 3;
  /// counter ranges of each kernel-code run (their median)
  int code_fetch_ranges = 5;

  /// @brief The HBM figure that the TOML gets (copy or read, per hbm_figure).
  double hbm_gbps() const { return hbm_figure == HbmFigure::copy ? hbm_copy_gbps : hbm_read_gbps; }
};

/// @brief Where a figure comes from.
enum class Source { measured, device_properties, datasheet, not_measured };
/// @brief "measured", "cudaGetDeviceProperties", "datasheet" or "not measured".
std::string_view name(Source s);

/// @brief One figure: a TOML key (table.key), or an extra shown beside them
/// (key empty in the TOML sense: `toml` false).
struct Figure {
  std::string key;    ///< "hbm.bandwidth_gbps"; extras: "extra.hbm_read_gbps"
  bool toml = true;   ///< written to the device TOML
  std::string label;  ///< "HBM bandwidth"
  std::string unit;   ///< "GB/s"
  /// the figure, in `unit`
  double value = 0;
  std::optional<double> stock;  ///< the built-in profile's figure, same unit
  /// where it comes from
  Source source = Source::measured;
  std::string how;  ///< one line
  /// @brief value / stock, if there is a stock figure and this one was measured.
  std::optional<double> ratio() const;
};

/// @brief The figures in TOML order, then the extras; `stock` (the built-in
/// profile of the GPU, may be null) fills Figure::stock.
std::vector<Figure> figures(const Calibration& c, const DeviceSpec* stock);

/// @brief The device TOML: name "<stock or GPU slug>-measured", every key of
/// the schema, each with a comment line above it saying it was measured (or
/// read) by `fasim gpu calibrate` on <GPU>, driver <version>, <date>, and how.
std::string device_toml(const Calibration& c);

/// @brief The table for people: figure, measured, stock, ratio, source; then
/// how each was measured.
std::string figures_table(const Calibration& c, const DeviceSpec* stock);

/// @brief {gpu {name, driver, date, cuda_runtime, compute_capability}, stock,
/// hbm_figure, runs, warmup, figures: [{key, toml, label, unit, value, stock,
/// ratio, source, how}]}.
nlohmann::json to_json(const Calibration& c, const DeviceSpec* stock);

/// @brief The built-in profile of a GPU name ("NVIDIA H100 80GB HBM3" -> "h100";
/// H200, H100, A100), or empty.
std::string stock_profile_for(std::string_view gpu_name);
/// @brief "<stock>-measured", else the GPU name in lower case with '-' for
/// anything but letters and digits, plus "-measured".
std::string measured_name(const Calibration& c);
/// @brief "configs/devices/<measured_name>.toml".
std::string default_out_path(const Calibration& c);
/// @brief Why `path` must not be written (a built-in profile's file name, or
/// an existing file that `fasim gpu calibrate` did not write), as one line
/// that names the fix; nullopt if it may.
std::optional<std::string> refuse_out_path(const std::string& path);

/// @brief Takes the first wave's block order from the stock profile (c.stock)
/// when it has the same SM count and L2 partitions: a probe of its own
/// (docs/results/launch-placement-2026-11-23.md), not a calibrate benchmark.
void copy_stock_placement(Calibration& c);

/// @brief Runs every benchmark on device 0. `progress` (may be empty) gets a
/// line per benchmark with its result. Throws UserError if there is no usable
/// GPU or runs < 20, std::runtime_error (one line) if a CUDA call fails.
Calibration calibrate(const CalibrateOptions& options = {},
                      const std::function<void(std::string_view)>& progress = {});

namespace detail {
/// @brief The GPU part of calibrate() (calibrate.cu): fills the device
/// properties, the measured figures and what was run; c's provenance (gpu,
/// driver, date, stock) is set by the caller. Throws std::runtime_error if a
/// CUDA call fails.
void run_benchmarks(Calibration& c, const CalibrateOptions& options,
                    const std::function<void(std::string_view)>& progress);
}  // namespace detail

}  // namespace fasim::cuda
