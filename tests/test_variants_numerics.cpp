// Every variant (masks, GQA/MQA, N_kv != N, paged K/V) on every algorithm and
// dtype against the fp64 reference, and rows that see no key.
//
// The reference applies the same mask rule, reads K/V head h / (heads /
// kv_heads) through the block table, and gives 0 for a row that sees no key.
// Error bounds as in test_numerics.cpp, with u the storage type's unit
// roundoff and vmax = max |V|:
//   flash2, decode: P rounded before P V and O rounded once when stored
//                   (decode's partials are fp32): 2 u vmax;
//   flash1: O stored rounded after each of its <= Tc key blocks: (1 + Tc) u vmax;
//   naive:  S stored rounded, then P and O: (2 + 2 smax) u vmax, smax the
//           largest |score|;
// plus 1e-5 for fp32 arithmetic. fp32 storage: relative error < 1e-5.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "fasim/paged_kv.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

struct Variant {
  const char* what;
  std::int64_t heads, kv_heads, N, N_kv, window, page_size;
  bool causal;
};

const Variant kVariants[] = {
    {"causal", 2, 0, 70, 0, 0, 0, true},
    {"window 20", 2, 0, 70, 0, 20, 0, false},
    {"GQA, causal", 4, 2, 45, 0, 0, 0, true},
    {"MQA", 4, 1, 45, 0, 0, 0, false},
    {"prefill after a cache: N 40, N_kv 100, causal", 2, 0, 40, 100, 0, 0, true},
    {"empty rows: N 100, N_kv 40, causal", 2, 0, 100, 40, 0, 0, true},
    {"paged 16", 2, 0, 70, 0, 0, 16, false},
    {"GQA, N_kv 150, window 33, paged 12", 4, 2, 30, 150, 33, 12, true},
    {"decode-like: N 3, N_kv 200, MQA, causal, paged 8", 4, 1, 3, 200, 0, 8, true},
};

Workload workload(const Variant& v, DType t) {
  return Workload{.batch = 2, .heads = v.heads, .N = v.N, .d = 16, .dtype = t, .kv_heads = v.kv_heads,
                  .N_kv = v.N_kv, .causal = v.causal, .window = v.window, .page_size = v.page_size};
}

Mapping mapping(Algo a) { return Mapping{a, 32, 16, false, a == Algo::decode ? 3 : 0}; }

double unit_roundoff(DType t) {
  return t == DType::fp32 ? std::ldexp(1.0, -24) : t == DType::fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}

// Largest |scale q . k| over every query head's (query, key) pairs.
double max_score(const Simulation& sim) {
  const Workload& w = sim.workload();
  const Hbm& hbm = sim.hbm();
  const HbmTensor& q = hbm.at(TensorId::Q);
  const HbmTensor& k = hbm.at(TensorId::K);
  double best = 0;
  for (std::int64_t h = 0; h < w.bh(); ++h)
    for (std::int64_t i = 0; i < w.N; ++i)
      for (std::int64_t j = 0; j < w.n_keys(); ++j) {
        const std::int64_t ko = kv_offset(w, hbm, TensorId::K, w.kv_head_of(h), j, 0);
        double s = 0;
        for (std::int64_t c = 0; c < w.d; ++c)
          s += static_cast<double>(q.values[q.offset(h, i, c)]) * k.values[ko + c];
        best = std::max(best, std::abs(s * w.scale()));
      }
  return best;
}

}  // namespace

TEST_CASE("every variant, algorithm and dtype matches the fp64 reference", "[variants][numerics]") {
  const DeviceSpec dev = load_device("h100");
  for (const Variant& v : kVariants) {
    for (Algo a : {Algo::naive, Algo::flash1, Algo::flash2, Algo::decode}) {
      for (DType t : {DType::fp32, DType::fp16, DType::bf16}) {
        CAPTURE(v.what, name(a), name(t));
        Simulation sim(dev, workload(v, t), mapping(a), {.seed = 11});
        double vmax = 0;
        for (float x : sim.hbm().at(TensorId::V).values) vmax = std::max(vmax, static_cast<double>(std::abs(x)));
        const double smax = a == Algo::naive && t != DType::fp32 ? max_score(sim) : 0;
        sim.run();
        const NumericsResult r = sim.numerics();
        REQUIRE(std::isfinite(r.max_abs_error));  // no NaN anywhere, empty rows included
        CHECK(r.max_abs_reference > 0);
        if (t == DType::fp32) {
          CHECK(r.max_rel_error < 1e-5);
          continue;
        }
        const double u = unit_roundoff(t);
        const double Tc = std::ceil(static_cast<double>(sim.workload().n_keys()) / 16);
        const double bound = 1e-5 + (a == Algo::naive    ? (2 + 2 * smax) * u * vmax
                                     : a == Algo::flash1 ? (1 + Tc) * u * vmax
                                                         : 2 * u * vmax);
        CAPTURE(r.max_abs_error, bound);
        CHECK(r.max_abs_error <= bound);
      }
    }
  }
}

TEST_CASE("a row that sees no key gets O = 0 and L = -inf, not NaN", "[variants][numerics]") {
  // Causal with N = 100 queries and N_kv = 40 keys: query i sees keys
  // j <= i - 60, so rows 0..59 see none (as in FlashAttention).
  for (Algo a : {Algo::naive, Algo::flash1, Algo::flash2, Algo::decode}) {
    CAPTURE(name(a));
    Simulation sim(load_device("h100"), workload(kVariants[5], DType::fp32), mapping(a));
    sim.run();
    const HbmTensor& o = sim.hbm().at(TensorId::O);
    for (std::int64_t h = 0; h < sim.workload().bh(); ++h) {
      for (std::int64_t i = 0; i < 100; ++i) {
        const float x = o.values[o.offset(h, i, 0)];
        if (i < 60) CHECK(x == 0.0f);
        else CHECK(std::isfinite(x));
        if (sim.hbm().has(TensorId::L)) {
          const float L = sim.hbm().at(TensorId::L).values[h * 100 + i];
          if (i < 60) CHECK(L == -std::numeric_limits<float>::infinity());
          else CHECK(std::isfinite(L));
        }
      }
    }
  }
}

TEST_CASE("a window of 1 is the identity on V", "[variants][window]") {
  // W = 1: query i sees only key i, so softmax gives it weight 1 and O = V.
  Workload w{1, 1, 40, 8, DType::fp32};
  w.window = 1;
  for (Algo a : {Algo::naive, Algo::flash1, Algo::flash2, Algo::decode}) {
    CAPTURE(name(a));
    Simulation sim(load_device("h100"), w, mapping(a));
    sim.run();
    const auto& O = sim.hbm().at(TensorId::O).values;
    const auto& V = sim.hbm().at(TensorId::V).values;
    for (std::size_t x = 0; x < O.size(); ++x) CHECK(O[x] == Approx(V[x]).margin(1e-6));
  }
}

TEST_CASE("naive's two-pass softmax applies the mask too", "[variants][numerics][naive]") {
  // On the toy device (4 KiB of SRAM) Br = 8 rows of N_kv = 300 fp16 scores
  // (4,800 B) do not fit: pass 1 finds m and l of the masked rows online,
  // pass 2 reloads S. Rows 0..99 of N = 400 against N_kv = 300 see nothing.
  const DeviceSpec toy = load_device("toy");
  Workload w{1, 2, 400, 16, DType::fp16};
  w.N_kv = 300;
  w.window = 50;
  Simulation sim(toy, w, Mapping{Algo::naive, 8, 16});
  sim.run();
  CHECK(sim.ledger().hbm(TensorId::S).read_bytes == 2 * 2 * 400 * 300 * 2);  // S read twice
  const NumericsResult r = sim.numerics();
  REQUIRE(std::isfinite(r.max_abs_error));
  CHECK(r.max_rel_error < 1e-2);
}
