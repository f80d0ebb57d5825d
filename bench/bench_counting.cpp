// Counting-only speed (predict mode): flash2, d = 128, batch*heads = 16,
// Br = Bc = 128, fp16, at N = 8192 .. 131072. Bars (issue 7): N = 131072 in
// under 10 s, and the cost linear in the number of tiles (the same time per
// tile at every N). Each N also runs the plain loop over the same tiles
// (bench_common.hpp), so the ratio is the price of the Steps, the timing
// model and the L2 model. Every simulation runs the timing and L2 model.
#include "bench_common.hpp"
#include "fasim/simulation.hpp"

namespace fasim::bench {
namespace {

constexpr std::int64_t kHeads = 16, kD = 128, kTile = 128;

void set_tile_counters(benchmark::State& state, std::int64_t tiles) {
  state.counters["tiles"] = static_cast<double>(tiles);
  // Seconds per tile, shown in ns by the summary.
  state.counters["s_per_tile"] =
      benchmark::Counter(static_cast<double>(tiles), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void BM_Flash2Counting(benchmark::State& state) {
  const std::int64_t N = state.range(0);
  const Workload w{1, kHeads, N, kD, DType::fp16};
  for (auto _ : state) {
    Simulation sim(h100(), w, Mapping{Algo::flash2, kTile, kTile}, {.numerics = false});
    sim.run();
    benchmark::DoNotOptimize(sim.ledger().hbm_total().read_bytes);
    state.counters["steps"] = static_cast<double>(sim.ledger().steps());
  }
  set_tile_counters(state, kHeads * tiles_per_head(N, N, kTile, kTile));
}

// Baseline: the same tiles, the same bytes, a plain loop.
void BM_PlainTileLoop(benchmark::State& state) {
  const std::int64_t N = state.range(0);
  for (auto _ : state) benchmark::DoNotOptimize(plain_tile_loop(kHeads, N, kD, kTile, kTile, 2));
  set_tile_counters(state, kHeads * tiles_per_head(N, N, kTile, kTile));
}

// The full model with smaller key tiles (Bc = 64: twice the K/V loads),
// N = 16384 (bar: under 2 s).
void BM_Flash2FullModel(benchmark::State& state) {
  const Workload w{1, kHeads, 16384, kD, DType::fp16};
  for (auto _ : state) {
    Simulation sim(h100(), w, Mapping{Algo::flash2, 128, 64}, {.numerics = false});
    sim.run();
    benchmark::DoNotOptimize(sim.time().seconds);
    state.counters["steps"] = static_cast<double>(sim.ledger().steps());
  }
}

BENCHMARK(BM_Flash2Counting)->RangeMultiplier(2)->Range(8192, 131072)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlainTileLoop)->RangeMultiplier(2)->Range(8192, 131072)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Flash2FullModel)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace fasim::bench
