// The attention kernels of the CUDA backend, numbered as in llm.c's dev/cuda:
// each version runs one of the simulator's tile programs (sim/src/algorithms)
// with the same Br, Bc, loop order and HBM tile traffic.
//
//   version 1  naive.cu       standard attention, three kernels: S = scale Q K^T
//                             to HBM, P = softmax(S) to HBM (one pass over rows
//                             that fit in shared memory, else two), O = P V.
//   version 2  flash2.cu      FlashAttention-2: a block per query block, K/V tiles
//                             inner, online softmax, O /= l once, writes O and L.
//                             fp32 arithmetic on any storage type.
//   version 3  flash1.cu      FlashAttention (paper Algorithm 1): a block per head,
//                             K/V tiles outer; O_i, m_i, l_i go back to HBM after
//                             every key block. fp32 arithmetic.
//   version 4  flash2_mma.cu  version 2 on tensor cores: fp16/bf16 mma.sync
//                             (m16n8k16, fp32 accumulation) and cp.async tile
//                             copies; Br, Bc, d in {64, 128}. Same tile loads
//                             and stores as version 2, so the same byte counts.
//   version 5  naive_cublas.cu  standard attention as PyTorch's eager code runs
//                             it: S = scale Q K^T and O = P V by cuBLAS
//                             (batched GEMMs, fp32 accumulation), a softmax
//                             kernel between; S and P through HBM. Counts no
//                             bytes itself (cuBLAS cannot): the runner reports
//                             closed-form counts for it, marked as such.
//   version 6  flash2_fast.cu  version 4 made fast: 32 query rows per warp (a
//                             K or V fragment feeds two mma.sync), Br = 128 as
//                             4 warps, two blocks per SM, scale folded into
//                             ex2, masks only where needed, unrolled tile
//                             copies. Same tile loads and stores as versions
//                             2 and 4.
//   version 7  flash2_hopper.cu  FlashAttention-2 for Hopper (sm_90a): TMA tile
//                             copies by a producer warpgroup, wgmma in two
//                             consumer warpgroups of 64 rows, mbarrier ring of
//                             two K and V buffers, setmaxnreg. Br = 128;
//                             Bc, d in {64, 128}. Same tile loads and stores.
//
// Causal (Params::causal; query i sees keys j <= i, N_kv = N): versions 2-4, 6 and 7
// skip every key tile above the diagonal (nothing loaded, nothing counted) and
// mask the diagonal tiles to -inf, visiting exactly the tiles the simulator's
// key_tiles() gives (sim/src/algorithms/key_tiles.hpp); versions 1 and 5
// compute all of S and mask in the softmax, as the simulator's naive does.
//
// Versions 1-3 are teaching kernels (one fp32 multiply-add per shared-memory
// read); version 4 is the tensor-core kernel the simulator is compared with
// (`fasim compare`), versions 6 and 7 the ones to time (7 on Hopper only), version 5
// the baseline to time them against. Versions 1-4, 6 and 7 count their own HBM tile
// traffic: with counters !=
// nullptr, thread 0 of a block adds rows * cols * element bytes once per tile
// it loads or stores (the simulator's Block::load and Block::store), so the
// counts equal the simulator's Ledger exactly.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace fasim::cuda::kernels {

/// @brief Tensor rows of the counter array, in fasim::TensorId order.
enum Counter : int { kQ = 0, kK, kV, kO, kS, kP, kM, kL, kLse, kOpart, kLpart, kCounterTensors };
/// @brief Columns of the counter array: bytes read from / written to HBM.
enum Direction : int { kRead = 0, kWrite = 1 };
/// @brief Unsigned 64-bit counters [kCounterTensors][2], row-major.
inline constexpr int kCounterSlots = 2 * kCounterTensors;

/// @brief Storage types, in fasim::DType order.
enum Storage : int { kFp32 = 0, kFp16 = 1, kBf16 = 2 };

/// @brief Blocks per SM each kernel of a launch got, in launch order
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor with the launch's threads
/// and shared memory). Host memory: the launchers fill it, the kernels never see it.
struct Occupancy {
  static constexpr int kMaxKernels = 3;  ///< naive launches three
  int kernels = 0;                       ///< entries filled
  int blocks_per_sm[kMaxKernels] = {};   ///< one per kernel launched
};

/// @brief One attention forward pass as the kernels see it. All tensors are
/// row-major per head: Q, K, V, O (bh, n, d) and S, P (bh, n, n) in the storage
/// type; m, l, lse (bh, n) in fp32. Pointers a version does not use may be null.
struct Params {
  int bh = 0;       ///< batch * heads
  int n = 0;        ///< sequence length N
  int d = 0;        ///< head dimension
  int br = 0;       ///< Br, query rows per tile
  int bc = 0;       ///< Bc, key/value rows per tile
  float scale = 0;  ///< 1 / sqrt(d)
  int storage = kFp32;
  bool rows_fit = true;  ///< naive softmax: one pass (Br full rows of S in shared memory)
  bool causal = false;   ///< query i sees keys j <= i (N_kv = N)
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  void* s = nullptr;      ///< naive
  void* p = nullptr;      ///< naive
  float* m = nullptr;     ///< flash1: running row max
  float* l = nullptr;     ///< flash1: running row sum
  float* lse = nullptr;   ///< flash2: L = m + log l
  unsigned long long* counters = nullptr;  ///< [kCounterTensors][2] or null: no counting
  int blocks_per_sm = 0;  ///< at most this many blocks on one SM (0: as many as fit): occupancy.cuh
  Occupancy* occupancy = nullptr;  ///< host: where the launchers log each kernel's blocks per SM, or null
};

/// @brief Threads per block of versions 1-3.
inline constexpr int kThreads = 256;
/// @brief Output-tile elements each thread of versions 1-3 keeps in registers:
/// they need Br * d <= kThreads * kOutPerThread.
inline constexpr int kOutPerThread = 64;

// Launchers: enqueue the kernel(s) on `stream`, raising the shared-memory limit
// where needed; return the first CUDA error (launch errors included).
cudaError_t launch_naive(const Params& p, cudaStream_t stream);
cudaError_t launch_flash2(const Params& p, cudaStream_t stream);
cudaError_t launch_flash1(const Params& p, cudaStream_t stream);
cudaError_t launch_flash2_mma(const Params& p, cudaStream_t stream);
cudaError_t launch_flash2_fast(const Params& p, cudaStream_t stream);
cudaError_t launch_flash2_hopper(const Params& p, cudaStream_t stream);

// Dynamic shared memory per block (the largest of a version's kernels).
std::size_t shared_bytes_naive(const Params& p);
std::size_t shared_bytes_flash2(const Params& p);
std::size_t shared_bytes_flash1(const Params& p);
std::size_t shared_bytes_flash2_mma(const Params& p);
std::size_t shared_bytes_flash2_fast(const Params& p);
std::size_t shared_bytes_flash2_hopper(const Params& p);

/// @brief True if version 4 has an instance for these tiles and storage type.
bool flash2_mma_supports(const Params& p);
/// @brief True if version 6 has an instance: fp16/bf16, Br in {64, 128}, and
/// d = 64 with Bc in {64, 128} or d = 128 with Bc = 64 (registers).
bool flash2_fast_supports(const Params& p);
/// @brief True if version 7 has an instance: fp16/bf16, Br = 128, Bc and d in {64, 128}.
bool flash2_hopper_supports(const Params& p);
/// @brief True if this build holds version 7's sm_90a code (CUDA architectures include 90).
bool flash2_hopper_built();

// Version 5 needs a cuBLAS handle, made once per DeviceRun (cublasCreate takes
// milliseconds: never inside a timed launch). Blas is opaque here so that this
// header needs no cuBLAS.
struct Blas;
/// @brief Empty if this build has cuBLAS, else why not (one line).
std::string cublas_unavailable();
/// @brief Makes the handle; nullptr and `error` set (one line) if it fails.
Blas* blas_create(std::string& error);
/// @brief Frees the handle (nullptr: nothing).
void blas_destroy(Blas* blas);
/// @brief Enqueues GEMM, softmax, GEMM on `stream`; empty on success, else the
/// failing call and its cuBLAS or CUDA error. Ignores p.counters.
std::string launch_naive_cublas(const Params& p, Blas* blas, cudaStream_t stream);
/// @brief Dynamic shared memory of version 5's softmax kernel: one row of S.
std::size_t shared_bytes_naive_cublas(const Params& p);

/// @brief Loads one kernel's attributes: fails with cudaErrorNoKernelImageForDevice
/// (or similar) when the binary has no code for the GPU's architecture.
cudaError_t probe_kernel_image();

}  // namespace fasim::cuda::kernels
