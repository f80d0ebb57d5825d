// FlashAttention (Algorithm 1 of the paper), tile by tile.
//
// On the first key block (j = 0) the running O_i, l_i, m_i are the initial
// values 0, 0 and -inf: the block makes them on chip instead of reading them
// from HBM, so nothing has to initialise HBM first. From j = 1 on they are
// read back. O_i is kept in HBM in the storage dtype between key blocks.
#include "fasim/algorithms/flash1.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fasim::flash1 {

OnChipBytes need(const Workload& w, const Mapping& m, const DeviceSpec&) {
  const std::int64_t b = w.elem_bytes();
  OnChipBytes n;
  n.shared = (m.br + 2 * m.bc) * w.d * b;                  // Q_i, K_j, V_j
  n.registers = (m.br * m.bc + m.br * w.d + 2 * m.br) * 4;  // S/P, O_i, (m_i, l_i)
  return n;
}

void declare(const Workload& w, Hbm& hbm, bool with_values) {
  hbm.add(TensorId::l, w.bh(), w.N, 1, DType::fp32, with_values);
  hbm.add(TensorId::m, w.bh(), w.N, 1, DType::fp32, with_values);
}

Mapping paper_tiles(const Workload& w, const DeviceSpec& dev) {
  const std::int64_t M = dev.sram_bytes_per_block / w.elem_bytes();
  const std::int64_t bc = (M + 4 * w.d - 1) / (4 * w.d);
  return Mapping{Algo::flash1, std::min(bc, w.d), bc};
}

namespace {

Generator<Step> block_program(Block& blk, Mapping m) {
  const Workload& w = blk.workload();
  const std::int64_t d = w.d;
  const std::int64_t bh = blk.id();
  const std::int64_t Tr = ceil_div(w.N, m.br);
  const std::int64_t Tc = ceil_div(w.N, m.bc);
  const float scale = static_cast<float>(w.scale());
  const bool num = blk.numerics();

  Tile k = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile v = blk.shared(m.bc, d, w.dtype);  // (Bc, d)
  Tile q = blk.shared(m.br, d, w.dtype);  // (Br, d)
  Tile s = blk.registers(m.br, m.bc);     // (Br, Bc) S, then P~
  Tile o = blk.registers(m.br, d);        // (Br, d) running O_i
  Tile ml = blk.registers(m.br, 2);       // (Br, 2) running m_i | l_i
  Eigen::VectorXf a, c;                   // (Br) per-row factors of the O update
  if (num) {
    a.resize(m.br);
    c.resize(m.br);
  }

  for (std::int64_t j = 0; j < Tc; ++j) {
    const std::int64_t c0 = j * m.bc;
    const std::int64_t cols = std::min(m.bc, w.N - c0);
    blk.at(bh, -1, j);
    co_yield blk.load(k, TensorId::K, c0, cols, 0, d);
    co_yield blk.load(v, TensorId::V, c0, cols, 0, d);

    for (std::int64_t i = 0; i < Tr; ++i) {
      const std::int64_t r0 = i * m.br;
      const std::int64_t rows = std::min(m.br, w.N - r0);
      const std::int64_t watched = blk.watched_local_row(r0, rows);
      blk.at(bh, i, j);
      co_yield blk.load(q, TensorId::Q, r0, rows, 0, d);
      if (j == 0) {
        if (num) {
          o.data.setZero();
          ml.data.col(0).setConstant(-std::numeric_limits<float>::infinity());
          ml.data.col(1).setZero();
        }
      } else {
        co_yield blk.load(o, TensorId::O, r0, rows, 0, d);
        co_yield blk.load(ml, TensorId::m, r0, rows, 0, 1, 0);
        co_yield blk.load(ml, TensorId::l, r0, rows, 0, 1, 1);
      }

      if (num) {
        s.data.topLeftCorner(rows, cols).noalias() =
            q.data.topRows(rows) * k.data.topRows(cols).transpose();
        s.data.topLeftCorner(rows, cols) *= scale;
      }
      co_yield blk.compute(StepKind::matmul, "S = scale * Q K^T", TensorId::S, rows, cols,
                           {.matmul = 2 * rows * cols * d, .other = rows * cols, .exp = 0});

      // The paper's update: m~ = rowmax S, P~ = exp(S - m~), l~ = rowsum P~,
      // m' = max(m, m~), l' = e^(m - m') l + e^(m~ - m') l~,
      // O' = (l e^(m - m') O + e^(m~ - m') P~ V) / l'.
      if (num) {
        for (std::int64_t r = 0; r < rows; ++r) {
          auto srow = s.data.row(r).head(cols);
          const float mt = srow.maxCoeff();
          srow = (srow.array() - mt).exp().matrix();
          const float lt = srow.sum();
          const float m_new = std::max(ml.data(r, 0), mt);
          const float e_old = std::exp(ml.data(r, 0) - m_new), e_new = std::exp(mt - m_new);
          const float l_new = e_old * ml.data(r, 1) + e_new * lt;
          a(r) = ml.data(r, 1) * e_old / l_new;
          c(r) = e_new / l_new;
          ml.data(r, 0) = m_new;
          ml.data(r, 1) = l_new;
          if (w.dtype != DType::fp32)
            for (std::int64_t x = 0; x < cols; ++x) srow(x) = round_to(w.dtype, srow(x));
        }
      }
      Step sm = blk.compute(StepKind::softmax, "m~, P~, l~; m', l'", TensorId::P, rows, cols,
                            {.matmul = 0, .other = 4 * rows * cols + 11 * rows, .exp = rows * cols + 2 * rows});
      if (watched >= 0 && num) {
        sm.has_row = true;
        sm.row_m = ml.data(watched, 0);
        sm.row_l = ml.data(watched, 1);
      }
      co_yield sm;

      if (num) {
        const TileMatrix pv = s.data.topLeftCorner(rows, cols) * v.data.topRows(cols);
        for (std::int64_t r = 0; r < rows; ++r) o.data.row(r) = a(r) * o.data.row(r) + c(r) * pv.row(r);
      }
      co_yield blk.compute(StepKind::matmul, "O = (l e O + e~ P~ V) / l'", TensorId::O, rows, d,
                           {.matmul = 2 * rows * cols * d, .other = 3 * rows * d, .exp = 0});

      co_yield blk.store(TensorId::O, r0, rows, 0, d, o);
      co_yield blk.store(TensorId::m, r0, rows, 0, 1, ml, 0);
      co_yield blk.store(TensorId::l, r0, rows, 0, 1, ml, 1);
    }
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
