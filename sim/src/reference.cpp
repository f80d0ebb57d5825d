#include "fasim/reference.hpp"

#include <Eigen/Dense>
#include <algorithm>

namespace fasim {

namespace {
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatD head_matrix(const HbmTensor& t, std::int64_t h) {
  RowMatD m(t.rows, t.cols);
  const float* p = &t.values[static_cast<std::size_t>(t.offset(h, 0, 0))];
  for (std::int64_t i = 0; i < t.rows * t.cols; ++i) m.data()[i] = p[i];
  return m;
}
}  // namespace

std::vector<double> reference_attention(const HbmTensor& q, const HbmTensor& k,
                                        const HbmTensor& v, std::int64_t h, double scale) {
  const RowMatD Q = head_matrix(q, h), K = head_matrix(k, h), V = head_matrix(v, h);
  const std::int64_t n = q.rows, d = v.cols;
  std::vector<double> out(static_cast<std::size_t>(n * d));
  Eigen::Map<RowMatD> O(out.data(), n, d);
  constexpr std::int64_t kRows = 128;
  for (std::int64_t r0 = 0; r0 < n; r0 += kRows) {
    const std::int64_t rows = std::min(kRows, n - r0);
    RowMatD S = scale * (Q.middleRows(r0, rows) * K.transpose());  // (rows, N_kv)
    for (std::int64_t r = 0; r < rows; ++r) {
      auto row = S.row(r);
      row = (row.array() - row.maxCoeff()).exp().matrix();
      row /= row.sum();
    }
    O.middleRows(r0, rows) = S * V;
  }
  return out;
}

}  // namespace fasim
