#include "fasim/l2_cache.hpp"

#include <cmath>
#include <iterator>

namespace fasim {

namespace {
std::int64_t share_of(std::int64_t bytes, double share) {
  return static_cast<std::int64_t>(std::llround(static_cast<double>(bytes) * share));
}
}  // namespace

L2Cache::L2Cache(std::int64_t capacity_bytes, double dirty_share, double clean_share)
    : capacity_(capacity_bytes),
      dirty_limit_(share_of(capacity_bytes, dirty_share)),
      recent_limit_(capacity_bytes - share_of(capacity_bytes, clean_share)) {}

std::int64_t L2Cache::make_room(std::int64_t bytes) {
  std::int64_t written = 0;
  while (used_ + bytes > capacity_ && !(old_.empty() && recent_.empty())) {
    Lru& from = old_.empty() ? recent_ : old_;
    const Entry& victim = from.back();
    used_ -= victim.bytes;
    if (victim.recent) recent_bytes_ -= victim.bytes;
    if (victim.dirty) {
      dirty_ -= victim.bytes;
      written += victim.bytes;
    }
    index_.erase(victim.key);
    from.pop_back();
  }
  return written;
}

std::int64_t L2Cache::age() {
  std::int64_t written = 0;
  while (recent_bytes_ > recent_limit_ && recent_.size() > 1) {
    const auto last = std::prev(recent_.end());
    last->recent = false;
    recent_bytes_ -= last->bytes;
    if (last->dirty && !last->read) {  // written back early; it stays, clean
      last->dirty = false;
      dirty_ -= last->bytes;
      written += last->bytes;
    }
    old_.splice(old_.begin(), recent_, last);
  }
  return written;
}

std::int64_t L2Cache::touch(Lru::iterator it) {
  if (it->recent) {
    recent_.splice(recent_.begin(), recent_, it);
    return 0;
  }
  it->recent = true;
  recent_bytes_ += it->bytes;
  recent_.splice(recent_.begin(), old_, it);
  return age();
}

std::pair<L2Cache::Lru::iterator, std::int64_t> L2Cache::insert(const TileKey& key, std::int64_t bytes,
                                                                 bool dirty) {
  recent_.push_front(Entry{key, bytes, dirty, 0, true});
  const Lru::iterator it = recent_.begin();
  index_.insert(key, it);
  used_ += bytes;
  recent_bytes_ += bytes;
  if (dirty) dirty_ += bytes;
  return {it, age()};
}

std::int64_t L2Cache::written(Entry& e) {
  e.written = ++clock_;
  writes_.emplace_back(e.key, e.written);
  std::int64_t back = 0;
  while (dirty_ > dirty_limit_ && !writes_.empty()) {
    const auto [key, when] = writes_.front();
    writes_.pop_front();
    const Lru::iterator* it = index_.find(key);
    if (it == nullptr || !(*it)->dirty || (*it)->written != when) continue;  // stale
    (*it)->dirty = false;
    dirty_ -= (*it)->bytes;
    back += (*it)->bytes;
  }
  if (writes_.size() > 2 * index_.size() + 64) {  // mostly stale: keep the current ones, in order
    std::deque<std::pair<TileKey, std::uint64_t>> current;
    for (const auto& w : writes_) {
      const Lru::iterator* it = index_.find(w.first);
      if (it != nullptr && (*it)->dirty && (*it)->written == w.second) current.push_back(w);
    }
    writes_.swap(current);
  }
  return back;
}

L2Access L2Cache::read(const TileKey& key, std::int64_t bytes, std::int64_t tile_bytes) {
  L2Access a;
  if (const Lru::iterator* it = index_.find(key)) {
    a.hit_bytes = bytes;
    (*it)->read = true;
    a.writeback_bytes = touch(*it);  // now most recently used
    return a;
  }
  a.miss_bytes = bytes;
  const std::int64_t size = tile_bytes > 0 ? tile_bytes : bytes;
  if (size > capacity_) return a;  // streams through without being kept
  a.writeback_bytes = make_room(size);
  a.writeback_bytes += insert(key, size, false).second;
  return a;
}

L2Access L2Cache::write(const TileKey& key, std::int64_t bytes) {
  L2Access a;
  a.hit_bytes = bytes;  // writes are absorbed by L2
  if (const Lru::iterator* it = index_.find(key)) {
    Entry& e = **it;
    a.writeback_bytes = touch(*it);  // before it is dirty: aging writes back others
    if (!e.dirty) dirty_ += e.bytes;
    e.dirty = true;
    a.writeback_bytes += written(e);
    return a;
  }
  if (bytes > capacity_) {  // larger than the whole cache: goes straight to DRAM
    a.writeback_bytes = bytes;
    return a;
  }
  a.writeback_bytes = make_room(bytes);
  const auto [at, aged] = insert(key, bytes, true);
  a.writeback_bytes += aged + written(*at);
  return a;
}

bool L2Cache::preload(const TileKey& key, std::int64_t bytes) {
  if (index_.contains(key)) return true;
  if (used_ + bytes > capacity_) return false;
  insert(key, bytes, false);  // a warm start comes before any write: aging writes nothing back
  return true;
}

void L2Cache::drop(const TileKey& key) {
  const std::optional<Lru::iterator> found = index_.take(key);
  if (!found) return;
  const Lru::iterator it = *found;
  const Entry& e = *it;
  used_ -= e.bytes;
  if (e.dirty) dirty_ -= e.bytes;
  if (e.recent) {
    recent_bytes_ -= e.bytes;
    recent_.erase(it);
  } else {
    old_.erase(it);
  }
}

}  // namespace fasim
