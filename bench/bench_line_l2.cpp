// The line-level L2's price (l2_lines.hpp): flash1 fp16 with the H200 full
// (132 heads, N = 512, d = 128, 64 x 64 tiles), counting only, on the stock
// H200 profile, which runs the H200's sampled sets line by line in 32
// layouts, against the same run with the sample taken out of the profile
// (the count model alone), timed in the same process. No bar is set; the
// summary prints the ratio, so a change to LineL2's hot loop shows in it.
#include "bench_common.hpp"
#include "fasim/simulation.hpp"

namespace fasim::bench {
namespace {

const Workload kFlash1Full{1, 132, 512, 128, DType::fp16};

void run_flash1(benchmark::State& state, const DeviceSpec& device) {
  for (auto _ : state) {
    Simulation sim(device, kFlash1Full, Mapping{Algo::flash1, 64, 64}, {.numerics = false, .l2 = L2Start::cold});
    sim.run();
    benchmark::DoNotOptimize(sim.ledger().cache_total().dram_read_bytes);
    state.counters["line_l2"] = sim.line_l2() ? 1 : 0;
  }
}

void BM_Flash1LineL2(benchmark::State& state) {
  static const DeviceSpec dev = load_device("h200");
  run_flash1(state, dev);
}

// Baseline: the same run with the count model alone.
void BM_Flash1CountL2(benchmark::State& state) {
  static const DeviceSpec dev = [] {
    DeviceSpec d = load_device("h200");
    d.l2_sampled_sets.clear();
    return d;
  }();
  run_flash1(state, dev);
}

BENCHMARK(BM_Flash1LineL2)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Flash1CountL2)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace fasim::bench
