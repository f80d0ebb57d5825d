// Device helpers shared by the kernels: storage-type conversions, the byte
// counters, tile copies between HBM (global memory) and shared memory, and
// warp reductions. A tile copy moves only the real rows and columns of a
// ragged tile and counts them once, as the simulator's Block::load/store do.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels.hpp"
#include "occupancy.cuh"

namespace fasim::cuda::kernels {

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

// fp32 <-> storage type, rounding to nearest even (as fasim::round_to).
template <class T> __device__ inline float to_float(T x);
template <> __device__ inline float to_float<float>(float x) { return x; }
template <> __device__ inline float to_float<__half>(__half x) { return __half2float(x); }
template <> __device__ inline float to_float<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T> __device__ inline T from_float(float x);
template <> __device__ inline float from_float<float>(float x) { return x; }
template <> __device__ inline __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

/// Rounds x to the storage type and back (what a tensor core sees of x).
template <class T> __device__ inline float round_to(float x) { return to_float<T>(from_float<T>(x)); }

/// Counts one tile: thread 0 of the block adds its bytes. Call it with the
/// tile's real rows and columns, once per tile the block moves.
__device__ inline void tally(unsigned long long* counters, int tensor, int dir, long long rows,
                             long long cols, long long elem_bytes) {
  if (counters != nullptr && threadIdx.x == 0)
    atomicAdd(&counters[2 * tensor + dir], static_cast<unsigned long long>(rows * cols * elem_bytes));
}

/// One global load that skips L1 (ld.global.cg): every tile is read once per
/// block, so L1 could only hide repeated reads from the L2 counters. Going to
/// L2 every time keeps the L2 requests equal to the tile's sectors.
template <class T> __device__ inline T load_l2(const T* p) { return __ldcg(p); }

/// HBM -> shared fp32: rows x cols of a row-major matrix with leading dimension
/// ld into dst with row stride dst_ld (all threads take part).
template <class T>
__device__ void load_tile(float* dst, int dst_ld, const T* src, long long ld, int rows, int cols,
                          unsigned long long* counters, int tensor) {
  for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x) {
    const int r = idx / cols, c = idx % cols;
    dst[r * dst_ld + c] = to_float<T>(load_l2(src + r * ld + c));
  }
  tally(counters, tensor, kRead, rows, cols, sizeof(T));
}

/// HBM -> shared, no conversion (the naive softmax keeps S in its storage type).
template <class T>
__device__ void load_tile_raw(T* dst, int dst_ld, const T* src, long long ld, int rows, int cols,
                              unsigned long long* counters, int tensor) {
  for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x) {
    const int r = idx / cols, c = idx % cols;
    dst[r * dst_ld + c] = load_l2(src + r * ld + c);
  }
  tally(counters, tensor, kRead, rows, cols, sizeof(T));
}

/// Loads a column of fp32 statistics (m or l) for rows rows.
__device__ inline void load_stats(float* dst, const float* src, int rows,
                                  unsigned long long* counters, int tensor) {
  for (int r = threadIdx.x; r < rows; r += blockDim.x) dst[r] = load_l2(src + r);
  tally(counters, tensor, kRead, rows, 1, sizeof(float));
}

/// Stores a column of fp32 statistics (m, l or L).
__device__ inline void store_stats(float* dst, const float* src, int rows,
                                   unsigned long long* counters, int tensor) {
  for (int r = threadIdx.x; r < rows; r += blockDim.x) dst[r] = src[r];
  tally(counters, tensor, kWrite, rows, 1, sizeof(float));
}

__device__ inline float warp_max(float x) {
  for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}

__device__ inline float warp_sum(float x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

/// S = scale * Q K^T for one tile pair: q (rows, d) with stride d, k (cols, d)
/// with stride k_ld, s (rows, cols) with stride s_ld. Each thread computes
/// elements tid, tid + blockDim.x, ... of the tile.
__device__ inline void scores(float* s, int s_ld, const float* q, const float* k, int k_ld,
                              int rows, int cols, int d, float scale) {
  for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x) {
    const int r = idx / cols, c = idx % cols;
    float acc = 0;
    for (int x = 0; x < d; ++x) acc = fmaf(q[r * d + x], k[c * k_ld + x], acc);
    s[r * s_ld + c] = acc * scale;
  }
}

/// The output tile (Br, d) spread over a block's registers: thread t holds the
/// elements t + e * kThreads (row-major flat index), e < kOutPerThread.
struct OutTile {
  float v[kOutPerThread];  // (Br, d) / kThreads per thread

  __device__ void zero() {
#pragma unroll
    for (int e = 0; e < kOutPerThread; ++e) v[e] = 0;
  }

  /// v = a[r] * v + c[r] * (P V)[r, :] for the real rows; P (rows, cols) with
  /// stride p_ld, V (cols, d). a == nullptr means 1, c == nullptr means 1.
  __device__ void update(const float* a, const float* c, const float* p, int p_ld,
                         const float* vt, int rows, int cols, int d) {
#pragma unroll
    for (int e = 0; e < kOutPerThread; ++e) {
      const int idx = threadIdx.x + e * kThreads;
      if (idx < rows * d) {
        const int r = idx / d, col = idx % d;
        float acc = 0;
        for (int x = 0; x < cols; ++x) acc = fmaf(p[r * p_ld + x], vt[x * d + col], acc);
        v[e] = (a ? a[r] : 1.0f) * v[e] + (c ? c[r] : 1.0f) * acc;
      }
    }
  }

  /// HBM -> registers (flash1 reads O_i back), counted as one tile.
  template <class T>
  __device__ void load(const T* src, int rows, int d, unsigned long long* counters) {
#pragma unroll
    for (int e = 0; e < kOutPerThread; ++e) {
      const int idx = threadIdx.x + e * kThreads;
      if (idx < rows * d) v[e] = to_float<T>(load_l2(src + idx));
    }
    tally(counters, kO, kRead, rows, d, sizeof(T));
  }

  /// registers -> HBM, each row divided by div[r] (nullptr: by 1), one tile.
  template <class T>
  __device__ void store(T* dst, const float* div, int rows, int d, unsigned long long* counters) const {
#pragma unroll
    for (int e = 0; e < kOutPerThread; ++e) {
      const int idx = threadIdx.x + e * kThreads;
      if (idx < rows * d) dst[idx] = from_float<T>(div ? v[e] / div[idx / d] : v[e]);
    }
    tally(counters, kO, kWrite, rows, d, sizeof(T));
  }
};

/// Dispatches a template on the storage type.
#define FASIM_BY_STORAGE(storage, T, ...)                       \
  switch (storage) {                                            \
    case kFp16: { using T = __half; __VA_ARGS__; } break;        \
    case kBf16: { using T = __nv_bfloat16; __VA_ARGS__; } break; \
    default: { using T = float; __VA_ARGS__; } break;            \
  }

/// Launch helper: pads the shared memory to keep p.blocks_per_sm
/// (occupancy.cuh), raises the kernel's dynamic shared-memory limit, logs its
/// occupancy if asked, launches, and returns the launch error.
template <class Kernel>
cudaError_t launch(Kernel kernel, int grid, int threads, std::size_t smem, cudaStream_t stream,
                   const Params& p) {
  smem = shared_for_cap(smem, p.blocks_per_sm);
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem));
  if (e == cudaSuccess) e = log_occupancy(kernel, threads, smem, p.occupancy);
  if (e != cudaSuccess) return e;
  kernel<<<grid, threads, smem, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace fasim::cuda::kernels
