// FlashAttention-2 forward, tile by tile. The numbers are computed on the
// on-chip tiles themselves; counting-only mode runs the same schedule without
// values.
#include "fasim/algorithms/flash2.hpp"

#include "key_tiles.hpp"
#include "tile_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fasim::flash2 {

OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec&) {
  const std::int64_t b = w.elem_bytes();
  OnChipBytes n;
  // Q_i, K_j, V_j, and with double buffering K_j+1, V_j+1 loading meanwhile.
  n.shared = (m.br + kv_buffers(m) * m.bc) * w.d * b;
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
  Tile next = next_buffer(blk, m, 2 * m.bc, d, w.dtype);  // K_j+1, V_j+1 (double buffer)
  Tile s = blk.step_registers(m.br, m.bc);  // (Br, Bc) scores S, then probabilities P
  Tile o = blk.registers(m.br, d);          // (Br, d) unnormalised output
  Tile ml = blk.registers(m.br, 2);         // (Br, 2) running max m | running sum l
  if (num) start_running_state(o, ml);
  const std::int64_t watched = blk.watched_local_row(r0, rows);

  co_yield blk.load(q, TensorId::Q, r0, rows, 0, d);

  for (std::int64_t j = tiles.first; j <= tiles.last; ++j) {
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, w.n_keys() - c0);
    blk.at(bh, i, j);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, k, TensorId::K, bkv, c0, cols, r);
    for (std::int64_t r = 0; r < cols;) co_yield load_kv(blk, v, TensorId::V, bkv, c0, cols, r);

    // The three steps of key tile j: S, the online softmax, and P V. Their
    // arithmetic is done here at once, before the first of them: S/P is a
    // step register tile, whose values last only until the block's next
    // co_yield. The steps report the same values as if each were computed
    // at its own step; nothing else reads S, P or O between them.
    const bool partial = !fully_visible(w, r0, r0 + rows - 1, c0, cols);
    const auto query_of = [r0](std::int64_t r) { return r0 + r; };
    if (num) {
      TileMatrix& sp = s.step_values();
      scaled_scores(sp, q, k, rows, cols, scale);
      // A tile on the diagonal or the window's edge: hide what each row must not see.
      if (partial) mask_scores(w, sp, rows, c0, cols, query_of);
      // Online softmax: m' = max(m, rowmax S); P = exp(S - m'); alpha = exp(m - m');
      // l' = alpha * l + rowsum P; O = alpha * O.
      online_softmax_update(sp, o, ml, rows, cols);
      round_probabilities(sp, rows, cols, w.dtype);
      add_pv(w, o.data.topRows(rows), sp, v.values(), rows, c0, cols, partial, query_of);
    }
    co_yield blk.compute(StepKind::matmul, "S = scale * Q K^T", TensorId::S, rows, cols,
                         score_flops(rows, cols, d));
    co_yield with_row(blk.compute(StepKind::softmax, "online softmax: m, P, l; O *= alpha", TensorId::P,
                                  rows, cols, online_softmax_flops(rows, cols, d)),
                      ml, watched, num);
    co_yield blk.compute(StepKind::matmul, "O += P V", TensorId::O, rows, d, pv_flops(rows, cols, d));
  }

  // Finish: O = O / l once; L = m + log(l) replaces m. A row that saw no key
  // (l = 0) keeps O = 0 and gets L = -inf.
  blk.at(bh, i, -1);
  Step fin = with_row(blk.compute(StepKind::rescale, "O = O / l; L = m + log(l)", TensorId::L, rows, d,
                                  finish_flops(rows, d)),
                      ml, watched, num);
  if (num) finish_rows(o, ml, rows);
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
