#include "fasim/reference.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <utility>

#include "fasim/paged_kv.hpp"

namespace fasim {

namespace {
using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// K and V rows read into double at a time: a chunk of 1 MiB at d = 128 (of
// 256 to 4096 keys, 1024 was the fastest here: 2 cores, 1 MiB L2 each).
constexpr std::int64_t kKeysAtOnce = 1024;
constexpr std::int64_t kMaxRows = 128;             // query rows per block
constexpr double kScoreBytes = 6.0 * 1024 * 1024;  // a block's scores at most, while 16 rows fit

// Rows 0..n-1 of `t` as doubles into out (n, cols); row r starts at offset_of(r).
template <typename OffsetOf>
void read_rows(const HbmTensor& t, std::int64_t n, OffsetOf offset_of, RowMatD& out, std::vector<float>& row) {
  out.resize(n, t.cols);
  row.resize(static_cast<std::size_t>(t.cols));
  for (std::int64_t r = 0; r < n; ++r) {
    t.values.read(static_cast<std::size_t>(offset_of(r)), row.size(), row.data());
    out.row(r) = Eigen::Map<const Eigen::RowVectorXf>(row.data(), t.cols).cast<double>();
  }
}
}  // namespace

std::int64_t reference_rows_per_block(const Workload& w) {
  const double fit = kScoreBytes / (8.0 * static_cast<double>(w.n_keys()));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(fit), 16, kMaxRows);
}

double reference_bytes(const Workload& w) {
  const double rows = static_cast<double>(reference_rows_per_block(w)), nk = static_cast<double>(w.n_keys());
  const double keys = std::min(nk, static_cast<double>(kKeysAtOnce)), d = static_cast<double>(w.d);
  return 8 * (rows * (nk + 2 * d) + 2 * keys * d);
}

// softmax(scale * Q K^T + mask) V for one block of query rows after another.
// A row that sees nothing gets 0, and so does a row whose every score is -inf
// (as the tiled algorithms' running max does). A row takes only the scores and
// V rows of the keys it sees, so a NaN or Inf in a hidden key's K or V row
// does not reach it (p = 0 would not help: 0 * NaN is NaN).
void reference_attention(const Hbm& hbm, const Workload& w, std::int64_t bh,
                         const std::function<void(const ReferenceRows&)>& use) {
  const HbmTensor& q = hbm.at(TensorId::Q);
  const std::int64_t bkv = w.kv_head_of(bh), nk = w.n_keys(), d = w.d;
  const std::int64_t block = reference_rows_per_block(w);
  const double scale = w.scale();
  RowMatD Q, S, O, K, V;  // (rows, d), (rows, N_kv), (rows, d), (kKeysAtOnce, d) twice
  std::vector<float> row;
  std::vector<std::pair<std::int64_t, std::int64_t>> seen;  // keys a..b each row sees (none: b < a)
  for (std::int64_t r0 = 0; r0 < w.N; r0 += block) {
    const std::int64_t rows = std::min(block, w.N - r0);
    // Keys lo..hi: every key a row of this block sees (both bounds grow with the row).
    const std::int64_t lo = std::max<std::int64_t>(w.key_lo(r0), 0);
    const std::int64_t hi = std::min<std::int64_t>(w.key_hi(r0 + rows - 1), nk - 1);
    auto kv_rows = [&](TensorId t, std::int64_t c0, std::int64_t n, RowMatD& out) {  // keys c0..c0+n-1
      read_rows(hbm.at(t), n, [&](std::int64_t j) { return kv_offset(w, hbm, t, bkv, c0 + j, 0); }, out, row);
    };
    read_rows(q, rows, [&](std::int64_t r) { return q.offset(bh, r0 + r, 0); }, Q, row);
    S.resize(rows, nk);
    for (std::int64_t c0 = lo; c0 <= hi; c0 += kKeysAtOnce) {
      const std::int64_t cols = std::min(kKeysAtOnce, hi + 1 - c0);
      kv_rows(TensorId::K, c0, cols, K);
      S.middleCols(c0, cols).noalias() = scale * (Q * K.transpose());
    }
    seen.assign(static_cast<std::size_t>(rows), {0, -1});
    bool all_see_all = true;
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t a = std::max<std::int64_t>(w.key_lo(r0 + r), 0);
      const std::int64_t b = std::min<std::int64_t>(w.key_hi(r0 + r), nk - 1);
      all_see_all = all_see_all && a == 0 && b == nk - 1;
      if (b < a) continue;
      auto p = S.row(r).segment(a, b - a + 1);
      const double mx = p.maxCoeff<Eigen::PropagateNaN>();
      if (mx == -std::numeric_limits<double>::infinity()) {  // every score -inf: as if it saw no key
        all_see_all = false;
        continue;
      }
      p = (p.array() - mx).exp().matrix();
      p /= p.sum();
      seen[static_cast<std::size_t>(r)] = {a, b};
    }
    O.setZero(rows, d);
    for (std::int64_t c0 = lo; c0 <= hi; c0 += kKeysAtOnce) {
      const std::int64_t cols = std::min(kKeysAtOnce, hi + 1 - c0);
      kv_rows(TensorId::V, c0, cols, V);
      if (all_see_all) {
        O.noalias() += S.middleCols(c0, cols) * V;
        continue;
      }
      for (std::int64_t r = 0; r < rows; ++r) {  // the keys of this chunk row r sees: a..b
        const std::int64_t a = std::max(seen[static_cast<std::size_t>(r)].first, c0);
        const std::int64_t b = std::min(seen[static_cast<std::size_t>(r)].second, c0 + cols - 1);
        if (b >= a) O.row(r).noalias() += S.row(r).segment(a, b - a + 1) * V.middleRows(a - c0, b - a + 1);
      }
    }
    use(ReferenceRows{bh, r0, rows, d, O.data()});
  }
}

std::vector<double> reference_attention(const Hbm& hbm, const Workload& w, std::int64_t bh) {
  std::vector<double> out(static_cast<std::size_t>(w.N * w.d));
  reference_attention(hbm, w, bh, [&](const ReferenceRows& b) {
    std::copy_n(b.values, b.rows * b.d, out.begin() + b.row0 * b.d);
  });
  return out;
}

}  // namespace fasim
