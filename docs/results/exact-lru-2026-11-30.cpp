// An exact set-associative LRU (2026-11-30): is fasim's expected-value L2
// model (SetL2Cache: lines spread over W-way sets at random, Poisson
// counts) faithful to the cache it describes, and does any number of ways
// or any grain of the home-half hash give the GPU's reads of flash1's
// pattern (flash1-pattern-2026-11-30.md)?
// Two halves of 30 MiB, each W-way sets of 128-byte lines, LRU. Each line's
// set is a hash of its address; its home half a hash of its address / GRAN
// (128: every line on its own; 2097152: whole 2 MiB pages), salted per
// seed, and each buffer starts at a random 2 MiB page: a seed is a
// placement. A read from the far half looks for a copy in the near one
// first, and on a miss the near half keeps a copy; writes go home and leave
// a copy near (as PartitionedL2). No dirty limit, no write-back counted:
// only DRAM reads. Blocks 0, 2, 4, ... next to half 0, the others to half 1.
// Sequences: F1 (N = 512, d = 128, Br = Bc = 64), F1-ro, F1-nokv, F1-1024
// (N = 1024, d = 64, Bc = 227), and R132/F (132 blocks re-reading their own
// F MiB, 6 passes), as the flash1-pattern and rmw probes run them.
// Build: g++ -O2 -std=c++20 -o exact-lru exact-lru-2026-11-30.cpp   (lru_halves.hpp beside it)
// Run:   ./exact-lru SEQUENCE WAYS GRAN SEEDS   (e.g. ./exact-lru F1 64 128 8)
// Prints the first seed's MB read per pass and the least, median and most
// over the seeds of the MB read in all.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "lru_halves.hpp"

// Home half: a hash of addr / GRAN; set: a hash of the line and its half (salted per seed).
struct HashIndex {
  u64 gran, salt_h, salt_s;
  int home(u64 addr) const { return mix((addr / gran) ^ salt_h) & 1; }
  u64 set(u64 addr, int half, u64 sets) const { return mix((addr / 128 * 2 + half) ^ salt_s) % sets; }
};
struct L2 : LruHalves<HashIndex> {
  L2(u64 bytes, int ways, u64 gran, u64 seed) : LruHalves(bytes, ways, index_for(gran, seed)) {}
  static HashIndex index_for(u64 gran, u64 seed) {
    std::mt19937_64 rng(seed);
    const u64 h = rng();
    return {gran, h, rng()};
  }
};
int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s SEQUENCE WAYS GRAN SEEDS\n", argv[0]);
    return 2;
  }
  std::string what = argv[1]; int ways = atoi(argv[2]); u64 gran = strtoull(argv[3], 0, 10); int seeds = atoi(argv[4]);
  // halves of the 132 blocks: alternate (66/66)
  const int blocks = 132; const u64 MiB = 1 << 20, page = 2 * MiB;
  std::vector<double> totals;
  for (int s = 0; s < seeds; ++s) {
    std::mt19937_64 r(1000 + s);
    // each allocation at a random page-aligned physical base
    auto base = [&]() { return (r() % (1 << 16)) * page; };
    L2 l2(60 * MiB, ways, gran, 77 + s);
    double total = 0; std::vector<double> per;
    if (what.rfind("F1", 0) == 0) {
      int n = 512, d = 128, br = 64, bc = 64; bool kv = what != "F1-nokv", wr = what != "F1-ro";
      if (what == "F1-1024") { n = 1024; d = 64; bc = 227; }
      u64 row = d * 2, head = n * row;
      u64 Q = base(), O = base(), K = base(), V = base(), L = base(), M = base();
      for (int c0 = 0; c0 < n; c0 += bc) {
        long rd = 0;
        auto op = [&](u64 buf, u64 off, u64 bytes, bool w) {
          for (int b = 0; b < blocks; ++b) {
            u64 a0 = buf + b * (buf == L || buf == M ? n * 4 : head) + off;
            for (u64 a = a0; a < a0 + bytes; a += 128) { if (w) l2.write(a, b & 1); else rd += l2.read(a, b & 1); }
          }
        };
        int cols = std::min(bc, n - c0);
        if (kv) { op(K, c0 * row, cols * row, false); op(V, c0 * row, cols * row, false); }
        for (int r0 = 0; r0 < n; r0 += br) {
          int rows = std::min(br, n - r0);
          op(Q, r0 * row, rows * row, false);
          if (c0 > 0) {
            op(O, r0 * row, rows * row, false);
            op(L, r0 * 4, rows * 4, false);
            op(M, r0 * 4, rows * 4, false);
          }
          if (wr) { op(O, r0 * row, rows * row, true); op(L, r0 * 4, rows * 4, true); op(M, r0 * 4, rows * 4, true); }
        }
        per.push_back(rd * 128 / 1e6); total += rd * 128 / 1e6;
      }
    } else {  // R132/F: each block its own contiguous F/132, 4 KiB steps, 6 passes
      int f = atoi(what.c_str() + 5); u64 P = base(); u64 per_block = (u64)f * MiB / 4096 / blocks;
      for (int pass = 0; pass < 6; ++pass) {
        long rd = 0;
        for (u64 k = 0; k < per_block; ++k) for (int b = 0; b < blocks; ++b) {
          u64 a0 = P + (b * per_block + k) * 4096;
          for (u64 a = a0; a < a0 + 4096; a += 128) rd += l2.read(a, b & 1);
        }
        per.push_back(rd * 128 / 1e6); total += rd * 128 / 1e6;
      }
    }
    totals.push_back(total);
    if (s == 0) { printf("  seed0 per pass:"); for (double x : per) printf(" %.1f", x); printf("\n"); }
  }
  std::sort(totals.begin(), totals.end());
  printf("%s ways %d gran %llu: least %.1f median %.1f most %.1f\n", what.c_str(), ways, (unsigned long long)gran,
         totals[0], totals[totals.size() / 2], totals.back());
}
