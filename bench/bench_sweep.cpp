// A sweep of 102 points at N <= 8192, counting only (what `fasim sweep` does
// by default): naive, flash1, flash2 x d = 64, 128 x N = 512 .. 8192 step
// 480, 16 heads (bench_common.hpp). Bar (issue 7): under 10 s. Baseline: the
// plain loop over the same points' tiles (each point's own Br and Bc).
// run_sweep runs the points one after another; `fasim sweep --jobs` runs
// them on several cores (scripts/bench.sh times both).
#include "bench_common.hpp"
#include <array>
#include <vector>

#include "fasim/tiling.hpp"

namespace fasim::bench {
namespace {

std::int64_t sweep_tiles(const SweepSpec& s) {
  std::int64_t tiles = 0;
  for (const SweepPoint& p : sweep_points(s)) {
    const Mapping m = default_tiles(p.algo, p.workload, h100());
    tiles += p.workload.bh() * tiles_per_head(p.workload.N, p.workload.N, m.br, m.bc);
  }
  return tiles;
}

void BM_Sweep102(benchmark::State& state) {
  const SweepSpec s = sweep_102();
  for (auto _ : state) {
    const SweepTable t = run_sweep(s);
    benchmark::DoNotOptimize(t.size());
    state.counters["points"] = static_cast<double>(t.size());
  }
  state.counters["tiles"] = static_cast<double>(sweep_tiles(s));
}

void BM_SweepPlainLoop(benchmark::State& state) {
  const SweepSpec s = sweep_102();
  std::vector<std::array<std::int64_t, 6>> loops;  // bh, N, d, br, bc, elem per point
  for (const SweepPoint& p : sweep_points(s)) {
    const Mapping m = default_tiles(p.algo, p.workload, h100());
    loops.push_back({p.workload.bh(), p.workload.N, p.workload.d, m.br, m.bc, p.workload.elem_bytes()});
  }
  for (auto _ : state)
    for (const auto& l : loops) benchmark::DoNotOptimize(plain_tile_loop(l[0], l[1], l[2], l[3], l[4], l[5]));
  state.counters["tiles"] = static_cast<double>(sweep_tiles(s));
}

BENCHMARK(BM_Sweep102)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepPlainLoop)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fasim::bench
