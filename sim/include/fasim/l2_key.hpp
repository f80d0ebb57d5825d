// TileKey: which tile of which tensor, the key of the L2 caches; and its hash.
#pragma once

#include <cstddef>
#include <cstdint>

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
  /// The lines of a home tile that its last partial read did not touch
  /// (SetL2Cache keeps them apart, at their older place in the LRU order).
  bool rest = false;
  /// @brief Same tensor, head, rectangle and kind (home, copy or rest).
  bool operator==(const TileKey&) const = default;
};

/// @brief Hash of a TileKey: each field times its own odd 64-bit constant,
/// summed (the products are independent, so they pipeline), then mixed so the
/// low bits a table indexes by depend on all of them (murmur3's finalizer).
struct L2KeyHash {
  /// @brief The hash.
  std::size_t operator()(const TileKey& k) const noexcept {
    auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    std::uint64_t h = (static_cast<std::uint64_t>(k.tensor) + 1) * 0x9e3779b97f4a7c15ULL;
    h += u(k.bh) * 0xbf58476d1ce4e5b9ULL + u(k.row0) * 0x94d049bb133111ebULL;
    h += u(k.col0) * 0xd6e8feb86659fd93ULL + u(k.rows) * 0xa0761d6478bd642fULL;
    h += u(k.cols) * 0xe7037ed1a0b428dbULL + (k.copy ? 0x8ebc6af09c88c6e3ULL : 0) +
         (k.rest ? 0x2545f4914f6cdd1dULL : 0);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return static_cast<std::size_t>(h ^ (h >> 33));
  }
};

}  // namespace fasim
