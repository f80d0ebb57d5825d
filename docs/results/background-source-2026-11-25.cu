// Probe: where do the GPU's own DRAM writes come from? (background-source-2026-11-25.md)
// A kernel that touches no memory: one warp per SM waits on %globaltimer for
// the given milliseconds. Profiled by ncu with the L2 source-unit breakdowns,
// so the writes a range counts can be put on the unit that caused them.
// Build: nvcc -O2 -arch=sm_90 -o background_probe background-source-2026-11-25.cu
// Usage: background_probe MS [copy_MiB]  (copy_MiB > 0: a copy of that size first)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void idle(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}

__global__ void copy(const float4* s, float4* d, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) d[i] = s[i];
}

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: background_probe MS [copy_MiB]\n"); return 2; }
  const double ms = std::atof(argv[1]);
  const size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (mib > 0) {
    float4 *s = nullptr, *d = nullptr;
    const size_t n = (mib << 20) / sizeof(float4);
    cudaMalloc(&s, n * sizeof(float4));
    cudaMalloc(&d, n * sizeof(float4));
    cudaMemset(s, 1, n * sizeof(float4));
    copy<<<2 * sms, 512>>>(s, d, n);
  }
  idle<<<sms, 32>>>(static_cast<unsigned long long>(ms * 1e6));
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
  return 0;
}
