// The lopsided probes (h200-2026-11-23-lopsided-probe.cu) played through
// fasim's L2 model, PartitionedL2, with no early write-back: 16 blocks, 4 KiB
// per block and step, block b on SM b (fasim's dealing: 8 and 8 next to the
// two halves) or, given the SM-partition probe's output of the same GPU, on
// the SMs the GPU used (124 to 131, then 0, 2, ..., 14: 12 and 4).
// Build (from the repository root, after building build/me):
//   g++ -std=c++20 -O2 -I sim/include docs/results/lopsided-probe-replay-2026-11-23.cpp \
//       build/me/sim/libfasim_sim.a -ltomlplusplus -o lopsided-replay
// Run:   ./lopsided-replay h200 [docs/results/h200-2026-11-23-sm-partition-probe.txt]
#include <cstdio>
#include <string>
#include <vector>
#include "fasim/device_spec.hpp"
#include "fasim/l2_partitions.hpp"
#include "fasim/l2_probes.hpp"
using namespace fasim;
int main(int argc, char** argv) {
  const DeviceSpec dev = load_device(argv[1]);
  const bool measured = argc > 2;
  SmLayout lay;
  if (measured) lay = read_sm_layout(argv[2]);
  const std::vector<std::int64_t> sms_measured = {124,125,126,127,128,129,130,131,0,2,4,6,8,10,12,14};
  const std::int64_t MiB = 1 << 20, chunk = 4096;
  for (int mode = 1; mode <= 2; ++mode) {
    const std::vector<int> rs = mode == 1 ? std::vector<int>{16,20,24,28,32,36,40,48} : std::vector<int>{8,10,12,14,16,18,20,24};
    for (int r : rs) {
      PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways, kL2DirtyShare, 0.0);
      if (measured) l2.set_sm_partitions(lay.half_of_sm);
      const std::int64_t per = r * MiB / 16 / chunk;
      std::printf("L%d R=%-3d reads", mode, r);
      std::vector<std::pair<double,double>> out;
      for (int pass = 1; pass <= 6; ++pass) {
        std::int64_t rd = 0, wr = 0;
        for (std::int64_t i = 0; i < per; ++i)
          for (std::int64_t b = 0; b < 16; ++b) {
            const std::int64_t sm = measured ? sms_measured[b] : b;
            const TileKey q{.tensor = TensorId::Q, .bh = b, .row0 = i, .col0 = 0, .rows = 1, .cols = chunk};
            L2Access a = l2.read(q, chunk, sm); rd += a.miss_bytes; wr += a.writeback_bytes;
          }
        if (mode == 2)
          for (std::int64_t i = 0; i < per; ++i)
            for (std::int64_t b = 0; b < 16; ++b) {
              const std::int64_t sm = measured ? sms_measured[b] : b;
              const TileKey o{.tensor = TensorId::O, .bh = b, .row0 = i, .col0 = 0, .rows = 1, .cols = chunk};
              L2Access a = l2.read(o, chunk, sm); rd += a.miss_bytes; wr += a.writeback_bytes;
              a = l2.write(o, chunk, sm); rd += a.miss_bytes; wr += a.writeback_bytes;
            }
        out.push_back({double(rd) / MiB, double(wr) / MiB});
      }
      for (auto& p : out) std::printf(" %6.2f", p.first);
      std::printf(" | writes");
      for (auto& p : out) std::printf(" %6.2f", p.second);
      std::printf("\n");
    }
  }
}
