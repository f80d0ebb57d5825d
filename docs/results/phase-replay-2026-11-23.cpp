// phase replay (2026-11-23): the phase probe's accesses (phase-probe-2026-11-23.cu)
// played through fasim's L2 model (PartitionedL2 as the simulator builds it).
// 16 blocks, one per head, 16 KiB tiles; each block reads K_j and V_j, then
// per query tile Q_i, O_i (from j = 1) and, in RW, writes O_i. The next
// access is always the block furthest behind in its own time; block b takes
// 1 / (1 + spread x b / 15) per tile, so spread 0 keeps the blocks in step
// (the probe's sync) and spread s lets the fastest run 1 + s times as fast
// as the slowest (the probe's free runs drift so: end spreads of 6 and 32
// passes out of 64 and 80 on the H200 are s = 0.10 and 0.66).
// Blocks on L2 halves: as fasim deals them (block b on SM b, half b mod 2),
// or 12 on one half and 4 on the other (lop = 1, flash1's launch measured
// in h200-2026-11-23-placement-probe.txt).
// Build (from the repository root, after a Release build in build/me):
//   g++ -std=c++20 -O2 -I sim/include -I build/me/sim -I /usr/include/eigen3
//   (cont.) docs/results/phase-replay-2026-11-23.cpp build/me/sim/libfasim_sim.a -ltomlplusplus -o /tmp/phase-replay
// Run: /tmp/phase-replay DEVICE.toml R RW|RO [spread] [lop]
#include <cstdio>
#include <cmath>
#include <vector>
#include <string>
#include "fasim/device_spec.hpp"
#include "fasim/l2_partitions.hpp"
using namespace fasim;
int main(int argc, char** argv) {
  if (argc < 4) { std::fprintf(stderr, "usage: %s DEVICE.toml R RW|RO [spread] [lop]\n", argv[0]); return 2; }
  DeviceSpec dev = load_device(argv[1]);
  const int R = std::stoi(argv[2]); const bool rw = std::string(argv[3]) == "RW";
  // rates: block b runs at rate 1 + spread_frac * b/15 (0: in step)
  const double spread = argc > 4 ? std::stod(argv[4]) : 0.0;
  const int lop = argc > 5 ? std::stoi(argv[5]) : 0;  // 1: 12+4 placement
  PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways);
  const int tiles = R * 64 / 16, passes = tiles, B = 16; const std::int64_t T = 16384;
  double rd = 0, wr = 0;
  auto sm_of = [&](int b) { return lop ? (b < 12 ? 0 : 1) : b; };
  // each block: ops sequence; advance by virtual time
  struct St { int j = 0, t = -1; double time = 0; };
  std::vector<St> st(B);
  auto step = [&](int b) {
    St& s = st[b]; const int sm = sm_of(b);
    auto acc = [&](L2Access a) { rd += a.miss_bytes; wr += a.writeback_bytes; };
    if (s.t < 0) {
      acc(l2.read(TileKey{TensorId::K, b, s.j, 0, 1, 1}, T, sm));
      acc(l2.read(TileKey{TensorId::V, b, s.j, 0, 1, 1}, T, sm));
    } else {
      const int i = s.t;
      acc(l2.read(TileKey{TensorId::Q, b, i, 0, 1, 1}, T, sm));
      if (s.j > 0) acc(l2.read(TileKey{TensorId::O, b, i, 0, 1, 1}, T, sm));
      if (rw) acc(l2.write(TileKey{TensorId::O, b, i, 0, 1, 1}, T, sm));
    }
    if (++s.t == tiles) { s.t = -1; ++s.j; }
    s.time += 1.0 / (1.0 + spread * b / (B - 1));
  };
  for (;;) {
    int best = -1;
    for (int b = 0; b < B; ++b) if (st[b].j < passes && (best < 0 || st[b].time < st[best].time)) best = b;
    if (best < 0) break;
    step(best);
  }
  wr += l2.settle();
  std::printf("R=%d %s spread=%.2f lop=%d: read %.1f MiB write %.1f MiB\n", R, argv[3], spread, lop, rd / 1048576, wr / 1048576);
}
