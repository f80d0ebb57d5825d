// The read-modify-write probe (rmw-probe-2026-11-30.cu) played through
// fasim's L2 model, PartitionedL2 as the simulator builds it: each sequence's
// blocks on the SMs the GPU used (its BLOCKS line in the probe's output), each
// SM next to the half the SM-partition probe of the same board found, 4 KiB
// per block and step, the blocks taking steps in turn. R reads a chunk, W
// writes it, M reads and then writes it, H reads even chunks and does M to
// odd ones (a block's own chunk index). Each pass is one kernel; the
// write-backs that accrue in it are counted at its end (settle()).
// Prints one line a kernel: NAME F=.. pass=.. read_MiB written_MiB.
// WAYS (optional) replaces the profile's [l2] ways.
// Build (from the repository root, after building build/default):
//   g++ -std=c++20 -O2 -I sim/include docs/results/rmw-replay-2026-11-30.cpp \
//       build/default/sim/libfasim_sim.a -ltomlplusplus -o rmw-replay
// Run:   ./rmw-replay docs/results/h200-2026-11-22-measured.toml \
//            docs/results/h200-2026-11-30-sm-map.txt docs/results/h200-2026-11-30-rmw.csv [WAYS]
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/l2_cache.hpp"
#include "fasim/l2_partitions.hpp"
#include "fasim/l2_probes.hpp"

using namespace fasim;

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s DEVICE.toml SM-MAP.txt RMW.csv [WAYS]\n", argv[0]);
    return 2;
  }
  const DeviceSpec dev = load_device(argv[1]);
  const SmLayout map = read_sm_layout(argv[2]);
  const std::int64_t ways = argc == 5 ? std::stoll(argv[4]) : dev.l2_ways;
  const std::int64_t kMiB = 1 << 20, kChunk = 4096;
  std::ifstream in(argv[3]);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("BLOCKS ", 0) != 0) continue;
    // BLOCKS NAME F=MiB BLOCKS: SM SM ...
    std::istringstream s(line.substr(7));
    std::string name, f_field, count;
    s >> name >> f_field >> count;
    const std::int64_t f = std::stoll(f_field.substr(2));
    std::vector<std::int64_t> sm_of_block;
    for (std::int64_t sm; s >> sm;) sm_of_block.push_back(sm);
    const auto blocks = static_cast<std::int64_t>(sm_of_block.size());
    const char mode = name[0];
    const std::int64_t per_block = f * kMiB / kChunk / blocks;
    PartitionedL2 l2(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, ways);
    l2.set_sm_partitions(map.half_of_sm);
    for (int pass = 1; pass <= 6; ++pass) {
      std::int64_t rd = 0, wr = 0;
      for (std::int64_t k = 0; k < per_block; ++k)
        for (std::int64_t b = 0; b < blocks; ++b) {
          const std::int64_t sm = sm_of_block[static_cast<std::size_t>(b)];
          const TileKey key{.tensor = TensorId::O, .bh = 0, .row0 = b * per_block + k, .col0 = 0, .rows = 1, .cols = kChunk};
          const bool read = mode != 'W', write = mode == 'M' || mode == 'W' || (mode == 'H' && k % 2 == 1);
          if (read) {
            const L2Access a = l2.read(key, kChunk, sm);
            rd += a.miss_bytes;
            wr += a.writeback_bytes;
          }
          if (write) wr += l2.write(key, kChunk, sm).writeback_bytes;
        }
      wr += l2.settle();
      std::printf("%s F=%lld pass=%d %.4f %.4f\n", name.c_str(), static_cast<long long>(f), pass,
                  static_cast<double>(rd) / kMiB, static_cast<double>(wr) / kMiB);
    }
  }
}
