// SetL2Cache (l2_sets.hpp): the L2 with W-way sets, in expectation. Closed
// forms are computed here independently of the cache's table: the Poisson
// sums by logarithms, term by term.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>

#include "fasim/device_spec.hpp"
#include "fasim/l2_cache.hpp"
#include "fasim/l2_sets.hpp"

using namespace fasim;

namespace {
// P(Poisson(lambda) < w), each term exp(k ln(lambda) - lambda - ln k!).
double poisson_below(double lambda, int w) {
  double sum = 0;
  for (int k = 0; k < w; ++k) sum += std::exp(k * std::log(lambda) - lambda - std::lgamma(k + 1.0));
  return sum;
}
TileKey tile(TensorId t, std::int64_t i) { return TileKey{t, 0, i, 0, 1, 1}; }
}  // namespace

TEST_CASE("SetL2Cache: a tile read again hits the share a W-way set would still hold", "[l2]") {
  // C = 1 MiB, W = 16, tiles of 4 KiB. Read t, then R bytes of other tiles,
  // then t again: its lines met W (R + b) / C others of their set on average.
  const std::int64_t C = 1 << 20, b = 4096;
  const int W = 16;
  for (std::int64_t R : {std::int64_t{0}, C / 4, C / 2, C, 3 * C / 2, 2 * C}) {
    SetL2Cache l2(C, W, 1.0, 0.0);
    CHECK(l2.read(tile(TensorId::K, -1), b).miss_bytes == b);
    for (std::int64_t i = 0; i < R / b; ++i) l2.read(tile(TensorId::V, i), b);
    const double expect = static_cast<double>(b) * poisson_below(W * static_cast<double>(R + b) / C, W);
    const L2Access again = l2.read(tile(TensorId::K, -1), b);
    INFO("R = " << R << ", expected hits " << expect);
    CHECK(std::abs(static_cast<double>(again.hit_bytes) - expect) <= 1 + 1e-4 * b);
    CHECK(again.hit_bytes + again.miss_bytes == b);
  }
}

TEST_CASE("SetL2Cache: dirty data not read goes back as it ages past (1 - s) of its set", "[l2]") {
  // Write o, read R other bytes, settle: o's bytes written back are those
  // whose set saw W or more lines after them in (1 - s) C.
  const std::int64_t C = 1 << 20, b = 4096;
  const int W = 32;
  const double s = 0.3;
  for (std::int64_t R : {std::int64_t{0}, C / 2, 3 * C / 4, C, 2 * C}) {
    SetL2Cache l2(C, W, 1.0, s);
    std::int64_t back = l2.write(tile(TensorId::O, 0), b).writeback_bytes;
    for (std::int64_t i = 0; i < R / b; ++i) back += l2.read(tile(TensorId::V, i), b).writeback_bytes;
    back += l2.settle();
    const double expect = b * (1 - poisson_below(W * static_cast<double>(R + b) / ((1 - s) * C), W));
    INFO("R = " << R << ", expected " << expect);
    CHECK(std::abs(static_cast<double>(back) - expect) <= 1 + 1e-4 * b);
    // Nothing lost: what did not go back is still dirty.
    CHECK(std::abs(back + l2.dirty_bytes() - b) <= 1);
  }
}

TEST_CASE("SetL2Cache: written data outstays an LRU past the capacity but goes back on time", "[l2]") {
  // Write o (or read it), read R other bytes, read o again. A written tile
  // counts a (D - C) + C in place of D bytes used since it, once D > C; a
  // read tile, and any tile with a = 1, counts D. The write-back does not
  // move: o goes back as the LRU would evict it, whatever a is.
  const std::int64_t C = 1 << 20, b = 4096;
  const int W = 16;
  for (const double a : {1.0, kL2WrittenAging, 0.25})
    for (std::int64_t R : {std::int64_t{0}, C / 2, C, 3 * C / 2, 2 * C, 3 * C}) {
      const double kept = R <= C ? static_cast<double>(R) : static_cast<double>(C) + a * static_cast<double>(R - C);
      const double written_hits = b * poisson_below(W * (kept + b) / C, W);
      const double read_hits = b * poisson_below(W * static_cast<double>(R + b) / C, W);
      INFO("a = " << a << ", R = " << R << ", expected hits " << written_hits << " written, " << read_hits << " read");
      for (const bool write : {true, false}) {
        SetL2Cache l2(C, W, 1.0, 0.0, a);
        std::int64_t back = write ? l2.write(tile(TensorId::O, 0), b).writeback_bytes
                                  : l2.read(tile(TensorId::O, 0), b).writeback_bytes;
        for (std::int64_t i = 0; i < R / b; ++i) back += l2.read(tile(TensorId::V, i), b).writeback_bytes;
        const L2Access again = l2.read(tile(TensorId::O, 0), b);
        back += again.writeback_bytes;
        CHECK(std::abs(static_cast<double>(again.hit_bytes) - (write ? written_hits : read_hits)) <= 1 + 1e-4 * b);
        CHECK(std::abs(static_cast<double>(back) - (write ? b - read_hits : 0.0)) <= 1 + 1e-4 * b);
      }
    }
}

TEST_CASE("SetL2Cache: dirty data read since it came in goes back only as it leaves", "[l2]") {
  // flash1's O: written, read, then other data. Only the evicted share goes back.
  const std::int64_t C = 1 << 20, b = 4096, R = 3 * C / 4;
  const int W = 32;
  const double s = 0.3;
  SetL2Cache l2(C, W, 1.0, s);
  std::int64_t back = l2.write(tile(TensorId::O, 0), b).writeback_bytes;
  back += l2.read(tile(TensorId::O, 0), b).writeback_bytes;
  for (std::int64_t i = 0; i < R / b; ++i) back += l2.read(tile(TensorId::V, i), b).writeback_bytes;
  back += l2.settle();
  const double evicted = b * (1 - poisson_below(W * static_cast<double>(R + b) / C, W));
  CHECK(std::abs(static_cast<double>(back) - evicted) <= 1 + 1e-4 * b);
  // Without the rule it would go back as it aged past (1 - s) C: far more.
  const double aged = b * (1 - poisson_below(W * static_cast<double>(R + b) / ((1 - s) * C), W));
  CHECK(evicted < 0.2 * aged);
}

TEST_CASE("SetL2Cache: data written again while in L2 goes back as it ages past (1 - r) of its set", "[l2]") {
  // flash1's O: written, read and written again, then R other bytes, settle.
  // A tile written again goes back as it ages past (1 - r) C, read since or
  // not, and stays, clean; a tile written once and read goes back only as it
  // leaves. With r = 0 the second write changes nothing.
  const std::int64_t C = 1 << 20, b = 4096;
  const int W = 32;
  for (const double r : {kL2RewrittenCleanShare, 0.3, 0.0})
    for (std::int64_t R : {std::int64_t{0}, C / 2, 3 * C / 4, C, 2 * C})
      for (const bool again : {true, false}) {
        SetL2Cache l2(C, W, 1.0, 0.0, kL2WrittenAging, r);
        std::int64_t back = l2.write(tile(TensorId::O, 0), b).writeback_bytes;
        back += l2.read(tile(TensorId::O, 0), b).writeback_bytes;
        if (again) back += l2.write(tile(TensorId::O, 0), b).writeback_bytes;
        for (std::int64_t i = 0; i < R / b; ++i) back += l2.read(tile(TensorId::V, i), b).writeback_bytes;
        back += l2.settle();
        const double room = again ? (1 - r) * C : static_cast<double>(C);
        const double expect = b * (1 - poisson_below(W * static_cast<double>(R + b) / room, W));
        INFO("r = " << r << ", R = " << R << (again ? ", written again" : ", written once") << ", expected " << expect);
        CHECK(std::abs(static_cast<double>(back) - expect) <= 1 + 1e-4 * b);
        CHECK(std::abs(back + l2.dirty_bytes() - b) <= 1);  // what did not go back is still dirty
      }
  // The rule matters where the set is nearly full: with the devices' ways,
  // at R = 3C/4 the tile written again goes back more than twice as often.
  const double Wd = static_cast<double>(kL2Ways);
  const int w = static_cast<int>(kL2Ways);
  const double once = 1 - poisson_below(Wd * (0.75 * C + b) / C, w);
  const double twice = 1 - poisson_below(Wd * (0.75 * C + b) / ((1 - kL2RewrittenCleanShare) * C), w);
  CHECK(twice > 2 * once);
}

TEST_CASE("SetL2Cache: with one set (0 ways) it is the fully associative L2Cache", "[l2]") {
  // The same random reads and writes of 40 tiles into both: every access hits
  // and misses alike, and the bytes written back agree once the set model has
  // counted what accrued (settle).
  const std::int64_t C = 2000, b = 100;
  L2Cache lru(C, 0.6, 0.25);
  SetL2Cache sets(C, 0, 0.6, 0.25);
  std::mt19937 rng(7);
  std::int64_t back_lru = 0, back_sets = 0;
  for (int n = 0; n < 5000; ++n) {
    const TileKey k = tile(n % 3 ? TensorId::K : TensorId::O, static_cast<std::int64_t>(rng() % 40));
    const bool write = rng() % 4 == 0;
    const L2Access a = write ? lru.write(k, b) : lru.read(k, b);
    const L2Access c = write ? sets.write(k, b) : sets.read(k, b);
    REQUIRE(a.hit_bytes == c.hit_bytes);
    REQUIRE(a.miss_bytes == c.miss_bytes);
    back_lru += a.writeback_bytes;
    back_sets += c.writeback_bytes;
  }
  back_sets += sets.settle();
  CHECK(back_lru > 0);
  CHECK(back_sets == back_lru);
  CHECK(sets.dirty_bytes() == lru.dirty_bytes());
}

TEST_CASE("SetL2Cache: more ways, a sharper edge at the capacity", "[l2]") {
  const std::int64_t C = 1 << 20;
  SetL2Cache few(C, 4), many(C, 64), one(C, 0);
  // Half the cache since: all ways keep nearly everything; 1.5x: few ways
  // keep some, many keep almost nothing, one set nothing.
  CHECK(many.resident(C / 2, 0) > 0.999);
  CHECK(few.resident(C / 2, 0) < many.resident(C / 2, 0));
  CHECK(few.resident(3 * C / 2, 0) > many.resident(3 * C / 2, 0));
  CHECK(many.resident(3 * C / 2, 0) < 0.01);
  CHECK(one.resident(C, 0) == 1.0);
  CHECK(one.resident(C + 1, 0) == 0.0);
  CHECK(kL2Ways == 64);
  // The most ways a profile may give: no underflow (exp(-1024) is 0 in a double).
  SetL2Cache most(C, static_cast<int>(kL2MaxWays));
  CHECK(most.resident(9 * C / 10, 0) > 0.99);
  CHECK(most.resident(11 * C / 10, 0) < 0.01);
}

TEST_CASE("L2 caches: a read of part of a tile brings in the whole tile", "[l2]") {
  // PartitionedL2 asks a home partition for the part a copy missed; the tile
  // that comes in is still the whole tile.
  SetL2Cache sets(1 << 20, 32);
  L2Cache lru(1 << 20);
  const TileKey k = tile(TensorId::K, 0);
  CHECK(sets.read(k, 40, 100).miss_bytes == 40);
  CHECK(lru.read(k, 40, 100).miss_bytes == 40);
  CHECK(sets.used_bytes() == 100);
  CHECK(lru.used_bytes() == 100);
  CHECK(sets.read(k, 100).hit_bytes == 100);
  CHECK(lru.read(k, 100).hit_bytes == 100);
}

TEST_CASE("SetL2Cache: a read of part of a tile makes only the lines it read recent", "[l2]") {
  // A far SM asks a tile's home only for the lines its copy lacked. Those
  // lines become recent; the tile's other lines keep their older place.
  // C = 1 MiB, W = 32; tile t of 64 KiB, fillers of 4 KiB.
  const std::int64_t C = 1 << 20, b = 64 << 10, m = 16 << 10, f = 4096;
  const int W = 32;
  SetL2Cache l2(C, W);
  const TileKey t = tile(TensorId::Q, 0);
  std::int64_t next = 0;
  auto fill = [&](std::int64_t bytes) {
    for (std::int64_t i = 0; i < bytes / f; ++i) l2.read(tile(TensorId::V, next++), f);
  };
  auto share = [&](std::int64_t since, std::int64_t bytes) {
    return poisson_below(W * static_cast<double>(since + bytes) / C, W);
  };
  CHECK(l2.read(t, b).miss_bytes == b);
  fill(C / 2);
  // m bytes of the tile: each line is there with the whole tile's chance.
  const L2Access part = l2.read(t, m, b);
  CHECK(std::abs(static_cast<double>(part.hit_bytes) - m * share(C / 2, b)) <= 1);
  fill(C / 2);
  // All of it: the m read lines came after the first fillers, the rest before.
  const double fresh = m * share(C / 2, m), old = (b - m) * share(C / 2 + m + C / 2, b - m);
  const L2Access whole = l2.read(t, b);
  INFO("expected hits " << fresh << " + " << old << "; the whole tile kept recent would hit "
                        << b * share(C / 2, b));
  CHECK(std::abs(static_cast<double>(whole.hit_bytes) - (fresh + old)) <= 1);
  CHECK(fresh + old < 0.75 * b);  // the test tells the two apart
  // Read whole, the tile is one part again: read right away, all of it hits.
  CHECK(l2.read(t, b).hit_bytes == b);
}

TEST_CASE("SetL2Cache: a write makes a tile split by a partial read one part again", "[l2]") {
  const std::int64_t C = 1 << 20, b = 64 << 10;
  SetL2Cache l2(C, 32, 1.0, 0.0);
  const TileKey t = tile(TensorId::O, 0);
  l2.read(t, b);
  for (std::int64_t i = 0; i < 64; ++i) l2.read(tile(TensorId::V, i), 4096);
  l2.read(t, b / 4, b);  // split: a quarter recent, the rest older
  CHECK(l2.used_bytes() == b + 64 * 4096);
  CHECK(l2.write(t, b).writeback_bytes == 0);
  CHECK(l2.dirty_bytes() == b);
  CHECK(l2.used_bytes() == b + 64 * 4096);
  CHECK(l2.read(t, b).hit_bytes == b);
  // Dropped, both parts go: nothing of the tile is left.
  l2.read(t, b / 4, b);
  l2.drop(t);
  CHECK(l2.used_bytes() == 64 * 4096);
}
