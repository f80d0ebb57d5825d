// SetL2Cache: the L2 of l2_cache.hpp, but with sets: each line lives in one
// set of `ways` lines, so it leaves when `ways` other lines of its set have
// been used since it was, not when the whole cache has turned over.
//
// Model (stated, and measured against a GPU in docs/results):
//  - lines are hashed to sets evenly at random: after a tile was last used,
//    D other bytes used since land W * D / C lines in its set on average,
//    Poisson distributed (C the capacity, W the ways);
//  - a line is still in L2 while fewer than W of those lines came after it
//    (LRU within the set). So a tile last used D bytes ago is in L2 with the
//    chance P(Poisson(W (D + b) / C) < W), b its own bytes, and a read hits
//    that share of its bytes. As W grows this is the fully associative LRU
//    of L2Cache: every byte while D + b <= C, none after;
//  - dirty data goes to DRAM when it ages past the most recent (1 - s) W
//    lines of its set (s the clean share, as in L2Cache): the chance
//    P(Poisson(W (D + b) / ((1 - s) C)) >= W). Evicted data was written
//    back before it left, so a dirty tile's write-back is never lost;
//  - data written once: at most kL2DirtyShare of the cache holds it dirty,
//    as in L2Cache (a hard limit, oldest written first). On an H200 a
//    kernel writing X MiB after a flush keeps 28.3 of them dirty from X = 32
//    on (docs/results/h200-2026-11-21-l2-probes.md), and the first pass of
//    the read-modify-write probe does the same (M132 at 32, 36 and 40 MiB:
//    3.7, 7.3 and 11.5 MiB back; docs/results/rmw-2026-11-30.md);
//  - data written again while in the cache ages on the dirty lines' own
//    curve instead, by the dirty bytes written after it (other tiles, each
//    counted once, while any of it is dirty), not by the bytes used: it is
//    still dirty with the chance P(Poisson(W (w + b) / (s C)) < W), w those
//    bytes, s = kL2DirtyCurveShare, times its chance by the rules below (the
//    curves are independent). A read does not make it younger there; a
//    write does. On the H200, blocks re-writing their own rows pass after
//    pass write back softly from about 26 MiB of footprint, half of it at
//    about 30 (M132: 0.2, 5.2, 22.9, 33.6 MiB a pass at 24, 28, 32, 36),
//    while the reads' edge stays a cliff near 40: the hard limit wrote almost
//    nothing up to its 28.2 MiB and everything after;
//  - dirty data read since it came in goes back only as it leaves (as in
//    L2Cache: flash1's O);
//  - data written again while it is still in the cache (flash1's O, l and
//    m, rewritten on every inner step) goes back to DRAM early, and stays,
//    clean: as it ages past the most recent (1 - r) W lines of its set (r =
//    kL2RewrittenCleanShare), the chance P(Poisson(W (D + b) / ((1 - r) C))
//    >= W) of it is written back, whether or not it was read since. The
//    next write makes it dirty again. On an H200, O rewritten pass after pass
//    in a full L2 half went back to DRAM every pass while almost none of it
//    was read back (docs/results/lopsided-split-2026-11-28.md). Data written
//    once keeps to the rules above;
//  - data written since it came in outstays an LRU: once D passes the
//    capacity C it counts only kL2WrittenAging of the bytes after that
//    (C + a (D - C) in place of D) for whether it is still in L2. It goes
//    back to DRAM on the LRU's schedule all the same, and stays, clean. On
//    the GPUs, 16 MiB written and then streamed past miss far less than the
//    same 16 MiB read (docs/results/reuse-2026-11-24.md): the L2 evicts a
//    clean line before a dirty one most of the time;
//  - a read of part of a clean tile (a far SM asking for the lines its own
//    copy lacked, l2_partitions.hpp) makes only those lines recent; the
//    others keep their older place (an entry of its own, TileKey::rest), so
//    the home of a line whose copy keeps hitting ages and leaves, as on the
//    GPUs. Taking the whole tile to the front kept a line and its copy both
//    fresh: re-read data then ran out of room at two thirds of the L2, where
//    the GPUs' churn probes miss from about 0.8
//    (docs/results/h200-2026-11-22-churn-probe.md);
//  - the bytes are expectations, counted as they accrue: on every access of a
//    tile, and for every dirty tile each time C / 4 bytes have been used
//    (settle() counts the rest at the end). Rounded to whole bytes with the
//    remainder carried, so totals are exact sums of the expectations;
//  - with 0 ways (one set) every chance is 1 or 0, all dirty data keeps to
//    the hard limit, and this is L2Cache, access for access
//    (tests/test_l2_sets.cpp).
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <optional>
#include <utility>
#include <vector>

#include "fasim/l2_cache.hpp"

namespace fasim {

/// @brief Tile-granular write-back cache whose lines live in W-way sets.
class SetL2Cache {
 public:
  /// @brief An empty cache of `capacity_bytes` in `ways`-way sets; the
  /// dirty and clean shares as in L2Cache (the dirty share a hard limit with
  /// 0 ways only; with sets the dirty lines' curve is scaled to `dirty_curve`).
  SetL2Cache(std::int64_t capacity_bytes, int ways, double dirty_share = kL2DirtyShare,
             double clean_share = kL2CleanShare, double written_aging = kL2WrittenAging,
             double rewritten_clean = kL2RewrittenCleanShare, double dirty_curve = kL2DirtyCurveShare);
  /// @brief Not copied: its index and dirty lists point into its own LRU
  /// lists. Moved, they stay valid (a moved list keeps its nodes).
  SetL2Cache(const SetL2Cache&) = delete;
  SetL2Cache& operator=(const SetL2Cache&) = delete;
  /// @brief Moves the cache; the lists keep their nodes.
  SetL2Cache(SetL2Cache&&) noexcept = default;
  /// @brief Moves the cache into this one; the lists keep their nodes.
  SetL2Cache& operator=(SetL2Cache&&) noexcept = default;

  /// @brief A read of `bytes` of tile `key`, whose size is `tile_bytes` (0:
  /// the read is the whole tile): the share still in L2 hits.
  L2Access read(const TileKey& key, std::int64_t bytes, std::int64_t tile_bytes = 0);
  /// @brief A write of `bytes` of tile `key`: the tile becomes dirty.
  L2Access write(const TileKey& key, std::int64_t bytes);
  /// @brief Puts a clean tile in the cache (a warm start); false if it does not fit.
  bool preload(const TileKey& key, std::int64_t bytes);
  /// @brief Drops tile `key` if present, without writing it back (for clean copies).
  void drop(const TileKey& key);
  /// @brief Counts the write-backs that accrued since each dirty tile was
  /// last counted; returns those bytes.
  std::int64_t settle();

  /// @brief Bytes of dirty data now in the cache (expected, whole bytes).
  std::int64_t dirty_bytes() const;
  /// @brief Bytes of data now in the cache (expected, whole bytes).
  std::int64_t used_bytes() const;
  /// @brief The cache's size.
  std::int64_t capacity_bytes() const { return capacity_; }

  /// @brief The chance a tile used `since` bytes ago, `bytes` long, is still in L2.
  double resident(std::int64_t since, std::int64_t bytes) const;
  /// @brief The share of a tile written `since` bytes ago that is still dirty.
  double still_dirty(std::int64_t since, std::int64_t bytes) const;

 private:
  struct Entry {
    // What account() reads first (a sweep walks every dirty tile), the key last.
    std::int64_t bytes;
    double dirty = 0;        // share of the bytes dirty when last used
    double backed = 0;       // share of those written back since (counted)
    std::uint64_t stamp = 0;    // in far_: when it left near_
    std::uint64_t wstamp = 0;  // in written_ and by_write_: its last write (0: clean, not there)
    std::int64_t wbytes = 0;   // its bytes there
    std::int64_t wtotal = 0;   // write_total_ just after its last write
    double dirty_base = 1;     // dirty_aged() when dirty was last set: the dirty curve counts from there
    bool near = true;        // in near_ (else in far_)
    bool read = false;       // read since it came into the cache
    bool wrote = false;      // written since it came into the cache
    bool rewritten = false;  // written again while in the cache (kept while tracked): cleaned early
    bool listed = false;     // in dirty_tiles_, at dirty_at
    bool split = false;      // its older lines are in the entry rest_of(key)
    bool limited = true;     // its dirty bytes count in dirty_, under the hard limit (else the dirty curve)
    std::size_t dirty_at = 0;
    std::uint64_t written = 0;  // when last written (for the dirty limit, 0 ways)
    TileKey key;
  };
  /// Fenwick tree over stamps: the bytes of the tile with each stamp (1-based).
  struct Fenwick {
    std::vector<std::int64_t> t;
    void add(std::uint64_t stamp, std::int64_t bytes);
    std::int64_t prefix(std::uint64_t stamp) const;
  };
  using Lru = std::list<Entry>;  // front = most recently used

  /// P(Poisson(W x) < W): the chance a line survives x capacities of other lines.
  double survive(double x) const;
  /// The chance a line of a `bytes`-byte tile used `since` bytes ago is still
  /// among the most recent (1 - share) of its set's lines.
  double within(std::int64_t since, std::int64_t bytes, double share) const;
  /// Bytes used since entry e was (other tiles, each counted once). 0 in
  /// near_, where every tile is surely in L2 and dirty (the same to
  /// resident() and still_dirty(), and no tree walk).
  std::int64_t since(const Entry& e) const;
  /// `d` bytes used since e, as they count for whether e is still in L2:
  /// all of them, except past the capacity for data written since it came
  /// in, which ages at written_aging_ there.
  std::int64_t kept(const Entry& e, std::int64_t d) const;
  /// The share of e's dirty bytes not yet written back, `d` bytes after its use.
  double left_dirty(const Entry& e, std::int64_t d) const;
  /// Counts e's write-backs up to `d` bytes since its use; adds them to wb_.
  void account(Entry& e, std::int64_t d);
  /// A read of `bytes` of a `size`-byte clean tile whose lines are split in
  /// two parts, e (more recent) and rest_of(key) (older), or that a partial
  /// read is about to split. Returns the chance a line asked for is in L2.
  /// The lines read become part e, the most recent; the others the rest.
  /// Only a far SM reads part of a tile: the lines its own copy lacked
  /// (l2_partitions.hpp). On a GPU the lines whose copy hits are not read
  /// at home and age there; taking the whole tile to the front would keep
  /// both a line and its copy fresh and overstate how full the L2 is.
  double read_split(Lru::iterator e, std::int64_t bytes, std::int64_t size);
  /// Sets e's bytes, keeping its place.
  void resize(Entry& e, std::int64_t bytes);
  /// The key of a tile's older lines.
  static TileKey rest_of(TileKey key);
  /// Makes e the most recently used tile.
  void use(Lru::iterator it);
  /// Inserts a new tile, most recently used.
  Lru::iterator insert(const TileKey& key, std::int64_t bytes);
  /// Moves the least recently used tiles of near_ to far_ while near_ holds
  /// more than sure_bytes_.
  void age();
  /// Adds `bytes` used; every C / 16 sweeps the dirty tiles.
  void used(std::int64_t bytes);
  /// Accounts every dirty tile, drops tiles that are surely gone.
  void sweep();
  /// Puts a dirty tile of far_ in dirty_tiles_ (once) / takes it out.
  void list_dirty(Entry& e);
  void unlist_dirty(Entry& e);
  /// Writes back what is still dirty of e (counted now); e is clean after.
  void write_back_rest(Entry& e);
  /// The write-back bytes counted since the last call, whole (remainder carried).
  std::int64_t take_writebacks();
  /// Writes back the oldest written dirty tiles until within the dirty limit.
  void limit_dirty();
  std::uint64_t next_stamp();
  /// The chance a line of e is still dirty by the dirty lines' own curve:
  /// P(Poisson(W (w + b) / (s C)) < W), w the dirty bytes written since e
  /// was (other tiles, each counted once), b its bytes, s the curve's share.
  /// 1 for data under the hard dirty limit (written once, or any with 0 ways).
  double dirty_aged(const Entry& e) const;
  /// Puts e in written_ as the most recently written tile / takes it out.
  void stamp_written(Entry& e);
  void unstamp_written(Entry& e);
  /// Whole bytes of an expectation, the remainder carried in `carry`.
  static std::int64_t whole(double bytes, double& carry);

  std::int64_t capacity_;
  int ways_;
  double dirty_limit_;
  double clean_share_;
  double written_aging_;
  double rewritten_clean_;
  // Recency order is near_ then far_. near_ holds the most recently used
  // tiles, at most sure_bytes_ of them: surely in L2 and surely still dirty.
  // far_ the rest, numbered by a Fenwick tree to count bytes used since.
  Lru near_, far_;
  std::int64_t near_bytes_ = 0, far_bytes_ = 0;
  std::int64_t sure_bytes_ = 0;
  TileMap<Lru::iterator, KeyOfPointee> index_;  // the key is in the entry
  Fenwick fen_;  // over the stamps of far_
  // Dirty tiles in the order of their last write, numbered by a Fenwick tree
  // to count the dirty bytes written since (the dirty lines' own curve).
  double dirty_room_;
  Fenwick written_;
  std::vector<Entry*> by_write_;  // the tile with each write stamp at stamp - 1 (null: no longer dirty)
  std::int64_t written_bytes_ = 0;
  std::int64_t write_total_ = 0;  // bytes of every write so far (dirty_aged()'s bound)
  double sure_written_ = 0;       // dirty bytes written after a line that surely leave it dirty
  std::uint64_t clock_ = 0;
  double dirty_ = 0;             // expected dirty bytes, as last counted
  double wb_ = 0;                // write-back bytes counted, not yet reported
  double wb_carry_ = 0, miss_carry_ = 0;
  std::int64_t since_sweep_ = 0;
  std::deque<std::pair<TileKey, std::uint64_t>> writes_;
  // Tiles of far_ with bytes not yet written back (a tile in near_ is surely
  // still dirty: nothing to count), in the order they entered far_; a
  // tile taken out leaves a null until the next compaction. A vector, not a
  // list: sweep() walks it every C / 4 bytes, and a list walk waits on one
  // cache miss after another (half of a large flash1 run's time).
  std::vector<Entry*> dirty_tiles_;
  std::size_t dirty_listed_ = 0;  // non-null entries of dirty_tiles_
  std::uint64_t write_clock_ = 0;
  static constexpr int kSteps = 1024;  // table steps per capacity
  std::vector<double> table_;          // survive(i / kSteps)
};

}  // namespace fasim
