// The fp64 reference, row-blocked: it reads Q, K and V from their storage a
// block of query rows and a chunk of keys at a time. Checked against the
// whole-head reference it replaced (below, as it was: the head's Q, K and V
// in double, 128 rows of scores over all keys at once). The two sum the same
// products in a different grouping (keys in chunks of 1024, and Eigen's
// blocking follows the shapes), so they may differ in the last bits of a
// double: by at most 8 double epsilons of the largest |O_ref| on these shapes
// (1.7e-15 relative). The tests allow 1e-14 of it, for the outputs and for
// the errors a run reports (1e-7 and more). Tag [reference].
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "fasim/paged_kv.hpp"
#include "fasim/reference.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

using RowMatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The whole-head reference as it was before the row-blocked one (its code,
// with K and V gathered the same way).
std::vector<double> whole_head_reference(const Hbm& hbm, const Workload& w, std::int64_t bh) {
  const std::int64_t n = w.N, nk = w.n_keys(), d = w.d, bkv = w.kv_head_of(bh);
  RowMatD Q(n, d), K(nk, d), V(nk, d);
  const HbmTensor& q = hbm.at(TensorId::Q);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < d; ++c) Q(r, c) = q.values[static_cast<std::size_t>(q.offset(bh, r, c))];
  for (std::int64_t r = 0; r < nk; ++r)
    for (std::int64_t c = 0; c < d; ++c) {
      K(r, c) = hbm.at(TensorId::K).values[static_cast<std::size_t>(kv_offset(w, hbm, TensorId::K, bkv, r, c))];
      V(r, c) = hbm.at(TensorId::V).values[static_cast<std::size_t>(kv_offset(w, hbm, TensorId::V, bkv, r, c))];
    }
  std::vector<double> out(static_cast<std::size_t>(n * d), 0.0);
  Eigen::Map<RowMatD> O(out.data(), n, d);
  for (std::int64_t r0 = 0; r0 < n; r0 += 128) {
    const std::int64_t rows = std::min<std::int64_t>(128, n - r0);
    RowMatD S = w.scale() * (Q.middleRows(r0, rows) * K.transpose());  // (rows, N_kv)
    std::vector<std::pair<std::int64_t, std::int64_t>> seen(static_cast<std::size_t>(rows));
    bool all_see_all = true;
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t lo = w.key_lo(r0 + r), hi = w.key_hi(r0 + r);
      seen[static_cast<std::size_t>(r)] = {std::max<std::int64_t>(lo, 0), std::min<std::int64_t>(hi, nk - 1)};
      const auto [a, b] = seen[static_cast<std::size_t>(r)];
      all_see_all = all_see_all && a == 0 && b == nk - 1;
      if (b < a) continue;
      auto p = S.row(r).segment(a, b - a + 1);
      const double mx = p.maxCoeff<Eigen::PropagateNaN>();
      if (mx == -std::numeric_limits<double>::infinity()) {
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

// Largest |x| over the finite values.
double max_finite(const std::vector<double>& v) {
  double m = 0;
  for (double x : v)
    if (std::isfinite(x)) m = std::max(m, std::abs(x));
  return m;
}

struct Case {
  const char* what;
  Workload w;
  Mapping m;
};

// Shapes that take each path: one block and one key chunk; several of each
// (N_kv > 1024, ragged); so many keys that a block has 16 rows; masks, whose
// blocks skip the key chunks no row sees; GQA; paged K/V; 16-bit storage.
std::vector<Case> cases() {
  return {
      {"plain", Workload{1, 2, 100, 32, DType::fp32}, Mapping{Algo::flash2, 32, 32}},
      {"several blocks and key chunks", Workload{1, 1, 300, 48, DType::fp32, 0, 2500}, Mapping{Algo::flash2, 64, 64}},
      {"16 rows a block", Workload{1, 1, 40, 8, DType::fp16, 0, 70000}, Mapping{Algo::flash2, 16, 64}},
      {"causal, N_kv > N", Workload{1, 1, 200, 16, DType::bf16, 0, 600, true}, Mapping{Algo::flash2, 32, 64}},
      {"window", Workload{1, 1, 2500, 8, DType::fp16, 0, 0, true, 100}, Mapping{Algo::flash2, 64, 64}},
      {"GQA, paged", Workload{2, 4, 150, 16, DType::fp16, 2, 330, false, 0, 32}, Mapping{Algo::flash2, 32, 32}},
      {"causal, N > N_kv", Workload{1, 1, 300, 16, DType::fp32, 0, 100, true}, Mapping{Algo::flash2, 64, 32}},
  };
}

}  // namespace

TEST_CASE("the row-blocked reference equals the whole-head one it replaced, to 1e-14", "[reference]") {
  const DeviceSpec dev = load_device("h100");
  for (const Case& c : cases()) {
    CAPTURE(c.what);
    Simulation sim(dev, c.w, c.m, {.seed = 11});
    for (std::int64_t h = 0; h < c.w.bh(); ++h) {
      const std::vector<double> blocked = reference_attention(sim.hbm(), c.w, h);
      const std::vector<double> whole = whole_head_reference(sim.hbm(), c.w, h);
      REQUIRE(blocked.size() == whole.size());
      const double scale = max_finite(whole);
      REQUIRE(scale > 0);
      double worst = 0;
      for (std::size_t i = 0; i < whole.size(); ++i) worst = std::max(worst, std::abs(blocked[i] - whole[i]));
      CAPTURE(h, worst, scale);
      CHECK(worst <= 1e-14 * scale);
    }
  }
}

TEST_CASE("NaN and Inf reach the reference rows they reached before", "[reference][hostile]") {
  // Causal: row i sees keys 0..i. A NaN in K row 40 and an Inf in V row 90
  // reach rows 40.. and 90.. only (NaN: the score is NaN; Inf: Inf or NaN).
  const Workload w{1, 1, 120, 8, DType::fp16, 0, 0, true};
  Simulation sim(load_device("h100"), w, Mapping{Algo::flash2, 32, 32}, {.seed = 3});
  std::vector<float> k = sim.hbm().at(TensorId::K).values, v = sim.hbm().at(TensorId::V).values;
  k[40 * 8 + 3] = std::nanf("");
  v[90 * 8 + 5] = std::numeric_limits<float>::infinity();
  sim.set_input(TensorId::K, k);
  sim.set_input(TensorId::V, v);
  const std::vector<double> blocked = reference_attention(sim.hbm(), w, 0);
  const std::vector<double> whole = whole_head_reference(sim.hbm(), w, 0);
  for (std::int64_t r = 0; r < w.N; ++r)
    for (std::int64_t c = 0; c < w.d; ++c) {
      const auto i = static_cast<std::size_t>(r * w.d + c);
      CAPTURE(r, c, blocked[i], whole[i]);
      CHECK(std::isnan(blocked[i]) == std::isnan(whole[i]));
      CHECK(std::isinf(blocked[i]) == std::isinf(whole[i]));
      CHECK(std::isfinite(blocked[i]) == (r < 40));
    }
}

TEST_CASE("a run reports the errors the whole-head reference gives", "[reference][numerics]") {
  const DeviceSpec dev = load_device("h100");
  for (const Case& c : cases()) {
    for (Algo a : {Algo::flash2, Algo::flash1, Algo::naive}) {
      CAPTURE(c.what, name(a));
      Mapping m = c.m;
      m.algo = a;
      Simulation sim(dev, c.w, m, {.seed = 5});
      sim.run();
      const NumericsResult r = sim.numerics();
      // The same comparison, element by element, against the whole-head reference.
      double err = 0, ref_max = 0;
      const HbmTensor& o = sim.hbm().at(TensorId::O);
      for (std::int64_t h = 0; h < c.w.bh(); ++h) {
        const std::vector<double> whole = whole_head_reference(sim.hbm(), c.w, h);
        for (std::size_t i = 0; i < whole.size(); ++i) {
          err = std::max(err, std::abs(o.values[static_cast<std::size_t>(o.offset(h, 0, 0)) + i] - whole[i]));
          ref_max = std::max(ref_max, std::abs(whole[i]));
        }
      }
      CAPTURE(r.max_abs_error, err, r.max_abs_reference, ref_max);
      REQUIRE(err > 1e-9);  // the run's own rounding, far above the references' difference
      CHECK(std::abs(r.max_abs_error - err) <= 1e-14 * ref_max);
      CHECK(std::abs(r.max_abs_reference - ref_max) <= 1e-14 * ref_max);
    }
  }
}

TEST_CASE("the reference hands over blocks of at most 6 MiB of scores, in order", "[reference]") {
  // 128 rows while 128 rows of N_kv doubles fit 6 MiB (N_kv <= 6144), then
  // floor(6 MiB / (8 N_kv)) rows, never under 16.
  CHECK(reference_rows_per_block(Workload{1, 1, 6144, 64, DType::fp16}) == 128);
  CHECK(reference_rows_per_block(Workload{1, 1, 8192, 64, DType::fp16}) == 96);
  CHECK(reference_rows_per_block(Workload{1, 1, 16384, 128, DType::fp16}) == 48);
  CHECK(reference_rows_per_block(Workload{1, 1, 40, 8, DType::fp16, 0, 40000}) == 19);
  CHECK(reference_rows_per_block(Workload{1, 1, 40, 8, DType::fp16, 0, 70000}) == 16);
  const Workload w{1, 1, 40, 8, DType::fp16, 0, 70000};
  Simulation sim(load_device("h100"), w, Mapping{Algo::flash2, 16, 64}, {.seed = 2});
  std::int64_t next = 0;
  reference_attention(sim.hbm(), w, 0, [&](const ReferenceRows& b) {
    CHECK(b.bh == 0);
    CHECK(b.row0 == next);
    CHECK(b.rows == std::min<std::int64_t>(16, w.N - b.row0));
    CHECK(b.d == w.d);
    next += b.rows;
  });
  CHECK(next == w.N);
  // What it holds: 48 rows of 16384 scores, Q and output rows (128 each), and
  // 1024 keys of K and V, all in double.
  const Workload big{1, 1, 16384, 128, DType::fp16};
  CHECK(reference_bytes(big) == 8.0 * (48 * (16384 + 2 * 128) + 2 * 1024 * 128));
}
