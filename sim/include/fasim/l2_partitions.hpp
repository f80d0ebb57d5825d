// PartitionedL2: an L2 split into partitions, as on A100, H100 and H200.
//
// Model (stated, and measured against a GPU in docs/results):
//  - the L2 is `partitions` equal caches (capacity L2 / P each): SetL2Cache
//    with the device's ways (l2_sets.hpp), or L2Cache with 0 ways;
//  - every address has one home partition, and each tile's sectors spread
//    evenly: partition k is home to 1/P of them. On an H200 the home half is
//    an XOR of address bits 12, 13, 15, 17, 19 and bits above 20, so 4 KiB
//    blocks share a home and every aligned 8 KiB splits exactly in two;
//    smaller or unaligned tiles split evenly on average only
//    (docs/results/l2-home-map-2026-11-30.md). Within a half, lines spread
//    over the sets at random here; on the GPU a half is 15,360 sets of 16
//    ways, LRU, and a line's set is a (non-linear) function of its address
//    that spreads any run evenly (l2-evset-2026-11-30.md), so copies of a
//    strided subset of addresses can crowd part of a half, which this model
//    cannot see (flash1-pattern-2026-11-30.md, "Which heads, not how many");
//  - an SM sits next to one partition (SM s: partition s mod P, unless
//    set_sm_partitions gives the measured map). The GPUs measured pair SMs
//    by TPC and give each half 66 of 132 SMs, and they deal consecutive
//    thread blocks to runs of 8 to 58 SMs of one half
//    (docs/results/h200-2026-11-22-sm-partition-probe.md). Which map a
//    kernel gets is block_placement.hpp's choice: the GPU's runs for the
//    fp32 kernels' large grids, dealt in turn elsewhere.
//    A read of a sector homed in its own partition is an ordinary cache
//    access. A read of a sector homed elsewhere first looks for a copy in the
//    SM's own partition; on a miss it asks the home partition (an L2 hit if
//    the home has it, a DRAM read if not), and the SM's partition keeps a
//    clean copy;
//  - a write goes to the home partition (write-back, write-allocate); the
//    writer's own partition keeps a clean copy of the sectors homed
//    elsewhere, and copies in other partitions, now stale, are dropped. So
//    written data takes room next to its writer as read data does (measured
//    on an H200: dirty data plus a stream read after it start to reach DRAM
//    when 1.5 x their bytes nears the L2 size);
//  - only home partitions talk to DRAM: misses at home are DRAM reads, dirty
//    tiles evicted at home are DRAM writes, and each partition keeps at most
//    kL2DirtyShare of itself dirty (and writes back dirty tiles that age into
//    its least recently used clean share, 0 in fasim: L2Cache). Copies are
//    clean, so evicting one costs nothing, but copies take room that home
//    data would otherwise use.
// With one partition this is exactly the L2Cache model.
#pragma once

#include <cstdint>
#include <vector>

#include "fasim/l2_cache.hpp"
#include "fasim/l2_sets.hpp"

namespace fasim {

/// @brief An L2 of P partitions, each a tile-granular LRU write-back cache.
class PartitionedL2 {
 public:
  /// @brief `capacity_bytes` in all, split over `partitions`; `sms` SMs dealt
  /// out in turn; each partition keeps at most `dirty_share` of itself dirty
  /// and writes back the dirty tiles in its least recently used `clean_share`.
  PartitionedL2(std::int64_t capacity_bytes, std::int64_t partitions, std::int64_t sms,
                std::int64_t sector_bytes, std::int64_t ways = 0, double dirty_share = kL2DirtyShare,
                double clean_share = kL2CleanShare);

  /// @brief A read of `bytes` (sector-rounded) of tile `key` by SM `sm`.
  L2Access read(const TileKey& key, std::int64_t bytes, std::int64_t sm);
  /// @brief A write of `bytes` (sector-rounded) of tile `key` by SM `sm`.
  L2Access write(const TileKey& key, std::int64_t bytes, std::int64_t sm);
  /// @brief Puts a clean tile at home (a warm start); false if it does not fit.
  bool preload(const TileKey& key, std::int64_t bytes);

  /// @brief Counts write-backs that accrued and are not yet counted (set model); returns the bytes.
  std::int64_t settle();
  /// @brief Bytes of dirty tiles now in the cache (all partitions).
  std::int64_t dirty_bytes() const;
  /// @brief Bytes of all tiles now in the cache, copies included.
  std::int64_t used_bytes() const;
  /// @brief Number of partitions.
  std::int64_t partitions() const { return static_cast<std::int64_t>(parts_.size() + sets_.size()); }
  /// @brief The partition next to SM `sm`.
  std::int64_t partition_of(std::int64_t sm) const;
  /// @brief Gives each SM the partition measured next to it (`of_sm[s]` for
  /// SM s: one entry per SM, each below partitions()), in place of dealing
  /// SMs out in turn. An empty list goes back to dealing in turn.
  void set_sm_partitions(std::vector<std::int64_t> of_sm);

 private:
  /// Bytes of a `bytes`-byte tile homed in partition k: its sectors dealt out evenly.
  std::int64_t share(std::int64_t bytes, std::int64_t k) const;

  template <class Cache>
  L2Access read_in(std::vector<Cache>& parts, const TileKey& key, std::int64_t bytes, std::int64_t sm) const;
  template <class Cache>
  L2Access write_in(std::vector<Cache>& parts, const TileKey& key, std::int64_t bytes, std::int64_t sm) const;

  std::vector<L2Cache> parts_;
  std::vector<SetL2Cache> sets_;
  std::vector<std::int64_t> of_sm_;  // measured partition of each SM, else empty
  std::int64_t sms_;
  std::int64_t sector_;
};

}  // namespace fasim
