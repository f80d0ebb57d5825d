#include "fasim/l2_sets.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace fasim {

namespace {
// P(Poisson(lambda) < w): the chance fewer than w lines came after one in its
// set. Terms by logarithms: exp(-lambda) alone underflows for lambda > 745.
double fewer_than(double lambda, int w) {
  if (lambda <= 0) return 1.0;
  double log_term = -lambda, sum = 0;
  for (int k = 0; k < w; ++k) {
    if (k > 0) log_term += std::log(lambda / k);
    sum += std::exp(log_term);
  }
  return std::min(sum, 1.0);
}
constexpr double kGone = 1e-7;  // a tile this unlikely to be in L2 is dropped
constexpr double kSure = 1 - 1e-12;  // a chance this close to 1 is taken as 1
}  // namespace

SetL2Cache::SetL2Cache(std::int64_t capacity_bytes, int ways, double dirty_share, double clean_share,
                       double written_aging, double rewritten_clean, double dirty_curve)
    : capacity_(capacity_bytes),
      ways_(ways),
      dirty_limit_(static_cast<double>(capacity_bytes) * dirty_share),
      clean_share_(clean_share),
      written_aging_(ways > 0 ? written_aging : 1.0),
      rewritten_clean_(ways > 0 ? rewritten_clean : 0.0),
      fen_{std::vector<std::int64_t>(std::size_t{1} << 12, 0)},
      dirty_room_(static_cast<double>(capacity_bytes) * dirty_curve),
      written_{std::vector<std::int64_t>(std::size_t{1} << 12, 0)} {
  const double dirty_room = static_cast<double>(capacity_bytes) * (1 - clean_share);
  if (ways_ <= 0) {  // one fully associative set: sure up to the recent part, as L2Cache
    sure_bytes_ = static_cast<std::int64_t>(dirty_room);
    return;
  }
  std::size_t sure = 0;
  for (int i = 0;; ++i) {  // until the chance is negligible
    const double p = fewer_than(ways_ * static_cast<double>(i) / kSteps, ways_);
    table_.push_back(p);
    if (p >= kSure) sure = static_cast<std::size_t>(i);
    if (p < kGone) break;
  }
  sure_bytes_ = static_cast<std::int64_t>(dirty_room * static_cast<double>(sure) / kSteps);
  sure_written_ = dirty_room_ * static_cast<double>(sure) / kSteps;
}

double SetL2Cache::survive(double x) const {
  if (ways_ <= 0) return x <= 1.0 ? 1.0 : 0.0;
  const double at = x * kSteps;
  const auto i = static_cast<std::size_t>(at);
  if (i + 1 >= table_.size()) return 0.0;
  const double f = at - static_cast<double>(i);
  return table_[i] + f * (table_[i + 1] - table_[i]);
}

double SetL2Cache::within(std::int64_t since, std::int64_t bytes, double share) const {
  return survive(static_cast<double>(since + bytes) / (static_cast<double>(capacity_) * (1 - share)));
}

double SetL2Cache::resident(std::int64_t since, std::int64_t bytes) const { return within(since, bytes, 0); }

double SetL2Cache::still_dirty(std::int64_t since, std::int64_t bytes) const {
  return within(since, bytes, clean_share_);
}

std::int64_t SetL2Cache::whole(double bytes, double& carry) {
  const double t = bytes + carry;
  const double w = std::floor(t + 1e-9);
  carry = std::max(0.0, t - w);
  return static_cast<std::int64_t>(w);
}

void SetL2Cache::Fenwick::add(std::uint64_t stamp, std::int64_t bytes) {
  for (std::size_t i = stamp; i < t.size(); i += i & (~i + 1)) t[i] += bytes;
}

std::int64_t SetL2Cache::Fenwick::prefix(std::uint64_t stamp) const {
  std::int64_t s = 0;
  for (std::size_t i = stamp; i > 0; i -= i & (~i + 1)) s += t[i];
  return s;
}

std::uint64_t SetL2Cache::next_stamp() {
  if (clock_ + 1 >= fen_.t.size()) {  // out of stamps: number far_ again, oldest first
    fen_.t.assign(std::max<std::size_t>(std::size_t{1} << 12, 4 * far_.size()), 0);
    clock_ = 0;
    for (auto it = far_.rbegin(); it != far_.rend(); ++it) {
      it->stamp = ++clock_;
      fen_.add(it->stamp, it->bytes);
    }
  }
  return ++clock_;
}

void SetL2Cache::stamp_written(Entry& e) {
  unstamp_written(e);
  if (by_write_.size() + 1 >= written_.t.size()) {  // out of stamps: number them again, oldest first
    std::size_t n = 0;
    for (Entry* x : by_write_)
      if (x != nullptr) by_write_[n++] = x;
    by_write_.resize(n);
    written_.t.assign(std::max<std::size_t>(std::size_t{1} << 12, 4 * n), 0);
    for (std::size_t i = 0; i < n; ++i) {
      by_write_[i]->wstamp = i + 1;
      written_.add(i + 1, by_write_[i]->wbytes);
    }
  }
  by_write_.push_back(&e);
  e.wstamp = by_write_.size();
  e.wbytes = e.bytes;
  write_total_ += e.bytes;
  e.wtotal = write_total_;
  written_.add(e.wstamp, e.wbytes);
  written_bytes_ += e.wbytes;
}

void SetL2Cache::unstamp_written(Entry& e) {
  if (e.wstamp == 0) return;
  written_.add(e.wstamp, -e.wbytes);
  written_bytes_ -= e.wbytes;
  by_write_[e.wstamp - 1] = nullptr;
  e.wstamp = 0;
}

double SetL2Cache::dirty_aged(const Entry& e) const {
  if (e.limited || e.wstamp == 0) return 1.0;
  // All bytes written since (each write counted) bound the distinct ones: no tree walk while surely dirty.
  if (static_cast<double>(write_total_ - e.wtotal + e.wbytes) <= sure_written_) return 1.0;
  const std::int64_t after = written_bytes_ - written_.prefix(e.wstamp);
  return survive(static_cast<double>(after + e.wbytes) / dirty_room_);
}

std::int64_t SetL2Cache::kept(const Entry& e, std::int64_t d) const {
  if (!e.wrote || written_aging_ >= 1.0 || d <= capacity_) return d;
  return capacity_ + static_cast<std::int64_t>(written_aging_ * static_cast<double>(d - capacity_));
}

std::int64_t SetL2Cache::since(const Entry& e) const {
  if (e.near) return 0;
  return near_bytes_ + far_bytes_ - fen_.prefix(e.stamp);
}

double SetL2Cache::left_dirty(const Entry& e, std::int64_t d) const {
  // Data read since it came in goes back only as it leaves (see l2_cache.hpp).
  const double left = e.read ? resident(d, e.bytes) : still_dirty(d, e.bytes);
  // Data written again goes back as it ages past the most recent (1 - r) of its set.
  const double by_use = e.rewritten ? std::min(left, within(d, e.bytes, rewritten_clean_)) : left;
  // Data written again also ages on the dirty curve, by the dirty bytes written since.
  if (e.limited) return by_use;
  return e.dirty_base > 0 ? by_use * std::min(1.0, dirty_aged(e) / e.dirty_base) : 0.0;
}

void SetL2Cache::account(Entry& e, std::int64_t d) {
  // With 0 ways a tile in near_ is surely still dirty: nothing back yet. With
  // sets the dirty curve ages it all the same (written since, not used since):
  // sweep() leaves near_ out for speed, its tiles are counted when used or settled.
  if (e.dirty <= 0 || (e.near && ways_ <= 0)) return;
  const double back = 1.0 - left_dirty(e, d);
  if (back <= e.backed) return;
  const double bytes = static_cast<double>(e.bytes) * e.dirty * (back - e.backed);
  wb_ += bytes;
  if (e.limited) dirty_ -= bytes;
  e.backed = back;
  if (back >= 1.0) {  // all of it is back: clean
    e.dirty = 0;
    unlist_dirty(e);
    unstamp_written(e);
  }
}

void SetL2Cache::list_dirty(Entry& e) {
  if (e.listed) return;
  if (dirty_tiles_.size() >= 2 * dirty_listed_ + 64) {  // drop the nulls, keeping the order
    std::size_t n = 0;
    for (Entry* e : dirty_tiles_)
      if (e != nullptr) {
        e->dirty_at = n;
        dirty_tiles_[n++] = e;
      }
    dirty_tiles_.resize(n);
  }
  e.dirty_at = dirty_tiles_.size();
  dirty_tiles_.push_back(&e);
  e.listed = true;
  ++dirty_listed_;
}

void SetL2Cache::unlist_dirty(Entry& e) {
  if (!e.listed) return;
  dirty_tiles_[e.dirty_at] = nullptr;
  e.listed = false;
  --dirty_listed_;
}

void SetL2Cache::age() {
  while (near_bytes_ > sure_bytes_ && near_.size() > 1) {
    const auto last = std::prev(near_.end());
    last->near = false;
    if (last->dirty > 0) list_dirty(*last);  // sweep() counts its write-backs from now on
    last->stamp = next_stamp();
    fen_.add(last->stamp, last->bytes);
    near_bytes_ -= last->bytes;
    far_bytes_ += last->bytes;
    far_.splice(far_.begin(), near_, last);
  }
}

void SetL2Cache::use(Lru::iterator it) {
  if (it->near) {
    near_.splice(near_.begin(), near_, it);
    return;
  }
  fen_.add(it->stamp, -it->bytes);
  far_bytes_ -= it->bytes;
  near_bytes_ += it->bytes;
  it->near = true;
  unlist_dirty(*it);
  near_.splice(near_.begin(), far_, it);
}

SetL2Cache::Lru::iterator SetL2Cache::insert(const TileKey& key, std::int64_t bytes) {
  near_.emplace_front();  // built in place: a temporary copied in costs more than the rest of insert()
  near_.front().bytes = bytes;
  near_.front().key = key;
  index_.insert(key, near_.begin());
  near_bytes_ += bytes;
  return near_.begin();
}

void SetL2Cache::used(std::int64_t bytes) {
  age();
  since_sweep_ += bytes;
  if (since_sweep_ * 4 >= capacity_) {
    since_sweep_ = 0;
    sweep();
  }
}

void SetL2Cache::sweep() {
  // account() may take a tile out (a null in its place); nothing is added meanwhile.
  // The tiles lie all over the heap: ask for one a few ahead while this one is counted.
  constexpr std::size_t kAhead = 8;
  for (std::size_t i = 0; i < dirty_tiles_.size(); ++i) {
    if (i + kAhead < dirty_tiles_.size() && dirty_tiles_[i + kAhead] != nullptr)
      __builtin_prefetch(dirty_tiles_[i + kAhead]);
    if (Entry* e = dirty_tiles_[i]) account(*e, since(*e));
  }
  // Drop the oldest tiles while they are surely gone. The oldest tile was
  // used before every other: all the others' bytes came after it.
  while (!far_.empty()) {
    Entry& e = far_.back();
    if (resident(kept(e, near_bytes_ + far_bytes_ - e.bytes), e.bytes) >= kGone) break;
    write_back_rest(e);
    fen_.add(e.stamp, -e.bytes);
    far_bytes_ -= e.bytes;
    index_.erase(e.key);
    far_.pop_back();
  }
  if (near_.empty() && far_.empty()) dirty_ = 0;
}

void SetL2Cache::limit_dirty() {
  while (dirty_ > dirty_limit_ && !writes_.empty()) {
    const auto [key, when] = writes_.front();
    writes_.pop_front();
    const Lru::iterator* it = index_.find(key);
    if (it == nullptr || (*it)->written != when || (*it)->dirty <= 0 || !(*it)->limited) continue;
    write_back_rest(**it);
  }
  if (writes_.size() > 2 * index_.size() + 64) {
    std::deque<std::pair<TileKey, std::uint64_t>> current;
    for (const auto& w : writes_) {
      const Lru::iterator* it = index_.find(w.first);
      if (it != nullptr && (*it)->dirty > 0 && (*it)->limited && (*it)->written == w.second) current.push_back(w);
    }
    writes_.swap(current);
  }
}

L2Access SetL2Cache::read(const TileKey& key, std::int64_t bytes, std::int64_t tile_bytes) {
  const std::int64_t size = tile_bytes > 0 ? tile_bytes : bytes;
  L2Access a;
  if (const Lru::iterator* found = index_.find(key)) {
    const Lru::iterator at = *found;  // (use() keeps list iterators valid)
    double p = 1.0;                   // the chance a line asked for is in L2
    if (ways_ > 0 && (at->split || (bytes < size && at->dirty <= 0))) {
      p = read_split(at, bytes, size);
    } else {
      Entry& e = *at;
      const std::int64_t d = since(e);
      account(e, d);
      p = resident(kept(e, d), e.bytes);
      if (p < 0.5) e.wrote = false;  // (mostly) comes in anew
      e.dirty *= 1.0 - e.backed;  // the share not yet written back stays dirty
      e.backed = 0;
      e.dirty_base = dirty_aged(e);
      e.read = p >= 0.5;  // read in L2, or (mostly) come in anew
      use(at);
    }
    a.miss_bytes = p >= 1.0 ? 0 : std::min(bytes, whole(static_cast<double>(bytes) * (1.0 - p), miss_carry_));
    a.hit_bytes = bytes - a.miss_bytes;
  } else {
    a.miss_bytes = bytes;
    if (size <= capacity_) insert(key, size);
  }
  used(bytes);
  a.writeback_bytes = take_writebacks();
  return a;
}

double SetL2Cache::read_split(Lru::iterator e, std::int64_t bytes, std::int64_t size) {
  std::optional<Lru::iterator> rest;
  if (e->split)
    if (const Lru::iterator* r = index_.find(rest_of(e->key))) rest = *r;
  // The lines asked for are any of the tile's: each is in L2 with the chance
  // of the part it sits in (lines in neither part are gone).
  double held = static_cast<double>(e->bytes) * resident(kept(*e, since(*e)), e->bytes);
  if (rest) held += static_cast<double>((*rest)->bytes) * resident(kept(**rest, since(**rest)), (*rest)->bytes);
  const double p = std::min(1.0, held / static_cast<double>(size));
  if (bytes >= size) {  // the whole tile: one part again
    if (rest) drop((*rest)->key);
    e->split = false;
    resize(*e, size);
  } else if (rest && (*rest)->bytes > e->bytes) {
    // The lines read are now the most recent; the others keep the place of
    // the part most of them come from: here the rest's.
    resize(**rest, size - bytes);
    resize(*e, bytes);
  } else {  // ... here e's, which becomes the rest
    if (rest) drop((*rest)->key);
    const TileKey key = e->key;
    index_.erase(key);
    e->key = rest_of(key);
    e->split = false;
    index_.insert(e->key, e);
    resize(*e, size - bytes);
    e = insert(key, bytes);
    e->split = true;
  }
  e->read = p >= 0.5;
  use(e);
  return p;
}

void SetL2Cache::resize(Entry& e, std::int64_t bytes) {
  const std::int64_t grow = bytes - e.bytes;
  if (grow == 0) return;
  if (e.near) {
    near_bytes_ += grow;
  } else {
    far_bytes_ += grow;
    fen_.add(e.stamp, grow);
  }
  e.bytes = bytes;
}

TileKey SetL2Cache::rest_of(TileKey key) {
  key.rest = true;
  return key;
}

L2Access SetL2Cache::write(const TileKey& key, std::int64_t bytes) {
  L2Access a;
  a.hit_bytes = bytes;
  if (bytes > capacity_) {
    a.writeback_bytes = bytes;
    return a;
  }
  Lru::iterator it;
  if (const Lru::iterator* found = index_.find(key)) {
    it = *found;
    if (it->split) {  // a write is of the whole tile: one part again
      drop(rest_of(key));
      it->split = false;
    }
    resize(*it, bytes);
    if (it->wrote) it->rewritten = true;  // written again while in the cache
    const std::int64_t d = since(*it);
    account(*it, d);
    if (resident(kept(*it, d), it->bytes) < 0.5) it->read = false;  // (mostly) comes in anew
    if (it->limited) dirty_ -= static_cast<double>(it->bytes) * it->dirty * (1.0 - it->backed);
    use(it);
  } else {
    it = insert(key, bytes);
  }
  it->dirty = 1.0;
  it->wrote = true;
  it->backed = 0;
  if (ways_ > 0) stamp_written(*it);  // every dirty tile counts on the curve
  it->limited = ways_ <= 0 || !it->rewritten;
  if (it->limited) {  // written once: the hard limit
    dirty_ += static_cast<double>(it->bytes);
    it->written = ++write_clock_;
    writes_.emplace_back(key, it->written);
    limit_dirty();
  } else {  // written again: the dirty curve
    it->dirty_base = dirty_aged(*it);
  }
  used(bytes);
  a.writeback_bytes = take_writebacks();
  return a;
}

bool SetL2Cache::preload(const TileKey& key, std::int64_t bytes) {
  if (index_.contains(key)) return true;
  if (near_bytes_ + far_bytes_ + bytes > capacity_) return false;
  insert(key, bytes);
  age();
  return true;
}

void SetL2Cache::drop(const TileKey& key) {
  const std::optional<Lru::iterator> found = index_.take(key);
  if (!found) return;
  const Lru::iterator it = *found;
  Entry& e = *it;
  if (e.split) drop(rest_of(key));
  if (e.limited) dirty_ -= static_cast<double>(e.bytes) * e.dirty * (1.0 - e.backed);
  unlist_dirty(e);
  unstamp_written(e);
  if (e.near) {
    near_bytes_ -= e.bytes;
    near_.erase(it);
  } else {
    fen_.add(e.stamp, -e.bytes);
    far_bytes_ -= e.bytes;
    far_.erase(it);
  }
}

std::int64_t SetL2Cache::settle() {
  sweep();
  // sweep() walks far_ only: what the dirty curve wrote back of near_ is counted
  // on each tile's next use, or here.
  if (ways_ > 0)
    for (Entry& e : near_) account(e, 0);
  return take_writebacks();
}

void SetL2Cache::write_back_rest(Entry& e) {
  const double left = static_cast<double>(e.bytes) * e.dirty * (1.0 - e.backed);
  wb_ += left;
  if (e.limited) dirty_ -= left;
  e.dirty = 0;
  e.backed = 0;
  unlist_dirty(e);
  unstamp_written(e);
}

std::int64_t SetL2Cache::take_writebacks() {
  const std::int64_t w = whole(wb_, wb_carry_);
  wb_ = 0;
  return w;
}

std::int64_t SetL2Cache::dirty_bytes() const {
  double sum = 0;
  std::int64_t d = 0;
  for (const Lru* l : {&near_, &far_})
    for (const Entry& e : *l) {
      if (e.dirty > 0)
        sum += static_cast<double>(e.bytes) * e.dirty * std::min(1.0 - e.backed, left_dirty(e, d));
      d += e.bytes;
    }
  return std::llround(sum);
}

std::int64_t SetL2Cache::used_bytes() const {
  double sum = 0;
  std::int64_t d = 0;
  for (const Lru* l : {&near_, &far_})
    for (const Entry& e : *l) {
      sum += static_cast<double>(e.bytes) * resident(kept(e, d), e.bytes);
      d += e.bytes;
    }
  return std::llround(sum);
}

}  // namespace fasim
