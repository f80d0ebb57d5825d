// naive-sequence replay (2026-11-23): the accesses of naive-seq-probe-2026-11-23.cu
// (sequences A to D) played through fasim's L2 model (PartitionedL2 as the
// simulator builds it): 128 blocks, block b on SM b, each kernel's blocks in
// step (one access each in turn), a fresh L2 per sequence; per kernel the
// DRAM bytes read and written, write-backs still due settled at its end.
// Build (from the repository root, after a Release build in build/me):
//   g++ -std=c++20 -O2 -I sim/include -I build/me/sim -I /usr/include/eigen3
//   (cont.) docs/results/naive-seq-replay-2026-11-23.cpp build/me/sim/libfasim_sim.a -ltomlplusplus -o /tmp/nseq-replay
// Run: /tmp/nseq-replay DEVICE.toml
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#include "fasim/device_spec.hpp"
#include "fasim/l2_partitions.hpp"
using namespace fasim;
int main(int argc, char** argv) {
  if (argc != 2) { std::fprintf(stderr, "usage: %s DEVICE.toml\n", argv[0]); return 2; }
  DeviceSpec dev = load_device(argv[1]);
  const int B = 128, C = 8;
  const std::int64_t CH = 32768, T = 16384;
  struct Seq { const char* name; int pass1, read2, write2, output; };
  const Seq seqs[] = {{"A naive", 1, 1, 1, 1}, {"B pass 2 alone", 0, 1, 1, 1}, {"C no P written", 1, 1, 0, 0}, {"D P written only", 0, 0, 1, 1}};
  for (const Seq& x : seqs) {
    PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways);
    double rd = 0, wr = 0;
    auto acc = [&](L2Access a) { rd += a.miss_bytes; wr += a.writeback_bytes; };
    auto key = [](TensorId t, int b, int c, int rows, int cols) { return TileKey{t, b / 8, (b % 8) * 128, c * 128, rows, cols}; };
    auto kernel = [&](const char* name, int steps, std::function<void(int b, int s)> f) {
      rd = wr = 0;
      for (int s = 0; s < steps; ++s) for (int b = 0; b < B; ++b) f(b, s);
      wr += l2.settle();
      std::printf("%-18s %-8s read %6.2f MB write %6.2f MB\n", x.name, name, rd / 1e6, wr / 1e6);
    };
    // scores: step 0 read Q; steps 1..C: read K_c, write S_c
    kernel("scores", C + 1, [&](int b, int s) {
      if (s == 0) { acc(l2.read(TileKey{TensorId::Q, b / 8, (b % 8) * 128, 0, 128, 64}, T, b)); return; }
      const int c = s - 1;
      acc(l2.read(TileKey{TensorId::K, b / 8, c * 128, 0, 128, 64}, T, b));
      acc(l2.write(key(TensorId::S, b, c, 128, 128), CH, b));
    });
    kernel("softmax", (x.pass1 ? C : 0) + C, [&](int b, int s) {
      if (x.pass1 && s < C) { acc(l2.read(key(TensorId::S, b, s, 128, 128), CH, b)); return; }
      const int c = x.pass1 ? s - C : s;
      if (x.read2) acc(l2.read(key(TensorId::S, b, c, 128, 128), CH, b));
      if (x.write2) acc(l2.write(key(TensorId::P, b, c, 128, 128), CH, b));
    });
    if (x.output)
      kernel("output", C + 1, [&](int b, int s) {
        if (s == C) { acc(l2.write(TileKey{TensorId::O, b / 8, (b % 8) * 128, 0, 128, 64}, T, b)); return; }
        acc(l2.read(key(TensorId::P, b, s, 128, 128), CH, b));
        acc(l2.read(TileKey{TensorId::V, b / 8, s * 128, 0, 128, 64}, T, b));
      });
  }
}
