// What the standalone probes in this folder share: CK, which stops the
// probe on a CUDA error and names it and the line, and smid(), the SM a
// thread runs on. A probe includes it from its own folder
// (#include "probe_common.cuh"), so `nvcc probe.cu` still builds it alone.
#pragma once

#include <cuda_runtime.h>

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
