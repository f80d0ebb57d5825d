// Shared by the tile programs: the arithmetic done on on-chip tiles and the
// FLOPs each piece is charged. Written once so that flash1, flash2, decode and
// naive compute, and count, the same thing the same way.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "fasim/block.hpp"
#include "fasim/ledger.hpp"
#include "fasim/mapping.hpp"
#include "fasim/on_chip.hpp"
#include "fasim/online_softmax.hpp"
#include "fasim/step.hpp"

namespace fasim {

/// @brief Copies of each tile that streams in: 2 with double buffering (the
/// next one loads while this one is computed), else 1.
constexpr std::int64_t copies(const Mapping& m) { return m.double_buffer ? 2 : 1; }

/// @brief K/V tiles of Bc rows a block holds in shared memory: K_j and V_j,
/// and with double buffering K_j+1 and V_j+1, which load while j is computed.
constexpr std::int64_t kv_buffers(const Mapping& m) { return 2 * copies(m); }

/// @brief The shared memory a double-buffered block holds for the next
/// `rows` x `cols` tile while it computes on this one (none without double
/// buffering). The program never reads it: the Machine overlaps the loads.
inline Tile next_buffer(Block& blk, const Mapping& m, std::int64_t rows, std::int64_t cols, DType dtype) {
  return blk.shared_reserve(m.double_buffer ? rows : 0, cols, dtype);
}

/// @brief S = scale * Q K^T on the first rows x cols of s. (rows, d) x (cols, d)^T.
/// q and k are shared tiles of one block (distinct scratch slots: Tile::values).
inline void scaled_scores(TileMatrix& s, const Tile& q, const Tile& k, std::int64_t rows, std::int64_t cols,
                          float scale) {
  s.topLeftCorner(rows, cols).noalias() = q.values().topRows(rows) * k.values().topRows(cols).transpose();
  s.topLeftCorner(rows, cols) *= scale;
}

/// @brief FLOPs of S = scale * Q K^T: 2*rows*cols*d matmul, rows*cols scaling.
constexpr Flops score_flops(std::int64_t rows, std::int64_t cols, std::int64_t d) {
  return {.matmul = 2 * rows * cols * d, .other = rows * cols, .exp = 0};
}

/// @brief FLOPs of O += P V: 2*rows*cols*d matmul.
constexpr Flops pv_flops(std::int64_t rows, std::int64_t cols, std::int64_t d) {
  return {.matmul = 2 * rows * cols * d, .other = 0, .exp = 0};
}

/// @brief The online-softmax update of rows x cols scores (FlashAttention-2):
/// per row m' = max(m, rowmax S), P = exp(S - m'), l' = exp(m - m') l + rowsum P,
/// O *= exp(m - m'). ml holds (m | l) per row.
inline void online_softmax_update(TileMatrix& s, Tile& o, Tile& ml, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    OnlineSoftmax row{ml.data(r, 0), ml.data(r, 1)};
    const float alpha = row.absorb(s.row(r).data(), cols);
    ml.data(r, 0) = row.m;
    ml.data(r, 1) = row.l;
    o.data.row(r) *= alpha;
  }
}

/// @brief FLOPs of online_softmax_update: max, subtract, exp, sum per score
/// (4 rc); alpha and l per row (4 r); O *= alpha (r d). Exponentials rc + r.
constexpr Flops online_softmax_flops(std::int64_t rows, std::int64_t cols, std::int64_t d) {
  return {.matmul = 0, .other = 4 * rows * cols + 4 * rows + rows * d, .exp = rows * cols + rows};
}

/// @brief Rounds P to the storage type before P V: tensor cores take it so.
inline void round_probabilities(TileMatrix& s, std::int64_t rows, std::int64_t cols, DType dtype) {
  if (dtype == DType::fp32) return;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) s(r, c) = round_to(dtype, s(r, c));
}

/// @brief Starts the running statistics and output of a block: m = -inf, l = 0, O = 0.
inline void start_running_state(Tile& o, Tile& ml) {
  ml.data.col(0).setConstant(-std::numeric_limits<float>::infinity());
  ml.data.col(1).setZero();
  o.data.setZero();
}

/// @brief The end of a block's online softmax: O = O / l and L = m + log(l)
/// (written over m). A row that saw no key (l = 0) keeps O = 0 and gets L = -inf.
inline void finish_rows(Tile& o, Tile& ml, std::int64_t rows) {
  for (std::int64_t r = 0; r < rows; ++r) {
    if (ml.data(r, 1) > 0) o.data.row(r) /= ml.data(r, 1);
    ml.data(r, 0) += std::log(ml.data(r, 1));
  }
}

/// @brief FLOPs of finish_rows: r d divisions, 2 r for L; r logarithms.
constexpr Flops finish_flops(std::int64_t rows, std::int64_t d) {
  return {.matmul = 0, .other = rows * d + 2 * rows, .exp = rows};
}

/// @brief Marks step st with the watched row's running m and l (ml's row
/// `watched`), when the row lives in this block and values are computed.
inline Step& with_row(Step& st, const Tile& ml, std::int64_t watched, bool numerics) {
  if (watched >= 0 && numerics) {
    st.has_row = true;
    st.row_m = ml.data(watched, 0);
    st.row_l = ml.data(watched, 1);
  }
  return st;
}

}  // namespace fasim
