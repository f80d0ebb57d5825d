// L2Cache: the cache between SRAM and HBM, shared by every SM.
//
// Model (stated, and measured against a GPU in docs/results):
//  - capacity: the device's L2 bytes; requests are rounded to whole sectors
//    (32 B on NVIDIA GPUs) — an L2 is filled and written back by sectors;
//  - granularity: one entry per tile (a tensor's rows [row0, row0+rows) x cols
//    [col0, col0+cols) of one head). fasim's algorithms always load a tensor
//    with the same tiling they stored it with, so a tile is a natural unit,
//    and the cache costs one hash lookup per load instead of one per line;
//  - fully associative, least-recently-used replacement;
//  - write-back, write-allocate: a store makes its tile dirty in L2 without
//    reading DRAM (whole sectors are written); DRAM sees the bytes when the
//    tile is evicted, or earlier (below). Dirty tiles left at the end stay in L2;
//  - at most kL2DirtyShare of the cache holds dirty data: a store that takes
//    the dirty bytes past that writes back the least recently written dirty
//    tiles, which stay in the cache, clean (measured on an H200: a kernel that
//    writes X bytes after a flush writes X - 0.47 L2 of them to DRAM itself,
//    and a later read still finds nearly all of them in L2);
//  - no dirty data goes back before it must (kL2CleanShare is 0): with the
//    measured range started cleanly, flash2's O, written and never read,
//    stays in L2 (H200 sweep: 0.01 to 0.3 MiB of 8 MiB written back during
//    the kernel at d = 64). An earlier fit needed early write-back, but the
//    GPU counts it was fitted to held about 3 MiB that CUPTI's own start of
//    range left dirty in L2 (docs/results/h200-2026-11-22-cupti-start-writes.md).
//    The mechanism stays, with its share a parameter, for the churn probes.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <utility>

#include "fasim/l2_key.hpp"
#include "fasim/tile_map.hpp"

namespace fasim {

/// @brief What one access did.
struct L2Access {
  std::int64_t hit_bytes = 0;        ///< served by L2
  std::int64_t miss_bytes = 0;       ///< read from DRAM (reads only)
  std::int64_t writeback_bytes = 0;  ///< dirty bytes evicted to DRAM to make room
  std::int64_t fabric_bytes = 0;     ///< bytes that crossed between L2 partitions (PartitionedL2)
};

/// @brief Share of an L2 that may hold dirty data before the oldest written
/// data goes back to DRAM (and stays in L2, clean). Measured on an H200 (60 MiB
/// L2): kernels writing 32 to 64 MiB after a flush each wrote all but
/// 28.3 MiB (0.47 of the L2) back to DRAM during the kernel; the same share
/// is assumed on the other devices.
inline constexpr double kL2DirtyShare = 0.47;

/// @brief Share of an L2, at the least recently used end, in which dirty data
/// that was not read since it came in is written back to DRAM early (and
/// stays, clean). 0: no early write-back. Chosen on the H200 sweep recorded
/// with the L2 flushed after CUPTI's start of range
/// (docs/results/h200-2026-11-22-sweep.csv, 32-way sets): DRAM writes in their
/// bar at 41 of 60 points with 0, 35 with 0.1, 34 with 0.2, 32 with 0.3. The
/// H100 sweep agrees (41, 36 and 31 with 0, 0.1 and 0.3). Assumed the same on
/// other devices.
inline constexpr double kL2CleanShare = 0;

/// @brief The rate at which data written in the L2 ages once an LRU would
/// have evicted it (the set model only, l2_sets.hpp): it goes back to DRAM
/// then, as before, but stays in L2, clean, and ages at this rate after. 1:
/// an LRU. Measured on an H200 and an H100 (docs/results/
/// reuse-2026-11-24.md): 16 MiB written, then read after a stream of B MiB
/// of other reads, misses far less than the same 16 MiB read at first
/// (H200, B = 32: 5.6 against 14.1 MiB). 0.5 chosen on the recorded sets
/// among 0.3, 0.4, 0.5 and 0.7.
inline constexpr double kL2WrittenAging = 0.5;

/// @brief Share of an L2, at the least recently used end, in which data that
/// was written again while it was still in the L2 is written back early and
/// stays, clean (the set model only, l2_sets.hpp). flash1 reads and rewrites
/// O, l and m on every inner step; other kernels write each tile once.
/// Measured on an H200 (docs/results/lopsided-split-2026-11-28.md): blocks
/// that re-read their Q and rewrite their O, pass after pass, in a half
/// filled to the brim, wrote 1.92 MiB of O back to DRAM each pass while
/// reading back 0.18 MiB. First 0.1, chosen on the recorded sets among 0.03,
/// 0.05, 0.07, 0.1, 0.2 and 0.3 with 32-way sets, then held out on 12 flash1
/// shapes recorded before (h200-2026-11-28-rewrite-clean-holdout.csv): DRAM
/// writes in their bar at 6 of 12, against 1 of 12 without it. Since
/// 2026-11-29, 0.05: chosen with 64-way sets and small grids placed as the
/// GPUs place them, among 0, 0.02, 0.04, 0.05, 0.07 and 0.1, then held out
/// on 27 shapes recorded before (small-grid-placement-2026-11-28.md).
inline constexpr double kL2RewrittenCleanShare = 0.05;

/// @brief Share of an L2 that the dirty lines' own survival curve is
/// scaled to (the set model only, l2_sets.hpp): data written again while in
/// the L2 goes back to DRAM as the dirty bytes written after it fill this
/// share, softly, as a line leaves a W-way set; data written once keeps to
/// the hard limit kL2DirtyShare. Measured on an H200
/// (docs/results/rmw-2026-11-30.md): blocks re-writing their own F MiB pass
/// after pass write back 0.2, 5.2, 22.9 and 33.6 MiB a pass at F = 24, 28,
/// 32 and 36 (132 blocks; 16 and 10 alike), half of F at about 30 MiB,
/// against 28.3 MiB kept by one write of X MiB. 0.52 chosen on that probe's
/// 36 writing sequences among 0.47 to 0.535 (summed write-back error 101,
/// 58, 43 and 45 MiB at 0.47, 0.50, 0.52 and 0.535 before written-once data
/// kept the hard limit; 47 at 0.52 after); the recorded sets score the same
/// from 0.52 to 0.54.
inline constexpr double kL2DirtyCurveShare = 0.52;

/// @brief Tile-granular, fully associative LRU write-back cache.
class L2Cache {
 public:
  /// @brief An empty cache of `capacity_bytes` (the device's L2 size, or one
  /// partition's) that keeps at most `dirty_share` of it dirty, and writes
  /// back dirty tiles that age into its least recently used `clean_share`.
  explicit L2Cache(std::int64_t capacity_bytes, double dirty_share = kL2DirtyShare,
                   double clean_share = kL2CleanShare);

  /// @brief A read of `bytes` (sector-rounded) of tile `key`, whose size is
  /// `tile_bytes` (0: the read is the whole tile).
  L2Access read(const TileKey& key, std::int64_t bytes, std::int64_t tile_bytes = 0);
  /// @brief A write of `bytes` (sector-rounded) of tile `key`: the tile becomes dirty.
  L2Access write(const TileKey& key, std::int64_t bytes);
  /// @brief Puts a clean tile in the cache (a warm start); false if it does not fit.
  bool preload(const TileKey& key, std::int64_t bytes);
  /// @brief Drops tile `key` if present, without writing it back (for clean copies).
  void drop(const TileKey& key);

  /// @brief Bytes of dirty tiles now in the cache.
  std::int64_t dirty_bytes() const { return dirty_; }
  /// @brief The most dirty bytes the cache keeps (dirty_share of its size).
  std::int64_t dirty_limit_bytes() const { return dirty_limit_; }
  /// @brief Bytes of all tiles now in the cache.
  std::int64_t used_bytes() const { return used_; }
  /// @brief The cache's size.
  std::int64_t capacity_bytes() const { return capacity_; }
  /// @brief Bytes of the most recently used tiles, which stay dirty if written
  /// (the cache's size less its clean share).
  std::int64_t recent_limit_bytes() const { return recent_limit_; }

 private:
  struct Entry {
    TileKey key;
    std::int64_t bytes;
    bool dirty;
    std::uint64_t written;  // when it was last written (see written_)
    bool recent;            // in recent_ (else in old_)
    bool read = false;      // read since it came into the cache
  };
  using Lru = std::list<Entry>;  // front = most recently used

  /// Evicts least recently used tiles until `bytes` more fit; returns dirty bytes evicted.
  std::int64_t make_room(std::int64_t bytes);
  /// Puts a new tile at the front of recent_; returns it and the dirty bytes written back.
  std::pair<Lru::iterator, std::int64_t> insert(const TileKey& key, std::int64_t bytes, bool dirty);
  /// Moves a tile to the front of recent_ (used now); returns the dirty bytes written back.
  std::int64_t touch(Lru::iterator it);
  /// Moves the least recently used tiles of recent_ to old_ until recent_ is
  /// within its limit, writing back the dirty ones; returns those bytes.
  std::int64_t age();
  /// Marks entry e written now; returns the dirty bytes written back to keep
  /// the dirty bytes within the limit (oldest written first, kept clean).
  std::int64_t written(Entry& e);

  std::int64_t capacity_;
  std::int64_t dirty_limit_;
  std::int64_t used_ = 0;
  std::int64_t recent_limit_;
  std::int64_t dirty_ = 0;
  std::int64_t recent_bytes_ = 0;
  // LRU order is recent_ then old_: recent_ holds the most recently used
  // tiles, at most recent_limit_ bytes; old_ the rest (the clean share).
  Lru recent_;
  Lru old_;
  TileMap<Lru::iterator, KeyOfPointee> index_;  // the key is in the entry
  // Writes in order: (tile, its `written` stamp then). An entry is current
  // while the tile is still in the cache, dirty, with that stamp; others are
  // skipped (and dropped when they outnumber the tiles).
  std::deque<std::pair<TileKey, std::uint64_t>> writes_;
  std::uint64_t clock_ = 0;
};

}  // namespace fasim
