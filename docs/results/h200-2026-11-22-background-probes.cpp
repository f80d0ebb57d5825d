// The two hidden probe tests behind h200-2026-11-22-background-probes.txt, kept for
// reproduction: copy into tests/cuda/, build fasim_cuda_tests, run it with "[.probe]".
// They print and assert nothing; the committed test "DRAM writes an idle range counts
// grow with its time; dirty lines stay in L2" (test_hw_counters.cpp) asserts the finding.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#include "cuda_support.hpp"
#include "fasim/cuda/gpu_timer.hpp"
#include "fasim/cuda/hw_counters.hpp"
using namespace fasim;
namespace {
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { REQUIRE(cudaMalloc(&p, n) == cudaSuccess); }
  ~DeviceBuffer() { cudaFree(p); }
};
}  // namespace
TEST_CASE("probe: rewrites", "[.probe]") {
  FASIM_REQUIRE_GPU();
  const std::size_t big = 32u << 20;
  void *src = nullptr, *dst = nullptr;
  REQUIRE(cudaMalloc(&src, big) == cudaSuccess);
  REQUIRE(cudaMalloc(&dst, big) == cudaSuccess);
  REQUIRE(cudaMemset(src, 1, big) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto report = [](const char* what, double x, double rewritten, const std::function<void()>& launch) {
    std::vector<double> w;
    double secs = 0;
    for (int r = 0; r < 3; ++r) {
      const cuda::HwCounters h = cuda::profile_range(launch);
      w.push_back(h.dram_write_bytes);
      secs = h.range_seconds;
    }
    std::sort(w.begin(), w.end());
    std::printf("%-22s %8.3f  range %8.3f ms  DRAM written %.3f MiB [%.3f %.3f]  = %.3f%% of rewritten bytes\n", what, x,
                secs * 1e3, w[1] / (1 << 20), w[0] / (1 << 20), w[2] / (1 << 20), 100 * w[1] / rewritten);
  };
  const double MiB = 1 << 20;
  for (int mib : {2, 4, 8, 16, 24}) {
    const std::size_t n = std::size_t(mib) << 20;
    const int reps = 1600 / mib;
    report("copy_rewrite_MiB", mib, (reps - 1) * n, [&] { for (int i = 0; i < reps; ++i) cuda::copy_bytes(dst, src, n); });
  }
  for (int mib : {4, 16}) {
    const std::size_t n = std::size_t(mib) << 20;
    const int reps = 1600 / mib;
    report("memset_rewrite_MiB", mib, (reps - 1) * n, [&] { for (int i = 0; i < reps; ++i) cudaMemsetAsync(dst, i & 0xff, n); });
  }
  for (double gap_ms : {0.01, 0.1, 1.0}) {
    const std::size_t n = 16u << 20;
    report("copy16_gap_ms", gap_ms, 29 * double(n), [&] { for (int i = 0; i < 30; ++i) { cuda::copy_bytes(dst, src, n); cuda::idle_for(gap_ms * 1e-3); } });
  }
  report("copy16_x30_nogap", 0, 29 * double(16u << 20), [&] { for (int i = 0; i < 30; ++i) cuda::copy_bytes(dst, src, 16u << 20); });
  cudaFree(src);
  cudaFree(dst);
  (void)MiB;
}

// PROBE (hidden): DRAM writes in a range against the range's length, with
// nothing dirty, with 16 MiB left dirty, and with 16 MiB rewritten many times.
TEST_CASE("probe: DRAM writes against time", "[.probe]") {
  FASIM_REQUIRE_GPU();
  const std::size_t n = 16u << 20;
  DeviceBuffer src(n), dst(n);
  REQUIRE(cudaMemset(src.p, 1, n) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto report = [](const char* what, double x, const std::function<void()>& launch) {
    std::vector<double> w;
    double secs = 0;
    for (int r = 0; r < 5; ++r) {
      const cuda::HwCounters h = cuda::profile_range(launch);
      w.push_back(h.dram_write_bytes / (1 << 20));
      secs = h.range_seconds;
    }
    std::sort(w.begin(), w.end());
    std::printf("%-14s %8.3f  range %8.3f ms  DRAM written MiB: median %.3f  [%.3f %.3f %.3f %.3f %.3f]\n", what, x,
                secs * 1e3, w[2], w[0], w[1], w[2], w[3], w[4]);
  };
  for (double ms : {0.1, 1.0, 10.0, 30.0, 100.0, 300.0})
    report("idle_ms", ms, [&] { cuda::idle_for(ms * 1e-3); });
  for (double ms : {0.0, 1.0, 10.0, 30.0, 100.0, 300.0})
    report("dirty16_idle_ms", ms, [&] {
      cuda::copy_bytes(dst.p, src.p, n);
      if (ms > 0) cuda::idle_for(ms * 1e-3);
    });
  for (int reps : {1, 10, 100, 1000, 4000})
    report("rewrite16_reps", reps, [&] {
      for (int i = 0; i < reps; ++i) cuda::copy_bytes(dst.p, src.p, n);
    });

}
