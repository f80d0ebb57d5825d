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

/// What a line counts for in written_back (1 unless a simulation sets it).
inline double (*g_line_weight)(u64 line) = nullptr;
inline double line_weight(u64 line) { return g_line_weight ? g_line_weight(line) : 1.0; }

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
  std::vector<u64> wstamp;  // when each way's line was last written
  double written_back = 0;
  /// At most this many dirty lines a set (0: no limit): a write past it
  /// writes back the set's least recently written dirty line, which stays, clean.
  int dirty_max = 0;
  /// A line written again while in the set (a write hit) that ages to this
  /// place (0-based, most recent first) is written back early and stays,
  /// clean (0: never).
  int clean_at = 0;
  std::vector<std::uint8_t> rw;  // written again while in the set
  u64 clock = 0;
  LruSets(u64 bytes, int w)
      : ways(w), sets(bytes / 128 / w), tag(sets * w), dirty(sets * w, 0), n(sets, 0), wstamp(sets * w, 0), rw(sets * w, 0) {}
  void age(u64 set) {
    if (clean_at <= 0 || n[set] <= clean_at) return;
    const u64 i = set * ways + clean_at;
    if (dirty[i] && rw[i]) { dirty[i] = 0; written_back += line_weight(tag[i]); }
  }
  void limit(u64 set) {
    if (dirty_max <= 0) return;
    std::uint8_t* dt = &dirty[set * ways];
    u64* ws = &wstamp[set * ways];
    int c = 0, old = -1;
    for (int i = 0; i < n[set]; ++i)
      if (dt[i]) { ++c; if (old < 0 || ws[i] < ws[old]) old = i; }
    if (c > dirty_max) { dt[old] = 0; written_back += line_weight(tag[set * ways + old]); }
  }
  /// True on a hit (the line moves to the front); on a miss the oldest line
  /// of a full set falls out and this one goes in front. `write` makes it dirty.
  bool access(u64 line, u64 set, bool write = false) {
    u64* t = &tag[set * ways];
    std::uint8_t* dt = &dirty[set * ways];
    const int k = n[set];
    for (int i = 0; i < k; ++i)
      if (t[i] == line) {
        const std::uint8_t was = dt[i];
        u64* ws = &wstamp[set * ways];
        const u64 wsi = ws[i];
        std::memmove(t + 1, t, i * sizeof(u64));
        std::memmove(dt + 1, dt, i);
        std::memmove(ws + 1, ws, i * sizeof(u64));
        std::uint8_t* r = &rw[set * ways];
        const std::uint8_t rwi = r[i] | (write ? 1 : 0);
        std::memmove(r + 1, r, i);
        r[0] = rwi;
        t[0] = line;
        dt[0] = was | (write ? 1 : 0);
        ws[0] = write ? ++clock : wsi;
        if (write) limit(set);
        if (i >= clean_at) age(set);
        return true;
      }
    if (k == ways && dt[ways - 1]) written_back += line_weight(t[ways - 1]);
    u64* ws = &wstamp[set * ways];
    std::memmove(t + 1, t, std::min(k, ways - 1) * sizeof(u64));
    std::memmove(dt + 1, dt, std::min(k, ways - 1));
    std::memmove(ws + 1, ws, std::min(k, ways - 1) * sizeof(u64));
    std::memmove(&rw[set * ways] + 1, &rw[set * ways], std::min(k, ways - 1));
    rw[set * ways] = 0;
    t[0] = line;
    dt[0] = write ? 1 : 0;
    ws[0] = write ? ++clock : 0;
    if (k < ways) n[set]++;
    if (write) limit(set);
    age(set);
    return false;
  }
  /// Dirty lines still held.
  double dirty_lines() const {
    double c = 0;
    for (u64 s = 0; s < sets; ++s)
      for (int i = 0; i < n[s]; ++i)
        if (dirty[s * ways + i]) c += line_weight(tag[s * ways + i]);
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
  double written_back() const { return p[0].written_back + p[1].written_back; }
  double dirty_lines() const { return p[0].dirty_lines() + p[1].dirty_lines(); }
};
