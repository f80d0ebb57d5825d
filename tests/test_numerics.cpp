// The simulated output against the fp64 reference, and the online softmax on
// hand examples (including rows whose maximum arrives late).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "fasim/online_softmax.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::abs(x));
  return m;
}

// Largest |scale * q . k| over all pairs of head 0 (the softmax inputs).
double max_score(const Simulation& sim) {
  const Workload& w = sim.workload();
  const HbmTensor& q = sim.hbm().at(TensorId::Q);
  const HbmTensor& k = sim.hbm().at(TensorId::K);
  double best = 0;
  for (std::int64_t i = 0; i < w.N; ++i)
    for (std::int64_t j = 0; j < w.N; ++j) {
      double s = 0;
      for (std::int64_t c = 0; c < w.d; ++c)
        s += static_cast<double>(q.values[q.offset(0, i, c)]) * k.values[k.offset(0, j, c)];
      best = std::max(best, std::abs(s * w.scale()));
    }
  return best;
}

// Unit roundoff of the storage type.
double unit_roundoff(DType t) {
  switch (t) {
    case DType::fp32: return std::ldexp(1.0, -24);
    case DType::fp16: return std::ldexp(1.0, -11);
    case DType::bf16: return std::ldexp(1.0, -8);
  }
  return 0;
}

}  // namespace

TEST_CASE("fp32 output matches the fp64 reference to 1e-5 relative", "[numerics]") {
  const DeviceSpec dev = load_device("h100");
  for (Algo a : {Algo::flash2, Algo::naive, Algo::flash1}) {
    for (auto [N, d, br, bc] : {std::array<std::int64_t, 4>{256, 64, 64, 64}, {300, 32, 64, 48},
                                {77, 16, 16, 32}, {1, 8, 16, 16}}) {
      CAPTURE(name(a), N, d, br, bc);
      Simulation sim(dev, Workload{2, 2, N, d, DType::fp32}, Mapping{a, br, bc}, {.seed = 7});
      sim.run();
      const NumericsResult r = sim.numerics();
      CHECK(r.max_rel_error < 1e-5);
      CHECK(r.max_abs_reference > 0);
    }
  }
}

// Inputs are identical (the reference reads the same rounded Q, K, V), so the
// error comes only from what the algorithm rounds to the storage type u:
//   flash2: P is rounded before P V (each p_j off by <= u p_j, so O moves by
//           <= u max|V|), and O is rounded when stored (<= u |O| <= u max|V|):
//           |err| <= 2 u max|V|, plus fp32 arithmetic (< 1e-5 here).
//   naive:  S is stored rounded (|ds| <= u smax, so each p changes by a factor
//           within exp(+-2 u smax): <= 2 u smax max|V| on O), then P and O are
//           stored rounded (2 u max|V|): |err| <= (2 + 2 smax) u max|V|.
//   flash1: P~ rounded as in flash2 (<= u max|V| over all blocks), and O is
//           stored rounded after each of the Tc key blocks; later updates
//           scale old errors by a factor <= 1: |err| <= (1 + Tc) u max|V|.
TEST_CASE("fp16 and bf16 errors stay within what the storage type allows", "[numerics]") {
  const DeviceSpec dev = load_device("h100");
  for (DType t : {DType::fp16, DType::bf16}) {
    for (Algo a : {Algo::flash2, Algo::naive, Algo::flash1}) {
      CAPTURE(name(t), name(a));
      Simulation sim(dev, Workload{1, 1, 200, 64, t}, Mapping{a, 64, 32}, {.seed = 3});
      const double vmax = max_abs(sim.hbm().at(TensorId::V).values);
      const double smax = max_score(sim);
      sim.run();
      const double u = unit_roundoff(t);
      const double Tc = std::ceil(200.0 / 32);
      const double bound = 1e-5 + (a == Algo::flash2  ? 2 * u * vmax
                                   : a == Algo::naive ? (2 + 2 * smax) * u * vmax
                                                      : (1 + Tc) * u * vmax);
      const NumericsResult r = sim.numerics();
      CAPTURE(r.max_abs_error, bound, smax);
      CHECK(r.max_abs_error <= bound);
      CHECK(r.max_abs_error > 0);  // rounding happened: the check can fail
    }
  }
}

TEST_CASE("online softmax of [2, 5, 3], one score at a time", "[online-softmax]") {
  OnlineSoftmax row;
  float x0 = 2, x1 = 5, x2 = 3;
  CHECK(row.absorb(&x0, 1) == 0.0f);  // nothing before: alpha = exp(-inf) = 0
  CHECK(row.m == 2.0f);
  CHECK(row.l == Approx(1.0));
  const float alpha = row.absorb(&x1, 1);  // the max moves from 2 to 5
  CHECK(alpha == Approx(std::exp(-3.0)));
  CHECK(row.m == 5.0f);
  CHECK(row.l == Approx(std::exp(-3.0) + 1.0));
  CHECK(row.absorb(&x2, 1) == 1.0f);  // 3 < 5: nothing rescales
  CHECK(row.l == Approx(std::exp(-3.0) + 1.0 + std::exp(-2.0)));
  // softmax(x)_i = exp(x_i - m) / l, as if seen at once.
  const double direct = std::exp(5.0) / (std::exp(2.0) + std::exp(5.0) + std::exp(3.0));
  CHECK(std::exp(5.0f - row.m) / row.l == Approx(direct));
}

TEST_CASE("online softmax with the maximum arriving in the last chunk", "[online-softmax]") {
  std::vector<float> xs = {1, 2, 3, 4, 0.5f, 30};
  OnlineSoftmax row;
  row.absorb(xs.data(), 3);
  CHECK(row.m == 3.0f);
  row.absorb(xs.data() + 3, 3);
  CHECK(row.m == 30.0f);
  double l = 0;
  for (float x : {1.f, 2.f, 3.f, 4.f, 0.5f, 30.f}) l += std::exp(x - 30.0);
  CHECK(row.l == Approx(l));
}

TEST_CASE("flash2 steps report the running m and l of the watched row", "[online-softmax][flash2]") {
  // d = 2, fp32: q_0 = (sqrt 2, 0) and k_j = (s_j, 0) make score_j = s_j
  // (scale = 1/sqrt 2). Scores [2, 5, 3, 10] with Bc = 1: the max arrives
  // second, then again last.
  const DeviceSpec dev = load_device("h100");
  const std::vector<float> s = {2, 5, 3, 10};
  Simulation sim(dev, Workload{1, 1, 4, 2, DType::fp32}, Mapping{Algo::flash2, 4, 1},
                 {.numerics = true, .seed = 1, .watch = {0, 0}});
  std::vector<float> q(8, 0.0f), k(8, 0.0f), v(8, 0.0f);
  q[0] = std::sqrt(2.0f);
  for (int j = 0; j < 4; ++j) {
    k[2 * j] = s[j];
    v[2 * j] = static_cast<float>(j + 1);  // v_j = (j+1, -(j+1))
    v[2 * j + 1] = -static_cast<float>(j + 1);
  }
  sim.set_input(TensorId::Q, q);
  sim.set_input(TensorId::K, k);
  sim.set_input(TensorId::V, v);

  std::vector<std::pair<float, float>> ml;  // after each online-softmax step
  while (sim.next())
    if (sim.step().kind == StepKind::softmax && sim.step().has_row)
      ml.emplace_back(sim.step().row_m, sim.step().row_l);
  REQUIRE(ml.size() == 4);
  double m = -INFINITY, l = 0;
  for (int j = 0; j < 4; ++j) {
    const double m_new = std::max(m, static_cast<double>(s[j]));
    l = l * std::exp(m - m_new) + std::exp(s[j] - m_new);
    m = m_new;
    CAPTURE(j);
    CHECK(ml[j].first == Approx(m));
    CHECK(ml[j].second == Approx(l));
  }
  // O_0 = sum_j softmax(s)_j v_j
  double o = 0;
  for (int j = 0; j < 4; ++j) o += std::exp(s[j] - m) / l * (j + 1);
  CHECK(sim.hbm().at(TensorId::O).values[0] == Approx(o));
  CHECK(sim.hbm().at(TensorId::O).values[1] == Approx(-o));
  // L = m + log l
  CHECK(sim.hbm().at(TensorId::L).values[0] == Approx(m + std::log(l)));
}
