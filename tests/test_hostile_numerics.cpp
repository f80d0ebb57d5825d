// Hostile inputs for the numerics path: huge scores, rows that see no key,
// NaN and Inf, N = 1, odd head dimensions, values near the top of fp16 and
// bf16. Every algorithm and dtype, each compared element by element with the
// fp64 reference computed from the same stored inputs:
//   - where the reference is finite, the output is finite and within the
//     algorithm's error bound (as in test_variants_numerics.cpp);
//   - where it is NaN or Inf, the output is the same NaN or the same Inf.
// Where the GPU arithmetic fasim models overflows (the reference finite, the
// output not), Simulation::numerics() counts the values and names the cause
// and the fix; NaN and Inf from the inputs are counted apart.
// The semantics are written up in docs/variants.md ("Hostile inputs").
// Tag [hostile].
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fasim/reference.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

constexpr Algo kAlgos[] = {Algo::naive, Algo::flash1, Algo::flash2, Algo::decode};
constexpr DType kDtypes[] = {DType::fp32, DType::fp16, DType::bf16};
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::nanf("");

double unit_roundoff(DType t) {
  return t == DType::fp32 ? std::ldexp(1.0, -24) : t == DType::fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}

struct Inputs {
  std::vector<float> q, k, v;  // (bh, N, d) and (bh_kv, N_kv, d), row-major
};

Inputs random_inputs(const Workload& w, float scale_qk, float scale_v, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Inputs in;
  in.q.resize(static_cast<std::size_t>(w.bh() * w.N * w.d));
  in.k.resize(static_cast<std::size_t>(w.bh_kv() * w.n_keys() * w.d));
  in.v.resize(in.k.size());
  for (float& x : in.q) x = scale_qk * normal(rng);
  for (float& x : in.k) x = scale_qk * normal(rng);
  for (float& x : in.v) x = scale_v * normal(rng);
  return in;
}

// Tiles of 16 so that shapes of a few dozen rows span several tiles, with
// ragged edges; decode splits its keys in two when there are two tiles.
Mapping tiles(Algo a, const Workload& w) {
  const std::int64_t splits = a == Algo::decode ? std::min<std::int64_t>(2, (w.n_keys() + 15) / 16) : 0;
  return Mapping{a, 16, 16, false, splits};
}

struct Outcome {
  std::vector<float> o;     // (bh, N, d)
  std::vector<double> ref;  // same layout
  std::vector<float> L;     // (bh, N) log-sum-exp, empty if the algorithm writes none
  double vmax = 0;          // largest finite |V| as stored
  double smax = 0;          // largest finite |score| as stored inputs give it
  double sabs = 0;          // largest finite scale * sum_c |q_c k_c|: what bounds a score's rounding
  NumericsResult num;       // what Simulation::numerics() reports
};

Outcome run(Algo a, const Workload& w, const Inputs& in) {
  Simulation sim(load_device("h100"), w, tiles(a, w));
  sim.set_input(TensorId::Q, in.q);
  sim.set_input(TensorId::K, in.k);
  sim.set_input(TensorId::V, in.v);
  sim.run();
  Outcome out;
  out.o = sim.hbm().at(TensorId::O).values;
  for (std::int64_t h = 0; h < w.bh(); ++h) {
    const std::vector<double> r = reference_attention(sim.hbm(), w, h);
    out.ref.insert(out.ref.end(), r.begin(), r.end());
  }
  if (sim.hbm().has(TensorId::L)) out.L = sim.hbm().at(TensorId::L).values;
  out.num = sim.numerics();
  for (float x : in.v)
    if (std::isfinite(x)) out.vmax = std::max(out.vmax, std::abs(static_cast<double>(round_to(w.dtype, x))));
  // Scores of the stored inputs (head by head, through the K/V head each reads).
  const HbmTensor& q = sim.hbm().at(TensorId::Q);
  for (std::int64_t h = 0; h < w.bh(); ++h)
    for (std::int64_t i = 0; i < w.N; ++i)
      for (std::int64_t j = 0; j < w.n_keys(); ++j) {
        double s = 0, sa = 0;
        for (std::int64_t c = 0; c < w.d; ++c) {
          const double x = static_cast<double>(q.values[q.offset(h, i, c)]) *
                           round_to(w.dtype, in.k[static_cast<std::size_t>((w.kv_head_of(h) * w.n_keys() + j) * w.d + c)]);
          s += x;
          sa += std::abs(x);
        }
        if (std::isfinite(s)) out.smax = std::max(out.smax, std::abs(s * w.scale()));
        if (std::isfinite(sa)) out.sabs = std::max(out.sabs, sa * w.scale());
      }
  return out;
}

// The error bounds of test_variants_numerics.cpp (u: the storage type's unit
// roundoff, Tc key tiles of 16), plus what huge scores add: a score summed
// in fp32 is off by up to (d + 2) u32 sabs, which moves each p by about
// twice that, and O by twice that times vmax.
double bound(Algo a, const Workload& w, const Outcome& r) {
  const double u = unit_roundoff(w.dtype), u32 = std::ldexp(1.0, -24);
  const double tc = static_cast<double>((w.n_keys() + 15) / 16);
  const double vmax = r.vmax;
  const double scores = 2 * static_cast<double>(w.d + 2) * u32 * r.sabs * vmax;
  double storage = 0;
  switch (a) {
    case Algo::flash2:
    case Algo::decode: storage = 2 * u * vmax; break;
    case Algo::flash1: storage = (1 + tc) * u * vmax; break;
    case Algo::naive: storage = (2 + 2 * r.smax) * u * vmax; break;
  }
  return storage + scores + 1e-5 * vmax;
}

// Element by element against the reference; returns the first mismatch
// (empty: none) so a failure says where and what.
std::string mismatch(const Outcome& r, double tol) {
  for (std::size_t x = 0; x < r.ref.size(); ++x) {
    const double want = r.ref[x];
    const double got = r.o[x];
    bool ok = false;
    if (std::isnan(want)) ok = std::isnan(got);
    else if (std::isinf(want)) ok = got == want;
    else ok = std::isfinite(got) && std::abs(got - want) <= tol;
    if (!ok) {
      std::ostringstream s;
      s << "element " << x << ": got " << got << ", reference " << want << " (tolerance " << tol << ")";
      return s.str();
    }
  }
  return {};
}

// Runs every algorithm and dtype on `w` with inputs made by `make` and checks
// each against the reference.
template <typename Make>
void check_all(Workload w, Make make) {
  for (DType t : kDtypes) {
    w.dtype = t;
    const Inputs in = make(w);
    for (Algo a : kAlgos) {
      CAPTURE(name(a), name(t));
      const Outcome r = run(a, w, in);
      const std::string bad = mismatch(r, bound(a, w, r));
      INFO(bad);
      CHECK(bad.empty());
    }
  }
}

// Output values that are NaN or Inf where the reference is finite, counted here.
std::int64_t overflowed(const Outcome& r) {
  std::int64_t n = 0;
  for (std::size_t x = 0; x < r.ref.size(); ++x) n += std::isfinite(r.ref[x]) && !std::isfinite(r.o[x]) ? 1 : 0;
  return n;
}

// Output values that are NaN or Inf as the reference is, the same way.
std::int64_t propagated(const Outcome& r) {
  std::int64_t n = 0;
  for (std::size_t x = 0; x < r.ref.size(); ++x) {
    const double want = r.ref[x], got = r.o[x];
    n += !std::isfinite(want) && (std::isnan(want) ? std::isnan(got) : got == want) ? 1 : 0;
  }
  return n;
}

// The report of an overflow: the count as counted here, and a cause and fix
// that contain the given parts.
void check_overflow_report(const Outcome& r, const std::string& cause, const std::string& fix) {
  CAPTURE(r.num.overflow_cause, r.num.overflow_fix);
  CHECK(overflowed(r) > 0);
  CHECK(r.num.overflowed == overflowed(r));
  CHECK(r.num.nonfinite_inputs == 0);
  CHECK(std::isinf(r.num.max_abs_error));
  CHECK_THAT(r.num.overflow_cause, Catch::Contains(cause));
  CHECK_THAT(r.num.overflow_fix, Catch::Contains(fix));
  CHECK(r.num.overflow_cause.find('\n') == std::string::npos);
  CHECK(r.num.overflow_fix.find('\n') == std::string::npos);
}

std::size_t at(const Workload& w, std::int64_t h, std::int64_t i, std::int64_t c) {
  return static_cast<std::size_t>((h * w.N + i) * w.d + c);
}

}  // namespace

TEST_CASE("scores of +-1e4: the running max keeps exp from overflowing", "[hostile][numerics]") {
  // Q = K = 100 N(0, 1), d = 16: scale * q . k has a standard deviation of
  // 1e4. exp(1e4) is inf in any float; exp(s - m) never is.
  Workload w{1, 2, 48, 16, DType::fp32};
  w.causal = true;
  for (DType t : kDtypes) {
    w.dtype = t;
    const Inputs in = random_inputs(w, 100.0f, 1.0f);
    for (Algo a : kAlgos) {
      CAPTURE(name(a), name(t));
      const Outcome r = run(a, w, in);
      REQUIRE(r.smax > 1e4);  // the scores are as large as claimed
      const std::string bad = mismatch(r, bound(a, w, r));
      INFO(bad);
      CHECK(bad.empty());
    }
  }
}

TEST_CASE("every score +1e4 or every score -1e4: O is the mean of the V rows a row sees", "[hostile][numerics]") {
  // Q rows c * 1 and K rows 1: every score is c d / sqrt(d) = 4c = +-1e4
  // (d = 16). Without the running max exp(1e4) = inf and exp(-1e4) = 0
  // would give NaN; with it every p is 1 and O_i is the mean of V_0..V_i.
  for (float c : {2500.0f, -2500.0f}) {
    Workload w{1, 1, 40, 16, DType::fp16};
    w.causal = true;
    for (DType t : kDtypes) {
      w.dtype = t;
      Inputs in = random_inputs(w, 1.0f, 1.0f);
      std::fill(in.q.begin(), in.q.end(), c);
      std::fill(in.k.begin(), in.k.end(), 1.0f);
      for (Algo a : kAlgos) {
        CAPTURE(c, name(a), name(t));
        const Outcome r = run(a, w, in);
        const std::string bad = mismatch(r, bound(a, w, r));
        INFO(bad);
        CHECK(bad.empty());
        double worst = 0;
        for (std::int64_t i = 0; i < w.N; ++i)
          for (std::int64_t col = 0; col < w.d; ++col) {
            double mean = 0;
            for (std::int64_t j = 0; j <= i; ++j) mean += round_to(t, in.v[at(w, 0, j, col)]);
            mean /= static_cast<double>(i + 1);
            worst = std::max(worst, std::abs(r.o[at(w, 0, i, col)] - mean));
          }
        CHECK(worst <= bound(a, w, r));
      }
    }
  }
}

TEST_CASE("a maximum that grows by thousands from tile to tile", "[hostile][numerics]") {
  // Q_i = c e_0, K_j = (j + 1) e_0: scores climb to 1e4 across the key tiles,
  // so every new tile rescales the running sum by exp(m - m') = 0. The
  // softmax is one-hot at the last key each row sees: O_i = V_i (causal).
  Workload w{1, 1, 48, 16, DType::fp32};
  w.causal = true;
  for (DType t : kDtypes) {
    w.dtype = t;
    Inputs in = random_inputs(w, 0.0f, 1.0f);
    for (std::int64_t i = 0; i < w.N; ++i) in.q[at(w, 0, i, 0)] = 832.0f;
    for (std::int64_t j = 0; j < w.N; ++j) in.k[at(w, 0, j, 0)] = static_cast<float>(j + 1);
    for (Algo a : kAlgos) {
      CAPTURE(name(a), name(t));
      const Outcome r = run(a, w, in);
      const std::string bad = mismatch(r, bound(a, w, r));
      INFO(bad);
      CHECK(bad.empty());
      for (std::size_t x = 0; x < r.o.size(); ++x) CHECK(r.o[x] == Approx(round_to(t, in.v[x])).margin(1e-6));
    }
  }
}

TEST_CASE("rows that see no key: O = 0 and L = -inf, as the reference gives, with huge scores", "[hostile][numerics]") {
  // Causal with N = 40 queries and N_kv = 24 keys: row i sees keys j <= i - 16,
  // so rows 0..15 see none. A window of 5 on top changes nothing for them.
  for (std::int64_t window : {0, 5}) {
    Workload w{1, 2, 40, 16, DType::fp32};
    w.N_kv = 24;
    w.causal = true;
    w.window = window;
    for (DType t : kDtypes) {
      w.dtype = t;
      const Inputs in = random_inputs(w, 100.0f, 1.0f);
      for (Algo a : kAlgos) {
        CAPTURE(window, name(a), name(t));
        const Outcome r = run(a, w, in);
        const std::string bad = mismatch(r, bound(a, w, r));
        INFO(bad);
        CHECK(bad.empty());
        for (std::int64_t h = 0; h < w.bh(); ++h)
          for (std::int64_t i = 0; i < w.N; ++i) {
            const bool empty = i < 16;
            CHECK((r.o[at(w, h, i, 0)] == 0.0f) == empty);
            if (!r.L.empty()) CHECK((r.L[static_cast<std::size_t>(h * w.N + i)] == -kInf) == empty);
          }
      }
    }
  }
}

TEST_CASE("NaN and Inf inputs reach exactly the rows that see them, as in the reference", "[hostile][numerics]") {
  // Causal, N = 40: key j is seen by rows i >= j. Each case plants one
  // non-finite value; the check is element by element against the reference.
  struct Plant {
    const char* what;
    char tensor;  // 'q', 'k' or 'v'
    std::int64_t row, col;
    float value;
  };
  const Plant plants[] = {
      {"NaN in Q row 5: row 5 is NaN", 'q', 5, 3, kNaN},
      {"+Inf in Q row 5: its scores are +-Inf, row 5 is NaN", 'q', 5, 0, kInf},
      {"NaN in K row 20: rows 20.. are NaN, rows ..19 are not", 'k', 20, 1, kNaN},
      {"-Inf in K row 20: a score of -Inf is a masked key, +Inf gives NaN", 'k', 20, 0, -kInf},
      {"NaN in V row 20: column 2 of rows 20.. is NaN", 'v', 20, 2, kNaN},
      {"+Inf in V row 20: column 2 of rows 20.. is +Inf", 'v', 20, 2, kInf},
      {"NaN in V row 39: only the last row sees it", 'v', 39, 0, kNaN},
  };
  for (bool causal : {true, false}) {
    for (const Plant& p : plants) {
      Workload w{1, 1, 40, 16, DType::fp32};
      w.causal = causal;
      INFO(p.what << (causal ? ", causal" : ", no mask"));
      check_all(w, [&](const Workload& wt) {
        Inputs in = random_inputs(wt, 1.0f, 1.0f);
        std::vector<float>& x = p.tensor == 'q' ? in.q : p.tensor == 'k' ? in.k : in.v;
        x[at(wt, 0, p.row, p.col)] = p.value;
        return in;
      });
    }
  }
  // The claims in the names, checked once on flash2 fp32 with the causal mask.
  Workload w{1, 1, 40, 16, DType::fp32};
  w.causal = true;
  Inputs in = random_inputs(w, 1.0f, 1.0f);
  in.v[at(w, 0, 20, 2)] = kNaN;
  const Outcome r = run(Algo::flash2, w, in);
  for (std::int64_t i = 0; i < w.N; ++i)
    for (std::int64_t c = 0; c < w.d; ++c) CHECK(std::isnan(r.o[at(w, 0, i, c)]) == (i >= 20 && c == 2));
  // The report counts them apart from overflows: one NaN input, rows 20..39
  // of column 2 NaN as in the reference, nothing overflowed.
  CHECK(r.num.nonfinite_inputs == 1);
  CHECK(r.num.propagated == propagated(r));
  CHECK(r.num.propagated == w.N - 20);
  CHECK(r.num.overflowed == 0);
  CHECK(r.num.overflow_cause.empty());
  CHECK(std::isfinite(r.num.max_abs_error));  // over the values whose reference is finite
}

TEST_CASE("N = 1 and N_kv = 1: one query, one key", "[hostile][numerics]") {
  for (std::int64_t n_kv : {1, 37}) {
    for (bool causal : {false, true}) {
      Workload w{2, 2, 1, 16, DType::fp32};
      w.N_kv = n_kv;
      w.causal = causal;
      check_all(w, [](const Workload& wt) { return random_inputs(wt, 1.0f, 1.0f); });
    }
  }
  // N = N_kv = 1: softmax of one score is 1, so O = V whatever the score.
  Workload w{1, 1, 1, 16, DType::fp32};
  Inputs in = random_inputs(w, 300.0f, 1.0f);
  for (Algo a : kAlgos) {
    const Outcome r = run(a, w, in);
    for (std::size_t x = 0; x < r.o.size(); ++x) CHECK(r.o[x] == in.v[x]);
  }
}

TEST_CASE("head dimensions that are not a multiple of 8", "[hostile][numerics]") {
  for (std::int64_t d : {1, 3, 5, 12, 13, 33}) {
    CAPTURE(d);
    Workload w{1, 2, 37, d, DType::fp32};
    w.causal = d % 2 == 1;
    check_all(w, [](const Workload& wt) { return random_inputs(wt, 1.0f, 1.0f); });
  }
}

TEST_CASE("V at the largest fp16 values, and bf16 values up to 2^120: O stays finite", "[hostile][numerics]") {
  // O_i is a weighted mean of V rows, so |O| <= max |V|: V at +-65504 (the
  // largest fp16) must not round to Inf. In bf16, V up to 2^120 (1.3e36).
  Workload w{1, 1, 40, 16, DType::fp16};
  w.causal = true;
  for (DType t : {DType::fp16, DType::bf16}) {
    w.dtype = t;
    for (float top : t == DType::fp16 ? std::vector<float>{65504.0f, 0.99f * 65504.0f}
                                      : std::vector<float>{std::ldexp(1.0f, 120), 3.0e36f}) {
      for (bool same_sign : {true, false}) {
        Inputs in = random_inputs(w, 1.0f, 1.0f);
        for (float& x : in.v) x = (same_sign || x > 0 ? 1.0f : -1.0f) * top;
        for (Algo a : kAlgos) {
          CAPTURE(name(a), name(t), top, same_sign);
          const Outcome r = run(a, w, in);
          const std::string bad = mismatch(r, bound(a, w, r));
          INFO(bad);
          CHECK(bad.empty());
        }
      }
    }
  }
}

TEST_CASE("V near the largest bf16 value: the tiled algorithms' fp32 sum overflows", "[hostile][numerics]") {
  // flash1, flash2 and decode add up p_j V_j before dividing by l, in fp32
  // as tensor cores do; l is up to N_kv, so V near bf16's largest value
  // (3.4e38, about fp32's largest too) overflows to Inf where the fp64
  // reference is finite. Standard attention multiplies by the normalised P
  // and stays finite. docs/variants.md says so.
  Workload w{1, 1, 40, 16, DType::bf16};
  Inputs in = random_inputs(w, 0.0f, 1.0f);  // Q = K = 0: every p is 1, l = 40
  for (float& x : in.v) x = 3.3e38f;
  const Outcome naive = run(Algo::naive, w, in);
  CHECK(mismatch(naive, bound(Algo::naive, w, naive)).empty());
  CHECK(naive.num.overflowed == 0);
  for (Algo a : {Algo::flash1, Algo::flash2, Algo::decode}) {
    CAPTURE(name(a));
    const Outcome r = run(a, w, in);
    CHECK(std::isinf(r.o[0]));
    CHECK(std::isfinite(r.ref[0]));
    // Not silent: the report says how many, why and what to do.
    check_overflow_report(r, std::string(name(a)) + "'s fp32 sum of p V before the division by l overflows",
                          "scale V down by N_kv");
    CHECK_THAT(r.num.overflow_cause, Catch::Contains("over up to " + std::to_string(w.n_keys()) + " keys"));
    CHECK_THAT(r.num.overflow_fix, Catch::Contains("--algo naive"));
  }
}

TEST_CASE("Q and K near the largest fp16 value: scores of 1e10 stay finite in fp32", "[hostile][numerics]") {
  // |q . k| / sqrt(d) up to 65504^2 * 4 = 1.7e10: far inside fp32, so the
  // tiled algorithms, which keep S in fp32 registers, match the reference.
  Workload w{1, 1, 40, 16, DType::fp16};
  w.causal = true;
  Inputs in = random_inputs(w, 1.0f, 1.0f);
  for (float& x : in.q) x = x > 0 ? 65504.0f : -65504.0f;
  for (float& x : in.k) x = x > 0 ? 60000.0f : -60000.0f;
  for (Algo a : {Algo::flash1, Algo::flash2, Algo::decode}) {
    CAPTURE(name(a));
    const Outcome r = run(a, w, in);
    const std::string bad = mismatch(r, bound(a, w, r));
    INFO(bad);
    CHECK(bad.empty());
  }
  // Standard attention stores S in fp16, as a GPU's naive kernel does: a
  // score beyond 65504 becomes +-Inf there, and a row holding +Inf is NaN
  // after the softmax (exp(Inf - Inf)), where the reference stays finite.
  const Outcome naive = run(Algo::naive, w, in);
  bool some_nan = false;
  for (float x : naive.o) some_nan = some_nan || std::isnan(x);
  CHECK(some_nan);
  check_overflow_report(naive, "past fp16's 65504 in naive's stored S", "use --dtype bf16 or fp32");
  CHECK_THAT(naive.num.overflow_fix, Catch::Contains("--algo flash2"));
  // The score the report names is one the stored inputs give, past 65504.
  const std::string reach = "scores reach ";
  const std::size_t from = naive.num.overflow_cause.find(reach);
  REQUIRE(from != std::string::npos);
  const double named = std::stod(naive.num.overflow_cause.substr(from + reach.size()));
  CHECK(named > 65504);
  CHECK(named <= naive.smax * 1.01);  // printed to 3 digits
  // The same inputs in bf16 (S stored in bf16, up to 3.4e38) give no overflow.
  w.dtype = DType::bf16;
  CHECK(run(Algo::naive, w, in).num.overflowed == 0);
}

TEST_CASE("bf16 Q and K up to 2^60: scores near 1e37 stay finite, beyond fp32 they cannot", "[hostile][numerics]") {
  Workload w{1, 1, 40, 16, DType::bf16};
  w.causal = true;
  Inputs in = random_inputs(w, 1.0f, 1.0f);
  for (float& x : in.q) x = std::ldexp(x > 0 ? 1.0f : -1.0f, 60);
  for (float& x : in.k) x = std::ldexp(x > 0 ? 1.0f : -1.0f, 60);
  for (Algo a : kAlgos) {
    CAPTURE(name(a));
    const Outcome r = run(a, w, in);
    REQUIRE(r.smax > 1e36);
    const std::string bad = mismatch(r, bound(a, w, r));
    INFO(bad);
    CHECK(bad.empty());
  }
  // Products past the fp32 range (3.4e38) overflow in the fp32 score, as on
  // tensor cores: a row whose largest score is +Inf is NaN (exp(Inf - Inf)),
  // while the fp64 reference is finite.
  for (float& x : in.q) x = std::ldexp(x > 0 ? 1.0f : -1.0f, 100);
  const Outcome r = run(Algo::flash2, w, in);
  std::size_t nan_rows = 0;
  for (std::int64_t i = 0; i < w.N; ++i) nan_rows += std::isnan(r.o[at(w, 0, i, 0)]) ? 1 : 0;
  CHECK(nan_rows > 0);
  for (double x : r.ref) CHECK(std::isfinite(x));
  // Every algorithm sums the score in fp32 and says so.
  for (Algo a : kAlgos) {
    CAPTURE(name(a));
    check_overflow_report(run(a, w, in), "scores overflow fp32", "scale Q or K down");
  }
}
