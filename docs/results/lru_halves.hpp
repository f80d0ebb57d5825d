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

/// `bytes` of W-way sets of 128-byte lines, each set's tags most recent first,
/// each with a dirty flag (set by a write; a dirty line that falls out is a
/// write-back, counted in `written_back`).
struct LruSets {
  int ways;
  u64 sets;
  std::vector<u64> tag;
  std::vector<std::uint8_t> dirty;
  std::vector<std::uint8_t> n;
  u64 written_back = 0;
  LruSets(u64 bytes, int w) : ways(w), sets(bytes / 128 / w), tag(sets * w), dirty(sets * w, 0), n(sets, 0) {}
  /// True on a hit (the line moves to the front); on a miss the oldest line
  /// of a full set falls out and this one goes in front. `write` makes it dirty.
  bool access(u64 line, u64 set, bool write = false) {
    u64* t = &tag[set * ways];
    std::uint8_t* dt = &dirty[set * ways];
    const int k = n[set];
    for (int i = 0; i < k; ++i)
      if (t[i] == line) {
        const std::uint8_t was = dt[i];
        std::memmove(t + 1, t, i * sizeof(u64));
        std::memmove(dt + 1, dt, i);
        t[0] = line;
        dt[0] = was | (write ? 1 : 0);
        return true;
      }
    if (k == ways) written_back += dt[ways - 1];
    std::memmove(t + 1, t, std::min(k, ways - 1) * sizeof(u64));
    std::memmove(dt + 1, dt, std::min(k, ways - 1));
    t[0] = line;
    dt[0] = write ? 1 : 0;
    if (k < ways) n[set]++;
    return false;
  }
  /// Dirty lines still held.
  u64 dirty_lines() const {
    u64 c = 0;
    for (u64 s = 0; s < sets; ++s)
      for (int i = 0; i < n[s]; ++i) c += dirty[s * ways + i];
    return c;
  }
};

/// Two halves of `bytes` in all. A read from the far half looks for a copy
/// in the near one first; on a miss the near half keeps a copy. A write goes
/// home and leaves a copy near. DRAM reads are counted by read(); DRAM
/// writes by written_back() and dirty_lines().
template <class Index>
struct LruHalves {
  LruSets p[2];
  Index index;
  LruHalves(u64 bytes, int ways, Index i) : p{LruSets(bytes / 2, ways), LruSets(bytes / 2, ways)}, index(i) {}
  bool in(int half, u64 addr, bool write = false) {
    return p[half].access(addr / 128, index.set(addr, half, p[half].sets), write);
  }
  /// 1 if the read of the line at `addr` by an SM next to half `near` went to DRAM.
  int read(u64 addr, int near) {
    const int h = index.home(addr);
    if (h == near) return in(h, addr) ? 0 : 1;
    if (in(near, addr)) return 0;  // the copy (made on a miss)
    return in(h, addr) ? 0 : 1;
  }
  /// The write goes home (dirty there); the near half keeps a clean copy.
  void write(u64 addr, int near) {
    const int h = index.home(addr);
    in(h, addr, true);
    if (h != near) in(near, addr);
  }
  /// Lines written back to DRAM so far, and dirty lines still held: a copy
  /// is never dirty, so these are the homes'.
  u64 written_back() const { return p[0].written_back + p[1].written_back; }
  u64 dirty_lines() const { return p[0].dirty_lines() + p[1].dirty_lines(); }
};
