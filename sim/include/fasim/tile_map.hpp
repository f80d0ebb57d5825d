// TileMap: the L2 caches' index from a tile to its entry, as a flat table.
//
// Every simulated load and store looks its tile up here, two or three times
// (home, copy). A node-based std::unordered_map spent a sixth of a counting
// run in that lookup (a division by a prime, a pointer chase, a full key
// compare per node). This table keeps the hash and the value side by side in
// one array of a power-of-two size, probes linearly, and compares the stored
// hash before the key. Erase shifts the following run back (no tombstones),
// so a lookup never walks past dead slots.
//
// Where the value points at an object that holds its own key (the caches'
// list entries), `KeyOf` reads the key from there and a slot is 16 bytes:
// a hash and the value. Otherwise (`KeyOf` = void) the slot keeps a copy of
// the 56-byte key. In a long counting run the index holds thousands of tiles
// per partition; with 72-byte slots it was larger than a 1 MiB CPU L2 cache,
// and perf put the first probe's load among the costliest of a lookup
// (docs/results/bench-sim-2026-11-29.md). With KeyOf, the object a value
// points at must outlive its entry here, its key unchanged: erase (or take)
// the key first, then change or destroy the object.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "fasim/l2_key.hpp"

namespace fasim {

/// @brief KeyOf for values that point at (or are iterators to) an object
/// with a `key` member: the L2 caches' list entries.
struct KeyOfPointee {
  /// @brief The key the value points at.
  template <class It>
  const TileKey& operator()(const It& it) const {
    return it->key;
  }
};

namespace detail {
/// A slot of TileMap: the hash (0: empty), the value, and the key unless
/// KeyOf reads it from the value.
template <class V, class KeyOf>
struct TileSlot {
  std::uint64_t hash = 0;
  V value{};
  const TileKey& key() const { return KeyOf{}(value); }
};
template <class V>
struct TileSlot<V, void> {
  std::uint64_t hash = 0;
  TileKey stored;
  V value{};
  const TileKey& key() const { return stored; }
};
}  // namespace detail

/// @brief Open-addressing hash map from TileKey to V (linear probing).
/// `KeyOf`, if not void, is a function object giving the key of a value:
/// the slots then keep no copy of it (see the file comment).
template <class V, class KeyOf = void>
class TileMap {
 public:
  /// @brief The value of `key`, or nullptr.
  V* find(const TileKey& key) {
    if (size_ == 0) return nullptr;
    const std::uint64_t h = hash(key);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.hash == 0) return nullptr;
      if (s.hash == h && s.key() == key) return &s.value;
    }
  }
  /// @brief As find(), read-only.
  const V* find(const TileKey& key) const { return const_cast<TileMap*>(this)->find(key); }
  /// @brief Whether `key` is in the map.
  bool contains(const TileKey& key) const { return find(key) != nullptr; }

  /// @brief Adds `key` (not in the map yet) with `value`.
  void insert(const TileKey& key, V value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot s;
    s.hash = hash(key);
    if constexpr (std::is_void_v<KeyOf>) s.stored = key;
    s.value = std::move(value);
    assert(s.key() == key);  // with KeyOf, the value must hold this key
    place(std::move(s));
    ++size_;
  }

  /// @brief Removes `key`; false if it was not there.
  bool erase(const TileKey& key) { return take(key).has_value(); }

  /// @brief Removes `key` and returns its value (one lookup, where find()
  /// then erase() would take two); nullopt if it was not there.
  std::optional<V> take(const TileKey& key) {
    if (size_ == 0) return std::nullopt;
    const std::uint64_t h = hash(key);
    std::size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].hash == 0) return std::nullopt;
      if (slots_[i].hash == h && slots_[i].key() == key) break;
    }
    std::optional<V> value(std::move(slots_[i].value));
    // Backward shift: move each later slot of the run into the hole when its
    // home position does not lie (cyclically) after the hole.
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      Slot& s = slots_[j];
      if (s.hash == 0) break;
      const std::size_t home = s.hash & mask_;
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = std::move(s);
        i = j;
      }
    }
    slots_[i].hash = 0;
    --size_;
    return value;
  }

  /// @brief Number of keys.
  std::size_t size() const { return size_; }

 private:
  using Slot = detail::TileSlot<V, KeyOf>;

  static std::uint64_t hash(const TileKey& key) {
    const std::uint64_t h = L2KeyHash{}(key);
    return h == 0 ? 1 : h;
  }
  void place(Slot&& s) {
    std::size_t i = s.hash & mask_;
    while (slots_[i].hash != 0) i = (i + 1) & mask_;
    slots_[i] = std::move(s);
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : 2 * slots_.size());
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (Slot& s : old)
      if (s.hash != 0) place(std::move(s));
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace fasim
