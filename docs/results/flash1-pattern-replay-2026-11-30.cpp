// flash1's pattern (flash1-pattern-probe-2026-11-30.cu) played through
// fasim's L2 model with replay_flash1_pattern (sim/src/l2_flash1_pattern.cpp,
// which tests/test_l2_flash1_pattern.cpp runs in CI), as the probe's launch
// style runs it, each block on the SM the rmw probe's R132 blocks ran on,
// each SM next to the half the SM map says.
// Prints, per variant (F1, F1-nokv without K and V, F1-ro with O, l and m
// only read), the DRAM MB read each pass and in all.
// Build (from the repository root, after building build/default), one line:
//   g++ -std=c++20 -O2 -I sim/include docs/results/flash1-pattern-replay-2026-11-30.cpp
//   build/default/sim/libfasim_sim.a -ltomlplusplus -o f1p-replay
// Run (one line): ./f1p-replay docs/results/h200-2026-11-22-measured.toml
//   docs/results/h200-2026-11-30-sm-map.txt docs/results/h200-2026-11-30-rmw-probe.csv [WAYS]
// (the rmw probe file for its R132 blocks' SMs; WAYS replaces the profile's [l2] ways).
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/l2_flash1_pattern.hpp"
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
  std::vector<std::int64_t> sms;
  for (const ReadersSequence& s : read_readers_probe(argv[3]))
    if (s.name.rfind("R132", 0) == 0) sms = s.sm_of_block;
  for (const auto& [n, d, bc] : {std::tuple{512, 128, 64}, std::tuple{1024, 64, 227}})
    for (const std::string variant : {"F1", "F1-nokv", "F1-ro"}) {
      Flash1Pattern p;
      p.name = variant + "/N" + std::to_string(n) + "/d" + std::to_string(d) + "/br64/bc" + std::to_string(bc);
      p.n = n, p.d = d, p.br = 64, p.bc = bc;
      p.kv = variant != "F1-nokv";
      p.write = variant != "F1-ro";
      double total = 0;
      std::printf("%s:", p.name.c_str());
      for (const PatternPass& pass : replay_flash1_pattern(p, dev, layout, sms)) {
        std::printf(" %.1f", pass.read_mb);
        total += pass.read_mb;
      }
      std::printf("  total %.1f MB\n", total);
    }
}
