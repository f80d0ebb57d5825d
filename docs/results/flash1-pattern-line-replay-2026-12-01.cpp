// flash1-pattern line replay (2026-12-01): the flash1-pattern probe's
// launch-style sequences (read_flash1_pattern) played through fasim's
// line-level L2 (l2_lines.hpp: the H200's sampled sets, 21 layouts), blocks
// in lock step, each next to the L2 half its SM is on (the probe's SMs,
// h200-2026-11-30-sm-map.txt). Prints each sequence's DRAM MB read and
// written during the run, the dirty MB left, and both pass by pass, to set
// beside the probe's own per-pass figures.
// Build (repository root, after the CPU build):
//   g++ -std=c++20 -O2 -I sim/include -I /usr/include/eigen3 docs/results/flash1-pattern-line-replay-2026-12-01.cpp
//       build/default/sim/libfasim_sim.a -ltomlplusplus -o line-replay   (one line)
// Run:   ./line-replay docs/results/h200-2026-11-30-flash1-pattern-lm.csv [NAME PART]
// LAYOUTS=n in the environment: n layouts (default 21, as fasim).
#include <string>
#include <vector>
#include <algorithm>
#include "fasim/l2_lines.hpp"
#include "fasim/l2_flash1_pattern.hpp"
#include "fasim/l2_probes.hpp"
using namespace fasim;
int main(int argc, char** argv) {
  auto sample = builtin_l2_set_sample("h200");
  const SmLayout lay = read_sm_layout("docs/results/h200-2026-11-30-sm-map.txt");
  for (const Flash1Pattern& p : read_flash1_pattern(argv[1])) {
    if (argc > 2 && p.name.find(argv[2]) == std::string::npos) continue;
    if (p.slices > 1 || p.workers > 0) continue;
    const int heads = p.heads ? p.heads : 132;
    const std::int64_t row = p.d * 2, t = heads * p.n * row, lmb = heads * p.n * 4;
    std::array<std::int64_t, kTensorCount> bytes{};
    bytes[index(TensorId::Q)] = t; bytes[index(TensorId::K)] = t; bytes[index(TensorId::V)] = t; bytes[index(TensorId::O)] = t;
    bytes[index(TensorId::l)] = lmb; bytes[index(TensorId::m)] = lmb;
    int layouts = getenv("LAYOUTS") ? atoi(getenv("LAYOUTS")) : 21;
    LineL2 l2(sample, bytes, layouts);
    std::vector<int> near(heads);
    for (int b = 0; b < heads; ++b) near[b] = lay.half_of_sm[p.sm_of_block.empty() ? b : p.sm_of_block[b]];
    double R = 0, W = 0;
    std::printf("%-36s", p.name.c_str());
    std::string rs, ws;
    for (std::int64_t c0 = 0; c0 < p.n; c0 += p.bc) {
      const std::int64_t cols = std::min(p.bc, p.n - c0);
      struct S { TensorId t; std::int64_t first, len; bool w; };
      std::vector<std::vector<S>> steps(heads);
      for (int h = 0; h < heads; ++h) {
        auto& to = steps[h];
        const std::int64_t hd = h * p.n * row, hl = h * p.n * 4;
        if (p.kv) { to.push_back({TensorId::K, hd + c0 * row, cols * row, false}); if (p.read_v) to.push_back({TensorId::V, hd + c0 * row, cols * row, false}); }
        for (std::int64_t r0 = 0; r0 < p.n; r0 += p.br) {
          const std::int64_t rows = std::min(p.br, p.n - r0);
          to.push_back({TensorId::Q, hd + r0 * row, rows * row, false});
          if (c0 > 0) { to.push_back({TensorId::O, hd + r0 * row, rows * row, false});
            if (p.lm) { to.push_back({TensorId::l, hl + r0 * 4, rows * 4, false}); to.push_back({TensorId::m, hl + r0 * 4, rows * 4, false}); } }
          if (p.write) { to.push_back({TensorId::O, hd + r0 * row, rows * row, true});
            if (p.lm && p.lm_write) { to.push_back({TensorId::l, hl + r0 * 4, rows * 4, true}); to.push_back({TensorId::m, hl + r0 * 4, rows * 4, true}); } }
        }
      }
      double r = 0, w = 0;
      for (std::size_t k = 0; k < steps[0].size(); ++k)
        for (int b = 0; b < heads; ++b) {
          const S& s = steps[b][k];
          L2Access a = s.w ? l2.write({s.t, s.first, s.len, 1, s.len, near[b]}) : l2.read({s.t, s.first, s.len, 1, s.len, near[b]}, s.len);
          r += a.miss_bytes; w += a.writeback_bytes;
        }
      char buf[32]; std::snprintf(buf, 32, " %5.2f", r / 1e6); rs += buf; std::snprintf(buf, 32, " %5.2f", w / 1e6); ws += buf;
      R += r; W += w;
    }
    std::printf(" R %6.1f W %5.1f dirty %5.1f\n    R%s\n    W%s\n", R / 1e6, W / 1e6, l2.dirty_bytes() / 1e6, rs.c_str(), ws.c_str());
  }
}
