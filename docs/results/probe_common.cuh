// What the standalone probes in this folder share: CK, which stops the
// probe on a CUDA error and names it and the line, smid(), the SM a thread
// runs on, and flush_by_writing_k, which empties the L2 of the probe's data. A probe includes it from its own folder
// (#include "probe_common.cuh"), so `nvcc probe.cu` still builds it alone.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                \
  do {                                                                       \
    cudaError_t e = (x);                                                     \
    if (e != cudaSuccess) {                                                  \
      std::printf("CUDA %s at line %d\n", cudaGetErrorString(e), __LINE__);  \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

/// The SM this thread runs on.
__device__ inline unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

/// Writes `words` uint4 of `buf`, a buffer twice the L2: afterwards nothing
/// the probe read or wrote before is in L2 (the L2 holds `buf`, dirty).
__global__ void flush_by_writing_k(uint4* buf, std::size_t words) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x)
    buf[i] = make_uint4(static_cast<unsigned>(i), 0, 0, 0);
}
