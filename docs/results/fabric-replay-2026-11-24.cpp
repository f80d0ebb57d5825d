// The lopsided probes (h200-2026-11-23-lopsided-probe.cu) played through
// fasim's L2 model with the fabric counts of fabric-count-experiment-2026-11-24.patch:
// DRAM reads and writes, copy misses (sectors asked across the fabric) and
// far-home misses, MiB a pass (mean of passes 4 to 6), with the blocks dealt
// in turn (8 + 8) and on the SMs the GPU used (12 + 4; the list below is the
// H200's of 2026-11-24, "BLOCKS" in h200-2026-11-24-fabric-lopsided.txt; the
// H100's was 124..131, 14, 0, 2, ..., 12).
// Build (from the repository root, with the patch applied and build/me built):
//   g++ -std=c++20 -O2 -I sim/include docs/results/fabric-replay-2026-11-24.cpp \
//       build/me/sim/libfasim_sim.a -ltomlplusplus -o fabric-replay
// Run:   ./fabric-replay docs/results/h200-2026-11-22-measured.toml docs/results/h200-2026-11-23-sm-map.txt
#include <cstdio>
#include <string>
#include <vector>
#include "fasim/device_spec.hpp"
#include "fasim/l2_partitions.hpp"
#include "fasim/l2_probes.hpp"

using namespace fasim;
int main(int argc, char** argv) {
  const DeviceSpec dev = load_device(argv[1]);
  SmLayout lay = read_sm_layout(argv[2]);
  const std::vector<std::int64_t> sms_measured = {128,129,130,131,124,125,126,127,8,10,12,14,0,2,4,6};
  const std::int64_t MiB = 1 << 20, chunk = 4096;
  for (int measured = 0; measured <= 1; ++measured) {
  std::printf("%s\n", measured ? "placement measured (12+4)" : "dealt in turn (8+8)");
  for (int mode = 1; mode <= 2; ++mode) {
    const std::vector<int> rs = mode == 1 ? std::vector<int>{16,20,24,28,32,36,40,48} : std::vector<int>{8,10,12,14,16,18,20,24};
    for (int r : rs) {
      PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways, kL2DirtyShare, 0.0);
      if (measured) l2.set_sm_partitions(lay.half_of_sm);
      const std::int64_t per = r * MiB / 16 / chunk;
      double R=0,W=0,FR=0,FH=0;
      for (int pass = 1; pass <= 6; ++pass) {
        Fab& f = fabric_count(); const long long r0=f.r, h0=f.rh;
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
        wr += l2.settle();
        if (pass >= 4) { R += rd; W += wr; FR += f.r - r0; FH += f.rh - h0; }
      }
      std::printf("L%d R=%-3d dram r %6.2f w %6.2f  copy-miss %6.2f far-home-miss %6.2f\n", mode, r, R/3/MiB, W/3/MiB, FR/3/MiB, FH/3/MiB);
    }
  }}
}
