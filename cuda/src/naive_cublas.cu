// Version 5: standard attention the way PyTorch's eager code computes
// softmax(Q K^T * scale) V: two batched cuBLAS GEMMs with fp32 accumulation
// and a softmax kernel between them. S and P go through HBM in the storage
// type, as in version 1, but the GEMMs are cuBLAS's tuned tensor-core kernels,
// so this is the baseline a FlashAttention kernel has to beat, not a lesson.
//   GEMM 1  S = scale * Q K^T   (cublasGemmStridedBatchedEx, one batch per head)
//   softmax P = softmax(S), one block per row: the row is read once into shared
//           memory (16-byte loads when the row allows), max, sum of exps, P
//           written once (16-byte stores). Causal: keys j > i get p = 0 (S is computed in full,
//           as PyTorch computes it before adding the mask).
//   GEMM 2  O = P V
// cuBLAS is column-major; a row-major (rows, cols) matrix is the column-major
// (cols, rows) matrix, its transpose. So S^T = K Q^T and O^T = V^T P^T.
// The kernels cannot count their own bytes (cuBLAS's are not ours to count):
// the runner reports the closed form, each tensor once per step.
// Measured (H200, scripts/gpu-bench.sh, docs/results/h200-2026-11-21-gpu-bench-before-v7.txt): at N = 4096,
// non-causal, 90.0 TFLOP/s at d = 64 and 176.9 at d = 128, against PyTorch
// eager's 60.1 and 118.5: an honest "standard attention" to compare the
// flash kernels with.
// libcublas is opened with dlopen the first time version 5 is asked for, so
// no other command maps libcublas and libcublasLt. Linked, they made every
// `fasim` command slow to start and large: `fasim run --no-numerics` took
// 220 MiB and 0.29 s linked, 6.5 MiB and 0.01 s now (/usr/bin/time, the
// 2-core development machine).
#include "tiles.cuh"

#if FASIM_HAVE_CUBLAS
#include <cublas_v2.h>
#include <dlfcn.h>

#include <mutex>

#include "fasim/cuda/dlopen_first.hpp"
#endif

#ifndef FASIM_CUBLAS_LIBRARY
#define FASIM_CUBLAS_LIBRARY ""
#endif

namespace fasim::cuda::kernels {

#if FASIM_HAVE_CUBLAS

struct Blas {
  cublasHandle_t handle = nullptr;
};

namespace {

// The cuBLAS functions version 5 calls (the _v2 names that cublas_v2.h's
// macros stand for), found with dlsym.
#define FASIM_CUBLAS_FUNCTIONS(X)                                                                      \
  X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetMathMode) X(cublasSetStream_v2)                      \
  X(cublasGemmStridedBatchedEx) X(cublasGetStatusName) X(cublasGetStatusString)

// The function types, by name. cublasGemmStridedBatchedEx has a C++
// overload (cudaDataType for the compute type) beside the C function: pick
// the C one, the symbol the library exports.
#define FASIM_FN(f) using Fn_##f = decltype(&::f);
FASIM_FN(cublasCreate_v2)
FASIM_FN(cublasDestroy_v2)
FASIM_FN(cublasSetMathMode)
FASIM_FN(cublasSetStream_v2)
FASIM_FN(cublasGetStatusName)
FASIM_FN(cublasGetStatusString)
#undef FASIM_FN
using Fn_cublasGemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                                         int, int, const void*, const void*, cudaDataType, int,
                                                         long long, const void*, cudaDataType, int, long long,
                                                         const void*, void*, cudaDataType, int, long long, int,
                                                         cublasComputeType_t, cublasGemmAlgo_t);

struct CublasApi {
#define FASIM_DECLARE(f) Fn_##f f = nullptr;
  FASIM_CUBLAS_FUNCTIONS(FASIM_DECLARE)
#undef FASIM_DECLARE
  std::string error;  // why it did not load; empty if it did
};

const CublasApi& cublas() {
  static CublasApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    const OpenedLibrary found =
        dlopen_first({soname, FASIM_CUBLAS_LIBRARY, "/usr/local/cuda/lib64/" + soname}, RTLD_NOW | RTLD_LOCAL);
    void* lib = found.handle;
    if (lib == nullptr) {
      api.error = "cannot load cuBLAS (tried " + found.tried + "; last: " + found.last_error +
                  "); put the CUDA Toolkit's lib64 folder (with " + soname + ") on LD_LIBRARY_PATH";
      return;
    }
#define FASIM_LOAD(f)                                                                   \
  api.f = reinterpret_cast<Fn_##f>(dlsym(lib, #f));                                     \
  if (api.f == nullptr && api.error.empty())                                            \
    api.error = "the cuBLAS library found (" + soname + ") has no " #f "; use the CUDA Toolkit fasim was built with";
    FASIM_CUBLAS_FUNCTIONS(FASIM_LOAD)
#undef FASIM_LOAD
  });
  return api;
}

constexpr int kSoftmaxMaxThreads = 512;

std::string blas_error(const char* what, cublasStatus_t st) {
  return std::string(what) + ": " + cublas().cublasGetStatusName(st) + " (" + cublas().cublasGetStatusString(st) +
         ")";
}

cudaDataType_t data_type(int storage) {
  switch (storage) {
    case kFp16: return CUDA_R_16F;
    case kBf16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// Block-wide max and sum (blockDim.x a multiple of 32); every thread gets the result.
__device__ float block_max(float x, float* red) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  x = warp_max(x);
  if (lane == 0) red[warp] = x;
  __syncthreads();
  x = warp_max(lane < warps ? red[lane] : -INFINITY);
  __syncthreads();  // red is free again
  return x;
}
__device__ float block_sum(float x, float* red) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  x = warp_sum(x);
  if (lane == 0) red[warp] = x;
  __syncthreads();
  x = warp_sum(lane < warps ? red[lane] : 0.0f);
  __syncthreads();
  return x;
}

// P = softmax(S) for one row per block. VEC elements per global access: 16 B
// (8 halves or 4 floats) when N * sizeof(T) is a multiple of 16, else 1.
// Each thread reads, exponentiates and writes only its own elements, so they
// sit in shared memory where only it looks: element e of its k-th access at
// (k VEC + e) blockDim + thread, consecutive threads in consecutive banks. No
// barrier is needed besides the reductions'.
template <class T, int VEC>
__global__ void __launch_bounds__(kSoftmaxMaxThreads) softmax_rows_kernel(Params p) {
  extern __shared__ float row[];  // this thread's part of the row of S, then of its exps
  __shared__ float red[32];
  const int n = p.n, tid = threadIdx.x, threads = blockDim.x;
  const std::size_t rid = blockIdx.x;  // bh * N + i
  const int i = static_cast<int>(rid % static_cast<std::size_t>(n));
  const int seen = p.causal ? i + 1 : n;  // keys 0 .. seen - 1
  const T* S = static_cast<const T*>(p.s) + rid * n;
  T* P = static_cast<T*>(p.p) + rid * n;
  const int stride = threads * VEC;

  float mx = -INFINITY;
  for (int c = tid * VEC, k = 0; c < n; c += stride, ++k) {
    alignas(16) T x[VEC];
    if constexpr (VEC > 1) *reinterpret_cast<uint4*>(x) = *reinterpret_cast<const uint4*>(S + c);
    else x[0] = S[c];
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const float f = to_float<T>(x[e]);
      row[(k * VEC + e) * threads + tid] = f;
      if (c + e < seen) mx = fmaxf(mx, f);
    }
  }
  mx = block_max(mx, red);

  float sum = 0;
  for (int c = tid * VEC, k = 0; c < n; c += stride, ++k)
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      float& x = row[(k * VEC + e) * threads + tid];
      x = c + e < seen ? expf(x - mx) : 0.0f;
      sum += x;
    }
  const float inv = 1.0f / block_sum(sum, red);

  for (int c = tid * VEC, k = 0; c < n; c += stride, ++k) {
    alignas(16) T x[VEC];
#pragma unroll
    for (int e = 0; e < VEC; ++e) x[e] = from_float<T>(row[(k * VEC + e) * threads + tid] * inv);
    if constexpr (VEC > 1) *reinterpret_cast<uint4*>(P + c) = *reinterpret_cast<const uint4*>(x);
    else P[c] = x[0];
  }
}

// The softmax's launch shape: elements per access, threads (a multiple of 32,
// one access each if N allows, at most kSoftmaxMaxThreads) and the dynamic
// shared memory, accesses per thread * VEC * threads floats.
struct SoftmaxShape {
  int vec, threads;
  std::size_t smem;
};
SoftmaxShape softmax_shape(const Params& p) {
  const int full = p.storage == kFp32 ? 4 : 8;  // elements in 16 B
  const int vec = p.n % full == 0 ? full : 1;
  const int want = ceil_div(ceil_div(p.n, vec), 32) * 32;
  const int threads = want > kSoftmaxMaxThreads ? kSoftmaxMaxThreads : want;
  const int accesses = ceil_div(p.n, threads * vec);
  return {vec, threads, sizeof(float) * static_cast<std::size_t>(accesses) * vec * threads};
}

template <class T>
cudaError_t launch_softmax(const Params& p, cudaStream_t stream) {
  constexpr int kVec = 16 / static_cast<int>(sizeof(T));
  const SoftmaxShape sh = softmax_shape(p);
  const unsigned grid = static_cast<unsigned>(static_cast<std::size_t>(p.bh) * p.n);
  auto go = [&](auto kernel) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sh.smem));
    if (e != cudaSuccess) return e;
    kernel<<<grid, sh.threads, sh.smem, stream>>>(p);
    return cudaGetLastError();
  };
  return sh.vec == kVec ? go(softmax_rows_kernel<T, kVec>) : go(softmax_rows_kernel<T, 1>);
}

}  // namespace

std::string cublas_unavailable() { return cublas().error; }

Blas* blas_create(std::string& error) {
  if (!cublas().error.empty()) {
    error = cublas().error;
    return nullptr;
  }
  auto* b = new Blas;
  cublasStatus_t st = cublas().cublasCreate_v2(&b->handle);
  if (st != CUBLAS_STATUS_SUCCESS) {
    error = blas_error("cublasCreate", st);
    delete b;
    return nullptr;
  }
  // Split-K partial sums in fp32, not in the fp16/bf16 output type, so the
  // error stays the one rounding of S and of O that the tests bound. PyTorch
  // allows the fp16 reduction by default; it matters only where cuBLAS splits K.
  st = cublas().cublasSetMathMode(b->handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                                              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  if (st != CUBLAS_STATUS_SUCCESS) {
    error = blas_error("cublasSetMathMode", st);
    blas_destroy(b);
    return nullptr;
  }
  return b;
}

void blas_destroy(Blas* blas) {
  if (blas == nullptr) return;
  cublas().cublasDestroy_v2(blas->handle);
  delete blas;
}

std::string launch_naive_cublas(const Params& p, Blas* blas, cudaStream_t stream) {
  if (blas == nullptr) return "naive-cublas: no cuBLAS handle";
  cublasHandle_t h = blas->handle;
  const CublasApi& api = cublas();
  cublasStatus_t st = api.cublasSetStream_v2(h, stream);
  if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasSetStream", st);
  const cudaDataType_t t = data_type(p.storage);
  const long long nn = static_cast<long long>(p.n) * p.n, nd = static_cast<long long>(p.n) * p.d;
  const float scale = p.scale, one = 1, zero = 0;

  // S^T (N_k x N_q, column-major, ld N) = K (N x d) Q^T (d x N): row-major S = scale Q K^T.
  // K and Q, row-major (N, d), are column-major (d, N) with ld d; K is used transposed.
  st = api.cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, p.n, p.n, p.d, &scale, p.k, t, p.d, nd, p.q, t,
                                  p.d, nd, &zero, p.s, t, p.n, nn, p.bh, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasGemmStridedBatchedEx (S = scale Q K^T)", st);

  cudaError_t e = cudaSuccess;
  FASIM_BY_STORAGE(p.storage, T, e = launch_softmax<T>(p, stream))
  if (e != cudaSuccess) return std::string("softmax kernel: ") + cudaGetErrorString(e);

  // O^T (d x N, column-major, ld d) = V^T (d x N, ld d) P^T (N x N, ld N): row-major O = P V.
  st = api.cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, p.d, p.n, p.n, &one, p.v, t, p.d, nd, p.p, t, p.n,
                                  nn, &zero, p.o, t, p.d, nd, p.bh, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS) return blas_error("cublasGemmStridedBatchedEx (O = P V)", st);
  return {};
}

std::size_t shared_bytes_naive_cublas(const Params& p) { return softmax_shape(p).smem + sizeof(float) * 32; }

#else  // no cuBLAS in this build: version 5 says so and runs nothing

struct Blas {};

std::string cublas_unavailable() {
  return "this fasim was built without cuBLAS (the CUDA Toolkit's libcublas was not found); install it "
         "and reconfigure with the cuda preset";
}
Blas* blas_create(std::string& error) {
  error = cublas_unavailable();
  return nullptr;
}
void blas_destroy(Blas*) {}
std::string launch_naive_cublas(const Params&, Blas*, cudaStream_t) { return cublas_unavailable(); }
std::size_t shared_bytes_naive_cublas(const Params& p) { return sizeof(float) * static_cast<std::size_t>(p.n); }

#endif

}  // namespace fasim::cuda::kernels
