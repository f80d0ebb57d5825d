// calibrate(): checks, provenance (GPU, driver, date, stock profile), then
// the benchmarks of calibrate.cu (see calibrate.hpp).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <vector>

#include "code_fetch_families.hpp"
#include "fasim/cuda/calibrate.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/cuda/gpu_timer.hpp"
#include "fasim/cuda/hw_counters.hpp"
#include "fasim/cuda/measure.hpp"
#include "fasim/error.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/format.hpp"
#include "fasim/simulation.hpp"
#include "fasim/tiling.hpp"

namespace fasim::cuda {

namespace {

// DRAM writes that no kernel asks for: CUPTI ranges around an idle kernel.
// The GPU writes 256 KiB pieces on its own (about every 14 ms on an H200), so
// a longer wait gives a finer rate.
void measure_background_writes(Calibration& c, double work, const std::function<void(std::string_view)>& progress) {
  c.background_idle_s = 0.5 * std::min(1.0, work);
  if (const auto why = cupti_unavailable()) {
    c.background_why_not = *why;
    return;
  }
  std::vector<double> rates;
  try {
    for (int r = 0; r < c.background_ranges; ++r) {
      const HwCounters h = profile_range([&] { idle_for(c.background_idle_s); });
      if (h.range_seconds > 0) rates.push_back(h.dram_write_bytes / h.range_seconds / (1024.0 * 1024.0));
    }
  } catch (const std::exception& e) {
    c.background_why_not = e.what();
    return;
  }
  if (rates.empty()) {
    c.background_why_not = "the profiler gave no range time";
    return;
  }
  std::sort(rates.begin(), rates.end());
  c.background_write_mib_per_s = rates[(rates.size() - 1) / 2];
  if (progress) {
    char line[96];
    std::snprintf(line, sizeof line, "  DRAM background   %.2f MiB/s written with no kernel asking",
                  *c.background_write_mib_per_s);
    progress(line);
  }
}

// The code each kernel family fetches: cold runs of fasim's own kernels on
// shapes that fit in L2 (so the simulator's DRAM reads are exactly the data,
// read once); what the GPU reads beyond that is code (fidelity.hpp,
// code_fetch_bytes). d = 64 and 128 each, since the kernels unroll per head
// dimension and a run fetches only the code it executes.
void measure_code_fetch(Calibration& c, const std::function<void(std::string_view)>& progress) {
  if (const auto why = cupti_unavailable()) {
    c.code_fetch_why_not = *why;
    return;
  }
  constexpr std::int64_t N = 512;
  const DeviceSpec dev = parse_device(device_toml(c), "the calibration");
  MeasureOptions options;
  options.counter_runs = c.code_fetch_ranges;
  options.check = false;
  try {
    for (const detail::CodeFetchFamily& f : detail::kCodeFetchFamilies) {
      for (const std::int64_t d : {64, 128}) {
        // Heads: as many as keep every tensor (naive: S and P too) within a
        // quarter of the L2, at most 8.
        const std::int64_t elt = bytes_of(f.dtype);
        const std::int64_t per_head = 4 * N * d * elt + (f.algo == Algo::naive ? 2 * N * N * 4 : 0);
        const std::int64_t heads = std::min<std::int64_t>(8, c.l2_bytes / 4 / per_head);
        if (heads < 1) {
          c.code_fetch_why_not = "the L2 (" + human_bytes(static_cast<double>(c.l2_bytes)) +
                                 ") is too small for a shape of N = 512 to fit";
          c.code_fetch_runs.clear();
          return;
        }
        const Workload w{1, heads, N, d, f.dtype};
        Mapping m = default_tiles(f.algo, w, dev);
        // The FP32 flash2 kernel keeps more in shared memory than the
        // simulator's tiles count: 64 x 64 runs at every d, as in the sweeps.
        if (f.algo == Algo::flash2 && f.dtype == DType::fp32) m.br = m.bc = 64;
        const ComputeModel model = cuda_compute_model(w, m);
        if ((model == ComputeModel::cuda_mma) != (f.figure == &CodeFetch::flash2_mma))
          throw std::runtime_error(std::string(f.key) + " at d = " + std::to_string(d) +
                                   " did not pick the kernel version of its family");
        Simulation sim(dev, w, m, {.numerics = false, .l2 = L2Start::cold, .compute = model});
        sim.run();
        const Measurement got = measure(dev, w, m, L2Start::cold, 1, options);
        if (!got.hw) throw std::runtime_error(got.hw_unavailable);
        CodeFetchRun r;
        r.family = std::string(f.key);
        r.shape = std::string(name(f.dtype)) + ", " + std::to_string(heads) + " heads, N = " + std::to_string(N) +
                  ", d = " + std::to_string(d);
        r.data_bytes = static_cast<double>(sim.ledger().cache_total().dram_read_bytes);
        r.read_bytes = got.hw->dram_read_bytes;
        c.code_fetch_runs.push_back(r);
        if (progress) {
          char line[160];
          std::snprintf(line, sizeof line, "  kernel code       %-10s %-30s %6.1f KiB beyond %.2f MiB of data",
                        r.family.c_str(), r.shape.c_str(), r.code_bytes() / 1024, r.data_bytes / (1024.0 * 1024.0));
          progress(line);
        }
      }
    }
  } catch (const std::exception& e) {
    c.code_fetch_why_not = e.what();
    c.code_fetch_runs.clear();
  }
}

}  // namespace

void copy_stock_placement(Calibration& c) {
  c.first_wave_runs.clear();
  c.small_grid_fill.clear();
  c.sampled_sets.clear();
  if (c.stock.empty()) return;
  const DeviceSpec stock = load_device(c.stock);
  if (stock.sm_count == c.sm_count && stock.l2_partitions == c.l2_partitions) {
    c.first_wave_runs = stock.l2_first_wave_runs;
    c.small_grid_fill = stock.l2_small_grid_fill;
    if (stock.l2_bytes == c.l2_bytes) c.sampled_sets = stock.l2_sampled_sets;
  }
}

Calibration calibrate(const CalibrateOptions& options, const std::function<void(std::string_view)>& progress) {
  if (options.runs < 20)
    throw UserError("calibrate needs at least 20 timed runs per benchmark for a median; use --runs 20 or more");
  if (!(options.work > 0)) throw UserError("calibrate's work factor must be positive");
  const GpuInfo g = gpu_info();  // UserError, with the reason, without a usable GPU
  Calibration c;
  c.gpu = g.name;
  c.driver = g.driver;
  c.date = utc_date();
  c.stock = stock_profile_for(g.name);
  detail::run_benchmarks(c, options, progress);
  copy_stock_placement(c);
  measure_background_writes(c, options.work, progress);
  measure_code_fetch(c, progress);
  return c;
}

}  // namespace fasim::cuda
