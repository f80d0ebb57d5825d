// flash1 drift probe (2026-12-01): do the blocks of fasim's flash1 kernel
// stay together over the key blocks on the GPU, or drift apart as fasim's
// schedule has them? With the line-level L2 fasim's flash1 fp16 (132
// heads, N = 512, d = 128, 64 x 64 tiles) starts its last key block 142 us
// apart (a key block: 625 us), and the L2 meets the tiles in that order;
// the flash1-pattern probe with flash1's 80 us a step kept its blocks
// within 28 us. This records flash1 itself.
// It builds fasim's real kernel (cuda/src/flash1.cu) with
// flash1-drift-experiment-2026-12-01.patch applied, which makes the kernel
// write its SM and %globaltimer at the start of each key block and at its
// end when Params::block_clock is set.
// Build (repository root, patch applied):
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I cuda/src -I docs/results \
//        -o f1drift docs/results/flash1-drift-probe-2026-12-01.cu
// Run:   ./f1drift fp16|fp32 N d heads br bc REPS
// Output: per rep, a PASS line per key block (the spread of the blocks'
// start times: max - min, and the standard deviation, us; the mean time
// from its start to the next), an END line (the spread of the blocks' ends,
// the kernel's time), and BLOCK lines (block, SM, start of each key block
// and end, us from the first start).
#include "flash1.cu"

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "probe_common.cuh"

namespace k = fasim::cuda::kernels;

int main(int argc, char** argv) {
  if (argc != 8) {
    std::printf("usage: f1drift fp16|fp32 N d heads br bc REPS\n");
    return 2;
  }
  const bool half = std::string(argv[1]) == "fp16";
  const int n = std::atoi(argv[2]), d = std::atoi(argv[3]), heads = std::atoi(argv[4]), reps = std::atoi(argv[7]);
  k::Params p;
  p.bh = heads, p.n = n, p.d = d, p.br = std::atoi(argv[5]), p.bc = std::atoi(argv[6]);
  p.scale = 1.0f / std::sqrt(static_cast<float>(d));
  p.storage = half ? k::kFp16 : k::kFp32;
  const int passes = (n + p.bc - 1) / p.bc;
  if (passes > 128) {
    std::printf("at most 128 key blocks\n");
    return 2;
  }
  const std::size_t elems = static_cast<std::size_t>(heads) * n * d, esize = half ? 2 : 4;
  std::vector<float> host(elems);
  std::vector<__half> host16(elems);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::size_t i = 0; i < elems; ++i) host[i] = normal(rng), host16[i] = __float2half(host[i]);
  void *q, *kk, *v, *o;
  for (void** b : {&q, &kk, &v, &o}) {
    CK(cudaMalloc(b, elems * esize));
    CK(cudaMemcpy(*b, half ? static_cast<const void*>(host16.data()) : host.data(), elems * esize,
                  cudaMemcpyHostToDevice));
  }
  float *m, *l;
  CK(cudaMalloc(&m, static_cast<std::size_t>(heads) * n * sizeof(float)));
  CK(cudaMalloc(&l, static_cast<std::size_t>(heads) * n * sizeof(float)));
  p.q = q, p.k = kk, p.v = v, p.o = o, p.m = m, p.l = l;
  unsigned long long* clk;
  CK(cudaMalloc(&clk, 130 * sizeof(unsigned long long) * heads));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const std::size_t words = 2 * static_cast<std::size_t>(l2) / sizeof(uint4);
  uint4* flush;
  CK(cudaMalloc(&flush, words * sizeof(uint4)));
  CK(cudaFuncSetAttribute(k::flash1_kernel<__half>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(k::shared_bytes_flash1(p))));
  CK(cudaFuncSetAttribute(k::flash1_kernel<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(k::shared_bytes_flash1(p))));
  for (int w = 0; w < 2; ++w) CK(k::launch_flash1(p, nullptr));  // warm-up, no clock
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> c(130 * static_cast<std::size_t>(heads));
  std::printf("SHAPE %s n=%d d=%d heads=%d br=%d bc=%d passes=%d\n", argv[1], n, d, heads, p.br, p.bc, passes);
  for (int rep = 0; rep < reps; ++rep) {
    flush_by_writing_k<<<1024, 256>>>(flush, words);
    CK(cudaDeviceSynchronize());
    p.block_clock = clk;
    CK(k::launch_flash1(p, nullptr));
    CK(cudaDeviceSynchronize());
    p.block_clock = nullptr;
    CK(cudaMemcpy(c.data(), clk, c.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    auto at = [&](int b, int slot) { return c[130 * static_cast<std::size_t>(b) + slot]; };
    unsigned long long t0 = ~0ull, t1 = 0;
    for (int b = 0; b < heads; ++b) t0 = std::min(t0, at(b, 1)), t1 = std::max(t1, at(b, 129));
    for (int j = 0; j < passes; ++j) {
      double lo = 1e30, hi = 0, sum = 0, sq = 0, dur = 0;
      for (int b = 0; b < heads; ++b) {
        const double s = static_cast<double>(at(b, 1 + j) - t0) / 1e3;
        lo = std::min(lo, s), hi = std::max(hi, s), sum += s, sq += s * s;
        dur += static_cast<double>((j + 1 < passes ? at(b, 2 + j) : at(b, 129)) - at(b, 1 + j)) / 1e3;
      }
      const double mean = sum / heads;
      std::printf("PASS rep=%d j=%d spread_us=%.1f sd_us=%.1f mean_pass_us=%.1f\n", rep, j, hi - lo,
                  std::sqrt(std::max(0.0, sq / heads - mean * mean)), dur / heads);
    }
    double lo = 1e30, hi = 0;
    for (int b = 0; b < heads; ++b) {
      const double e = static_cast<double>(at(b, 129) - t0) / 1e3;
      lo = std::min(lo, e), hi = std::max(hi, e);
    }
    std::printf("END rep=%d spread_us=%.1f kernel_us=%.1f\n", rep, hi - lo, static_cast<double>(t1 - t0) / 1e3);
    for (int b = 0; b < heads; ++b) {
      std::printf("BLOCK rep=%d block=%d sm=%llu", rep, b, at(b, 0));
      for (int j = 0; j < passes; ++j) std::printf(" %.1f", static_cast<double>(at(b, 1 + j) - t0) / 1e3);
      std::printf(" end %.1f\n", static_cast<double>(at(b, 129) - t0) / 1e3);
    }
  }
  return 0;
}
