// Execute mode: flash2 with numerics, fp32, N = 2048, d = 64, one head (bar:
// at most 2x a plain Eigen fp32 attention of the same shape, the baseline
// below). Counting, timing and L2 run too; the values are the extra.
#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "bench_common.hpp"
#include "fasim/simulation.hpp"

namespace fasim::bench {
namespace {

void BM_Flash2Numerics(benchmark::State& state) {
  const Workload w{1, 1, 2048, 64, DType::fp32};
  for (auto _ : state) {
    Simulation sim(h100(), w, Mapping{Algo::flash2, 128, 128}, {.numerics = true});
    sim.run();
    benchmark::DoNotOptimize(sim.hbm().at(TensorId::O).values[0]);
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

BENCHMARK(BM_Flash2Numerics)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_EigenAttention)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace fasim::bench
