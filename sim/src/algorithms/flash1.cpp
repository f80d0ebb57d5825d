// FlashAttention (Algorithm 1 of the paper), tile by tile.
//
// On the first key block (j = 0) the running O_i, l_i, m_i are the initial
// values 0, 0 and -inf: the block makes them on chip instead of reading them
// from HBM, so nothing has to initialise HBM first. From j = 1 on they are
// read back. O_i is kept in HBM in the storage dtype between key blocks.
//
// With a mask, a (j, i) pair whose tiles share no visible (query, key) pair
// is skipped, and a key block no query block sees is not even loaded; "first
// key block" then means the first one query block i sees. A query block that
// sees no key at all (causal with N > N_kv) stores O_i = 0 at the end.
#include "fasim/algorithms/flash1.hpp"
#include "fasim/algorithms/flash2.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "key_tiles.hpp"
#include "tile_math.hpp"

namespace fasim::flash1 {

// The same tiles as flash2: Q_i, K_j, V_j in SRAM; S/P, O_i, (m_i, l_i) in registers.
OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec& dev) { return flash2::need(w, m, dev); }

void declare(const Workload& w, const Mapping&, Hbm& hbm, bool with_values) {
  hbm.add(TensorId::l, w.bh(), w.N, 1, DType::fp32, with_values);
  hbm.add(TensorId::m, w.bh(), w.N, 1, DType::fp32, with_values);
}

Mapping paper_tiles(const Workload& w, const DeviceSpec& dev) {
  const std::int64_t M = dev.sram_bytes_per_block / w.elem_bytes();
  const std::int64_t bc = (M + 4 * w.d - 1) / (4 * w.d);
  return Mapping{Algo::flash1, std::min(bc, w.d), bc};
}

namespace {

// The paper's update of rows x cols scores in s: m~ = rowmax S,
// P~ = exp(S - m~), l~ = rowsum P~, m' = max(m, m~),
// l' = e^(m - m') l + e^(m~ - m') l~, and the factors of
// O' = (l e^(m - m') O + e^(m~ - m') P~ V) / l' as O' = a O + c P~ V.
// s becomes P~ (rounded to the storage dtype, as the kernel's P~ V takes it);
// ml holds m | l. A row whose scores here are all masked has m~ = -inf and
// P~ = 0; one that has seen no key yet keeps O = 0, m = -inf, l = 0.
void paper_update(TileMatrix& s, TileMatrix& ml, Eigen::VectorXf& a, Eigen::VectorXf& c, std::int64_t rows,
                  std::int64_t cols, DType dtype) {
  constexpr float kNone = -std::numeric_limits<float>::infinity();
  for (std::int64_t r = 0; r < rows; ++r) {
    auto srow = s.row(r).head(cols);
    const float mt = srow.maxCoeff<Eigen::PropagateNaN>();
    if (mt == kNone) srow.setZero();
    else srow = (srow.array() - mt).exp().matrix();
    const float lt = srow.sum();
    const float m_new = running_max(ml(r, 0), mt);
    if (m_new == kNone) {
      a(r) = 1;
      c(r) = 0;
      continue;
    }
    const float e_old = std::exp(ml(r, 0) - m_new), e_new = std::exp(mt - m_new);
    const float l_new = e_old * ml(r, 1) + e_new * lt;
    a(r) = ml(r, 1) * e_old / l_new;
    c(r) = e_new / l_new;
    ml(r, 0) = m_new;
    ml(r, 1) = l_new;
    if (dtype != DType::fp32)
      for (std::int64_t x = 0; x < cols; ++x) srow(x) = round_to(dtype, srow(x));
  }
}

Generator<Step> block_program(Block& blk, Mapping m) {
  const Workload& w = blk.workload();
  const std::int64_t d = w.d;
  const std::int64_t bh = blk.id();
  const std::int64_t bkv = w.kv_head_of(bh);
  const std::int64_t Tr = ceil_div(w.N, m.br);
  const std::int64_t Tc = ceil_div(w.n_keys(), m.bc);
  const float scale = static_cast<float>(w.scale());
  const bool num = blk.numerics();

  Tile k = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile v = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile q = blk.shared(m.br, d, w.dtype);  // (Br, d)
  Tile next = next_buffer(blk, m, 2 * m.bc, d, w.dtype);  // K_j+1, V_j+1 (double buffer)
  Tile s = blk.registers(m.br, m.bc);     // (Br, Bc) S, then P~
  Tile o = blk.registers(m.br, d);        // (Br, d) running O_i
  Tile ml = blk.registers(m.br, 2);       // (Br, 2) running m_i | l_i
  Eigen::VectorXf a, c;                   // (Br) per-row factors of the O update
  if (num) {
    a.resize(m.br);
    c.resize(m.br);
  }

  // The key tiles each query block sees (all of them without a mask).
  std::vector<KeyTiles> seen(static_cast<std::size_t>(Tr));
  for (std::int64_t i = 0; i < Tr; ++i)
    seen[i] = key_tiles(w, m.bc, i * m.br, std::min(w.N, (i + 1) * m.br) - 1);
  auto sees = [&](std::int64_t i, std::int64_t j) { return seen[i].first <= j && j <= seen[i].last; };

  for (std::int64_t j = 0; j < Tc; ++j) {
    bool any = false;
    for (std::int64_t i = 0; i < Tr && !any; ++i) any = sees(i, j);
    if (!any) continue;  // no query block sees these keys: K_j and V_j stay in HBM
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, w.n_keys() - c0);
    blk.at(bh, -1, j);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, k, TensorId::K, bkv, c0, cols, r);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, v, TensorId::V, bkv, c0, cols, r);

    for (std::int64_t i = 0; i < Tr; ++i) {
      if (!sees(i, j)) continue;
      const std::int64_t r0 = i * m.br;
      const std::int64_t rows = std::min(m.br, w.N - r0);
      const std::int64_t watched = blk.watched_local_row(r0, rows);
      blk.at(bh, i, j);
      co_yield blk.load(q, TensorId::Q, r0, rows, 0, d);
      if (j == seen[i].first) {
        if (num) start_running_state(o, ml);
      } else {
        co_yield blk.load(o, TensorId::O, r0, rows, 0, d);
        co_yield blk.load(ml, TensorId::m, r0, rows, 0, 1, 0);
        co_yield blk.load(ml, TensorId::l, r0, rows, 0, 1, 1);
      }

      const bool partial = !fully_visible(w, r0, r0 + rows - 1, c0, cols);
      const auto query_of = [r0](std::int64_t r) { return r0 + r; };
      if (num) {
        scaled_scores(s.data, q, k, rows, cols, scale);
        if (partial) mask_scores(w, s.data, rows, c0, cols, query_of);
      }
      co_yield blk.compute(StepKind::matmul, "S = scale * Q K^T", TensorId::S, rows, cols,
                           score_flops(rows, cols, d));

      if (num) paper_update(s.data, ml.data, a, c, rows, cols, w.dtype);
      co_yield with_row(blk.compute(StepKind::softmax, "m~, P~, l~; m', l'", TensorId::P, rows, cols,
                                    {.matmul = 0, .other = 4 * rows * cols + 11 * rows, .exp = rows * cols + 2 * rows}),
                        ml, watched, num);

      if (num) {
        TileMatrix pv = TileMatrix::Zero(rows, d);  // (rows, d) P~ V
        add_pv(w, pv, s.data, v.values(), rows, c0, cols, partial, query_of);
        for (std::int64_t r = 0; r < rows; ++r) o.data.row(r) = a(r) * o.data.row(r) + c(r) * pv.row(r);
      }
      co_yield blk.compute(StepKind::matmul, "O = (l e O + e~ P~ V) / l'", TensorId::O, rows, d,
                           {.matmul = 2 * rows * cols * d, .other = 3 * rows * d, .exp = 0});

      co_yield blk.store(TensorId::O, r0, rows, 0, d, o);
      co_yield blk.store(TensorId::m, r0, rows, 0, 1, ml, 0);
      co_yield blk.store(TensorId::l, r0, rows, 0, 1, ml, 1);
    }
  }

  // Query blocks that see no key: their output is 0.
  for (std::int64_t i = 0; i < Tr; ++i) {
    if (seen[i].count() > 0) continue;
    const std::int64_t r0 = i * m.br;
    const std::int64_t rows = std::min(m.br, w.N - r0);
    blk.at(bh, i, -1);
    if (num) o.data.setZero();
    co_yield blk.store(TensorId::O, r0, rows, 0, d, o);
  }
}

}  // namespace

Program build(const Workload& w, const Mapping& m, const DeviceSpec&) {
  Program p;
  p.kernels.push_back(Kernel{
      .name = "flash1 forward",
      .grid = w.bh(),
      .body = [m](Block& blk) { return block_program(blk, m); },
  });
  return p;
}

}  // namespace fasim::flash1
