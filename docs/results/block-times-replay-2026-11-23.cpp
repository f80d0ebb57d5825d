// The simulator's block timeline for the shapes of block-times-probe-2026-11-23.cu:
// flash2, fp32, with the compute model `fasim compare` uses for that kernel
// (cuda-simt) or the algorithm's (ideal). Prints BLOCK lines in the probe's
// format (start and end of each block in ns from the first start) and the
// DRAM bytes written.
// Build (repository root, after the CMake build in build/me):
//   g++ -std=c++20 -O2 -I sim/include -I build/me/sim -I /usr/include/eigen3 docs/results/block-times-replay-2026-11-23.cpp build/me/sim/libfasim_sim.a -ltomlplusplus -o blocktimes-replay
// Run:   ./blocktimes-replay DEVICE.toml N d heads br bc cuda-simt|ideal
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/simulation.hpp"

int main(int argc, char** argv) {
  if (argc != 8) {
    std::printf("usage: blocktimes-replay DEVICE.toml N d heads br bc cuda-simt|ideal\n");
    return 2;
  }
  fasim::Workload w;
  w.N = std::atoll(argv[2]), w.d = std::atoll(argv[3]), w.heads = std::atoll(argv[4]), w.dtype = fasim::DType::fp32;
  fasim::Mapping m;
  m.algo = fasim::Algo::flash2, m.br = std::atoll(argv[5]), m.bc = std::atoll(argv[6]);
  const bool simt = std::string(argv[7]) == "cuda-simt";
  fasim::Simulation sim(fasim::load_device(argv[1]), w, m,
                        {.numerics = false, .compute = simt ? fasim::ComputeModel::cuda_simt : fasim::ComputeModel::ideal});
  struct Span {
    double start = 1e30, end = 0;
    std::int64_t sm = -1;
  };
  std::vector<Span> spans;
  while (sim.next()) {
    const fasim::Step& s = sim.step();
    if (s.block >= static_cast<std::int64_t>(spans.size())) spans.resize(static_cast<std::size_t>(s.block) + 1);
    Span& b = spans[static_cast<std::size_t>(s.block)];
    b.start = std::min(b.start, s.start_s), b.end = std::max(b.end, s.end_s), b.sm = s.sm;
  }
  double t0 = 1e30;
  for (const Span& b : spans) t0 = std::min(t0, b.start);
  std::printf("SHAPE n=%lld d=%lld heads=%lld br=%lld bc=%lld grid=%zu model=%s dram_write=%lld\n",
              static_cast<long long>(w.N), static_cast<long long>(w.d), static_cast<long long>(w.heads),
              static_cast<long long>(m.br), static_cast<long long>(m.bc), spans.size(), argv[7],
              static_cast<long long>(sim.ledger().cache_total().dram_write_bytes));
  for (std::size_t b = 0; b < spans.size(); ++b)
    std::printf("BLOCK rep=0 block=%zu sm=%lld start=%.0f end=%.0f\n", b, static_cast<long long>(spans[b].sm),
                (spans[b].start - t0) * 1e9, (spans[b].end - t0) * 1e9);
  return 0;
}
