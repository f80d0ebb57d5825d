// FlashAttention-2 forward, tile by tile. The numbers are computed on the
// on-chip tiles themselves; counting-only mode runs the same schedule without
// values.
#include "fasim/algorithms/flash2.hpp"

#include "fasim/online_softmax.hpp"
#include "key_tiles.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fasim::flash2 {

OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec&) {
  const std::int64_t b = w.elem_bytes();
  OnChipBytes n;
  n.shared = (m.br + 2 * m.bc) * w.d * b;                  // Q_i, K_j, V_j
  n.registers = (m.br * m.bc + m.br * w.d + 2 * m.br) * 4;  // S/P, O, (m, l)
  return n;
}

void declare(const Workload& w, const Mapping&, Hbm& hbm, bool with_values) {
  hbm.add(TensorId::L, w.bh(), w.N, 1, DType::fp32, with_values);
}

namespace {

// The tile program of one block: query block i of head bh. It visits only
// the key tiles its rows see (all of them without a mask), reading them from
// K/V head kv_head_of(bh).
Generator<Step> block_program(Block& blk, Mapping m) {
  const Workload& w = blk.workload();
  const std::int64_t d = w.d;
  const std::int64_t Tr = ceil_div(w.N, m.br);
  const std::int64_t bh = blk.id() / Tr;
  const std::int64_t i = blk.id() % Tr;
  const std::int64_t bkv = w.kv_head_of(bh);
  const std::int64_t r0 = i * m.br;
  const std::int64_t rows = std::min(m.br, w.N - r0);  // ragged last block
  const KeyTiles tiles = key_tiles(w, m.bc, r0, r0 + rows - 1);
  const float scale = static_cast<float>(w.scale());
  const bool num = blk.numerics();

  blk.at(bh, i, -1);
  Tile q = blk.shared(m.br, d, w.dtype);  // (Br, d)
  Tile k = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile v = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile s = blk.registers(m.br, m.bc);     // (Br, Bc) scores S, then probabilities P
  Tile o = blk.registers(m.br, d);        // (Br, d) unnormalised output
  Tile ml = blk.registers(m.br, 2);       // (Br, 2) running max m | running sum l
  if (num) {
    ml.data.col(0).setConstant(-std::numeric_limits<float>::infinity());
    ml.data.col(1).setZero();
    o.data.setZero();
  }
  const std::int64_t watched = blk.watched_local_row(r0, rows);
  auto with_row = [&](Step st) {
    if (watched >= 0 && num) {
      st.has_row = true;
      st.row_m = ml.data(watched, 0);
      st.row_l = ml.data(watched, 1);
    }
    return st;
  };

  co_yield blk.load(q, TensorId::Q, r0, rows, 0, d);

  for (std::int64_t j = tiles.first; j <= tiles.last; ++j) {
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, w.n_keys() - c0);
    blk.at(bh, i, j);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, k, TensorId::K, bkv, c0, cols, r);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, v, TensorId::V, bkv, c0, cols, r);

    if (num) {
      s.data.topLeftCorner(rows, cols).noalias() =
          q.data.topRows(rows) * k.data.topRows(cols).transpose();
      s.data.topLeftCorner(rows, cols) *= scale;
      // A tile on the diagonal or the window's edge: hide what each row must not see.
      if (!fully_visible(w, r0, r0 + rows - 1, c0, cols))
        mask_scores(w, s.data, rows, c0, cols, [r0](std::int64_t r) { return r0 + r; });
    }
    co_yield blk.compute(StepKind::matmul, "S = scale * Q K^T", TensorId::S, rows, cols,
                         {.matmul = 2 * rows * cols * d, .other = rows * cols, .exp = 0});

    // Online softmax: m' = max(m, rowmax S); P = exp(S - m'); alpha = exp(m - m');
    // l' = alpha * l + rowsum P; O = alpha * O.
    if (num) {
      for (std::int64_t r = 0; r < rows; ++r) {
        OnlineSoftmax row{ml.data(r, 0), ml.data(r, 1)};
        const float alpha = row.absorb(s.data.row(r).data(), cols);
        ml.data(r, 0) = row.m;
        ml.data(r, 1) = row.l;
        o.data.row(r) *= alpha;
      }
    }
    co_yield with_row(blk.compute(
        StepKind::softmax, "online softmax: m, P, l; O *= alpha", TensorId::P, rows, cols,
        {.matmul = 0, .other = 4 * rows * cols + 4 * rows + rows * d, .exp = rows * cols + rows}));

    if (num) {
      // Tensor cores take P in the storage type.
      if (w.dtype != DType::fp32)
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t c = 0; c < cols; ++c) s.data(r, c) = round_to(w.dtype, s.data(r, c));
      o.data.topRows(rows).noalias() +=
          s.data.topLeftCorner(rows, cols) * v.data.topRows(cols);
    }
    co_yield blk.compute(StepKind::matmul, "O += P V", TensorId::O, rows, d,
                         {.matmul = 2 * rows * cols * d, .other = 0, .exp = 0});
  }

  // Finish: O = O / l once; L = m + log(l) replaces m. A row that saw no key
  // (l = 0) keeps O = 0 and gets L = -inf.
  blk.at(bh, i, -1);
  Step fin = with_row(blk.compute(StepKind::rescale, "O = O / l; L = m + log(l)", TensorId::L,
                                  rows, d, {.matmul = 0, .other = rows * d + 2 * rows, .exp = rows}));
  if (num) {
    for (std::int64_t r = 0; r < rows; ++r) {
      if (ml.data(r, 1) > 0) o.data.row(r) /= ml.data(r, 1);
      ml.data(r, 0) += std::log(ml.data(r, 1));
    }
  }
  co_yield fin;
  co_yield blk.store(TensorId::O, r0, rows, 0, d, o);
  co_yield blk.store(TensorId::L, r0, rows, 0, 1, ml, 0);
}

}  // namespace

Program build(const Workload& w, const Mapping& m, const DeviceSpec&) {
  Program p;
  p.kernels.push_back(Kernel{
      .name = "flash2 forward",
      .grid = w.bh() * ceil_div(w.N, m.br),
      .body = [m](Block& blk) { return block_program(blk, m); },
  });
  return p;
}

}  // namespace fasim::flash2
