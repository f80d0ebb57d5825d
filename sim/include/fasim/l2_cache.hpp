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
//    reading DRAM (whole sectors are written); DRAM sees the bytes only when
//    the tile is evicted. Dirty tiles left at the end stay in L2.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>

#include "fasim/tensor.hpp"

namespace fasim {

/// @brief Which tile of which tensor: the cache's key.
struct TileKey {
  /// the tensor
  TensorId tensor = TensorId::Q;
  /** @var row0
   *  First row. */
  /** @var col0
   *  First column. */
  /** @var rows
   *  Rows. */
  /** @var cols
   *  Columns. */
  /// (batch * head) of the tile.
  std::int64_t bh = 0, row0 = 0, col0 = 0, rows = 0, cols = 0;
  /// A partition's copy of a tile homed in another partition (see PartitionedL2).
  bool copy = false;
  /// @brief Same tensor, head, rectangle and kind (home or copy).
  bool operator==(const TileKey&) const = default;
};

/// @brief What one access did.
struct L2Access {
  std::int64_t hit_bytes = 0;        ///< served by L2
  std::int64_t miss_bytes = 0;       ///< read from DRAM (reads only)
  std::int64_t writeback_bytes = 0;  ///< dirty bytes evicted to DRAM to make room
};

/// @brief Tile-granular, fully associative LRU write-back cache.
class L2Cache {
 public:
  /// @brief An empty cache of `capacity_bytes` (the device's L2 size).
  explicit L2Cache(std::int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// @brief A read of `bytes` (sector-rounded) of tile `key`.
  L2Access read(const TileKey& key, std::int64_t bytes);
  /// @brief A write of `bytes` (sector-rounded) of tile `key`: the tile becomes dirty.
  L2Access write(const TileKey& key, std::int64_t bytes);
  /// @brief Puts a clean tile in the cache (a warm start); false if it does not fit.
  bool preload(const TileKey& key, std::int64_t bytes);
  /// @brief Drops tile `key` if present, without writing it back (for clean copies).
  void drop(const TileKey& key);

  /// @brief Bytes of dirty tiles now in the cache.
  std::int64_t dirty_bytes() const { return dirty_; }
  /// @brief Bytes of all tiles now in the cache.
  std::int64_t used_bytes() const { return used_; }
  /// @brief The cache's size.
  std::int64_t capacity_bytes() const { return capacity_; }

 private:
  struct Entry {
    TileKey key;
    std::int64_t bytes;
    bool dirty;
  };
  struct KeyHash {
    std::size_t operator()(const TileKey& k) const noexcept;
  };
  using Lru = std::list<Entry>;  // front = most recently used

  /// Evicts least recently used tiles until `bytes` more fit; returns dirty bytes evicted.
  std::int64_t make_room(std::int64_t bytes);
  void insert(const TileKey& key, std::int64_t bytes, bool dirty);

  std::int64_t capacity_;
  std::int64_t used_ = 0;
  std::int64_t dirty_ = 0;
  Lru lru_;
  std::unordered_map<TileKey, Lru::iterator, KeyHash> index_;
};

}  // namespace fasim
