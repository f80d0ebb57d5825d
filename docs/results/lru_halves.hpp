// What the two line-level L2 simulations in this folder share
// (exact-lru-2026-11-30.cpp, l2-line-sim-2026-11-30.cpp): W-way LRU sets of
// 128-byte lines, and two halves that keep copies as fasim's PartitionedL2
// does. Each simulation gives its own index: home(addr), the half a line
// lives in, and set(addr, half, sets), its set there.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

using u64 = std::uint64_t;

/// A 64-bit finaliser: every input bit moves every output bit.
inline u64 mix(u64 x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/// `bytes` of W-way sets of 128-byte lines, each set's tags most recent first.
struct LruSets {
  int ways;
  u64 sets;
  std::vector<u64> tag;
  std::vector<std::uint8_t> n;
  LruSets(u64 bytes, int w) : ways(w), sets(bytes / 128 / w), tag(sets * w), n(sets, 0) {}
  /// True on a hit (the line moves to the front); on a miss the oldest line
  /// of a full set falls out and this one goes in front.
  bool access(u64 line, u64 set) {
    u64* t = &tag[set * ways];
    const int k = n[set];
    for (int i = 0; i < k; ++i)
      if (t[i] == line) {
        std::memmove(t + 1, t, i * sizeof(u64));
        t[0] = line;
        return true;
      }
    std::memmove(t + 1, t, std::min(k, ways - 1) * sizeof(u64));
    t[0] = line;
    if (k < ways) n[set]++;
    return false;
  }
};

/// Two halves of `bytes` in all. A read from the far half looks for a copy
/// in the near one first; on a miss the near half keeps a copy. A write goes
/// home and leaves a copy near. Only DRAM reads are counted.
template <class Index>
struct LruHalves {
  LruSets p[2];
  Index index;
  LruHalves(u64 bytes, int ways, Index i) : p{LruSets(bytes / 2, ways), LruSets(bytes / 2, ways)}, index(i) {}
  bool in(int half, u64 addr) { return p[half].access(addr / 128, index.set(addr, half, p[half].sets)); }
  /// 1 if the read of the line at `addr` by an SM next to half `near` went to DRAM.
  int read(u64 addr, int near) {
    const int h = index.home(addr);
    if (h == near) return in(h, addr) ? 0 : 1;
    if (in(near, addr)) return 0;  // the copy (made on a miss)
    return in(h, addr) ? 0 : 1;
  }
  void write(u64 addr, int near) {
    const int h = index.home(addr);
    in(h, addr);
    if (h != near) in(near, addr);
  }
};
