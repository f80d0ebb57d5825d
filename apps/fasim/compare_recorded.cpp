// `fasim compare --recorded FILE.csv`: predict every point of a recorded GPU
// run again with the current simulator (no GPU needed) and show, per metric,
// how many points meet the bar and the mean and largest error. `--misses OUT`
// writes the points outside their bars: the list CI's ratchet test holds the
// model to (tests/test_recorded_runs.cpp).
#include "compare_recorded.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "fasim/error.hpp"
#include "fasim/fidelity.hpp"

namespace fasim::cli {

std::string recorded_device_path(const std::string& csv) {
  const std::string suffix = "-sweep.csv";
  if (csv.size() > suffix.size() && csv.compare(csv.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string toml = csv.substr(0, csv.size() - suffix.size()) + "-measured.toml";
    if (std::filesystem::exists(toml)) return toml;
  }
  return "";
}

int compare_recorded(const std::string& csv, const std::string& device_flag, const std::string& misses_out) {
  const std::vector<RecordedPoint> points = read_recorded_csv(csv);
  const std::string device_name = device_flag.empty() ? recorded_device_path(csv) : device_flag;
  if (device_name.empty())
    throw UserError("no device profile for '" + csv + "': name one with --device (a NAME-sweep.csv finds "
                    "NAME-measured.toml beside it)");
  const DeviceSpec device = load_device(device_name);
  const std::vector<Reprediction> reps = repredict(points, device);
  const std::vector<Miss> misses = find_misses(reps);

  std::cout << "recorded  " << csv << " (" << points.size() << " points, " << points.front().device << ", driver "
            << points.front().driver << ", " << points.front().date << ")\n"
            << "predicted fasim on " << device.name << " (" << device_name << "), counting only\n\n";
  std::printf("  %-18s %6s %9s %10s %10s %8s\n", "metric", "points", "in bar", "mean |err|", "max |err|", "bar");
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    const auto m = static_cast<Metric>(i);
    int n = 0, in_bar = 0;
    double worst = 0;
    for (const Reprediction& r : reps)
      if (const auto measured = r.point->measured[i]) {
        ++n;
        const double e = error_pct(r.predicted[i], *measured);
        worst = std::max(worst, std::abs(e));
        if (bar_pct(m) == 0 ? r.predicted[i] == *measured : std::abs(e) <= bar_pct(m)) ++in_bar;
      }
    char bar[16];
    std::snprintf(bar, sizeof bar, bar_pct(m) == 0 ? "exact" : "%.0f%%", bar_pct(m));
    std::printf("  %-18s %6d %9d %9.1f%% %9.1f%% %8s\n", name(m), n, in_bar, mean_abs_error_pct(reps, m), worst, bar);
  }
  std::cout << "\n  error = (predicted - measured) / measured; " << misses.size()
            << " (point, metric) pairs are outside their bars.\n";
  if (!misses_out.empty()) {
    write_misses(misses_out, misses);
    std::cout << "  wrote them to " << misses_out << "\n";
  }
  return 0;
}

}  // namespace fasim::cli
