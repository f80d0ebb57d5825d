// reuse replay (2026-11-24): the reuse probe's sequences
// (reuse-probe-2026-11-24.cu) played through fasim's L2 model
// (PartitionedL2 as the simulator builds it). Each 4 KiB chunk is a tile,
// chunk c touched by block c mod (8 SMs) on SM (block mod SMs), as the
// churn replay deals them (sim/src/l2_probes.cpp). The L2 starts empty (the
// GPU's starts full of clean scratch lines: the same to an LRU).
// Build (from the repository root, after a Release build in build/me):
//   g++ -std=c++20 -O2 -I sim/include -I build/me/sim -I /usr/include/eigen3
//   (cont.) docs/results/reuse-replay-2026-11-24.cpp build/me/sim/libfasim_sim.a -ltomlplusplus -o /tmp/reuse-replay
// Run: /tmp/reuse-replay DEVICE.toml   (prints the same table as reuse-table-2026-11-24.py)
#include <cstdio>
#include <string>

#include "fasim/device_spec.hpp"
#include "fasim/l2_partitions.hpp"
using namespace fasim;

namespace {
constexpr std::int64_t kMiB = std::int64_t{1} << 20, kChunk = 4096;
struct Bytes {
  double read = 0, written = 0;
};
Bytes kernel(PartitionedL2& l2, TensorId t, std::int64_t mib, bool write, std::int64_t sms) {
  Bytes b;
  for (std::int64_t c = 0; c < mib * kMiB / kChunk; ++c) {
    const TileKey key{.tensor = t, .bh = 0, .row0 = c, .col0 = 0, .rows = 1, .cols = kChunk};
    const std::int64_t sm = (c % (8 * sms)) % sms;
    const L2Access a = write ? l2.write(key, kChunk, sm) : l2.read(key, kChunk, sm);
    b.read += static_cast<double>(a.miss_bytes) / kMiB;
    b.written += static_cast<double>(a.writeback_bytes) / kMiB;
  }
  return b;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DEVICE.toml\n", argv[0]);
    return 2;
  }
  const DeviceSpec dev = load_device(argv[1]);
  std::printf("last read of A (16 MiB), the model (%s): DRAM MiB read; DRAM MiB written while B and A are read (U3, U4)\n", dev.name.c_str());
  std::printf("   B   U1 once  U2 twice  U3 dirty  U4 dirty+read        wr U3       wr U4\n");
  for (int b = 0; b <= 48; b += 4) {
    double last[5] = {}, wr[5] = {};
    for (int u = 1; u <= 4; ++u) {
      PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways);
      kernel(l2, TensorId::Q, 16, u >= 3, dev.sm_count);
      if (u == 2 || u == 4) kernel(l2, TensorId::Q, 16, false, dev.sm_count);
      const Bytes bb = kernel(l2, TensorId::K, b, false, dev.sm_count);
      const Bytes a = kernel(l2, TensorId::Q, 16, false, dev.sm_count);
      last[u] = a.read;
      wr[u] = bb.written + a.written;
    }
    std::printf("  %2d  %7.1f  %8.1f  %8.1f  %13.1f   %10.1f  %10.1f\n", b, last[1], last[2], last[3], last[4], wr[3], wr[4]);
  }
  return 0;
}
