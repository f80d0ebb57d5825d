// Block-times probe: when does every thread block of fasim's flash2 fp32
// kernel start and end on the GPU, and on which SM? The simulator's cuda-simt
// schedule ends the second wave's blocks of flash2 fp32 (N = 2048, d = 128,
// 16 heads) up to 0.2 ms apart and writes back 4.79 MiB of O; timed as the
// algorithm (ideal) they end within 2.5 us and it writes back 3.47 MiB; the
// GPU wrote 3.40 (docs/timing-model.md). This records the GPU's own timeline.
// It builds fasim's real kernel (cuda/src/flash2.cu) with
// block-times-experiment-2026-11-23.patch applied, which makes the kernel write
// its SM and %globaltimer at start and end when Params::block_clock is set.
// Build (repository root, patch applied):
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I cuda/src -o blocktimes docs/results/block-times-probe-2026-11-23.cu
// Run:   ./blocktimes N d heads br bc   (fp32; BLOCK lines: rep, block, SM, start and end in ns from the first start)
#include "flash2.cu"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "probe_common.cuh"

namespace k = fasim::cuda::kernels;

int main(int argc, char** argv) {
  if (argc != 6) {
    std::printf("usage: blocktimes N d heads br bc\n");
    return 2;
  }
  const int n = std::atoi(argv[1]), d = std::atoi(argv[2]), heads = std::atoi(argv[3]);
  k::Params p;
  p.bh = heads, p.n = n, p.d = d, p.br = std::atoi(argv[4]), p.bc = std::atoi(argv[5]);
  p.scale = 1.0f / std::sqrt(static_cast<float>(d));
  p.storage = k::kFp32;
  const std::size_t elems = static_cast<std::size_t>(heads) * n * d;
  std::vector<float> host(elems);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& x : host) x = normal(rng);
  float *q, *kk, *v, *o, *lse;
  for (float** b : {&q, &kk, &v, &o}) {
    CK(cudaMalloc(b, elems * sizeof(float)));
    CK(cudaMemcpy(*b, host.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
  }
  CK(cudaMalloc(&lse, static_cast<std::size_t>(heads) * n * sizeof(float)));
  p.q = q, p.k = kk, p.v = v, p.o = o, p.lse = lse;
  const int grid = heads * ((n + p.br - 1) / p.br);
  unsigned long long* clk;
  CK(cudaMalloc(&clk, 3 * sizeof(unsigned long long) * grid));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const std::size_t words = 2 * static_cast<std::size_t>(l2) / sizeof(uint4);
  uint4* flush;
  CK(cudaMalloc(&flush, words * sizeof(uint4)));
  for (int w = 0; w < 2; ++w) CK(k::launch_flash2(p, nullptr));  // warm-up, no clock
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> c(3 * static_cast<std::size_t>(grid));
  std::printf("SHAPE n=%d d=%d heads=%d br=%d bc=%d grid=%d smem=%zu\n", n, d, heads, p.br, p.bc, grid,
              k::shared_bytes_flash2(p));
  for (int rep = 0; rep < 3; ++rep) {
    flush_by_writing_k<<<1024, 256>>>(flush, words);
    CK(cudaDeviceSynchronize());
    p.block_clock = clk;
    CK(k::launch_flash2(p, nullptr));
    CK(cudaDeviceSynchronize());
    p.block_clock = nullptr;
    CK(cudaMemcpy(c.data(), clk, c.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (int b = 0; b < grid; ++b) t0 = c[3 * b + 1] < t0 ? c[3 * b + 1] : t0;
    for (int b = 0; b < grid; ++b)
      std::printf("BLOCK rep=%d block=%d sm=%llu start=%llu end=%llu\n", rep, b, c[3 * b], c[3 * b + 1] - t0,
                  c[3 * b + 2] - t0);
  }
  return 0;
}
