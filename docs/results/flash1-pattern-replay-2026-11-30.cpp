// flash1's pattern (flash1-pattern-probe-2026-11-30.cu) played through
// fasim's L2 model (PartitionedL2), as the probe's launch style runs it: the
// 132 blocks take each step in turn (K_j, V_j, then per query block Q_i,
// O_i, l_i, m_i read and O_i, l_i, m_i written), each block on the SM the
// rmw probe's R132 blocks ran on, each SM next to the half the SM map says.
// Prints, per variant (F1, F1-nokv without K and V, F1-ro with O, l and m
// only read), the DRAM MB read each pass and in all.
// Build (from the repository root, after building build/default), one line:
//   g++ -std=c++20 -O2 -I sim/include docs/results/flash1-pattern-replay-2026-11-30.cpp
//   build/default/sim/libfasim_sim.a -ltomlplusplus -o f1p-replay
// Run (one line): ./f1p-replay docs/results/h200-2026-11-22-measured.toml
//   docs/results/h200-2026-11-30-sm-map.txt docs/results/h200-2026-11-30-rmw-probe.csv [WAYS]
// (the rmw probe file for its R132 blocks' SMs; WAYS replaces the profile's [l2] ways).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#include "fasim/device_spec.hpp"
#include "fasim/l2_partitions.hpp"
#include "fasim/l2_probes.hpp"
#include "fasim/tensor.hpp"
using namespace fasim;
int main(int argc, char** argv) {
  DeviceSpec dev = load_device(argv[1]);
  if (argc > 4) dev.l2_ways = std::stoll(argv[4]);
  const SmLayout layout = read_sm_layout(argv[2]);
  const auto probes = read_readers_probe(argv[3]);
  std::vector<std::int64_t> sm_of_block;
  for (auto& s : probes) if (s.name.rfind("R132", 0) == 0) { sm_of_block = s.sm_of_block; break; }
  struct Cfg { int n, d, br, bc; };
  for (Cfg c : {Cfg{512, 128, 64, 64}, Cfg{1024, 64, 64, 227}})
  for (std::string variant : {"F1", "F1-nokv", "F1-ro"}) {
    PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways);
    l2.set_sm_partitions(layout.half_of_sm);
    const int blocks = 132, passes = (c.n + c.bc - 1) / c.bc, row = c.d * 2;
    const bool kv = variant != "F1-nokv", write = variant != "F1-ro";
    std::printf("%s N%d d%d:", variant.c_str(), c.n, c.d);
    double total = 0;
    for (int j = 0; j < passes; ++j) {
      std::int64_t read = 0, wb = 0;
      // ops of one block in pass j, in order
      std::vector<std::function<void(int)>> ops;
      auto rd = [&](TensorId t, int r0, int rows, std::int64_t bytes) {
        return [&, t, r0, rows, bytes](int b) {
          const TileKey key{.tensor = t, .bh = b, .row0 = r0, .col0 = 0, .rows = rows, .cols = 1};
          const L2Access a = l2.read(key, bytes, sm_of_block[b]);
          read += a.miss_bytes; wb += a.writeback_bytes; };
      };
      auto wr = [&](TensorId t, int r0, int rows, std::int64_t bytes) {
        return [&, t, r0, rows, bytes](int b) {
          const TileKey key{.tensor = t, .bh = b, .row0 = r0, .col0 = 0, .rows = rows, .cols = 1};
          wb += l2.write(key, bytes, sm_of_block[b]).writeback_bytes; };
      };
      const int kvr = std::min(c.bc, c.n - j * c.bc);
      if (kv) { ops.push_back(rd(TensorId::K, j * c.bc, kvr, std::int64_t{kvr} * row));
                ops.push_back(rd(TensorId::V, j * c.bc, kvr, std::int64_t{kvr} * row)); }
      for (int i0 = 0; i0 < c.n; i0 += c.br) {
        const int rows = std::min(c.br, c.n - i0);
        ops.push_back(rd(TensorId::Q, i0, rows, std::int64_t{rows} * row));
        if (j > 0) { ops.push_back(rd(TensorId::O, i0, rows, std::int64_t{rows} * row));
                     ops.push_back(rd(TensorId::l, i0, rows, rows * 4)); ops.push_back(rd(TensorId::m, i0, rows, rows * 4)); }
        if (write) { ops.push_back(wr(TensorId::O, i0, rows, std::int64_t{rows} * row));
                     ops.push_back(wr(TensorId::l, i0, rows, rows * 4)); ops.push_back(wr(TensorId::m, i0, rows, rows * 4)); }
      }
      for (auto& op : ops) for (int b = 0; b < blocks; ++b) op(b);
      wb += l2.settle();
      std::printf(" %.1f", read / 1e6); total += read / 1e6;
    }
    std::printf("  total %.1f MB\n", total);
  }
}
