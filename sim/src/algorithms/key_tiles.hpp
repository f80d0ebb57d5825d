// Shared by the tiled algorithms: which key tiles a block of query rows must
// visit under the workload's mask, the mask inside a partially visible tile,
// and K/V tile loads that follow the block table of a paged KV cache.
//
// Query row i sees keys lo(i) <= j <= hi(i), and both bounds grow with i
// (workload.hpp). So the rows n_min..n_max of a query block together see the
// keys lo(n_min)..hi(n_max) and nothing else, and every key in between is
// seen by some row: the tiles to visit are exactly those that overlap that
// range. A tile is fully visible (no elementwise mask needed) when it lies
// inside lo(n_max)..hi(n_min), the keys every row sees.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "fasim/block.hpp"
#include "fasim/paged_kv.hpp"
#include "fasim/program.hpp"

namespace fasim {

/// @brief Key tiles first..last (inclusive) of size bc; empty when last < first.
struct KeyTiles {
  std::int64_t first = 0;
  std::int64_t last = -1;
  std::int64_t count() const { return last >= first ? last - first + 1 : 0; }
};

/// @brief The key tiles that query rows n_min..n_max see.
inline KeyTiles key_tiles(const Workload& w, std::int64_t bc, std::int64_t n_min, std::int64_t n_max) {
  const std::int64_t hi = w.key_hi(n_max);
  if (hi < 0) return {};
  return {w.key_lo(n_min) / bc, hi / bc};
}

/// @brief True if every row n_min..n_max sees every key c0..c0+cols-1.
inline bool fully_visible(const Workload& w, std::int64_t n_min, std::int64_t n_max, std::int64_t c0,
                          std::int64_t cols) {
  return c0 >= w.key_lo(n_max) && c0 + cols - 1 <= w.key_hi(n_min);
}

/// @brief Sets the scores of keys that row r does not see to -inf, in the
/// first `rows` x `cols` of s; key of column c is c0 + c, query of row r is
/// query_of(r). A masked score becomes p = exp(-inf - m) = 0.
template <typename QueryOf>
void mask_scores(const Workload& w, TileMatrix& s, std::int64_t rows, std::int64_t c0, std::int64_t cols,
                 QueryOf query_of) {
  constexpr float kMasked = -std::numeric_limits<float>::infinity();
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t n = query_of(r);
    const std::int64_t lo = w.key_lo(n), hi = w.key_hi(n);
    for (std::int64_t c = 0; c < cols; ++c)
      if (c0 + c < lo || c0 + c > hi) s(r, c) = kMasked;
  }
}

/// @brief out += P V for the first `rows` x `cols` of p and the first `cols`
/// rows of v; out is (rows, d). In a tile that some row sees only in part
/// (`partial`), each row adds only the keys it sees: a masked key has p = 0,
/// but 0 times a NaN or Inf in its V row is still NaN. So a non-finite value
/// in V reaches exactly the rows that see its key, as in the reference.
template <typename Out, typename QueryOf>
void add_pv(const Workload& w, Out&& out, const TileMatrix& p, const TileMatrix& v, std::int64_t rows,
            std::int64_t c0, std::int64_t cols, bool partial, QueryOf query_of) {
  if (!partial) {
    out.noalias() += p.topLeftCorner(rows, cols) * v.topRows(cols);
    return;
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t n = query_of(r);
    const std::int64_t a = std::max<std::int64_t>(w.key_lo(n) - c0, 0);
    const std::int64_t b = std::min<std::int64_t>(w.key_hi(n) - c0 + 1, cols);  // columns [a, b) are seen
    if (a < b) out.row(r).noalias() += p.block(r, a, 1, b - a) * v.middleRows(a, b - a);
  }
}

/// @brief Loads the next page-contiguous run of logical rows
/// [c0 + done, c0 + cols) of K/V head bkv into dst (at row `done`) and
/// advances done. Contiguous K/V: the whole tile in one load. Use as
/// `for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, k, TensorId::K, bkv, c0, cols, r);`
inline Step& load_kv(Block& blk, Tile& dst, TensorId t, std::int64_t bkv, std::int64_t c0, std::int64_t cols,
                     std::int64_t& done) {
  const KvPiece p = kv_piece(blk.workload(), blk.hbm().block_table, bkv, c0 + done, cols - done);
  Step& s = blk.load_from(dst, t, p.slot, p.row0, p.rows, 0, blk.workload().d, done);
  done += p.rows;
  return s;
}

}  // namespace fasim
