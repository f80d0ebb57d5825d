// Helpers of the CUDA tests: the skip without a GPU, and the fp64 reference
// (O, L = log-sum-exp per row, largest score) of inputs the GPU ran on, plain
// or causal.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "fasim/cuda/runner.hpp"
#include "fasim/hbm.hpp"

/// Skips the rest of a test, visibly, when no GPU can run the kernels.
#define FASIM_REQUIRE_GPU()                                          \
  if (const auto why_ = fasim::cuda::gpu_unavailable()) {            \
    WARN("skipped: " << *why_);                                      \
    return;                                                          \
  }

namespace fasim::test {

/// The fp64 reference of every head, from the same (rounded) inputs.
struct Reference {
  std::vector<double> o;    ///< (bh, N, d)
  std::vector<double> lse;  ///< (bh, N): max_j s_ij + log sum_j exp(s_ij - max)
  double max_abs_o = 0;     ///< max |O_ref|
  double max_abs_v = 0;     ///< max |V|
  double max_score = 0;     ///< max |scale q . k| over all heads
};

inline HbmTensor as_tensor(const Workload& w, const std::vector<float>& x) {
  return HbmTensor{w.bh(), w.N, w.d, w.dtype, x};
}

inline Reference reference(const Workload& w, const cuda::Inputs& in) {
  // Row i of head h takes keys 0 .. key_hi(i): all of them, or j <= i when causal (N_kv = N).
  Reference ref;
  const HbmTensor q = as_tensor(w, in.q), k = as_tensor(w, in.k), v = as_tensor(w, in.v);
  std::vector<double> s(static_cast<std::size_t>(w.N)), o(static_cast<std::size_t>(w.d));
  for (std::int64_t h = 0; h < w.bh(); ++h) {
    for (std::int64_t i = 0; i < w.N; ++i) {
      const std::int64_t keys = w.key_hi(i) + 1;
      double mx = -INFINITY;
      for (std::int64_t j = 0; j < keys; ++j) {
        double acc = 0;
        for (std::int64_t c = 0; c < w.d; ++c)
          acc += static_cast<double>(q.values[q.offset(h, i, c)]) * k.values[k.offset(h, j, c)];
        s[j] = acc * w.scale();
        ref.max_score = std::max(ref.max_score, std::abs(s[j]));
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      std::fill(o.begin(), o.end(), 0.0);
      for (std::int64_t j = 0; j < keys; ++j) {
        const double p = std::exp(s[j] - mx);
        sum += p;
        for (std::int64_t c = 0; c < w.d; ++c) o[c] += p * v.values[v.offset(h, j, c)];
      }
      for (double x : o) ref.o.push_back(x / sum);
      ref.lse.push_back(mx + std::log(sum));
    }
  }
  for (double x : ref.o) ref.max_abs_o = std::max(ref.max_abs_o, std::abs(x));
  for (float x : in.v) ref.max_abs_v = std::max(ref.max_abs_v, static_cast<double>(std::abs(x)));
  return ref;
}

/// max |got - want|; NaN counts as infinite (O is poisoned before a run).
inline double max_abs_error(const std::vector<float>& got, const std::vector<double>& want) {
  double err = got.size() == want.size() ? 0 : INFINITY;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const double e = std::abs(static_cast<double>(got[i]) - want[i]);
    err = std::isnan(e) ? INFINITY : std::max(err, e);
  }
  return err;
}

/// Unit roundoff of the storage type.
inline double unit_roundoff(DType t) {
  switch (t) {
    case DType::fp32: return std::ldexp(1.0, -24);
    case DType::fp16: return std::ldexp(1.0, -11);
    case DType::bf16: return std::ldexp(1.0, -8);
  }
  return 0;
}

}  // namespace fasim::test
