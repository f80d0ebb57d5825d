// calibrate(): checks, provenance (GPU, driver, date, stock profile), then
// the benchmarks of calibrate.cu (see calibrate.hpp).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <vector>

#include "fasim/cuda/calibrate.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/cuda/gpu_timer.hpp"
#include "fasim/cuda/hw_counters.hpp"
#include "fasim/cuda/measure.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"

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

}  // namespace

void copy_stock_placement(Calibration& c) {
  c.first_wave_runs.clear();
  c.small_grid_fill.clear();
  if (c.stock.empty()) return;
  const DeviceSpec stock = load_device(c.stock);
  if (stock.sm_count == c.sm_count && stock.l2_partitions == c.l2_partitions) {
    c.first_wave_runs = stock.l2_first_wave_runs;
    c.small_grid_fill = stock.l2_small_grid_fill;
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
  return c;
}

}  // namespace fasim::cuda
