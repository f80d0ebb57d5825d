// fasim_bench: the simulator's speed, each figure against a baseline measured
// in the same run, then a summary of the bars of issue 7 with their ratios.
// The benchmarks live in files named after what they measure:
//   bench_counting.cpp  counting-only flash2 at N = 8192 .. 131072, and the
//                       plain loop over the same tiles (time per tile, linearity)
//   bench_sweep.cpp     a 102-point sweep at N <= 8192, and its plain loop
//   bench_numerics.cpp  flash2 with numerics against plain Eigen attention
//   bench_line_l2.cpp   flash1 with the H200 full on the line-level L2, against
//                       the same run on the count model
// Memory is measured by fasim_bench_memory (bench_memory.cpp): it needs a
// fresh process per shape. scripts/bench.sh builds and runs both.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

// Keeps each benchmark's real time (seconds per iteration) and counters.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> seconds;
  std::map<std::string, std::map<std::string, double>> counters;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const std::string name = r.benchmark_name();
      seconds[name] = r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
      for (const auto& [k, c] : r.counters) counters[name][k] = c.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  bool has(const std::string& k) const { return seconds.count(k) > 0; }
};

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

void summary(RatioReporter& r) {
  auto& s = r.seconds;
  std::printf("\nSummary (this machine, this run; each ratio against a baseline timed in the same run)\n");

  const std::string big = "BM_Flash2Counting/131072", plain_big = "BM_PlainTileLoop/131072";
  if (r.has(big)) {
    const double t = s[big];
    std::printf("  counting-only flash2 N=131072 d=128 bh=16 Br=Bc=128: %.2f s (bar < 10 s: %s; aim < 5 s: %s)\n", t,
                verdict(t < 10.0), verdict(t < 5.0));
    if (r.has(plain_big))
      std::printf("    vs a plain loop over the same %.0f tiles adding the same bytes: %.3f s, %.0fx\n",
                  r.counters[big]["tiles"], s[plain_big], t / s[plain_big]);
  }

  std::vector<double> per_tile;
  for (long N = 8192; N <= 131072; N *= 2) {
    const std::string f = "BM_Flash2Counting/" + std::to_string(N), p = "BM_PlainTileLoop/" + std::to_string(N);
    if (!r.has(f)) continue;
    if (per_tile.empty())
      std::printf("  time per tile (linear in tiles when it stays the same as N grows; tiles grow as N^2):\n"
                  "    %7s %12s %14s %14s %7s\n", "N", "tiles", "fasim ns/tile", "plain ns/tile", "ratio");
    const double ns = r.counters[f]["s_per_tile"] * 1e9;
    const double plain_ns = r.has(p) ? r.counters[p]["s_per_tile"] * 1e9 : 0;
    per_tile.push_back(ns);
    std::printf("    %7ld %12.0f %14.1f %14.2f %6.0fx\n", N, r.counters[f]["tiles"], ns, plain_ns,
                plain_ns > 0 ? ns / plain_ns : 0.0);
  }
  if (per_tile.size() > 1) {
    const auto [lo, hi] = std::minmax_element(per_tile.begin(), per_tile.end());
    std::printf("    largest / smallest time per tile: %.2f (1.00 is exactly linear)\n", *hi / *lo);
  }

  if (r.has("BM_Sweep102")) {
    const double t = s["BM_Sweep102"];
    std::printf("  sweep of %.0f points at N <= 8192 (naive, flash1, flash2 x d 64, 128 x 17 N, 16 heads), one core:"
                " %.2f s (bar < 10 s: %s)\n", r.counters["BM_Sweep102"]["points"], t, verdict(t < 10.0));
    if (r.has("BM_SweepPlainLoop"))
      std::printf("    vs a plain loop over the same points' %.0f tiles: %.3f s, %.0fx\n",
                  r.counters["BM_Sweep102"]["tiles"], s["BM_SweepPlainLoop"], t / s["BM_SweepPlainLoop"]);
  }

  if (r.has("BM_Flash2FullModel/min_time:2.000")) {
    const double t = s["BM_Flash2FullModel/min_time:2.000"];
    std::printf("  timing + L2 model, flash2 N=16384 d=128 bh=16 Br=128 Bc=64: %.3f s (bar < 2 s): %s\n", t,
                verdict(t < 2.0));
  }
  if (r.has("BM_Flash2Numerics/min_time:2.000") && r.has("BM_EigenAttention/min_time:2.000")) {
    const double f = s["BM_Flash2Numerics/min_time:2.000"], e = s["BM_EigenAttention/min_time:2.000"];
    std::printf("  flash2 with numerics fp32 N=2048 d=64: %.3f s = %.2fx plain Eigen attention (%.3f s) "
                "(bar <= 2x): %s\n", f, f / e, e, verdict(f / e <= 2.0));
  }
  if (r.has("BM_Flash1LineL2/min_time:2.000") && r.has("BM_Flash1CountL2/min_time:2.000")) {
    const double line = s["BM_Flash1LineL2/min_time:2.000"], count = s["BM_Flash1CountL2/min_time:2.000"];
    std::printf("  flash1 fp16 132 heads N=512 d=128, counting, line-level L2 (H200 sample, 32 layouts): %.3f s = %.1fx"
                " the count model alone (%.3f s)\n", line, line / count, count);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  summary(reporter);
  benchmark::Shutdown();
  return 0;
}
