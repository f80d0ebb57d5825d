// The L2 model: a unit test of the cache, and what reaches DRAM for working
// sets far below and far above the L2 size.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>

#include "fasim/l2_cache.hpp"
#include "fasim/l2_partitions.hpp"
#include "fasim/machine.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

TEST_CASE("L2Cache: LRU order, write-back of dirty tiles on eviction", "[l2]") {
  L2Cache l2(300, kL2DirtyShare, 0.0);  // no clean share: dirty tiles leave only when evicted
  const TileKey a{TensorId::K, 0, 0, 0, 1, 1}, b{TensorId::K, 0, 1, 0, 1, 1}, c{TensorId::O, 0, 0, 0, 1, 1};
  CHECK(l2.read(a, 100).miss_bytes == 100);
  CHECK(l2.read(a, 100).hit_bytes == 100);
  CHECK(l2.write(c, 100).writeback_bytes == 0);  // written, dirty, nothing to DRAM yet
  CHECK(l2.dirty_bytes() == 100);
  CHECK(l2.read(b, 100).miss_bytes == 100);      // full now: a, c, b
  l2.read(a, 100);                               // a is most recent: LRU order c, b, a
  const TileKey d{TensorId::V, 0, 0, 0, 1, 1};
  const L2Access x = l2.read(d, 100);            // evicts c, the least recently used, which is dirty
  CHECK(x.miss_bytes == 100);
  CHECK(x.writeback_bytes == 100);
  CHECK(l2.dirty_bytes() == 0);
  CHECK(l2.used_bytes() == 300);
  CHECK(l2.read(b, 100).hit_bytes == 100);
}

TEST_CASE("sector rounding widens each contiguous run to whole 32 B sectors", "[l2]") {
  HbmTensor t{.bh = 2, .rows = 10, .cols = 3, .dtype = DType::fp32, .values = {}};  // rows of 12 B
  CHECK(sector_bytes(t, 0, 0, 10, 0, 3, 32) == 128);   // 120 contiguous bytes -> 4 sectors
  CHECK(sector_bytes(t, 1, 0, 1, 0, 3, 32) == 64);     // head 1 starts at byte 120: bytes 120..131
  CHECK(sector_bytes(t, 0, 0, 2, 1, 1, 32) == 2 * 32); // two 4-byte pieces, each its own sector
  HbmTensor s{.bh = 1, .rows = 64, .cols = 64, .dtype = DType::fp16, .values = {}};  // rows of 128 B
  CHECK(sector_bytes(s, 0, 0, 16, 16, 16, 32) == 16 * 32);  // 32 B per row, aligned
}

TEST_CASE("a working set far below L2 reads only its compulsory bytes from DRAM", "[l2]") {
  // flash2 re-reads K and V once per query block (HBM requests), but every
  // re-read hits: DRAM sees Q, K and V once each.
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 4, 2048, 64, DType::fp16};  // Q, K, V: 3 MiB in a 50 MiB L2
  Simulation sim(dev, w, Mapping{Algo::flash2, 64, 64}, {.numerics = false});
  sim.run();
  const std::int64_t compulsory = 3 * w.bh() * w.N * w.d * 2;
  CHECK(sim.ledger().cache_total().dram_read_bytes == compulsory);
  CHECK(sim.ledger().hbm_total().read_bytes == w.bh() * (2048 * 64 * 2) * (1 + 2 * 32));
  // Nothing was evicted: O and L are still dirty in L2 when the kernel ends.
  CHECK(sim.ledger().cache_total().dram_write_bytes == 0);
  CHECK(sim.l2_dirty_bytes() == w.bh() * (2048 * 64 * 2 + 2048 * 4));
}

TEST_CASE("a working set far above L2 reads close to every request from DRAM", "[l2]") {
  // naive on the toy GPU (64 KiB of L2): S is 2 MiB, written by kernel 1 and
  // read back by kernel 2 long after it left L2.
  const DeviceSpec toy = load_device("toy");
  Simulation sim(toy, Workload{1, 1, 1024, 16, DType::fp16}, Mapping{Algo::naive, 16, 16}, {.numerics = false});
  sim.run();
  const CacheTraffic s = sim.ledger().cache(TensorId::S);
  CHECK(s.l2_read_bytes == sim.ledger().hbm(TensorId::S).read_bytes);  // 32 B rows: no rounding
  CHECK(s.dram_read_bytes >= 0.95 * static_cast<double>(s.l2_read_bytes));
  // Written data reaches DRAM as it is evicted: all but what is still in L2.
  const CacheTraffic all = sim.ledger().cache_total();
  CHECK(all.dram_write_bytes + sim.l2_dirty_bytes() == all.l2_write_bytes);
}

TEST_CASE("a warm L2 serves the inputs: no DRAM reads when Q, K and V fit", "[l2]") {
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 2, 1024, 64, DType::fp16};
  Simulation cold(dev, w, Mapping{Algo::flash2, 64, 64}, {.numerics = false});
  Simulation warm(dev, w, Mapping{Algo::flash2, 64, 64}, {.numerics = false, .l2 = L2Start::warm});
  cold.run();
  warm.run();
  CHECK(cold.ledger().cache_total().dram_read_bytes == 3 * 2 * 1024 * 64 * 2);
  CHECK(warm.ledger().cache_total().dram_read_bytes == 0);
  CHECK(warm.time().seconds <= cold.time().seconds);
}

TEST_CASE("PartitionedL2: one partition is exactly the L2Cache model", "[l2]") {
  PartitionedL2 p(300, 1, 4, 1);
  L2Cache c(300);
  const TileKey a{TensorId::K, 0, 0, 0, 1, 1}, b{TensorId::K, 0, 1, 0, 1, 1}, o{TensorId::O, 0, 0, 0, 1, 1},
      v{TensorId::V, 0, 0, 0, 1, 1};
  auto same = [](const L2Access& x, const L2Access& y) {
    CHECK(x.hit_bytes == y.hit_bytes);
    CHECK(x.miss_bytes == y.miss_bytes);
    CHECK(x.writeback_bytes == y.writeback_bytes);
  };
  same(p.read(a, 100, 3), c.read(a, 100));
  same(p.write(o, 100, 0), c.write(o, 100));
  same(p.read(b, 100, 2), c.read(b, 100));
  same(p.read(a, 100, 1), c.read(a, 100));
  same(p.read(v, 100, 0), c.read(v, 100));  // evicts the dirty O tile in both
  CHECK(p.dirty_bytes() == c.dirty_bytes());
  CHECK(p.used_bytes() == c.used_bytes());
}

TEST_CASE("L2Cache: past its dirty share, the oldest written tiles go back to DRAM and stay, clean", "[l2]") {
  L2Cache l2(1000, 0.5, 0.0);  // keeps at most 500 B dirty
  CHECK(l2.dirty_limit_bytes() == 500);
  const TileKey a{TensorId::O, 0, 0, 0, 1, 1}, b{TensorId::O, 0, 1, 0, 1, 1}, c{TensorId::O, 0, 2, 0, 1, 1},
      d{TensorId::O, 0, 3, 0, 1, 1};
  CHECK(l2.write(a, 200).writeback_bytes == 0);
  CHECK(l2.write(b, 200).writeback_bytes == 0);
  CHECK(l2.write(c, 200).writeback_bytes == 200);  // 600 B dirty: a, written first, goes back
  CHECK(l2.dirty_bytes() == 400);
  CHECK(l2.used_bytes() == 600);                   // a is still there, clean
  const L2Access again = l2.read(a, 200);
  CHECK(again.hit_bytes == 200);
  CHECK(again.writeback_bytes == 0);
  CHECK(l2.write(b, 200).writeback_bytes == 0);    // b again: now the most recently written
  CHECK(l2.write(d, 200).writeback_bytes == 200);  // c is now the oldest written
  CHECK(l2.dirty_bytes() == 400);
  // A tile written back early is written back again only if written again.
  CHECK(l2.write(a, 200).writeback_bytes == 200);  // a dirty again: b goes back
  CHECK(l2.dirty_bytes() == 400);
}

TEST_CASE("L2Cache: the dirty share is 0.47 by default, as measured on an H200", "[l2]") {
  CHECK(L2Cache(1000).dirty_limit_bytes() == 470);
  CHECK(kL2DirtyShare == Approx(0.47));
}

TEST_CASE("L2Cache: a dirty tile that ages into the clean share goes back to DRAM once and stays", "[l2]") {
  // 1000 B, clean share 0.2: the 800 B most recently used stay dirty if written.
  L2Cache l2(1000, 1.0, 0.2);
  CHECK(l2.recent_limit_bytes() == 800);
  const TileKey o{TensorId::O, 0, 0, 0, 1, 1};
  auto k = [](std::int64_t i) { return TileKey{TensorId::K, 0, i, 0, 1, 1}; };
  CHECK(l2.write(o, 200).writeback_bytes == 0);
  // Reads of other tiles push o back in LRU order. With 600 B after it, o is
  // still among the 800 B most recently used: dirty, nothing to DRAM.
  for (int i = 0; i < 3; ++i) CHECK(l2.read(k(i), 200).writeback_bytes == 0);
  CHECK(l2.dirty_bytes() == 200);
  // 800 B after it: o ages out of the recent 800 B and is written back, though
  // the cache is not full (1000 B in use now) and nothing is evicted.
  const L2Access aged = l2.read(k(3), 200);
  CHECK(aged.miss_bytes == 200);
  CHECK(aged.writeback_bytes == 200);
  CHECK(l2.dirty_bytes() == 0);
  CHECK(l2.used_bytes() == 1000);
  // o is still there, clean: reading it is a hit, and evicting it later costs no DRAM write.
  const L2Access back = l2.read(o, 200);
  CHECK(back.hit_bytes == 200);
  CHECK(back.writeback_bytes == 0);
  for (int i = 4; i < 9; ++i) CHECK(l2.read(k(i), 200).writeback_bytes == 0);  // o evicted on the way
  CHECK(l2.read(o, 200).miss_bytes == 200);
}

TEST_CASE("L2Cache: with a clean share, dirty bytes written back = what aged past the recent limit", "[l2]") {
  // Closed form: write D bytes of tiles, then read R bytes of other tiles, with
  // D + R <= the cache (nothing evicted). The recent list keeps the last
  // C - W bytes used, so the oldest max(0, min(D, D + R - (C - W))) written
  // bytes go back to DRAM. C = 6400, W = 1600 (0.25), tiles of 100 B.
  const std::int64_t C = 6400, W = 1600, t = 100;
  for (std::int64_t D : {0, 1000, 3000, 4800}) {
    for (std::int64_t R : {0, 800, 1600, 3200}) {
      if (D + R > C) continue;
      L2Cache l2(C, 1.0, 0.25);
      std::int64_t back = 0;
      for (std::int64_t i = 0; i < D / t; ++i) back += l2.write(TileKey{TensorId::O, 0, i, 0, 1, 1}, t).writeback_bytes;
      for (std::int64_t i = 0; i < R / t; ++i) back += l2.read(TileKey{TensorId::K, 0, i, 0, 1, 1}, t).writeback_bytes;
      INFO("D = " << D << ", R = " << R);
      CHECK(back == std::max<std::int64_t>(0, std::min(D, D + R - (C - W))));
      CHECK(l2.dirty_bytes() == D - back);
    }
  }
}

TEST_CASE("L2Cache: a clean share of 0 is plain LRU, and the default is kL2CleanShare", "[l2]") {
  CHECK(L2Cache(1000, 0.5, 0.0).recent_limit_bytes() == 1000);
  CHECK(L2Cache(1000, 0.5, 0.3).recent_limit_bytes() == 1000 - 300);
  CHECK(kL2CleanShare == 0);  // the fit on the sweeps recorded with a clean start (l2_cache.hpp)
  CHECK(L2Cache(1000).recent_limit_bytes() == 1000);  // so the default is plain LRU
  // Written tiles that fill the cache with no clean share stay dirty until evicted.
  L2Cache l2(400, 1.0, 0.0);
  for (int i = 0; i < 4; ++i) CHECK(l2.write(TileKey{TensorId::O, 0, i, 0, 1, 1}, 100).writeback_bytes == 0);
  CHECK(l2.dirty_bytes() == 400);
}

TEST_CASE("PartitionedL2: SMs are dealt out to the partitions in turn", "[l2]") {
  const PartitionedL2 l2(256, 2, 4, 32);
  CHECK(l2.partition_of(0) == 0);
  CHECK(l2.partition_of(1) == 1);
  CHECK(l2.partition_of(2) == 0);
  CHECK(l2.partition_of(3) == 1);
  const PartitionedL2 one(256, 1, 4, 32);
  CHECK(one.partition_of(3) == 0);
}

TEST_CASE("PartitionedL2: a measured map puts each SM next to its partition", "[l2]") {
  PartitionedL2 l2(256, 2, 4, 32);
  l2.set_sm_partitions({0, 0, 1, 1});  // two SMs of a TPC alike, as measured on H100 and H200
  CHECK(l2.partition_of(1) == 0);
  CHECK(l2.partition_of(2) == 1);
  CHECK_THROWS_AS(l2.set_sm_partitions({0, 1}), std::invalid_argument);        // not one per SM
  CHECK_THROWS_AS(l2.set_sm_partitions({0, 1, 2, 0}), std::invalid_argument);  // no partition 2
  l2.set_sm_partitions({});  // back to dealing in turn
  CHECK(l2.partition_of(1) == 1);
}

TEST_CASE("PartitionedL2: far sectors are copied next to the reader, DRAM is read only at home", "[l2]") {
  // 2 partitions of 4 sectors (32 B each); SMs 0 and 2 next to partition 0,
  // 1 and 3 next to partition 1. Dirty share 1, clean share 0: no early write-back here.
  PartitionedL2 l2(256, 2, 4, 32, 0, 1.0, 0.0);
  const TileKey k{TensorId::K, 0, 0, 0, 2, 32};
  // 4 sectors: 2 homed in each partition. SM 0 misses all; its partition keeps
  // its 2 home sectors and a copy of the 2 far ones: 6 sectors in use.
  const L2Access first = l2.read(k, 128, 0);
  CHECK(first.miss_bytes == 128);
  CHECK(l2.used_bytes() == 6 * 32);
  // SM 3 (partition 1): its 2 home sectors hit at home; the 2 far ones have
  // no copy in partition 1 yet, but partition 0 (their home) has them: hits.
  const L2Access second = l2.read(k, 128, 3);
  CHECK(second.hit_bytes == 128);
  CHECK(second.miss_bytes == 0);
  CHECK(l2.used_bytes() == 8 * 32);  // now each partition holds 2 home + 2 copy sectors
  // A write from SM 0 goes home (4 dirty sectors); partition 0 keeps its copy
  // of the 2 sectors homed in partition 1, and partition 1's copy, stale, goes.
  const L2Access w = l2.write(k, 128, 0);
  CHECK(w.writeback_bytes == 0);
  CHECK(l2.dirty_bytes() == 128);
  CHECK(l2.used_bytes() == 6 * 32);
  // SM 2 (partition 0) reads it back: every sector is next to it.
  CHECK(l2.read(k, 128, 2).hit_bytes == 128);
  CHECK(l2.used_bytes() == 6 * 32);
}

TEST_CASE("PartitionedL2: fabric bytes are what a copy lacked and the far-homed share of a store", "[l2]") {
  // The same 2 x 4-sector L2. A tile of 4 sectors has 2 homed in each partition.
  PartitionedL2 l2(256, 2, 4, 32, 0, 1.0, 0.0);
  const TileKey k{TensorId::K, 0, 0, 0, 2, 32};
  CHECK(l2.read(k, 128, 0).fabric_bytes == 2 * 32);  // no copy yet: the 2 far sectors cross
  CHECK(l2.read(k, 128, 2).fabric_bytes == 0);       // SM 2 shares partition 0: the copy serves
  CHECK(l2.read(k, 128, 3).fabric_bytes == 2 * 32);  // partition 1 has no copy of its far 2
  CHECK(l2.read(k, 128, 1).fabric_bytes == 0);
  // A store sends its far-homed sectors home, copy or not.
  CHECK(l2.write(k, 128, 0).fabric_bytes == 2 * 32);
  CHECK(l2.write(k, 128, 0).fabric_bytes == 2 * 32);
  // One partition: nothing is far.
  PartitionedL2 one(256, 1, 4, 32, 0, 1.0, 0.0);
  CHECK(one.read(k, 128, 1).fabric_bytes == 0);
  CHECK(one.write(k, 128, 1).fabric_bytes == 0);
}

TEST_CASE("flash2 in an L2 that holds everything: fabric = Q/2 + K + V + (O + L)/2", "[l2]") {
  // Each head's query blocks run next to both halves (blocks are dealt to
  // the halves in turn), so each half copies the far half of all of K and V
  // once; each block reads its own Q once, and writes O and L once. Nothing
  // leaves the L2, so no copy is fetched twice. Closed form, exact: every
  // tile is an even number of sectors.
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 4, 2048, 64, DType::fp16};
  Simulation sim(dev, w, Mapping{Algo::flash2, 64, 64}, {.numerics = false});
  sim.run();
  const std::int64_t tensor = w.bh() * w.N * w.d * 2, lse = w.bh() * w.N * 4;
  CHECK(sim.ledger().cache_total().l2_fabric_bytes == tensor / 2 + 2 * tensor + (tensor + lse) / 2);
  CHECK(sim.ledger().cache_total().dram_read_bytes == 3 * tensor);  // and nothing was read twice
}

TEST_CASE("PartitionedL2: written data keeps a copy next to the writer, which takes room", "[l2]") {
  // 256 B in all. SM 0 writes tile o (4 sectors: 2 dirty at each home; its
  // partition 0 also keeps a copy of the 2 homed in partition 1), then reads
  // tile a (4 sectors). One 8-sector cache holds both. Split in two partitions
  // of 4 sectors, partition 0 must make room for a's 2 home sectors and a
  // copy of its 2 far ones: o's 2 dirty sectors there go to DRAM, and o's copy goes.
  PartitionedL2 l2(256, 2, 2, 32, 0, 1.0, 0.0);
  L2Cache one(256, 1.0, 0.0);
  const TileKey o{TensorId::O, 0, 0, 0, 1, 32}, a{TensorId::K, 0, 0, 0, 1, 32};
  CHECK(l2.write(o, 128, 0).writeback_bytes == 0);
  CHECK(l2.used_bytes() == 6 * 32);
  one.write(o, 128);
  CHECK(one.read(a, 128).writeback_bytes == 0);
  const L2Access split = l2.read(a, 128, 0);
  CHECK(split.miss_bytes == 128);       // a was nowhere: DRAM reads all of it, at its homes
  CHECK(split.writeback_bytes == 2 * 32);
  CHECK(l2.dirty_bytes() == 2 * 32);    // o's sectors homed in partition 1 stay
  CHECK(l2.used_bytes() == 8 * 32);     // both full: a (home + copy) in 0; o and a at home in 1
}

TEST_CASE("PartitionedL2: each partition keeps at most its dirty share dirty", "[l2]") {
  // 2 partitions of 16 sectors, each keeping at most a quarter (4 sectors) dirty.
  PartitionedL2 l2(1024, 2, 2, 32, 0, 0.25, 0.0);
  const TileKey x{TensorId::O, 0, 0, 0, 1, 32}, y{TensorId::O, 0, 1, 0, 1, 32}, z{TensorId::O, 0, 2, 0, 1, 32};
  CHECK(l2.write(x, 128, 0).writeback_bytes == 0);  // 2 dirty sectors at each home
  CHECK(l2.write(y, 128, 1).writeback_bytes == 0);  // 4 at each: the limit
  // z takes each partition past its limit: x, written first, goes back at both homes.
  CHECK(l2.write(z, 128, 0).writeback_bytes == 128);
  CHECK(l2.dirty_bytes() == 2 * 4 * 32);
  // x is still in L2, clean: SM 0 finds it without DRAM.
  const L2Access r = l2.read(x, 128, 0);
  CHECK(r.hit_bytes == 128);
  CHECK(r.miss_bytes == 0);
}
