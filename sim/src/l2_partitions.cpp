#include "fasim/l2_partitions.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace fasim {

namespace {
void add(L2Access& to, const L2Access& a) {
  to.hit_bytes += a.hit_bytes;
  to.miss_bytes += a.miss_bytes;
  to.writeback_bytes += a.writeback_bytes;
}
TileKey copy_of(TileKey k) {
  k.copy = true;
  return k;
}
}  // namespace

template <class Cache>
L2Access PartitionedL2::read_in(std::vector<Cache>& parts, const TileKey& key, std::int64_t bytes,
                                std::int64_t sm) const {
  const std::int64_t near = partition_of(sm);
  L2Access total;
  for (std::int64_t k = 0; k < partitions(); ++k) {
    const std::int64_t b = share(bytes, k);
    if (b == 0) continue;
    Cache& home = parts[static_cast<std::size_t>(k)];
    if (k == near) {
      add(total, home.read(key, b));
      continue;
    }
    // Far sectors: the near partition's copy, else the home partition (which
    // keeps them), and the near partition keeps a copy either way.
    const L2Access c = parts[static_cast<std::size_t>(near)].read(copy_of(key), b);
    total.writeback_bytes += c.writeback_bytes;
    total.hit_bytes += c.hit_bytes;
    total.fabric_bytes += c.miss_bytes;  // what the copy lacked crosses from the home partition
    if (c.miss_bytes > 0) add(total, home.read(key, c.miss_bytes, b));  // the rest, of a b-byte tile
  }
  return total;
}

template <class Cache>
L2Access PartitionedL2::write_in(std::vector<Cache>& parts, const TileKey& key, std::int64_t bytes,
                                 std::int64_t sm) const {
  const std::int64_t near = partition_of(sm);
  L2Access total;
  for (std::int64_t k = 0; k < partitions(); ++k) {
    Cache& part = parts[static_cast<std::size_t>(k)];
    if (partitions() > 1 && k != near) part.drop(copy_of(key));  // stale now
    const std::int64_t b = share(bytes, k);
    if (b > 0) add(total, part.write(key, b));
  }
  // The writer's partition keeps (or refreshes) a clean copy of the sectors
  // homed elsewhere, as a read of them would have left.
  const std::int64_t far = bytes - share(bytes, near);
  if (partitions() > 1 && far > 0) {
    total.fabric_bytes += far;  // the far-homed sectors cross to their home partitions
    total.writeback_bytes += parts[static_cast<std::size_t>(near)].read(copy_of(key), far).writeback_bytes;
  }
  return total;
}

PartitionedL2::PartitionedL2(std::int64_t capacity_bytes, std::int64_t partitions, std::int64_t sms,
                             std::int64_t sector_bytes, std::int64_t ways, double dirty_share, double clean_share)
    : sms_(std::max<std::int64_t>(sms, 1)), sector_(std::max<std::int64_t>(sector_bytes, 1)) {
  const std::int64_t p = std::max<std::int64_t>(partitions, 1);
  if (ways > 0) {  // SetL2Cache is not copied (it points into its own lists): built in place
    sets_.reserve(static_cast<std::size_t>(p));
    for (std::int64_t k = 0; k < p; ++k)
      sets_.emplace_back(capacity_bytes / p, static_cast<int>(ways), dirty_share, clean_share);
  } else {
    parts_.assign(static_cast<std::size_t>(p), L2Cache(capacity_bytes / p, dirty_share, clean_share));
  }
}

std::int64_t PartitionedL2::partition_of(std::int64_t sm) const {
  const std::int64_t s = std::clamp<std::int64_t>(sm, 0, sms_ - 1);
  if (!of_sm_.empty()) return of_sm_[static_cast<std::size_t>(s)];
  return s % partitions();
}

void PartitionedL2::set_sm_partitions(std::vector<std::int64_t> of_sm) {
  if (!of_sm.empty() && static_cast<std::int64_t>(of_sm.size()) != sms_)
    throw std::invalid_argument("set_sm_partitions: one partition per SM");
  for (const std::int64_t p : of_sm)
    if (p < 0 || p >= partitions()) throw std::invalid_argument("set_sm_partitions: a partition out of range");
  of_sm_ = std::move(of_sm);
}

std::int64_t PartitionedL2::share(std::int64_t bytes, std::int64_t k) const {
  const std::int64_t p = partitions();
  if (p == 1) return bytes;
  const std::int64_t sectors = bytes / sector_, rest = bytes % sector_;
  std::int64_t b = (sectors / p + (k < sectors % p ? 1 : 0)) * sector_;
  if (k == sectors % p) b += rest;  // a part-sector (never for sector-rounded tiles) goes to one home
  return b;
}

L2Access PartitionedL2::read(const TileKey& key, std::int64_t bytes, std::int64_t sm) {
  return sets_.empty() ? read_in(parts_, key, bytes, sm) : read_in(sets_, key, bytes, sm);
}

L2Access PartitionedL2::write(const TileKey& key, std::int64_t bytes, std::int64_t sm) {
  return sets_.empty() ? write_in(parts_, key, bytes, sm) : write_in(sets_, key, bytes, sm);
}

std::int64_t PartitionedL2::settle() {
  std::int64_t n = 0;
  for (SetL2Cache& p : sets_) n += p.settle();
  return n;
}

bool PartitionedL2::preload(const TileKey& key, std::int64_t bytes) {
  for (std::int64_t k = 0; k < partitions(); ++k) {
    const std::int64_t b = share(bytes, k);
    const auto i = static_cast<std::size_t>(k);
    if (b > 0 && !(sets_.empty() ? parts_[i].preload(key, b) : sets_[i].preload(key, b))) return false;
  }
  return true;
}

std::int64_t PartitionedL2::dirty_bytes() const {
  std::int64_t n = 0;
  for (const L2Cache& p : parts_) n += p.dirty_bytes();
  for (const SetL2Cache& p : sets_) n += p.dirty_bytes();
  return n;
}

std::int64_t PartitionedL2::used_bytes() const {
  std::int64_t n = 0;
  for (const L2Cache& p : parts_) n += p.used_bytes();
  for (const SetL2Cache& p : sets_) n += p.used_bytes();
  return n;
}

}  // namespace fasim
