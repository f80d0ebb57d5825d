#include "fasim/reference.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <limits>

#include "fasim/paged_kv.hpp"

namespace fasim {

namespace {
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatD head_matrix(const HbmTensor& t, std::int64_t h) {
  RowMatD m(t.rows, t.cols);
  const float* p = &t.values[static_cast<std::size_t>(t.offset(h, 0, 0))];
  for (std::int64_t i = 0; i < t.rows * t.cols; ++i) m.data()[i] = p[i];
  return m;
}

// K or V of K/V head bkv as an (N_kv, d) matrix, gathered through the block table.
RowMatD kv_matrix(const Hbm& hbm, const Workload& w, TensorId t, std::int64_t bkv) {
  RowMatD m(w.n_keys(), w.d);
  const HbmTensor& x = hbm.at(t);
  for (std::int64_t r = 0; r < w.n_keys(); ++r) {
    const float* p = &x.values[static_cast<std::size_t>(kv_offset(w, hbm, t, bkv, r, 0))];
    for (std::int64_t c = 0; c < w.d; ++c) m(r, c) = p[c];
  }
  return m;
}

// softmax(scale * Q K^T + mask) V, 128 query rows at a time; visible(i, j)
// says whether row i sees key j. A row that sees nothing gets 0.
template <typename Visible>
std::vector<double> attend(const RowMatD& Q, const RowMatD& K, const RowMatD& V, double scale, Visible visible) {
  const std::int64_t n = Q.rows(), d = V.cols();
  std::vector<double> out(static_cast<std::size_t>(n * d));
  Eigen::Map<RowMatD> O(out.data(), n, d);
  constexpr std::int64_t kRows = 128;
  for (std::int64_t r0 = 0; r0 < n; r0 += kRows) {
    const std::int64_t rows = std::min(kRows, n - r0);
    RowMatD S = scale * (Q.middleRows(r0, rows) * K.transpose());  // (rows, N_kv)
    for (std::int64_t r = 0; r < rows; ++r) {
      auto row = S.row(r);
      for (std::int64_t j = 0; j < row.size(); ++j)
        if (!visible(r0 + r, j)) row(j) = -std::numeric_limits<double>::infinity();
      const double mx = row.maxCoeff();
      if (mx == -std::numeric_limits<double>::infinity()) {
        row.setZero();
        continue;
      }
      row = (row.array() - mx).exp().matrix();
      row /= row.sum();
    }
    O.middleRows(r0, rows) = S * V;
  }
  return out;
}
}  // namespace

std::vector<double> reference_attention(const HbmTensor& q, const HbmTensor& k,
                                        const HbmTensor& v, std::int64_t h, double scale) {
  return attend(head_matrix(q, h), head_matrix(k, h), head_matrix(v, h), scale,
                [](std::int64_t, std::int64_t) { return true; });
}

std::vector<double> reference_attention(const Hbm& hbm, const Workload& w, std::int64_t bh) {
  const std::int64_t bkv = w.kv_head_of(bh);
  return attend(head_matrix(hbm.at(TensorId::Q), bh), kv_matrix(hbm, w, TensorId::K, bkv),
                kv_matrix(hbm, w, TensorId::V, bkv), w.scale(),
                [&w](std::int64_t i, std::int64_t j) { return w.visible(i, j); });
}

}  // namespace fasim
