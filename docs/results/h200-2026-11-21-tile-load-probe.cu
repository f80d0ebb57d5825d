// How long does one element of a tile take to load, in the loop fasim's fp32
// teaching kernels (versions 1-3) load tiles with (cuda/src/tiles.cuh,
// load_tile_raw: each thread loads one element with ld.global.cg, stores it to
// shared memory, and moves on)? The recorded sweep measured the naive
// softmax kernel, which is little else, at 11x the simulator's time.
//
// Each block copies `chunks` tiles of 128 x 128 fp32 (64 KiB) into shared
// memory with that loop, with a __syncthreads() after each, as the kernels
// do. 128 blocks of 256 threads (the naive kernels' grid at N = 1024, 16
// heads): one block per SM. Three cases:
//   miss: every block reads its own 8 tiles; L2 flushed first (a 256 MiB
//         read), so nearly every element comes from DRAM;
//   hit:  every block reads the same 8 tiles (512 KiB), warm in L2;
//   miss, float4: the miss case with 16-byte loads (4 elements a load).
// Printed: kernel time (median of 20, CUDA events) and time per element a
// thread loads = time / (chunks x 128 x 128 / 256).
//
// Build: nvcc -O3 -arch=sm_90a -o tile-load-probe h200-2026-11-21-tile-load-probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

constexpr int kThreads = 256, kRows = 128, kCols = 128;

template <bool kVec4>
__global__ void __launch_bounds__(kThreads) tile_loads(const float* src, long ld, int chunks, bool same,
                                                       float* sink) {
  extern __shared__ float4 smem4[];  // 64 KiB, dynamic
  float* tile = reinterpret_cast<float*>(smem4);
  const float* base = same ? src : src + static_cast<long>(blockIdx.x) * kRows * ld;
  float acc = 0;
  for (int ch = 0; ch < chunks; ++ch) {
    const float* g = base + static_cast<long>(ch) * kCols;
    int rows = kRows, cols = kCols;  // run-time, as in the kernels (the index division stays)
    asm volatile("" : "+r"(rows), "+r"(cols));
    if constexpr (kVec4) {
      for (int idx = threadIdx.x; idx < rows * cols / 4; idx += blockDim.x) {
        const int r = idx / (cols / 4), c = idx % (cols / 4);
        reinterpret_cast<float4*>(tile)[r * (kCols / 4) + c] =
            __ldcg(reinterpret_cast<const float4*>(g + r * ld) + c);
      }
    } else {
      for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x) {
        const int r = idx / cols, c = idx % cols;
        tile[r * kCols + c] = __ldcg(g + r * ld + c);
      }
    }
    __syncthreads();
    acc += tile[(threadIdx.x * 33) % (kRows * kCols)];
    __syncthreads();
  }
  if (acc == -1.2345f) *sink = acc;
}

__global__ void read_all(const float4* p, long n, float* sink) {
  float4 a{};
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float4 v = __ldcg(p + i);
    a.x += v.x;
  }
  if (a.x == -1.2345f) *sink = a.x;
}

}  // namespace

int main() {
  const int blocks = 128, chunks = 8;
  const long ld = static_cast<long>(chunks) * kCols;  // one block's 128 rows of 8 tiles
  const long elems = static_cast<long>(blocks) * kRows * ld;  // 64 MiB
  const long flush_elems = 64L << 20;                          // 256 MiB
  float *src = nullptr, *flush = nullptr, *sink = nullptr;
  cudaMalloc(&src, elems * 4);
  cudaMalloc(&flush, flush_elems * 4);
  cudaMalloc(&sink, 4);
  cudaMemset(src, 0, elems * 4);
  cudaMemset(flush, 0, flush_elems * 4);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const int smem = kRows * kCols * 4;
  cudaFuncSetAttribute(tile_loads<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(tile_loads<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  const double per_thread = static_cast<double>(chunks) * kRows * kCols / kThreads;
  struct Case {
    const char* name;
    bool same, vec4, cold;
  };
  for (const Case& c : {Case{"miss, 4-byte loads", false, false, true}, Case{"hit, 4-byte loads", true, false, false},
                        Case{"miss, 16-byte loads", false, true, true}, Case{"hit, 16-byte loads", true, true, false}}) {
    std::vector<float> ms;
    for (int run = 0; run < 23; ++run) {
      if (c.cold) read_all<<<1056, 256>>>(reinterpret_cast<const float4*>(flush), flush_elems / 4, sink);
      else if (c.same) tile_loads<false><<<blocks, kThreads, smem>>>(src, ld, chunks, true, sink);  // warm
      cudaEventRecord(a);
      if (c.vec4) tile_loads<true><<<blocks, kThreads, smem>>>(src, ld, chunks, c.same, sink);
      else tile_loads<false><<<blocks, kThreads, smem>>>(src, ld, chunks, c.same, sink);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float t = 0;
      cudaEventElapsedTime(&t, a, b);
      if (run >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = 0.5 * (ms[9] + ms[10]) * 1e-3;
    const double loads = c.vec4 ? per_thread / 4 : per_thread;
    std::printf("%-22s kernel %8.2f us  %6.0f loads a thread  %7.1f ns a load  (%s)\n", c.name, med * 1e6, loads,
                med / loads * 1e9, cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}
