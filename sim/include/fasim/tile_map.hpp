// TileMap: the L2 caches' index from a tile to its entry, as a flat table.
//
// Every simulated load and store looks its tile up here, two or three times
// (home, copy). A node-based std::unordered_map spent a sixth of a counting
// run in that lookup (a division by a prime, a pointer chase, a full key
// compare per node). This table keeps the key, its hash and the value side by
// side in one array of a power-of-two size, probes linearly, and compares the
// stored hash before the key. Erase shifts the following run back (no
// tombstones), so a lookup never walks past dead slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fasim/l2_key.hpp"

namespace fasim {

/// @brief Open-addressing hash map from TileKey to V (linear probing).
template <class V>
class TileMap {
 public:
  /// @brief The value of `key`, or nullptr.
  V* find(const TileKey& key) {
    if (size_ == 0) return nullptr;
    const std::uint64_t h = hash(key);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.hash == 0) return nullptr;
      if (s.hash == h && s.key == key) return &s.value;
    }
  }
  /// @brief As find(), read-only.
  const V* find(const TileKey& key) const { return const_cast<TileMap*>(this)->find(key); }
  /// @brief Whether `key` is in the map.
  bool contains(const TileKey& key) const { return find(key) != nullptr; }

  /// @brief Adds `key` (not in the map yet) with `value`.
  void insert(const TileKey& key, V value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(Slot{hash(key), key, std::move(value)});
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
      if (slots_[i].hash == h && slots_[i].key == key) break;
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
  struct Slot {
    std::uint64_t hash = 0;  // 0: empty
    TileKey key;
    V value{};
  };

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
