// The read-modify-write probe (rmw-probe-2026-11-30.cu) played through
// fasim's L2 model with replay_readers_probe (sim/src/l2_probes.cpp, which
// tests/test_l2_probes.cpp runs in CI): each block on the SM the GPU used,
// each SM next to the half the SM-partition probe of the same board found,
// 4 KiB per block and step. R reads a chunk, W writes it, M reads and then
// writes it, H reads even chunks and does M to odd ones.
// Prints one line a kernel: NAME F=.. pass=.. read_MiB written_MiB, which
// readers-table-2026-11-29.py --model reads. WAYS (optional) replaces the
// profile's [l2] ways.
// Build (from the repository root, after building build/default):
//   g++ -std=c++20 -O2 -I sim/include docs/results/rmw-replay-2026-11-30.cpp \
//       build/default/sim/libfasim_sim.a -ltomlplusplus -o rmw-replay
// Run:   ./rmw-replay docs/results/h200-2026-11-22-measured.toml \
//            docs/results/h200-2026-11-30-sm-map.txt docs/results/h200-2026-11-30-rmw-probe.csv [WAYS]
#include <cstdio>
#include <string>

#include "fasim/device_spec.hpp"
#include "fasim/l2_probes.hpp"

using namespace fasim;

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s DEVICE.toml SM-MAP.txt RMW-PROBE.csv [WAYS]\n", argv[0]);
    return 2;
  }
  DeviceSpec dev = load_device(argv[1]);
  if (argc == 5) dev.l2_ways = std::stoll(argv[4]);
  const SmLayout layout = read_sm_layout(argv[2]);
  for (const ReadersSequence& s : read_readers_probe(argv[3])) {
    const auto model = replay_readers_probe(s, dev, layout);
    for (std::size_t p = 0; p < model.size(); ++p)
      std::printf("%s pass=%zu %.4f %.4f\n", s.name.c_str(), p + 1, model[p].read, model[p].written);
  }
}
