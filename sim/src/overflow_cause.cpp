#include "overflow_cause.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "fasim/paged_kv.hpp"

namespace fasim {

namespace {

constexpr double kFp32Max = std::numeric_limits<float>::max();

std::string g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// The largest finite value of each storage type, as the messages write it.
const char* largest(DType t) {
  switch (t) {
    case DType::fp16: return "65504";
    case DType::bf16: return "3.39e+38";
    case DType::fp32: break;
  }
  return "3.4e+38";
}

// The largest finite values the inputs give to each limit.
struct Peaks {
  double products = 0;  // sum_c |q_c k_c| of a score a row sees: bounds every fp32 partial sum
  double score = 0;     // |scale q . k| of a score a row sees
  double v_sum = 0;     // sum_j |V_jc| over the keys of one K/V head and column: bounds sum_j p_j V_jc
  double v_max = 0;     // max |V|
};

Peaks peaks(const Hbm& hbm, const Workload& w) {
  Peaks p;
  const HbmTensor& q = hbm.at(TensorId::Q);
  const HbmTensor& k = hbm.at(TensorId::K);
  const HbmTensor& v = hbm.at(TensorId::V);
  auto keep = [](double& peak, double x) {
    if (std::isfinite(x)) peak = std::max(peak, x);
  };
  for (std::int64_t h = 0; h < w.bh(); ++h)
    for (std::int64_t i = 0; i < w.N; ++i)
      for (std::int64_t j = std::max<std::int64_t>(w.key_lo(i), 0); j <= w.key_hi(i); ++j) {
        const auto qi = static_cast<std::size_t>(q.offset(h, i, 0));
        const auto kj = static_cast<std::size_t>(kv_offset(w, hbm, TensorId::K, w.kv_head_of(h), j, 0));
        double s = 0, a = 0;
        for (std::size_t c = 0; c < static_cast<std::size_t>(w.d); ++c) {
          const double x = static_cast<double>(q.values[qi + c]) * k.values[kj + c];
          s += x;
          a += std::abs(x);
        }
        keep(p.products, a);
        keep(p.score, std::abs(s * w.scale()));
      }
  for (std::int64_t h = 0; h < w.bh_kv(); ++h)
    for (std::int64_t c = 0; c < w.d; ++c) {
      double sum = 0;
      for (std::int64_t j = 0; j < w.n_keys(); ++j) {
        const double x = std::abs(v.values[static_cast<std::size_t>(kv_offset(w, hbm, TensorId::V, h, j, c))]);
        if (std::isfinite(x)) sum += x, keep(p.v_max, x);
      }
      keep(p.v_sum, sum);
    }
  return p;
}

}  // namespace

OverflowCause overflow_cause(const Hbm& hbm, const Workload& w, Algo algo) {
  const Peaks p = peaks(hbm, w);
  if (p.products > kFp32Max)
    return {"scores overflow fp32: sum |q_c k_c| reaches " + g(p.products) +
                ", past fp32's 3.4e+38 (Q K^T is summed in fp32, as on tensor cores), and a row with an Inf or "
                "NaN score is NaN",
            "scale Q or K down (e.g. normalise them): no fp32 accumulator holds these scores"};
  const std::string dtype(name(w.dtype));  // storage type of naive's S
  if (algo == Algo::naive && std::isinf(round_to(w.dtype, static_cast<float>(p.score))))
    return {"scores reach " + g(p.score) + ", past " + dtype + "'s " + largest(w.dtype) +
                " in naive's stored S: they become Inf, and their rows NaN after the softmax",
            std::string(w.dtype == DType::fp16 ? "use --dtype bf16 or fp32, or" : "use") +
                " --algo flash2, which keeps S in fp32 registers"};
  if (algo != Algo::naive && p.v_sum > kFp32Max)
    return {std::string(name(algo)) + "'s fp32 sum of p V before the division by l overflows: |V| up to " +
                g(p.v_max) + ", over up to " + std::to_string(w.n_keys()) + " keys, passes fp32's 3.4e+38",
            "scale V down by N_kv (O scales with it), or use --algo naive, which multiplies by the normalised P"};
  return {"no limit fasim knows explains it", "this is a fasim bug: please report the command line"};
}

}  // namespace fasim
