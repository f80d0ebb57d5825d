// Flash-Decoding, tile by tile: a split kernel that computes partial outputs
// over chunks of keys, and a combine kernel that merges them (decode.hpp).
#include "fasim/algorithms/decode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fasim/online_softmax.hpp"
#include "key_tiles.hpp"
#include "tile_math.hpp"

namespace fasim::decode {

std::int64_t packed_rows(const Workload& w) { return w.group() * w.N; }

namespace {

// Where one block's packed query rows are: K/V head bkv, query block i.
struct Rows {
  std::int64_t bkv, i;
  std::int64_t head0;  // first query head of the group: Q, O and L rows are addressed from it
  std::int64_t p0, rows;  // packed rows [p0, p0 + rows)
  std::int64_t n_min, n_max;  // the query rows (within a head) they hold
};

Rows rows_of(const Workload& w, const Mapping& m, std::int64_t bkv, std::int64_t i) {
  const std::int64_t R = packed_rows(w);
  Rows r{bkv, i, (bkv / w.n_kv_heads()) * w.heads + (bkv % w.n_kv_heads()) * w.group(), i * m.br,
         std::min(m.br, R - i * m.br), 0, w.N - 1};
  const std::int64_t n0 = r.p0 % w.N;
  if (n0 + r.rows <= w.N) {  // inside one head: rows n0 .. n0 + rows - 1
    r.n_min = n0;
    r.n_max = n0 + r.rows - 1;
  }
  return r;
}

// Key tiles [first, end) of split s of S.
std::pair<std::int64_t, std::int64_t> split_tiles(const KeyTiles& t, std::int64_t s, std::int64_t S) {
  const std::int64_t n = t.count();
  return {t.first + s * n / S, t.first + (s + 1) * n / S};
}

OnChipBytes split_need(const Workload& w, const Mapping& m) {
  const std::int64_t b = w.elem_bytes();
  return {(m.br + kv_buffers(m) * m.bc) * w.d * b, (m.br * m.bc + m.br * w.d + 2 * m.br) * 4};
}

OnChipBytes combine_need(const Workload& w, const Mapping& m) {
  return {(m.br * w.d + m.br) * 4, (m.br * w.d + 2 * m.br) * 4};  // Opart, Lpart | O, m, l
}

// Kernel 1: block (bkv, i, s) — flash2's inner loop over split s's key tiles.
Generator<Step> split(Block& blk, Mapping m) {
  const Workload& w = blk.workload();
  const std::int64_t d = w.d, S = m.splits, R = packed_rows(w);
  const std::int64_t Tr = ceil_div(R, m.br);
  const Rows q_rows = rows_of(w, m, blk.id() / (Tr * S), blk.id() / S % Tr);
  const std::int64_t bkv = q_rows.bkv, i = q_rows.i, head0 = q_rows.head0;
  const std::int64_t p0 = q_rows.p0, rows = q_rows.rows, n_min = q_rows.n_min, n_max = q_rows.n_max;
  const std::int64_t s_id = blk.id() % S;
  const auto [j_begin, j_end] = split_tiles(key_tiles(w, m.bc, n_min, n_max), s_id, S);
  const float scale = static_cast<float>(w.scale());
  const bool num = blk.numerics();
  const auto query_of = [p0, N = w.N](std::int64_t r) { return (p0 + r) % N; };

  blk.at(head0, i, -1);
  Tile q = blk.shared(m.br, d, w.dtype);  // (Br, d) packed query rows
  Tile k = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile v = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile next = next_buffer(blk, m, 2 * m.bc, d, w.dtype);  // K_j+1, V_j+1 (double buffer)
  Tile sc = blk.registers(m.br, m.bc);    // (Br, Bc) S, then P
  Tile o = blk.registers(m.br, d);        // (Br, d) unnormalised output
  Tile ml = blk.registers(m.br, 2);       // (Br, 2) m | l
  if (num) start_running_state(o, ml);
  // The watched (head, row) as a packed row of this block, or -1.
  const WatchedRow& wr = blk.watched();
  const std::int64_t wp = (wr.bh - head0) * w.N + wr.row - p0;
  const std::int64_t watched = wr.bh >= head0 && wr.bh < head0 + w.group() && wp >= 0 && wp < rows ? wp : -1;

  co_yield blk.load_from(q, TensorId::Q, head0, p0, rows, 0, d);
  for (std::int64_t j = j_begin; j < j_end; ++j) {
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, w.n_keys() - c0);
    blk.at(head0, i, j);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, k, TensorId::K, bkv, c0, cols, r);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, v, TensorId::V, bkv, c0, cols, r);
    const bool partial = !fully_visible(w, n_min, n_max, c0, cols);
    if (num) {
      scaled_scores(sc.data, q, k, rows, cols, scale);
      if (partial) mask_scores(w, sc.data, rows, c0, cols, query_of);
    }
    co_yield blk.compute(StepKind::matmul, "S = scale * Q K^T", TensorId::S, rows, cols,
                         score_flops(rows, cols, d));
    if (num) online_softmax_update(sc.data, o, ml, rows, cols);
    co_yield with_row(blk.compute(StepKind::softmax, "online softmax: m, P, l; O *= alpha", TensorId::P,
                                  rows, cols, online_softmax_flops(rows, cols, d)),
                      ml, watched, num);
    if (num) {
      round_probabilities(sc.data, rows, cols, w.dtype);
      add_pv(w, o.data.topRows(rows), sc.data, v.values(), rows, c0, cols, partial, query_of);
    }
    co_yield blk.compute(StepKind::matmul, "O += P V", TensorId::O, rows, d, pv_flops(rows, cols, d));
  }

  // This split's O / l and L = m + log l (0 and -inf when it saw no key).
  blk.at(head0, i, -1);
  Step fin = with_row(blk.compute(StepKind::rescale, "O = O / l; L = m + log(l)", TensorId::L, rows, d,
                                  finish_flops(rows, d)),
                      ml, watched, num);
  if (num) finish_rows(o, ml, rows);
  co_yield fin;
  if (S == 1) {  // nothing to combine: this is the answer
    co_yield blk.store_to(TensorId::O, head0, p0, rows, 0, d, o);
    co_yield blk.store_to(TensorId::L, head0, p0, rows, 0, 1, ml);
  } else {
    co_yield blk.store_to(TensorId::Opart, bkv, s_id * R + p0, rows, 0, d, o);
    co_yield blk.store_to(TensorId::Lpart, bkv, s_id * R + p0, rows, 0, 1, ml);
  }
}

// Kernel 2: block (bkv, i) merges the S partials of its packed rows.
Generator<Step> combine(Block& blk, Mapping m) {
  const Workload& w = blk.workload();
  const std::int64_t d = w.d, S = m.splits, R = packed_rows(w);
  const Rows q_rows = rows_of(w, m, blk.id() / ceil_div(R, m.br), blk.id() % ceil_div(R, m.br));
  const std::int64_t bkv = q_rows.bkv, i = q_rows.i, head0 = q_rows.head0, p0 = q_rows.p0, rows = q_rows.rows;
  const bool num = blk.numerics();

  blk.at(head0, i, -1);
  Tile part = blk.shared(m.br, d, DType::fp32);  // (Br, d) Opart of one split
  Tile lse = blk.shared(m.br, 1, DType::fp32);   // (Br, 1) Lpart of one split
  Tile o = blk.registers(m.br, d);               // (Br, d) combined output
  Tile ml = blk.registers(m.br, 2);              // (Br, 2) m | l over the splits
  if (num) {
    ml.data.col(0).setConstant(-std::numeric_limits<float>::infinity());
    ml.data.col(1).setZero();
    o.data.setZero();
  }
  for (std::int64_t s = 0; s < S; ++s) {
    blk.at(head0, i, s);
    co_yield blk.load_from(lse, TensorId::Lpart, bkv, s * R + p0, rows, 0, 1);
    co_yield blk.load_from(part, TensorId::Opart, bkv, s * R + p0, rows, 0, d);
    // The online softmax with one score per row, L_s, and its value Opart_s:
    // m' = max(m, L_s), alpha = exp(m - m'), p = exp(L_s - m'), l' = alpha l + p,
    // O = alpha O + p Opart_s. A split that saw no key has L_s = -inf: p = 0.
    if (num) {
      for (std::int64_t r = 0; r < rows; ++r) {
        OnlineSoftmax row{ml.data(r, 0), ml.data(r, 1)};
        float p = lse.data(r, 0);
        const float alpha = row.absorb(&p, 1);
        ml.data(r, 0) = row.m;
        ml.data(r, 1) = row.l;
        o.data.row(r) = alpha * o.data.row(r) + p * part.data.row(r);
      }
    }
    co_yield blk.compute(StepKind::softmax, "O = alpha O + exp(L_s - m) Opart_s", TensorId::O, rows, d,
                         {.matmul = 0, .other = 7 * rows + 3 * rows * d, .exp = 2 * rows});
  }
  blk.at(head0, i, -1);
  co_yield blk.compute(StepKind::rescale, "O = O / l; L = m + log(l)", TensorId::L, rows, d,
                       {.matmul = 0, .other = rows * d + 2 * rows, .exp = rows});
  if (num) {
    for (std::int64_t r = 0; r < rows; ++r) {
      if (ml.data(r, 1) > 0) o.data.row(r) /= ml.data(r, 1);
      ml.data(r, 0) += std::log(ml.data(r, 1));
    }
  }
  co_yield blk.store_to(TensorId::O, head0, p0, rows, 0, d, o);
  co_yield blk.store_to(TensorId::L, head0, p0, rows, 0, 1, ml);
}

}  // namespace

std::int64_t default_splits(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  const std::int64_t Tr = ceil_div(packed_rows(w), m.br);
  std::int64_t most_tiles = 1;
  for (std::int64_t i = 0; i < Tr; ++i) {
    const Rows r = rows_of(w, m, 0, i);
    most_tiles = std::max(most_tiles, key_tiles(w, m.bc, r.n_min, r.n_max).count());
  }
  return std::clamp<std::int64_t>(ceil_div(dev.sm_count, w.bh_kv() * Tr), 1, most_tiles);
}

OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec&) {
  const OnChipBytes a = split_need(w, m), b = combine_need(w, m);
  if (m.splits == 1) return a;
  return {std::max(a.shared, b.shared), std::max(a.registers, b.registers)};
}

void declare(const Workload& w, const Mapping& m, Hbm& hbm, bool with_values) {
  hbm.add(TensorId::L, w.bh(), w.N, 1, DType::fp32, with_values);
  if (m.splits > 1) {
    hbm.add(TensorId::Opart, w.bh_kv(), m.splits * packed_rows(w), w.d, DType::fp32, with_values);
    hbm.add(TensorId::Lpart, w.bh_kv(), m.splits * packed_rows(w), 1, DType::fp32, with_values);
  }
}

Program build(const Workload& w, const Mapping& m, const DeviceSpec&) {
  const std::int64_t blocks = w.bh_kv() * ceil_div(packed_rows(w), m.br);
  Program p;
  p.kernels.push_back(Kernel{.name = m.splits > 1 ? "decode split-KV" : "decode",
                             .grid = blocks * m.splits,
                             .body = [m](Block& blk) { return split(blk, m); }});
  if (m.splits > 1)
    p.kernels.push_back(Kernel{.name = "decode combine",
                               .grid = blocks,
                               .body = [m](Block& blk) { return combine(blk, m); }});
  return p;
}

}  // namespace fasim::decode
