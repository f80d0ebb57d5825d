// A line-level L2 on the evset probe's facts (2026-11-30): two halves of
// 30 MiB, each 16-way (or WAYS) LRU sets of 128-byte lines; a line's home
// half by the measured XOR hash (l2-home-map-2026-11-30.md); a read from the
// far half looks for a copy in the near half, and the near half keeps one
// (as fasim's PartitionedL2); writes go home and leave a copy near. Only DRAM
// reads are counted. The set index is a guess, one of three:
//   r  a random hash of the line (the model's assumption, per line);
//   m  the line's rank among its half's lines, modulo the sets (a run
//      fills every set in turn: perfectly even);
//   p  as m within each 2 MiB page, each page at a random rotation.
// Each buffer starts at a random 2 MiB page; three seeds.
// Sequences: `stride`: the stride probe (l2-stride-2026-11-30.md): 132
// blocks re-read their share of F = 32 or 40 MiB, one run, every other 2^b
// bytes of a 2F buffer, or a random half of its 4 KiB units; MB read in
// passes 2 to 4. Else a flash1-pattern recording and a name filter: each
// sequence (no slices, workers, kvj or together) with placement 0's SMs;
// the GPU's median (least-most) and the simulation's.
// Build (from the repository root, after the CPU build; lru_halves.hpp beside it):
//   g++ -std=c++20 -O2 -I sim/include docs/results/l2-line-sim-2026-11-30.cpp
//       build/default/sim/libfasim_sim.a -ltomlplusplus -o line-sim   (one line)
// Run:  ./line-sim INDEX WAYS stride
//       ./line-sim INDEX WAYS NAME docs/results/h200-2026-11-30-flash1-pattern-parts.csv
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/l2_flash1_pattern.hpp"
#include "fasim/l2_probes.hpp"
#include "lru_halves.hpp"
using namespace fasim;
static char g_mode = 'm';
static int g_ways = 16;

// Home half: the measured XOR hash; set: one of the three guesses (g_mode).
struct GuessIndex {
  u64 salt;
  int home(u64 a) const {
    const u64 mask = (1ull << 12) | (1ull << 13) | (1ull << 15) | (1ull << 17) | (1ull << 19) | ~((1ull << 21) - 1);
    return __builtin_popcountll(a & mask) & 1;
  }
  u64 set(u64 a, int half, u64 sets) const {
    const u64 line = a >> 7;
    if (g_mode == 'r') return mix((line * 2 + half) ^ salt) % sets;
    const u64 idx = ((a >> 13) << 5) | (line & 31);  // a line's rank among its half's lines (every 8 KiB splits in two)
    if (g_mode == 'm') return idx % sets;
    return (idx + mix((a >> 21) ^ salt)) % sets;  // 'p': as m within 2 MiB pages, pages at random rotations
  }
};
struct L2 : LruHalves<GuessIndex> {
  L2(u64 bytes, u64 seed) : LruHalves(bytes, g_ways, GuessIndex{mix(seed)}) {}
};
constexpr u64 MiB = 1ull << 20, Page = 2 * MiB;
struct Rng { std::mt19937_64 r; u64 base() { return (r() % (1 << 16)) * Page; } };

// flash1 pattern: blocks in lock step per op. Returns MB read per pass.
std::vector<double> flash1(const Flash1Pattern& p, const std::vector<int>& half_of_block, u64 seed) {
  Rng rg{std::mt19937_64(seed)};
  L2 l2(60 * MiB, seed + 1);
  const int heads = static_cast<int>(half_of_block.size());
  const u64 n = p.n, d = p.d, row = d * 2, head = n * row;
  const u64 Q = rg.base(), O = rg.base(), K = rg.base(), V = rg.base(), L = rg.base(), M = rg.base();
  std::vector<double> per;
  for (u64 c0 = 0; c0 < n; c0 += p.bc) {
    long rd = 0;
    auto op = [&](u64 buf, u64 off, u64 bytes, bool w) {
      for (int b = 0; b < heads; ++b) {
        const u64 a0 = buf + b * (buf == L || buf == M ? n * 4 : head) + off;
        for (u64 a = a0 & ~127ull; a < a0 + bytes; a += 128) {
          if (w) l2.write(a, half_of_block[b]);
          else rd += l2.read(a, half_of_block[b]);
        }
      }
    };
    const u64 cols = std::min<u64>(p.bc, n - c0);
    if (p.kv) { op(K, c0 * row, cols * row, false); if (p.read_v) op(V, c0 * row, cols * row, false); }
    for (u64 r0 = 0; r0 < n; r0 += p.br) {
      const u64 rows = std::min<u64>(p.br, n - r0);
      op(Q, r0 * row, rows * row, false);
      if (c0 > 0) {
        op(O, r0 * row, rows * row, false);
        if (p.lm) { op(L, r0 * 4, rows * 4, false); op(M, r0 * 4, rows * 4, false); }
      }
      if (p.write) {
        op(O, r0 * row, rows * row, true);
        if (p.lm && p.lm_write) { op(L, r0 * 4, rows * 4, true); op(M, r0 * 4, rows * 4, true); }
      }
    }
    per.push_back(rd * 128 / 1e6);
  }
  return per;
}

// stride probe: 132 blocks re-read their share of a subset of 4 KiB units, 4 passes; MB of passes 2-4.
double stride(int fmib, int bit, u64 rmask, u64 seed, const std::vector<int>& half_of_sm) {
  Rng rg{std::mt19937_64(seed)};
  L2 l2(60 * MiB, seed + 1);
  const u64 P = rg.base();
  std::vector<u64> units;  // 4 KiB units of the footprint
  const u64 want = u64(fmib) * MiB / 4096;
  if (bit == 0 && rmask == 0) { for (u64 u = 0; u < want; ++u) units.push_back(u); }
  else if (rmask == 0) { for (u64 u = 0; units.size() < want; ++u) if (!(((u * 4096) >> bit) & 1)) units.push_back(u); }
  else { for (u64 u = 0; u < 2 * want; ++u) if (mix(u ^ rmask) & 1) units.push_back(u); }
  const int blocks = 132; const u64 share = units.size() / blocks;
  double after1 = 0;
  for (int pass = 0; pass < 4; ++pass) {
    long rd = 0;
    for (u64 k = 0; k < share; ++k) for (int b = 0; b < blocks; ++b) {
      const u64 a0 = P + units[b * share + k] * 4096;
      for (u64 a = a0; a < a0 + 4096; a += 128) rd += l2.read(a, half_of_sm[b]);
    }
    if (pass > 0) after1 += rd * 128 / 1e6;
  }
  return after1;
}

int main(int argc, char** argv) {
  if (argc < 4 || (std::string(argv[3]) != "stride" && argc < 5)) {
    std::fprintf(stderr, "usage: %s r|m|p WAYS stride | %s r|m|p WAYS NAME PATTERN.csv\n", argv[0], argv[0]);
    return 2;
  }
  g_mode = argv[1][0]; g_ways = std::atoi(argv[2]);
  const std::string what = argv[3];
  const SmLayout layout = read_sm_layout("docs/results/h200-2026-11-30-sm-map.txt");
  std::vector<int> half(layout.half_of_sm.begin(), layout.half_of_sm.end());
  if (what == "stride") {
    for (int f : {32, 40}) {
      std::printf("F%d:", f);
      for (int b : {0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}) {
        double s = 0; for (u64 seed = 1; seed <= 3; ++seed) s += stride(f, b, 0, seed, half);
        std::printf(" b%d %.1f", b, s / 3);
      }
      double s = 0; for (u64 seed = 1; seed <= 3; ++seed) s += stride(f, 1, seed * 7919, seed, half);
      std::printf(" rand %.1f\n", s / 3);
    }
    return 0;
  }
  for (const Flash1Pattern& p : read_flash1_pattern(argv[4])) {
    if (p.name.find(what) == std::string::npos || p.slices > 1 || p.workers > 0) continue;
    if (p.name.find("kvj") != std::string::npos || p.name.find("together") != std::string::npos) continue;
    std::vector<int> hb;
    const int heads = p.heads > 0 ? static_cast<int>(p.heads) : static_cast<int>(p.sm_of_block.size());
    for (int b = 0; b < heads; ++b) hb.push_back(half[p.sm_of_block.empty() ? b : p.sm_of_block[b]]);
    std::vector<double> tot;
    std::vector<double> per0;
    for (u64 seed = 1; seed <= 3; ++seed) {
      auto per = flash1(p, hb, seed);
      double t = 0; for (double x : per) t += x; tot.push_back(t);
      if (seed == 1) per0 = per;
    }
    std::sort(tot.begin(), tot.end());
    std::vector<double> g = p.gpu_mb; std::sort(g.begin(), g.end());
    const double med = g.size() % 2 ? g[g.size() / 2] : (g[g.size() / 2 - 1] + g[g.size() / 2]) / 2;
    std::printf("%-40s GPU %6.1f (%5.1f-%5.1f)  sim %6.1f (%5.1f-%5.1f)  pass4 %.2f\n", p.name.c_str(), med,
                g.front(), g.back(), tot[1], tot[0], tot[2], per0.size() > 3 ? per0[3] : 0.0);
  }
}
