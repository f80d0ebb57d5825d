// Code-fetch probe (2026-11-29): does a kernel's first launch after an L2
// flush read its own instructions from DRAM? Four kernels move the same data
// (each of 132 x 128 threads reads one float of a 64 KiB buffer and writes
// one float) and differ only in how many instructions they run: a chain of
// U dependent FMAs, unrolled, so U x 16 bytes of SASS. Run under ncu with
// --cache-control all (L2 flushed before every kernel) and compare
// dram__bytes_read with the kernels' .text sizes (code-fetch-2026-11-29.sh).
#include <cstdio>
#include <cuda_runtime.h>

template <int U>
__global__ void chain(const float* __restrict__ in, float* __restrict__ out, float c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = in[i];
#pragma unroll
  for (int k = 0; k < U; ++k) acc = fmaf(acc, c, static_cast<float>(k));
  out[i] = acc;
}

int main() {
  const int blocks = 132, threads = 128, n = blocks * threads;  // 64 KiB of floats
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) return 1;
  cudaMemset(in, 0, n * sizeof(float));
  for (int rep = 0; rep < 3; ++rep) {
    chain<1><<<blocks, threads>>>(in, out, 1.0001f);
    chain<4096><<<blocks, threads>>>(in, out, 1.0001f);
    chain<16384><<<blocks, threads>>>(in, out, 1.0001f);
    chain<8192><<<blocks, threads>>>(in, out, 1.0001f);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("PROBE code-fetch done: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
