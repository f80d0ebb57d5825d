#include "fasim/reference.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <utility>

#include "fasim/paged_kv.hpp"

namespace fasim {

namespace {
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatD head_matrix(const HbmTensor& t, std::int64_t h) {
  RowMatD m(t.rows, t.cols);
  const auto first = static_cast<std::size_t>(t.offset(h, 0, 0));
  for (std::int64_t i = 0; i < t.rows * t.cols; ++i) m.data()[i] = t.values[first + static_cast<std::size_t>(i)];
  return m;
}

// K or V of K/V head bkv as an (N_kv, d) matrix, gathered through the block table.
RowMatD kv_matrix(const Hbm& hbm, const Workload& w, TensorId t, std::int64_t bkv) {
  RowMatD m(w.n_keys(), w.d);
  const HbmTensor& x = hbm.at(t);
  for (std::int64_t r = 0; r < w.n_keys(); ++r) {
    const auto first = static_cast<std::size_t>(kv_offset(w, hbm, t, bkv, r, 0));
    for (std::int64_t c = 0; c < w.d; ++c) m(r, c) = x.values[first + static_cast<std::size_t>(c)];
  }
  return m;
}

// softmax(scale * Q K^T + mask) V, 128 query rows at a time; keys(i) gives
// the keys row i sees, lo..hi (none when hi < lo). A row that sees nothing
// gets 0, and so does a row whose every score is -inf (as the tiled
// algorithms' running max does). A row takes only the scores and V rows of
// the keys it sees, so a NaN or Inf in a hidden key's K or V row does not
// reach it (p = 0 would not help: 0 * NaN is NaN).
template <typename Keys>
std::vector<double> attend(const RowMatD& Q, const RowMatD& K, const RowMatD& V, double scale, Keys keys) {
  const std::int64_t n = Q.rows(), nk = K.rows(), d = V.cols();
  std::vector<double> out(static_cast<std::size_t>(n * d), 0.0);
  Eigen::Map<RowMatD> O(out.data(), n, d);
  constexpr std::int64_t kRows = 128;
  for (std::int64_t r0 = 0; r0 < n; r0 += kRows) {
    const std::int64_t rows = std::min(kRows, n - r0);
    RowMatD S = scale * (Q.middleRows(r0, rows) * K.transpose());  // (rows, N_kv)
    std::vector<std::pair<std::int64_t, std::int64_t>> seen(static_cast<std::size_t>(rows));
    bool all_see_all = true;
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto [lo, hi] = keys(r0 + r);
      seen[static_cast<std::size_t>(r)] = {std::max<std::int64_t>(lo, 0), std::min<std::int64_t>(hi, nk - 1)};
      const auto [a, b] = seen[static_cast<std::size_t>(r)];
      all_see_all = all_see_all && a == 0 && b == nk - 1;
      if (b < a) continue;
      auto p = S.row(r).segment(a, b - a + 1);
      const double mx = p.maxCoeff<Eigen::PropagateNaN>();
      if (mx == -std::numeric_limits<double>::infinity()) {  // every score -inf: as if it saw no key
        seen[static_cast<std::size_t>(r)] = {0, -1};
        all_see_all = false;
        continue;
      }
      p = (p.array() - mx).exp().matrix();
      p /= p.sum();
    }
    if (all_see_all) {
      O.middleRows(r0, rows).noalias() = S * V;
      continue;
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto [a, b] = seen[static_cast<std::size_t>(r)];
      if (b >= a) O.row(r0 + r).noalias() = S.row(r).segment(a, b - a + 1) * V.middleRows(a, b - a + 1);
    }
  }
  return out;
}
}  // namespace

std::vector<double> reference_attention(const HbmTensor& q, const HbmTensor& k,
                                        const HbmTensor& v, std::int64_t h, double scale) {
  return attend(head_matrix(q, h), head_matrix(k, h), head_matrix(v, h), scale,
                [n = k.rows](std::int64_t) { return std::pair<std::int64_t, std::int64_t>(0, n - 1); });
}

std::vector<double> reference_attention(const Hbm& hbm, const Workload& w, std::int64_t bh) {
  const std::int64_t bkv = w.kv_head_of(bh);
  return attend(head_matrix(hbm.at(TensorId::Q), bh), kv_matrix(hbm, w, TensorId::K, bkv),
                kv_matrix(hbm, w, TensorId::V, bkv), w.scale(),
                [&w](std::int64_t i) { return std::pair(w.key_lo(i), w.key_hi(i)); });
}

}  // namespace fasim
