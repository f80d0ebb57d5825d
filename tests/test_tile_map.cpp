// TileMap (tile_map.hpp): the L2 caches' flat index. Checked against
// std::unordered_map over a long random run of inserts, erases and lookups,
// with keys that collide in the table's low bits (the probing and the
// backward-shift erase are where an open-addressing table goes wrong). Both
// kinds of slot: the key kept in the slot, and the key read from the entry a
// value points at (KeyOfPointee, as the L2 caches use it).
#include <catch2/catch.hpp>

#include <cstdint>
#include <list>
#include <random>
#include <unordered_map>
#include <vector>

#include "fasim/tile_map.hpp"

using namespace fasim;

namespace {
TileKey key_of(std::int64_t i) {
  return TileKey{static_cast<TensorId>(i % 4), i / 64, (i % 64) * 128, 0, 128, 64, (i % 3) == 0};
}

// The map under test behind one interface: values are int64 either way.
struct KeyInSlot {
  TileMap<std::int64_t> map;
  std::int64_t* find(const TileKey& k) { return map.find(k); }
  void insert(const TileKey& k, std::int64_t v) { map.insert(k, v); }
  bool erase(const TileKey& k) { return map.erase(k); }
  std::size_t size() const { return map.size(); }
};
struct Node {
  TileKey key;
  std::int64_t value = 0;
};
struct KeyInEntry {  // as the caches: the map holds list iterators, the list the keys
  std::list<Node> nodes;
  TileMap<std::list<Node>::iterator, KeyOfPointee> map;
  std::int64_t* find(const TileKey& k) {
    auto* it = map.find(k);
    return it ? &(*it)->value : nullptr;
  }
  void insert(const TileKey& k, std::int64_t v) {
    nodes.push_front(Node{k, v});
    map.insert(k, nodes.begin());
  }
  bool erase(const TileKey& k) {
    auto it = map.take(k);  // out of the index first, then the entry that holds the key
    if (it) nodes.erase(*it);
    return it.has_value();
  }
  std::size_t size() const { return map.size(); }
};
}  // namespace

// A slot is the hash and an iterator when the entry holds the key: 16 bytes,
// against 72 with the key in the slot (tile_map.hpp says why that matters).
static_assert(sizeof(detail::TileSlot<std::list<Node>::iterator, KeyOfPointee>) == 16);
static_assert(sizeof(detail::TileSlot<std::int64_t, void>) == 8 + sizeof(TileKey) + 8);

TEMPLATE_TEST_CASE("TileMap: finds, inserts and erases as std::unordered_map does", "[l2]", KeyInSlot, KeyInEntry) {
  TestType map;
  std::unordered_map<TileKey, std::int64_t, L2KeyHash> want;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> pick(0, 4999);  // ~2,500 live keys: many grows and runs
  std::int64_t checked = 0;
  for (int step = 0; step < 200000; ++step) {
    const TileKey k = key_of(pick(rng));
    const auto w = want.find(k);
    std::int64_t* got = map.find(k);
    REQUIRE((got != nullptr) == (w != want.end()));
    if (w != want.end()) {
      REQUIRE(*got == w->second);
      ++checked;
      if (step % 2 == 0) {
        REQUIRE(map.erase(k));
        want.erase(w);
      } else {
        *got = step;  // the value is the map's own: writable in place
        w->second = step;
      }
    } else {
      REQUIRE_FALSE(map.erase(k));
      map.insert(k, step);
      want.emplace(k, step);
    }
    REQUIRE(map.size() == want.size());
  }
  CHECK(checked > 50000);
  for (std::int64_t i = 0; i < 5000; ++i) {  // every key, present or not, as the reference says
    const auto w = want.find(key_of(i));
    const std::int64_t* got = map.find(key_of(i));
    REQUIRE((got != nullptr) == (w != want.end()));
    if (got) CHECK(*got == w->second);
  }
}

TEST_CASE("TileMap: a home and its copy are different keys", "[l2]") {
  TileMap<int> map;
  TileKey home{TensorId::K, 3, 256, 0, 128, 64};
  TileKey copy = home;
  copy.copy = true;
  map.insert(home, 1);
  CHECK(map.find(copy) == nullptr);
  map.insert(copy, 2);
  CHECK(*map.find(home) == 1);
  CHECK(*map.find(copy) == 2);
  CHECK(map.erase(home));
  CHECK(map.find(home) == nullptr);
  CHECK_FALSE(map.take(home).has_value());
  map.insert(home, 3);
  CHECK(map.take(home) == std::optional<int>(3));  // the value comes out with the key
  CHECK(*map.find(copy) == 2);
  CHECK(map.size() == 1);
}
