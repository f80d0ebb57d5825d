// Version 7: FlashAttention-2 for Hopper (sm_90a). Same schedule, tiles and
// HBM traffic as versions 2, 4 and 6 (one block per (head, query block i) of
// Br = 128 rows; Q_i once, then K_j and V_j for every key block j; O /= l
// once; O_i and L_i stored), so the simulator's byte counts hold unchanged.
// What changes is who does the work:
//   - the copy engine (TMA) moves whole tiles. One thread asks for a 64-column
//     panel of a tile with one instruction, described by a tensor map built on
//     the host; the ragged end of N arrives as zeros without being read. In
//     version 6 every thread issued 16-byte cp.async copies and their address
//     arithmetic.
//   - warp specialisation: warpgroup 0 (4 warps) only copies; warpgroups 1
//     and 2 (64 query rows each) only compute. The producer runs up to two
//     key blocks ahead through a ring of two K and two V buffers, each guarded
//     by a pair of mbarriers ("full": the bytes landed; "empty": both
//     consumers are done with it). No __syncthreads in the loop.
//   - wgmma: a warpgroup multiplies 64 x 16 by 16 x N (N up to 256) in one
//     asynchronous instruction reading both operands from shared memory; P V
//     takes P straight from the S registers. mma.sync needed a warp, 16 x 8
//     outputs, and ldmatrix to bring every operand into registers first.
//   - setmaxnreg moves registers from the producer (40 each) to the consumers
//     (232 each), which hold the S and O accumulators.
//   - the softmax overlaps the matrix multiplies. Within a warpgroup, S_j =
//     Q_i K_j^T and O += P_{j-1} V_{j-1} are issued together; the exponentials
//     of S_j run while P V_{j-1} is still on the tensor cores, and only the
//     rescaling of O waits for it. Across warpgroups, the two consumers run
//     out of step, so one's softmax also overlaps the other's multiplies.
// The online softmax is version 6's: scale folded into ex2, masks only in
// edge tiles. O leaves from registers (4-byte stores per thread).
// Gained (H200, scripts/gpu-bench.sh, docs/results/h200-2026-11-21-gpu-bench.txt):
// 1.36-2.12x PyTorch's FlashAttention-2 at N >= 2048 (d = 128, N = 4096:
// 643.8 TFLOP/s against 348.5; version 6 333.8), and cuDNN's level: 0.96-1.12x
// cuDNN at d = 128, 0.94-1.00x at d = 64. Step by step, at N = 4096 (same
// H200, one call per step): TMA + wgmma + warp specialisation alone 567.9
// (d = 128) and 399.3 (d = 64); overlap inside a warpgroup 639.8 and 402.7;
// ping-pong 638.4 and 418.8 (causal d = 64: 349.6 -> 377.7).
// What limits it at d = 64 (an estimate, not profiled): per key block a
// consumer takes 64 x Bc exponentials. At 16 ex2 per clock per SM these take
// as long as its two multiplies take on the tensor cores at d = 64 (half as
// long at d = 128), so d = 64 reaches peak only if the two overlap perfectly;
// the fp32 scale, max and sum add to the softmax side.
// Instances: Br = 128; d in {64, 128}; Bc in {64, 128}; fp16 or bf16.
// Built only for sm_90a (CMake compiles this file for that target alone);
// runs on compute capability 9.0 (H100, H200).
#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include "hopper.cuh"
#include "mma.cuh"
#include "occupancy.cuh"
#include "wgmma.cuh"

#ifndef FASIM_HOPPER_SM90A
#define FASIM_HOPPER_SM90A 0
#endif

namespace fasim::cuda::kernels {

namespace {

namespace hp = hopper;

constexpr int kBr = 128;          // query rows per block: two consumer warpgroups of 64
constexpr int kThreads7 = 384;    // producer warpgroup + two consumers
constexpr int kStages = 2;        // K and V buffers in the ring
constexpr int kPanelBytes = 128;  // one swizzled row: 64 16-bit elements
[[maybe_unused]] constexpr float kLog2e = 1.4426950408889634f;  // unused in a build without sm_90a

template <int BC, int D>
struct Smem {
  static constexpr int q_panel = kBr * kPanelBytes;  // bytes of one 64-column panel of Q_i
  static constexpr int kv_panel = BC * kPanelBytes;  // ... of K_j or V_j
  static constexpr int q = q_panel * (D / 64);
  static constexpr int kv = kv_panel * (D / 64);
  static constexpr int barriers = 8 * (1 + 4 * kStages);
  static constexpr int bytes = 1024 /* alignment */ + q + 2 * kStages * kv + barriers;
};

template <class T, int BC, int D>
__global__ void __launch_bounds__(kThreads7, 1)
    flash2_hopper_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
                         const __grid_constant__ CUtensorMap tv, Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using S = Smem<BC, D>;
  extern __shared__ unsigned char raw[];
  // Swizzled tiles start on 1024-byte boundaries (the swizzle's period).
  unsigned char* sq = raw + ((1024 - (hp::smem_u32(raw) & 1023)) & 1023);
  unsigned char* sk = sq + S::q;            // stage s at sk + s * S::kv
  unsigned char* sv = sk + kStages * S::kv;
  auto* bars = reinterpret_cast<std::uint64_t*>(sv + kStages * S::kv);
  std::uint64_t* q_full = bars;
  std::uint64_t* k_full = bars + 1;
  std::uint64_t* v_full = k_full + kStages;
  std::uint64_t* k_empty = v_full + kStages;
  std::uint64_t* v_empty = k_empty + kStages;

  const int n = p.n, tr = ceil_div(n, kBr);
  const int bh = blockIdx.x / tr, ib = blockIdx.x % tr;
  const int r0 = (p.causal ? tr - 1 - ib : ib) * kBr, rows = min(kBr, n - r0);
  const int tc = ceil_div(p.causal ? r0 + rows : n, BC);  // key blocks this block visits
  const int wg = threadIdx.x / 128;                        // 0 copies, 1 and 2 compute

  if (threadIdx.x == 0) {
    hp::mbar_init(q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      hp::mbar_init(k_full + s, 1);
      hp::mbar_init(v_full + s, 1);
      hp::mbar_init(k_empty + s, 256);  // every consumer thread arrives
      hp::mbar_init(v_empty + s, 256);
    }
    hp::mbar_fence_init();
  }
  __syncthreads();

  if (wg == 0) {  // ---- producer: TMA copies, two key blocks ahead ----
    hp::regs_release<40>();
    if (threadIdx.x != 0) return;
    hp::mbar_expect_tx(q_full, S::q);
    for (int pn = 0; pn < D / 64; ++pn) hp::tma_load_3d(sq + pn * S::q_panel, &tq, q_full, pn * 64, r0, bh);
    tally(p.counters, kQ, kRead, rows, D, sizeof(T));
    for (int j = 0; j < tc; ++j) {
      const int s = j % kStages, c0 = j * BC, cols = min(BC, n - c0);
      const int reuse = (j / kStages - 1) & 1;  // parity of the phase that freed stage s
      if (j >= kStages) hp::mbar_wait(k_empty + s, reuse);
      hp::mbar_expect_tx(k_full + s, S::kv);
      for (int pn = 0; pn < D / 64; ++pn)
        hp::tma_load_3d(sk + s * S::kv + pn * S::kv_panel, &tk, k_full + s, pn * 64, c0, bh);
      tally(p.counters, kK, kRead, cols, D, sizeof(T));
      if (j >= kStages) hp::mbar_wait(v_empty + s, reuse);
      hp::mbar_expect_tx(v_full + s, S::kv);
      for (int pn = 0; pn < D / 64; ++pn)
        hp::tma_load_3d(sv + s * S::kv + pn * S::kv_panel, &tv, v_full + s, pn * 64, c0, bh);
      tally(p.counters, kV, kRead, cols, D, sizeof(T));
    }
    return;
  }

  // ---- consumers: 64 query rows each ----
  hp::regs_take<232>();
  const int t = threadIdx.x - 128 * wg;  // thread within the warpgroup
  const int warp = t / 32, lane = t % 32;
  const int g = lane / 4, tig = lane % 4;  // accumulator rows g, g + 8; columns 2 tig, 2 tig + 1
  const int q0 = r0 + (wg - 1) * 64;       // this warpgroup's first query row
  const int w0 = q0 + warp * 16;           // this warp's first query row
  const float scale_log2 = p.scale * kLog2e;
  const unsigned char* my_q = sq + (wg - 1) * 64 * kPanelBytes;

  float o[D / 8][4] = {};  // (16 rows of this warp, d), unnormalised
  float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0, 0}, alpha[2];
  float sc[BC / 8][4];   // S_j = Q_i K_j^T, then P_j in fp32
  unsigned a[BC / 16][4];  // P_{j-1} as the A fragments of P V (m64k16, 16 keys each)

  // S_j = Q_i K_j^T on the tensor cores: issued, not waited for.
  auto issue_s = [&](int j) {
    const unsigned char* k_s = sk + (j % kStages) * S::kv;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {  // 16 columns of d at a time; 4 per 128-byte panel
      const int panel = kk / 4, within = (kk % 4) * 32;
      wgmma::Mma<BC, T>::ss(sc, hp::sw128_desc(my_q + panel * S::q_panel + within, 16, 1024),
                            hp::sw128_desc(k_s + panel * S::kv_panel + within, 16, 1024), kk > 0);
    }
    wgmma::commit();
  };
  // O += P_j V_j: V_j read N-major from its panels, 16 keys at a time.
  auto issue_pv = [&](int j) {
    const unsigned char* v_s = sv + (j % kStages) * S::kv;
#pragma unroll
    for (int kt = 0; kt < BC / 16; ++kt)
      wgmma::Mma<D, T>::rs(o, a[kt], hp::sw128_desc(v_s + kt * 16 * kPanelBytes, S::kv_panel, 1024));
    wgmma::commit();
  };
  auto pin_s = [&] {
#pragma unroll
    for (int c = 0; c < BC / 8; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) hp::pin(sc[c][e]);
  };
  auto pin_o = [&] {
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) hp::pin(o[dt][e]);
  };
  // Online softmax of S_j on rows w0 + g and w0 + g + 8, in the log2 domain
  // (version 6): P_j = 2^(s scale log2 e - m) in sc, the new m and l, and
  // alpha = 2^(m_old - m_new) for O, which may still be in a P V in flight.
  auto softmax = [&](int j) {
    const int c0 = j * BC, cols = min(BC, n - c0);
    const bool masked = cols < BC || (p.causal && c0 + BC - 1 > w0);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (masked) {
        const int row = w0 + g + 8 * h;
        const int seen = p.causal ? min(cols, row - c0 + 1) : cols;
#pragma unroll
        for (int c = 0; c < BC / 8; ++c)
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (c * 8 + tig * 2 + e >= seen) sc[c][2 * h + e] = -INFINITY;
      }
      float mx = -INFINITY;
#pragma unroll
      for (int c = 0; c < BC / 8; ++c) mx = fmaxf(mx, fmaxf(sc[c][2 * h], sc[c][2 * h + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m_run[h], mx * scale_log2);
      alpha[h] = fast_exp2(m_run[h] - m_new);  // 0 on the first block
      float sum = 0;
#pragma unroll
      for (int c = 0; c < BC / 8; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = sc[c][2 * h + e];
          x = fast_exp2(fmaf(x, scale_log2, -m_new));
          sum += x;
        }
      l_run[h] = alpha[h] * l_run[h] + sum;
      m_run[h] = m_new;
    }
  };
  // O *= alpha, then P_j to 16 bits in the A fragments (both wait for P V_{j-1}).
  auto rescale_and_pack = [&] {
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) o[dt][2 * h] *= alpha[h], o[dt][2 * h + 1] *= alpha[h];
#pragma unroll
    for (int kt = 0; kt < BC / 16; ++kt) {
      a[kt][0] = pack<T>(sc[2 * kt][0], sc[2 * kt][1]);
      a[kt][1] = pack<T>(sc[2 * kt][2], sc[2 * kt][3]);
      a[kt][2] = pack<T>(sc[2 * kt + 1][0], sc[2 * kt + 1][1]);
      a[kt][3] = pack<T>(sc[2 * kt + 1][2], sc[2 * kt + 1][3]);
    }
  };

  // Ping-pong: the two consumers take turns to issue their multiplies (named
  // barriers 1 and 2), so one's softmax runs while the other's multiplies do.
  auto my_turn = [&] {
    asm volatile("bar.sync %0, 256;\n" ::"r"(wg) : "memory");
  };
  auto your_turn = [&] {
    asm volatile("bar.arrive %0, 256;\n" ::"r"(3 - wg) : "memory");
  };
  if (wg == 2) your_turn();  // warpgroup 1 goes first

  // Software pipeline within the warpgroup: S_j and P_{j-1} V_{j-1} are in
  // flight together, and the exponentials of S_j run while P V_{j-1} does.
  hp::mbar_wait(q_full, 0);
  hp::mbar_wait(k_full, 0);
  my_turn();
  wgmma::fence();
  issue_s(0);
  your_turn();
  wgmma::wait<0>();
  pin_s();
  hp::mbar_arrive(k_empty);
  softmax(0);
  rescale_and_pack();
  for (int j = 1; j < tc; ++j) {
    const int s = j % kStages, prev = (j - 1) % kStages;
    hp::mbar_wait(k_full + s, (j / kStages) & 1);
    hp::mbar_wait(v_full + prev, ((j - 1) / kStages) & 1);
    pin_o();
    my_turn();
    wgmma::fence();
    issue_s(j);
    issue_pv(j - 1);
    your_turn();
    wgmma::wait<1>();  // S_j has landed; P V_{j-1} may still run
    pin_s();
    hp::mbar_arrive(k_empty + s);
    softmax(j);
    wgmma::wait<0>();  // P V_{j-1} is done: O and the A fragments are free
    pin_o();
    hp::mbar_arrive(v_empty + prev);
    rescale_and_pack();
  }
  const int last = (tc - 1) % kStages;
  hp::mbar_wait(v_full + last, ((tc - 1) / kStages) & 1);
  pin_o();
  my_turn();
  wgmma::fence();
  issue_pv(tc - 1);
  if (wg == 1) your_turn();  // warpgroup 2's first arrive balanced its last
  wgmma::wait<0>();
  pin_o();
  hp::mbar_arrive(v_empty + last);

  // O = O / l, L = m / log2 e + log l, for the real rows only.
  const std::size_t head = static_cast<std::size_t>(bh) * n;
  T* O = static_cast<T*>(p.o) + head * D;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float l = l_run[h];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const float inv = 1.0f / l;
    const int row = w0 + g + 8 * h;
    if (row < n) {
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt)
        *reinterpret_cast<unsigned*>(O + static_cast<std::size_t>(row) * D + dt * 8 + tig * 2) =
            pack<T>(o[dt][2 * h] * inv, o[dt][2 * h + 1] * inv);
      if (tig == 0) p.lse[head + row] = m_run[h] / kLog2e + logf(l);
    }
  }
  const int my_rows = max(0, min(64, n - q0));  // this warpgroup's share of the block's store
  if (p.counters != nullptr && t == 0 && my_rows > 0) {
    atomicAdd(&p.counters[2 * kO + kWrite], static_cast<unsigned long long>(my_rows) * D * sizeof(T));
    atomicAdd(&p.counters[2 * kLse + kWrite], static_cast<unsigned long long>(my_rows) * sizeof(float));
  }
#else
  __trap();  // not built for sm_90a: flash2_hopper_built() says so before any launch
#endif
}

// ---- host: tensor maps and launch ----

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

// The driver's tensor-map encoder, found at run time (no link to libcuda, so
// the binaries still start on machines without a driver).
EncodeTiled encoder() {
  static const EncodeTiled fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return EncodeTiled{nullptr};
    }
    return reinterpret_cast<EncodeTiled>(f);
  }();
  return fn;
}

// A (bh, n, d) tensor of 16-bit elements seen in boxes of 64 columns x
// `box_rows` rows of one head, 128-byte swizzled as wgmma reads them.
cudaError_t tensor_map(CUtensorMap* map, const void* base, const Params& p, int box_rows) {
  const EncodeTiled encode = encoder();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.d), static_cast<cuuint64_t>(p.n),
                              static_cast<cuuint64_t>(p.bh)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(p.d) * 2, static_cast<cuuint64_t>(p.n) * p.d * 2};
  const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t steps[3] = {1, 1, 1};
  const CUresult r =
      encode(map, p.storage == kFp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3,
             const_cast<void*>(base), dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

template <class T, int BC, int D>
cudaError_t launch_instance(const Params& p, cudaStream_t stream) {
  CUtensorMap tq{}, tk{}, tv{};
  for (cudaError_t e : {tensor_map(&tq, p.q, p, kBr), tensor_map(&tk, p.k, p, BC), tensor_map(&tv, p.v, p, BC)})
    if (e != cudaSuccess) return e;
  auto* kernel = flash2_hopper_kernel<T, BC, D>;
  const std::size_t smem = shared_for_cap(Smem<BC, D>::bytes, p.blocks_per_sm);
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e == cudaSuccess) e = log_occupancy(kernel, kThreads7, smem, p.occupancy);
  if (e != cudaSuccess) return e;
  kernel<<<p.bh * ceil_div(p.n, kBr), kThreads7, smem, stream>>>(tq, tk, tv, p);
  return cudaGetLastError();
}

template <class T, int D>
cudaError_t by_bc(const Params& p, cudaStream_t s) {
  return p.bc == 64 ? launch_instance<T, 64, D>(p, s) : launch_instance<T, 128, D>(p, s);
}
template <class T>
cudaError_t by_d(const Params& p, cudaStream_t s) {
  return p.d == 64 ? by_bc<T, 64>(p, s) : by_bc<T, 128>(p, s);
}

}  // namespace

bool flash2_hopper_built() { return FASIM_HOPPER_SM90A != 0; }

bool flash2_hopper_supports(const Params& p) {
  return p.storage != kFp32 && p.br == kBr && (p.bc == 64 || p.bc == 128) && (p.d == 64 || p.d == 128);
}

std::size_t shared_bytes_flash2_hopper(const Params& p) {
  if (p.d == 64) return p.bc == 64 ? Smem<64, 64>::bytes : Smem<128, 64>::bytes;
  return p.bc == 64 ? Smem<64, 128>::bytes : Smem<128, 128>::bytes;
}

cudaError_t launch_flash2_hopper(const Params& p, cudaStream_t stream) {
  if (!flash2_hopper_supports(p) || !flash2_hopper_built()) return cudaErrorInvalidValue;
  return p.storage == kFp16 ? by_d<__half>(p, stream) : by_d<__nv_bfloat16>(p, stream);
}

}  // namespace fasim::cuda::kernels
