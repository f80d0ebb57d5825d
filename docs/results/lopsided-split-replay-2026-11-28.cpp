// The split lopsided probes (lopsided-split-probe-2026-11-28.cu) played
// through fasim's L2 model, PartitionedL2 as the simulator builds it: 16
// blocks on the SMs the GPU used (the probe's BLOCKS line), each SM next to
// the half the SM-partition probe of the same board found, 4 KiB per block
// and step. Each pass is two kernels, Q then O, as on the GPU; the
// write-backs that accrue in a kernel are counted at its end (settle()).
// Prints one line a kernel: SEQ R=.. pass=.. Q|O read_MiB written_MiB.
// Build (from the repository root, after building build/default):
//   g++ -std=c++20 -O2 -I sim/include docs/results/lopsided-split-replay-2026-11-28.cpp \
//       build/default/sim/libfasim_sim.a -ltomlplusplus -o lopsided-split-replay
// Run:   ./lopsided-split-replay docs/results/h200-2026-11-22-measured.toml \
//            docs/results/h200-2026-11-28-sm-map.txt > replay.txt
#include <cstdio>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/l2_cache.hpp"
#include "fasim/l2_partitions.hpp"
#include "fasim/l2_probes.hpp"

using namespace fasim;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DEVICE.toml SM-MAP.txt\n", argv[0]);
    return 2;
  }
  const DeviceSpec dev = load_device(argv[1]);
  const SmLayout map = read_sm_layout(argv[2]);
  // The BLOCKS line of h200-2026-11-28-lopsided-split.csv (the same as on 2026-11-23).
  const std::vector<std::int64_t> sm_of_block = {124, 125, 126, 127, 128, 129, 130, 131, 0, 2, 4, 6, 8, 10, 12, 14};
  const std::int64_t kMiB = 1 << 20, kChunk = 4096, kBlocks = 16;
  for (int rewrite : {1, 0})
    for (int r : {12, 14, 16, 18, 20, 24}) {
      PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways);
      l2.set_sm_partitions(map.half_of_sm);
      const std::int64_t chunks = r * kMiB / kBlocks / kChunk;  // per block
      for (int pass = 1; pass <= 6; ++pass)
        for (const TensorId t : {TensorId::Q, TensorId::O}) {
          const bool write = rewrite && t == TensorId::O;
          std::int64_t rd = 0, wr = 0;
          for (std::int64_t i = 0; i < chunks; ++i)
            for (std::int64_t b = 0; b < kBlocks; ++b) {
              const TileKey key{.tensor = t, .bh = b, .row0 = i, .col0 = 0, .rows = 1, .cols = kChunk};
              const std::int64_t sm = sm_of_block[static_cast<std::size_t>(b)];
              L2Access a = l2.read(key, kChunk, sm);
              rd += a.miss_bytes;
              wr += a.writeback_bytes;
              if (write) {
                a = l2.write(key, kChunk, sm);
                rd += a.miss_bytes;
                wr += a.writeback_bytes;
              }
            }
          wr += l2.settle();
          std::printf("S%d R=%d pass=%d %s %.4f %.4f\n", rewrite ? 2 : 3, r, pass, t == TensorId::Q ? "Q" : "O",
                      static_cast<double>(rd) / kMiB, static_cast<double>(wr) / kMiB);
        }
    }
}
