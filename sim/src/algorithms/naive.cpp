// Standard attention, three kernels, tiled with the mapping's Br and Bc.
// S and P round-trip through HBM in the workload's dtype.
//
// Masks: as standard attention does (PyTorch adds a mask to S before the
// softmax), kernels 1 and 3 compute every tile of S and P V; only kernel 2
// applies the mask, hiding masked scores before the softmax (p = 0). So a
// causal or windowed naive run moves exactly the bytes of an unmasked one.
#include "fasim/algorithms/naive.hpp"

#include "fasim/online_softmax.hpp"
#include "key_tiles.hpp"
#include "tile_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fasim::naive {

bool softmax_rows_fit(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  return m.br * w.n_keys() * w.elem_bytes() <= dev.sram_bytes_per_block;
}

OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  const std::int64_t b = w.elem_bytes();
  // With double buffering each tile that streams in has a second copy (Q_i
  // and whole rows of S do not stream).
  const std::int64_t copies = fasim::copies(m);
  // Kernel 1: Q_i, K_j in SRAM; S tile in registers.
  const OnChipBytes k1{(m.br + copies * m.bc) * w.d * b, m.br * m.bc * 4};
  // Kernel 2: Br full rows of S (one pass) or one (Br, Bc) chunk (two passes); m, l.
  const OnChipBytes k2{(softmax_rows_fit(w, m, dev) ? m.br * w.n_keys() : copies * m.br * m.bc) * b, 2 * m.br * 4};
  // Kernel 3: P_ij, V_j in SRAM; O accumulator in registers.
  const OnChipBytes k3{copies * (m.br * m.bc + m.bc * w.d) * b, m.br * w.d * 4};
  return {std::max({k1.shared, k2.shared, k3.shared}),
          std::max({k1.registers, k2.registers, k3.registers})};
}

void declare(const Workload& w, const Mapping&, Hbm& hbm, bool with_values) {
  hbm.add(TensorId::S, w.bh(), w.N, w.n_keys(), w.dtype, with_values);
  hbm.add(TensorId::P, w.bh(), w.N, w.n_keys(), w.dtype, with_values);
}

namespace {

struct Rows {
  std::int64_t bh, i, r0, rows;
};
Rows block_rows(const Block& blk, const Mapping& m) {
  const Workload& w = blk.workload();
  const std::int64_t Tr = ceil_div(w.N, m.br);
  const std::int64_t i = blk.id() % Tr;
  return {blk.id() / Tr, i, i * m.br, std::min(m.br, w.N - i * m.br)};
}

// Kernel 1: S_i = scale * Q_i K^T, one K tile at a time.
Generator<Step> scores(Block& blk, Mapping m) {
  const Workload& w = blk.workload();
  const auto [bh, i, r0, rows] = block_rows(blk, m);
  const float scale = static_cast<float>(w.scale());
  blk.at(bh, i, -1);
  Tile q = blk.shared(m.br, w.d, w.dtype);  // (Br, d)
  Tile k = blk.shared(m.bc, w.d, w.dtype);  // (Bc, d)
  Tile next = next_buffer(blk, m, m.bc, w.d, w.dtype);  // K_j+1 (double buffer)
  Tile s = blk.registers(m.br, m.bc);       // (Br, Bc)
  co_yield blk.load(q, TensorId::Q, r0, rows, 0, w.d);
  for (std::int64_t j = 0; j < ceil_div(w.n_keys(), m.bc); ++j) {
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, w.n_keys() - c0);
    blk.at(bh, i, j);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, k, TensorId::K, w.kv_head_of(bh), c0, cols, r);
    if (blk.numerics()) scaled_scores(s.data, q, k, rows, cols, scale);
    co_yield blk.compute(StepKind::matmul, "S = scale * Q K^T", TensorId::S, rows, cols,
                         score_flops(rows, cols, w.d));
    co_yield blk.store(TensorId::S, r0, rows, c0, cols, s);
  }
}

// Kernel 2: P = softmax(S) row by row. One pass when the block's rows of S fit
// in SRAM; otherwise pass 1 finds m and l online and pass 2 reloads S to write P.
// Masked scores become -inf as they arrive; a row that sees no key gets P = 0.
Generator<Step> softmax(Block& blk, Mapping m, bool rows_fit) {
  const Workload& w = blk.workload();
  const auto [bh, i, r0, rows] = block_rows(blk, m);
  const bool num = blk.numerics();
  const std::int64_t Nk = w.n_keys();
  const std::int64_t Tc = ceil_div(Nk, m.bc);
  const auto query_of = [r0 = r0](std::int64_t r) { return r0 + r; };  // clang < 16: no captured bindings
  blk.at(bh, i, -1);
  Tile s = blk.shared(m.br, rows_fit ? Nk : m.bc, w.dtype);  // (Br, N_kv) or (Br, Bc)
  Tile next = next_buffer(blk, m, rows_fit ? 0 : m.br, m.bc, w.dtype);  // S chunk j+1 (two passes)
  Tile ml = blk.registers(m.br, 2);                          // (Br, 2) m | l
  const std::int64_t watched = blk.watched_local_row(r0, rows);
  if (num) {
    ml.data.col(0).setConstant(-std::numeric_limits<float>::infinity());
    ml.data.col(1).setZero();
  }

  if (rows_fit) {
    for (std::int64_t j = 0; j < Tc; ++j) {
      const std::int64_t c0 = j * m.bc;
      blk.at(bh, i, j);
      co_yield blk.load(s, TensorId::S, r0, rows, c0, std::min(m.bc, Nk - c0), c0);
    }
    blk.at(bh, i, -1);
    if (num) {
      if (w.masked()) mask_scores(w, s.data, rows, 0, Nk, query_of);
      for (std::int64_t r = 0; r < rows; ++r) {
        auto row = s.data.row(r);
        ml.data(r, 0) = row.maxCoeff<Eigen::PropagateNaN>();  // a NaN score makes the row NaN
        ml.data(r, 1) = 0;
        if (ml.data(r, 0) == -std::numeric_limits<float>::infinity()) {  // sees no key
          row.setZero();
          continue;
        }
        row = (row.array() - ml.data(r, 0)).exp().matrix();
        ml.data(r, 1) = row.sum();
        row /= ml.data(r, 1);
      }
    }
    // Per element: max, subtract, exp, sum, divide.
    co_yield with_row(blk.compute(StepKind::softmax, "P = softmax(S), whole rows", TensorId::P,
                                  rows, Nk, {.matmul = 0, .other = 5 * rows * Nk, .exp = rows * Nk}), ml, watched, num);
    for (std::int64_t j = 0; j < Tc; ++j) {
      const std::int64_t c0 = j * m.bc;
      blk.at(bh, i, j);
      co_yield blk.store(TensorId::P, r0, rows, c0, std::min(m.bc, Nk - c0), s, c0);
    }
    co_return;
  }

  for (std::int64_t j = 0; j < Tc; ++j) {  // pass 1: running max and sum
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, Nk - c0);
    blk.at(bh, i, j);
    co_yield blk.load(s, TensorId::S, r0, rows, c0, cols);
    if (num) {
      if (w.masked()) mask_scores(w, s.data, rows, c0, cols, query_of);
      for (std::int64_t r = 0; r < rows; ++r) {
        OnlineSoftmax row{ml.data(r, 0), ml.data(r, 1)};
        row.absorb(s.data.row(r).data(), cols);  // the exps are discarded; pass 2 reloads S
        ml.data(r, 0) = row.m;
        ml.data(r, 1) = row.l;
      }
    }
    co_yield with_row(blk.compute(StepKind::softmax, "m, l online (pass 1)", TensorId::l, rows, cols,
                                  {.matmul = 0, .other = 4 * rows * cols + 4 * rows,
                                   .exp = rows * cols + rows}), ml, watched, num);
  }
  for (std::int64_t j = 0; j < Tc; ++j) {  // pass 2: P = exp(S - m) / l
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, Nk - c0);
    blk.at(bh, i, j);
    co_yield blk.load(s, TensorId::S, r0, rows, c0, cols);
    if (num) {
      if (w.masked()) mask_scores(w, s.data, rows, c0, cols, query_of);
      for (std::int64_t r = 0; r < rows; ++r) {
        auto chunk = s.data.row(r).head(cols);
        if (ml.data(r, 1) == 0) chunk.setZero();  // the row sees no key
        else chunk = ((chunk.array() - ml.data(r, 0)).exp() / ml.data(r, 1)).matrix();
      }
    }
    co_yield blk.compute(StepKind::softmax, "P = exp(S - m) / l (pass 2)", TensorId::P, rows, cols,
                         {.matmul = 0, .other = 3 * rows * cols, .exp = rows * cols});
    co_yield blk.store(TensorId::P, r0, rows, c0, cols, s);
  }
}

// Kernel 3: O_i = P_i V, one (P_ij, V_j) pair at a time.
Generator<Step> output(Block& blk, Mapping m) {
  const Workload& w = blk.workload();
  const auto [bh, i, r0, rows] = block_rows(blk, m);
  blk.at(bh, i, -1);
  Tile p = blk.shared(m.br, m.bc, w.dtype);  // (Br, Bc)
  Tile v = blk.shared(m.bc, w.d, w.dtype);   // (Bc, d)
  Tile next_p = next_buffer(blk, m, m.br, m.bc, w.dtype);  // P_i,j+1 (double buffer)
  Tile next_v = next_buffer(blk, m, m.bc, w.d, w.dtype);   // V_j+1 (double buffer)
  Tile o = blk.registers(m.br, w.d);         // (Br, d)
  for (std::int64_t j = 0; j < ceil_div(w.n_keys(), m.bc); ++j) {
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, w.n_keys() - c0);
    blk.at(bh, i, j);
    co_yield blk.load(p, TensorId::P, r0, rows, c0, cols);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, v, TensorId::V, w.kv_head_of(bh), c0, cols, r);
    if (blk.numerics())
      add_pv(w, o.data.topRows(rows), p.values(), v.values(), rows, c0, cols, !fully_visible(w, r0, r0 + rows - 1, c0, cols),
             [r0 = r0](std::int64_t r) { return r0 + r; });
    co_yield blk.compute(StepKind::matmul, "O += P V", TensorId::O, rows, w.d,
                         {.matmul = 2 * rows * cols * w.d, .other = 0, .exp = 0});
  }
  blk.at(bh, i, -1);
  co_yield blk.store(TensorId::O, r0, rows, 0, w.d, o);
}

}  // namespace

Program build(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  const std::int64_t grid = w.bh() * ceil_div(w.N, m.br);
  const bool fit = softmax_rows_fit(w, m, dev);
  Program p;
  p.kernels.push_back({"S = scale * Q K^T", grid, [m](Block& b) { return scores(b, m); }});
  p.kernels.push_back({"P = softmax(S)", grid, [m, fit](Block& b) { return softmax(b, m, fit); }});
  p.kernels.push_back({"O = P V", grid, [m](Block& b) { return output(b, m); }});
  return p;
}

}  // namespace fasim::naive
