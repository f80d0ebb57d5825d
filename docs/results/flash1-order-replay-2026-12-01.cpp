// flash1 order replay (2026-12-01): how much do the line-level L2's bytes
// depend on the order in which fasim's blocks reach it? fasim's Simulation
// runs one recorded point as `fasim compare --recorded` predicts it (the
// device profile given, the CUDA kernel's compute model, cold L2); its loads
// and stores are kept with their blocks, and fed again to a fresh LineL2
// (l2_lines.hpp, the same sample and 21 layouts) in several orders: fasim's
// own; lock step (every block's k-th load or store before any block's
// (k+1)-th, fasim's order within a k); lock step with the blocks shuffled
// within each k (5 seeds: is lock step's figure robust?); and "fluid rows",
// each load or store cut into its rows, row r placed at start + (r + 1/2) /
// rows of its duration, all rows in time order (blocks that move data at
// once interleave row by row, as SMs do, rather than tile by tile). It also
// prints how far apart fasim's blocks start each key block (the spread of
// their K_j loads), to set beside the GPU's (flash1-drift-probe-2026-12-01.cu),
// and the spread of every block's k-th access, median and most over k.
// With flash1-blend-experiment-2026-12-01.patch applied to sim/ (and the
// library rebuilt), FASIM_BLEND=b times each load by b x its own lines' hits
// + (1 - b) x the count model's: b = 1 is fasim, 0 keeps blocks in step.
// Build (repository root, after the CPU build):
//   g++ -std=c++20 -O2 -I sim/include -I /usr/include/eigen3 docs/results/flash1-order-replay-2026-12-01.cpp
//       build/default/sim/libfasim_sim.a -ltomlplusplus -o order-replay   (one line)
// Run:   ./order-replay DEVICE.toml flash1 DTYPE HEADS N d BR BC
//        ./order-replay docs/results/h200-2026-11-22-measured.toml flash1 fp16 132 512 128 64 64
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fasim/block_placement.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/l2_lines.hpp"
#include "fasim/simulation.hpp"
#include "replay_point.hpp"

using namespace fasim;

namespace {
struct Access {
  std::int64_t k;  // the block's k-th load or store
  TensorId tensor;
  std::int64_t bh, row0, rows, col0, cols;
  bool store;
  int near;  // the L2 half next to its SM, as fasim's Machine places the blocks
  double start_s, end_s;
};

// One load or store, or one row of it (row >= 0), fed to the L2.
struct Feed {
  const Access* a;
  std::int64_t row;
};
}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: %s DEVICE.toml ALGO DTYPE HEADS N d BR BC\n", argv[0]);
    return 2;
  }
  auto [w, m] = replay_point({argv + 2, argv + 9});
  const DeviceSpec device = load_device(argv[1]);
  Simulation sim(device, w, m, {.numerics = false, .l2 = L2Start::cold, .compute = cuda_compute_model(w, m)});
  if (!sim.line_l2() || m.algo != Algo::flash1) {
    std::fprintf(stderr, "flash1 at a point that uses the line-level L2 (line_l2_applies), please\n");
    return 2;
  }
  // flash1 is one kernel of a block a head: its SMs' halves as Simulation places them.
  const std::vector<std::int64_t> half_of_sm = kernel_sm_partitions(device, cuda_compute_model(w, m), w.batch * w.heads);
  std::vector<Access> steps;
  std::map<std::int64_t, std::int64_t> seen;                          // block -> loads and stores so far
  std::map<std::int64_t, std::pair<double, double>> k_start;          // key block -> first, last K_j load (s)
  while (sim.next()) {
    const Step& s = sim.step();
    if (s.kind != StepKind::load && s.kind != StepKind::store) continue;
    const std::int64_t who = (static_cast<std::int64_t>(s.kernel) << 32) + s.block;
    steps.push_back({seen[who]++, s.tensor, s.bh, s.row0, s.rows, s.col0, s.cols, s.kind == StepKind::store,
                     static_cast<int>(half_of_sm.at(static_cast<std::size_t>(s.sm))), s.start_s, s.end_s});
    if (s.kind == StepKind::load && s.tensor == TensorId::K) {
      auto [it, fresh] = k_start.try_emplace(s.kb, s.start_s, s.start_s);
      it->second.first = std::min(it->second.first, s.start_s);
      it->second.second = std::max(it->second.second, s.start_s);
    }
  }
  const CacheTraffic c = sim.ledger().cache_total();
  std::printf("fasim        DRAM MB read %.1f, written during the run %.1f, drained %.1f\n", c.dram_read_bytes / 1e6,
              c.dram_write_bytes / 1e6, (c.dram_write_bytes + sim.l2_dirty_bytes()) / 1e6);
  std::printf("fasim's blocks start key block j this far apart (us):");
  for (const auto& [j, t] : k_start) std::printf(" %lld:%.1f", static_cast<long long>(j), (t.second - t.first) * 1e6);
  std::printf("\n");

  std::map<std::int64_t, std::pair<double, double>> k_spread;  // k -> first, last start (s)
  for (const Access& a : steps) {
    auto [it, fresh] = k_spread.try_emplace(a.k, a.start_s, a.start_s);
    it->second.first = std::min(it->second.first, a.start_s);
    it->second.second = std::max(it->second.second, a.start_s);
  }
  std::vector<double> spread;
  for (const auto& [k, t] : k_spread) spread.push_back((t.second - t.first) * 1e6);
  std::sort(spread.begin(), spread.end());
  std::printf("every block's k-th access starts this far apart (us): median %.1f, most %.1f\n",
              spread[spread.size() / 2], spread.back());

  std::array<std::int64_t, kTensorCount> bytes{};
  for (TensorId t : kAllTensors)
    if (sim.hbm().has(t)) {
      const HbmTensor& x = sim.hbm().at(t);
      bytes[static_cast<std::size_t>(index(t))] = x.bh * x.rows * x.cols * x.elem_bytes();
    }
  auto replay = [&](const char* name, const std::vector<Feed>& order) {
    LineL2 l2(builtin_l2_set_sample(device.l2_sampled_sets), bytes);
    std::int64_t read = 0, written = 0;
    for (const Feed& f : order) {
      const Access& s = *f.a;
      const HbmTensor& x = sim.hbm().at(s.tensor);
      const std::int64_t row0 = f.row < 0 ? s.row0 : s.row0 + f.row, rows = f.row < 0 ? s.rows : 1;
      const LineRequest r = LineRequest::tile(s.tensor, x, s.bh, row0, s.col0, rows, s.cols, s.near);
      const L2Access a = s.store ? l2.write(r) : l2.read(r, rows * s.cols * x.elem_bytes());
      read += a.miss_bytes;
      written += a.writeback_bytes;
    }
    std::printf("%-12s DRAM MB read %.1f, written during the run %.1f, drained %.1f\n", name, read / 1e6,
                written / 1e6, (written + l2.dirty_bytes()) / 1e6);
  };
  std::vector<Feed> order;
  for (const Access& a : steps) order.push_back({&a, -1});
  replay("fasim order", order);
  auto by_k = [](const Feed& a, const Feed& b) { return a.a->k < b.a->k; };
  std::stable_sort(order.begin(), order.end(), by_k);
  replay("lock step", order);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 r(seed);
    std::shuffle(order.begin(), order.end(), r);
    std::stable_sort(order.begin(), order.end(), by_k);
    replay(("shuffled k " + std::to_string(seed)).c_str(), order);
  }
  struct Timed {
    double t;
    Feed f;
  };
  std::vector<Timed> rows;
  for (const Access& a : steps)
    for (std::int64_t r = 0; r < a.rows; ++r)
      rows.push_back({a.start_s + (a.end_s - a.start_s) * (static_cast<double>(r) + 0.5) / static_cast<double>(a.rows),
                      {&a, r}});
  std::stable_sort(rows.begin(), rows.end(), [](const Timed& a, const Timed& b) { return a.t < b.t; });
  order.clear();
  for (const Timed& t : rows) order.push_back(t.f);
  replay("fluid rows", order);
  return 0;
}
