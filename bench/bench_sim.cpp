// Simulator speed, each figure against a baseline measured in the same run.
//
//  - counting-only flash2, N = 16384, d = 128, batch*heads = 16, Br = Bc = 128
//    (bar: under 1 s); baseline: a plain loop over the same tiles adding the
//    same bytes, so the ratio is the cost of the Step machinery.
//  - flash2 with numerics, fp32, N = 2048, d = 64, one head (bar: at most 2x
//    a plain Eigen fp32 attention of the same shape).
//  - the full model (timing over all SMs + L2) of flash2, N = 16384, d = 128,
//    batch*heads = 16, fp16, Br = 128, Bc = 64 (bar: under 2 s).
// Every simulation runs the timing and L2 model; counting-only skips values.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "fasim/device_spec.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

const DeviceSpec& h100() {
  static const DeviceSpec dev = load_device("h100");
  return dev;
}

void BM_Flash2Counting(benchmark::State& state) {
  const Workload w{1, 16, 16384, 128, DType::fp16};
  for (auto _ : state) {
    Simulation sim(h100(), w, Mapping{Algo::flash2, 128, 128}, {.numerics = false});
    sim.run();
    benchmark::DoNotOptimize(sim.ledger().hbm_total().read_bytes);
    state.counters["steps"] = static_cast<double>(sim.ledger().steps());
  }
}

// Baseline for the above: the same tile loops, adding the same bytes, no Steps.
void BM_PlainTileLoop(benchmark::State& state) {
  const std::int64_t N = 16384, d = 128, bh = 16, br = 128, bc = 128, b = 2;
  for (auto _ : state) {
    std::int64_t read = 0, write = 0;
    for (std::int64_t h = 0; h < bh; ++h)
      for (std::int64_t i = 0; i < N; i += br) {
        const std::int64_t rows = std::min(br, N - i);
        read += rows * d * b;
        for (std::int64_t j = 0; j < N; j += bc) {
          benchmark::DoNotOptimize(read += 2 * std::min(bc, N - j) * d * b);
        }
        write += rows * d * b + rows * 4;
      }
    benchmark::DoNotOptimize(read + write);
  }
}

void BM_Flash2FullModel(benchmark::State& state) {
  const Workload w{1, 16, 16384, 128, DType::fp16};
  for (auto _ : state) {
    Simulation sim(h100(), w, Mapping{Algo::flash2, 128, 64}, {.numerics = false});
    sim.run();
    benchmark::DoNotOptimize(sim.time().seconds);
    state.counters["steps"] = static_cast<double>(sim.ledger().steps());
  }
}

void BM_Flash2Numerics(benchmark::State& state) {
  const Workload w{1, 1, 2048, 64, DType::fp32};
  for (auto _ : state) {
    Simulation sim(h100(), w, Mapping{Algo::flash2, 128, 128}, {.numerics = true});
    sim.run();
    benchmark::DoNotOptimize(sim.hbm().at(TensorId::O).values.data());
  }
}

// Baseline: plain Eigen fp32 attention, O = softmax(scale Q K^T) V.
void BM_EigenAttention(benchmark::State& state) {
  using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int N = 2048, d = 64;
  std::mt19937_64 rng(1);
  std::normal_distribution<float> normal;
  Mat Q(N, d), K(N, d), V(N, d);
  for (Mat* m : {&Q, &K, &V})
    for (int i = 0; i < m->size(); ++i) m->data()[i] = normal(rng);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (auto _ : state) {
    Mat S = scale * (Q * K.transpose());
    for (int r = 0; r < N; ++r) {
      auto row = S.row(r);
      row = (row.array() - row.maxCoeff()).exp().matrix();
      row /= row.sum();
    }
    Mat O = S * V;
    benchmark::DoNotOptimize(O.data());
  }
}

BENCHMARK(BM_Flash2Counting)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_PlainTileLoop)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Flash2FullModel)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Flash2Numerics)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_EigenAttention)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Collects mean real times per benchmark to print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> seconds;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      seconds[r.benchmark_name()] = r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  auto& s = reporter.seconds;
  auto has = [&](const char* k) { return s.count(k) > 0; };
  std::printf("\nSummary (this machine, this run)\n");
  if (has("BM_Flash2Counting/min_time:2.000")) {
    const double t = s["BM_Flash2Counting/min_time:2.000"];
    std::printf("  counting-only flash2 N=16384 d=128 bh=16 Br=Bc=128: %.3f s (bar < 1 s): %s\n", t,
                t < 1.0 ? "met" : "MISSED");
    if (has("BM_PlainTileLoop"))
      std::printf("    vs a plain loop over the same tiles: %.1fx slower (%.4f s)\n",
                  t / s["BM_PlainTileLoop"], s["BM_PlainTileLoop"]);
  }
  if (has("BM_Flash2FullModel/min_time:2.000")) {
    const double t = s["BM_Flash2FullModel/min_time:2.000"];
    std::printf("  timing + L2 model, flash2 N=16384 d=128 bh=16 Br=128 Bc=64: %.3f s (bar < 2 s): %s\n", t,
                t < 2.0 ? "met" : "MISSED");
  }
  if (has("BM_Flash2Numerics/min_time:2.000") && has("BM_EigenAttention/min_time:2.000")) {
    const double f = s["BM_Flash2Numerics/min_time:2.000"], e = s["BM_EigenAttention/min_time:2.000"];
    std::printf("  flash2 with numerics fp32 N=2048 d=64: %.3f s = %.2fx plain Eigen attention (%.3f s) "
                "(bar <= 2x): %s\n", f, f / e, e, f / e <= 2.0 ? "met" : "MISSED");
  }
  benchmark::Shutdown();
  return 0;
}
