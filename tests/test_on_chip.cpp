// On-chip tiles with numerics: register tiles hold floats; shared tiles hold
// floats only for rows copied from tensors the run writes, and refer to rows
// of the inputs Q, K, V, reading them (as stored) when arithmetic needs them.
// Whatever a tile holds, values() reads what a copy made at each load would
// hold: later loads replace the rows they cover, other rows keep what was
// loaded before, rows never loaded are 0. Tag [on-chip].
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "fasim/block.hpp"

using namespace fasim;

namespace {

// An HBM of fp16 Q, K, V (one head, 8 rows of 4) and fp32 S, valued x_i = i + 0.1 (Q),
// 100 + i + 0.1 (K); fp16 rounds the 0.1s.
struct Fixture {
  Workload w{1, 1, 8, 4, DType::fp16};
  Hbm hbm;
  TileScratch scratch;
  Step out;
  Fixture() {
    for (TensorId t : {TensorId::Q, TensorId::K, TensorId::V, TensorId::O}) hbm.add(t, 1, 8, 4, DType::fp16, true);
    hbm.add(TensorId::S, 1, 8, 8, DType::fp32, true);
    for (std::size_t i = 0; i < 32; ++i) {
      hbm.at(TensorId::Q).values.set(i, static_cast<float>(i) + 0.1f);
      hbm.at(TensorId::K).values.set(i, 100.0f + static_cast<float>(i) + 0.1f);
    }
    for (std::size_t i = 0; i < 64; ++i) hbm.at(TensorId::S).values.set(i, -static_cast<float>(i));
  }
  Block block(bool numerics = true) { return Block(hbm, scratch, w, numerics, {}, 0, 0, out); }
  // Element (row, col) of tensor t as stored, as float.
  float at(TensorId t, std::int64_t row, std::int64_t col) const {
    const HbmTensor& x = hbm.at(t);
    return x.values[static_cast<std::size_t>(x.offset(0, row, col))];
  }
};

}  // namespace

TEST_CASE("a shared tile refers to the rows of Q it loads and reads them as stored", "[on-chip]") {
  Fixture f;
  Block blk = f.block();
  Tile q = blk.shared(8, 4, DType::fp16);
  Tile o = blk.registers(8, 4);
  CHECK(o.data.rows() == 8);  // register tiles hold floats (zeros) from the start
  blk.load(q, TensorId::Q, 2, 5, 0, 4);  // rows 2..6 into tile rows 0..4
  CHECK(q.data.size() == 0);             // nothing copied
  const TileMatrix& v = q.values();
  for (std::int64_t r = 0; r < 8; ++r)
    for (std::int64_t c = 0; c < 4; ++c) {
      CAPTURE(r, c);
      CHECK(v(r, c) == (r < 5 ? f.at(TensorId::Q, 2 + r, c) : 0.0f));  // fp16-rounded; never loaded: 0
    }
  CHECK(v(0, 0) == round_to(DType::fp16, 8.1f));
  CHECK(v(0, 0) != 8.1f);
}

TEST_CASE("a later load replaces the rows it covers and keeps the others", "[on-chip]") {
  Fixture f;
  Block blk = f.block();
  Tile k = blk.shared(8, 4, DType::fp16);
  blk.load(k, TensorId::K, 0, 8, 0, 4);                   // rows 0..7
  blk.load_from(k, TensorId::K, 0, 5, 2, 0, 4, 3);        // K rows 5, 6 into tile rows 3, 4 (a page)
  blk.load_from(k, TensorId::Q, 0, 0, 1, 0, 4, 6);        // Q row 0 into tile row 6: another tensor
  const TileMatrix& v = k.values();
  const std::vector<std::pair<TensorId, std::int64_t>> want = {
      {TensorId::K, 0}, {TensorId::K, 1}, {TensorId::K, 2}, {TensorId::K, 5},
      {TensorId::K, 6}, {TensorId::K, 5}, {TensorId::Q, 0}, {TensorId::K, 7}};
  for (std::int64_t r = 0; r < 8; ++r)
    for (std::int64_t c = 0; c < 4; ++c) {
      CAPTURE(r, c);
      CHECK(v(r, c) == f.at(want[r].first, want[r].second, c));
    }
}

TEST_CASE("part of a row from a written tensor copies the row in first", "[on-chip]") {
  Fixture f;
  Block blk = f.block();
  Tile t = blk.shared(2, 4, DType::fp32);
  blk.load(t, TensorId::Q, 0, 2, 0, 4);     // refers to Q rows 0, 1
  blk.load(t, TensorId::S, 3, 1, 5, 2, 1);  // S(3, 5..6) into tile row 0, columns 1..2
  REQUIRE(t.data.rows() == 2);              // now held
  const TileMatrix& v = t.values();
  CHECK(v(0, 0) == f.at(TensorId::Q, 0, 0));
  CHECK(v(0, 1) == f.at(TensorId::S, 3, 5));
  CHECK(v(0, 2) == f.at(TensorId::S, 3, 6));
  CHECK(v(0, 3) == f.at(TensorId::Q, 0, 3));
  for (std::int64_t c = 0; c < 4; ++c) CHECK(v(1, c) == f.at(TensorId::Q, 1, c));
}

TEST_CASE("stores read the tile's values, and inputs are never written", "[on-chip]") {
  Fixture f;
  Block blk = f.block();
  Tile q = blk.shared(8, 4, DType::fp16);
  blk.load(q, TensorId::Q, 0, 8, 0, 4);
  blk.store(TensorId::O, 0, 8, 0, 4, q);  // O = Q, through values()
  for (std::int64_t c = 0; c < 4; ++c) CHECK(f.at(TensorId::O, 7, c) == f.at(TensorId::Q, 7, c));
  CHECK_THROWS_AS(blk.store(TensorId::K, 0, 1, 0, 4, q), std::logic_error);
}

TEST_CASE("counting only, tiles hold no values and loads count the same bytes", "[on-chip]") {
  Fixture f;
  Block blk = f.block(false);
  Tile q = blk.shared(8, 4, DType::fp16);
  Tile o = blk.registers(8, 4);
  CHECK(q.data.size() == 0);
  CHECK(o.data.size() == 0);
  CHECK(blk.load(q, TensorId::Q, 0, 8, 0, 4).hbm_read_bytes == 8 * 4 * 2);
  CHECK(blk.chip().in_use(Placement::shared) == 8 * 4 * 2);
  CHECK(blk.chip().in_use(Placement::registers) == 8 * 4 * 4);
}

TEST_CASE("step register tiles count their bytes but share one matrix for their values", "[on-chip]") {
  Fixture f;
  Step out2;
  Block a = f.block();
  Block b(f.hbm, f.scratch, f.w, true, {}, 0, 1, out2);
  Tile sa = a.step_registers(8, 6);
  Tile sb = b.step_registers(8, 6);
  CHECK(a.chip().in_use(Placement::registers) == 8 * 6 * 4);  // fp32, as any register tile
  CHECK(sa.data.size() == 0);                                  // no values of its own
  TileMatrix& va = sa.step_values();
  CHECK(va.rows() == 8);
  CHECK(va.cols() == 6);
  va(7, 5) = 3.5f;
  CHECK(&sb.step_values() == &va);  // the other block works in the same matrix
  CHECK(sb.step_values()(7, 5) == 3.5f);
  CHECK(&sb.values() == &va);  // what a store of it would read
  Block counting = f.block(false);
  Tile sc = counting.step_registers(8, 6);
  CHECK(counting.chip().in_use(Placement::registers) == 8 * 6 * 4);
  CHECK(sc.data.size() == 0);
}
