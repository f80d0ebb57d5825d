#include "fasim/l2_cache.hpp"

#include <cmath>

namespace fasim {

L2Cache::L2Cache(std::int64_t capacity_bytes, double dirty_share)
    : capacity_(capacity_bytes),
      dirty_limit_(static_cast<std::int64_t>(std::llround(static_cast<double>(capacity_bytes) * dirty_share))) {}

std::size_t L2Cache::KeyHash::operator()(const TileKey& k) const noexcept {
  // splitmix64-style mixing of the fields
  std::uint64_t h = static_cast<std::uint64_t>(k.tensor) + 0x9e3779b97f4a7c15ULL;
  for (std::int64_t v : {k.bh, k.row0, k.col0, k.rows, k.cols, std::int64_t{k.copy}}) {
    h ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ULL;
  }
  return static_cast<std::size_t>(h ^ (h >> 31));
}

std::int64_t L2Cache::make_room(std::int64_t bytes) {
  std::int64_t written = 0;
  while (used_ + bytes > capacity_ && !lru_.empty()) {
    const Entry& victim = lru_.back();
    used_ -= victim.bytes;
    if (victim.dirty) {
      dirty_ -= victim.bytes;
      written += victim.bytes;
    }
    index_.erase(victim.key);
    lru_.pop_back();
  }
  return written;
}

void L2Cache::insert(const TileKey& key, std::int64_t bytes, bool dirty) {
  lru_.push_front(Entry{key, bytes, dirty, 0});
  index_.emplace(key, lru_.begin());
  used_ += bytes;
  if (dirty) dirty_ += bytes;
}

std::int64_t L2Cache::written(Entry& e) {
  e.written = ++clock_;
  writes_.emplace_back(e.key, e.written);
  std::int64_t back = 0;
  while (dirty_ > dirty_limit_ && !writes_.empty()) {
    const auto [key, when] = writes_.front();
    writes_.pop_front();
    const auto it = index_.find(key);
    if (it == index_.end() || !it->second->dirty || it->second->written != when) continue;  // stale
    it->second->dirty = false;
    dirty_ -= it->second->bytes;
    back += it->second->bytes;
  }
  if (writes_.size() > 2 * index_.size() + 64) {  // mostly stale: keep the current ones, in order
    std::deque<std::pair<TileKey, std::uint64_t>> current;
    for (const auto& w : writes_) {
      const auto it = index_.find(w.first);
      if (it != index_.end() && it->second->dirty && it->second->written == w.second) current.push_back(w);
    }
    writes_.swap(current);
  }
  return back;
}

L2Access L2Cache::read(const TileKey& key, std::int64_t bytes) {
  L2Access a;
  auto it = index_.find(key);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);  // now most recently used
    a.hit_bytes = bytes;
    return a;
  }
  a.miss_bytes = bytes;
  if (bytes > capacity_) return a;  // streams through without being kept
  a.writeback_bytes = make_room(bytes);
  insert(key, bytes, false);
  return a;
}

L2Access L2Cache::write(const TileKey& key, std::int64_t bytes) {
  L2Access a;
  a.hit_bytes = bytes;  // writes are absorbed by L2
  auto it = index_.find(key);
  if (it != index_.end()) {
    Entry& e = *it->second;
    if (!e.dirty) dirty_ += e.bytes;
    e.dirty = true;
    lru_.splice(lru_.begin(), lru_, it->second);
    a.writeback_bytes = written(e);
    return a;
  }
  if (bytes > capacity_) {  // larger than the whole cache: goes straight to DRAM
    a.writeback_bytes = bytes;
    return a;
  }
  a.writeback_bytes = make_room(bytes);
  insert(key, bytes, true);
  a.writeback_bytes += written(lru_.front());
  return a;
}

bool L2Cache::preload(const TileKey& key, std::int64_t bytes) {
  if (index_.count(key)) return true;
  if (used_ + bytes > capacity_) return false;
  insert(key, bytes, false);
  return true;
}

void L2Cache::drop(const TileKey& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return;
  const Entry& e = *it->second;
  used_ -= e.bytes;
  if (e.dirty) dirty_ -= e.bytes;
  lru_.erase(it->second);
  index_.erase(it);
}

}  // namespace fasim
