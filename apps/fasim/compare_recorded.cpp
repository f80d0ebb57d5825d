// `fasim compare --recorded FILE.csv`: predict every point of a recorded GPU
// run again with the current simulator (no GPU needed) and show, per metric,
// how many points meet the bar and the mean and largest error; filters
// (--algo flash2 --N 4096 ...) narrow it to some points, and one point shows
// its predicted and measured values. `--misses OUT` writes the points outside
// their bars: the list CI's ratchet test holds the model to
// (tests/test_recorded_runs.cpp). `--out OUT` writes the points again with
// today's predictions (scripts/figures.sh draws those).
#include "compare_recorded.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/format.hpp"

namespace fasim::cli {

int compare_recorded(const RecordedSelection& sel, const std::string& misses_out, const std::string& out, bool json) {
  const std::vector<RecordedPoint> points = read_recorded_csv(sel.csv);
  const std::string device_name = sel.device.empty() ? recorded_device_path(sel.csv) : sel.device;
  if (device_name.empty())
    throw UserError("no device profile for '" + sel.csv + "'; name one with --device (a NAME-sweep.csv finds "
                    "NAME-measured.toml beside it)");
  const DeviceSpec device = load_device(device_name);
  // Files are opened before any work, so a bad path is one error and no table.
  std::optional<AtomicFile> misses_file, out_file;
  if (!misses_out.empty()) misses_file.emplace(misses_out);
  if (!out.empty()) out_file.emplace(out);
  const std::vector<RecordedPoint> kept = select_recorded(points, sel.filters);  // predict only these
  const std::vector<Reprediction> reps = repredict(kept, device);
  const std::vector<Miss> misses = find_misses(reps);
  const nlohmann::json fit = recorded_fit_json(reps, device, sel);

  if (json) {
    std::cout << fit.dump(2) << "\n";
  } else {
    std::string which = std::to_string(points.size()) + " " + plural(static_cast<std::int64_t>(points.size()), "point");
    if (!sel.filters.empty()) {
      which = std::to_string(reps.size()) + " of " + which + ":";
      for (const auto& [flag, value] : sel.filters) which += " " + flag + " " + value;
    }
    std::cout << "recorded  " << sel.csv << " (" << which << ", " << points.front().device << ", driver "
              << points.front().driver << ", " << points.front().date << ")\n"
              << "predicted fasim on " << device.name << " (" << device_name << "), counting only\n\n";
    if (reps.size() == 1) {
      std::cout << "  " << fit["point"].get<std::string>() << ", predicted " << fit["bound"].get<std::string>()
                << "-bound, blocks placed: " << fit["placement"].get<std::string>() << "\n\n";
      const RecordedPoint& point = *reps[0].point;
      bool ranged = false;  // the CSV gave the least and most of some metric
      for (std::size_t i = 0; i < kMetricCount; ++i) ranged |= point.measured_min[i] && point.measured_max[i];
      std::printf("  %-28s %18s %18s %10s%s\n", "quantity", "predicted", "measured", "error",
                  ranged ? "  GPU range (least - most)" : "");
      for (std::size_t i = 0; i < kMetricCount; ++i) {
        const auto m = static_cast<Metric>(i);
        auto shown = [&](double v) {
          if (m != Metric::time_s) return with_commas(static_cast<std::int64_t>(std::llround(v)));
          return micros(v, 3);
        };
        const auto measured = reps[0].point->measured[i];
        if (!measured) continue;  // not recorded (an older CSV)
        const double p = reps[0].predicted[i];
        char err[32];
        if (p == *measured)
          std::snprintf(err, sizeof err, "exact");
        else
          std::snprintf(err, sizeof err, "%+.1f%%", error_pct(p, *measured));
        std::printf("  %-28s %18s %18s %10s", metric_label(m), shown(p).c_str(), shown(*measured).c_str(), err);
        if (point.measured_min[i] && point.measured_max[i])
          std::printf("  %s - %s", shown(*point.measured_min[i]).c_str(), shown(*point.measured_max[i]).c_str());
        std::printf("\n");
      }
      std::cout << "\n  predicted DRAM reads include "
                << with_commas(static_cast<std::int64_t>(std::llround(reps[0].code_fetch_bytes)))
                << " B of the kernels' code, fetched once by a cold run\n"
                << "  (docs/results/code-fetch-2026-11-29.md), and DRAM writes "
                << with_commas(static_cast<std::int64_t>(std::llround(reps[0].background_write_bytes)))
                << " B of the GPU's background writes\n  (whole 256 KiB pieces; the drained writes take "
                << with_commas(static_cast<std::int64_t>(std::llround(reps[0].background_write_expected_bytes)))
                << " B, the expected value).\n";
    }
    bool repeated = false;  // some points were measured more than once
    if (reps.size() > 1) {
      const nlohmann::json& fits = fit["fit"];  // computed once, above
      for (std::size_t i = 0; i < kMetricCount; ++i) repeated |= fits[name(static_cast<Metric>(i))]["repeated"] > 0;
      std::printf("  %-24s %6s %9s %10s %10s %8s%s\n", "metric", "points", "in bar", "mean |err|", "max |err|", "bar",
                  repeated ? "  GPU spread > bar  in GPU range" : "");
      for (std::size_t i = 0; i < kMetricCount; ++i) {
        const auto m = static_cast<Metric>(i);
        const nlohmann::json& f = fits[name(m)];
        if (f["points"].get<int>() == 0) continue;  // not recorded (an older CSV)
        const int repeats = f["repeated"];
        char bar[16];
        std::snprintf(bar, sizeof bar, bar_pct(m) == 0 ? "exact" : "%.0f%%", bar_pct(m));
        std::printf("  %-24s %6d %9d %9.1f%% %9.1f%% %8s", name(m), f["points"].get<int>(), f["in_bar"].get<int>(),
                    f["mean_abs_error_pct"].get<double>(), f["max_abs_error_pct"].get<double>(), bar);
        if (repeats > 0) {
          char spread[32], range[32];
          std::snprintf(spread, sizeof spread, "%d/%d", f["spread_over_bar"].get<int>(), repeats);
          std::snprintf(range, sizeof range, "%d/%d", f["in_range"].get<int>(), repeats);
          std::printf(" %18s %14s", spread, range);
        }
        std::printf("\n");
      }
    }
    std::cout << "\n  error = (predicted - measured) / measured; " << misses.size() << " "
              << plural(static_cast<std::int64_t>(misses.size()), "(point, metric) pair")
              << (misses.size() == 1 ? " is outside its bar.\n" : " are outside their bars.\n");
    if (repeated)
      std::cout << "  measured = the median of the GPU's runs; GPU spread = (max - min) / median over them.\n";
    else if (reps.size() == 1 && fit["measured_min"].size() > 0)
      std::cout << "  measured = the median of the GPU's runs; the range is their least and most.\n";
  }
  if (misses_file) {
    write_misses(misses_file->stream(), misses);
    misses_file->commit();
    if (!json) std::cout << "  wrote them to " << misses_out << "\n";
  }
  if (out_file) {
    write_repredicted_csv(out_file->stream(), reps);
    out_file->commit();
    if (!json) std::cout << "  wrote the points with today's predictions to " << out << "\n";
  }
  return 0;
}

}  // namespace fasim::cli
