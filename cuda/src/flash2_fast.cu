// Version 6: version 4 made fast. Same schedule, tiles, loop order and HBM
// traffic as versions 2 and 4 (one block per (head, query block i); Q_i once,
// then K_j and V_j for every key block j; O /= l once; O_i and L_i stored), so
// the simulator's byte counts hold unchanged. What changes, and why:
//   - each warp owns 32 query rows (two 16-row mma tiles) instead of 16. A K
//     or V fragment read from shared memory now feeds two mma.sync instead of
//     one: the shared-memory reads per FLOP nearly halve. In version 4 the
//     shared-memory port, not the tensor cores, set the pace.
//   - Br = 128 runs as 4 warps (128 threads) with Bc = 64 at d = 128, as
//     FlashAttention-2 does: about 230 registers per thread, two blocks per SM
//     (version 4 fitted one), so one block's softmax overlaps the other's
//     matmuls.
//   - the scale folds into the exponent: p = 2^(s * scale * log2 e - m) is one
//     fused multiply-add and one ex2.approx; the row max is taken on raw s.
//   - the mask (ragged last tile, causal diagonal) is applied only in the
//     tiles that need it; the tiles in the middle skip the compares.
//   - tile copies are unrolled: a thread's addresses are one base plus
//     constant steps. ncu showed this kernel executing 11% more instructions
//     than FlashAttention-2 at the same occupancy, mostly the copy loop's
//     index arithmetic (docs/results/h200-2026-11-21-ncu-v6-vs-fa2.txt);
//     unrolling gave +9.5% at d = 128.
// Everything else is version 4's: cp.async copies with V_j in flight during
// S = Q K_j^T and K_{j+1} during the softmax and P V_j; padded shared rows for
// ldmatrix; P straight from the S registers; O out through shared memory in
// 16-byte stores; causal skips the tiles above the diagonal, heaviest first.
// Gained (H200, scripts/gpu-bench.sh, docs/results/h200-2026-11-21-gpu-bench-before-v7.txt):
// 1.33-1.53x version 4 at N >= 2048; 0.93-1.05x PyTorch's FlashAttention-2
// (d = 128, N = 4096: 339.7 TFLOP/s against 340.2, version 4 225.3). Before
// the copies were unrolled: 0.87-0.94x.
// Tried and not kept: two V buffers, so that a key block needs two barriers
// instead of three and none sits between the softmax and P V_j. Expected 5-10%
// from overlapping one row tile's softmax with the other's matmuls; measured
// -3% at d = 64 and no change at d = 128 (the same H200, same script).
// Instances: Br in {64, 128}; (d = 64, Bc in {64, 128}) or (d = 128, Bc = 64);
// storage fp16 or bf16.
#include "mma.cuh"

namespace fasim::cuda::kernels {

namespace {

constexpr int kRowsPerWarp = 32;          // two m16 tiles
constexpr int kMt = kRowsPerWarp / 16;    // m16 tiles per warp
constexpr float kLog2e = 1.4426950408889634f;

// HBM -> shared with cp.async.cg (version 4's .ca made this kernel 8-9%
// slower at d = 128: mma.cuh, cp_async16), as copy_tile_async, but unrolled:
// each thread copies the same 16-byte column of every THREADS / chunks-th
// row, so its addresses are one base plus constant steps and the copy costs
// a cp.async per chunk, not an index division and a loop test as well.
template <class T, int R, int D, int LD, int THREADS>
__device__ void copy_tile_unrolled(T* dst, const T* src, int rows, unsigned long long* counters, int tensor) {
  constexpr int kChunks = D * static_cast<int>(sizeof(T)) / 16;  // 16 B copies per row
  static_assert(THREADS % kChunks == 0 && R % (THREADS / kChunks) == 0, "whole passes over the tile");
  constexpr int kStep = THREADS / kChunks;  // rows per pass
  const int r0 = threadIdx.x / kChunks, ch = threadIdx.x % kChunks;
  T* to = dst + r0 * LD + ch * 8;
  const T* from = src + static_cast<std::size_t>(r0) * D + ch * 8;
#pragma unroll
  for (int i = 0; i < R / kStep; ++i) {
    if (r0 + i * kStep < rows) cp_async16(to + i * kStep * LD, from + static_cast<std::size_t>(i) * kStep * D);
    else *reinterpret_cast<uint4*>(to + i * kStep * LD) = make_uint4(0, 0, 0, 0);
  }
  tally(counters, tensor, kRead, rows, D, sizeof(T));
}

template <class T, int BR, int BC, int D>
__global__ void __launch_bounds__(BR) flash2_fast_kernel(Params p) {
  constexpr int kThreadsFast = BR;  // BR / 32 warps, 32 query rows each
  constexpr int LD = D + 8;         // shared row stride in elements (+16 B)
  extern __shared__ __align__(16) unsigned char raw[];
  T* sq = reinterpret_cast<T*>(raw);  // (Br, d) Q_i
  T* sk = sq + BR * LD;               // (Bc, d) K_j
  T* sv = sk + BC * LD;               // (Bc, d) V_j
  const int n = p.n, tr = ceil_div(n, BR);
  const int bh = blockIdx.x / tr, ib = blockIdx.x % tr;
  const int r0 = (p.causal ? tr - 1 - ib : ib) * BR, rows = min(BR, n - r0);
  const int tc = ceil_div(p.causal ? r0 + rows : n, BC);  // key blocks this block visits
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, tig = lane % 4;  // accumulator rows g, g + 8; columns 2 tig, 2 tig + 1
  const int w0 = r0 + warp * kRowsPerWarp;  // this warp's first query row
  const std::size_t head = static_cast<std::size_t>(bh) * n;
  const T* Q = static_cast<const T*>(p.q) + (head + r0) * D;
  const T* K = static_cast<const T*>(p.k) + head * D;
  const T* V = static_cast<const T*>(p.v) + head * D;
  const float scale_log2 = p.scale * kLog2e;  // exp(x) = 2^(x log2 e)

  copy_tile_unrolled<T, BR, D, LD, kThreadsFast>(sq, Q, rows, p.counters, kQ);
  cp_async_commit();
  copy_tile_unrolled<T, BC, D, LD, kThreadsFast>(sk, K, min(BC, n), p.counters, kK);
  cp_async_commit();

  float o[kMt][D / 8][4] = {};  // (32, d) of this warp, unnormalised
  float m_run[kMt][2];          // rows (mt, g) and (mt, g + 8): running max of s scale log2 e
  float l_run[kMt][2] = {};     // this thread's part of the running sums
#pragma unroll
  for (int mt = 0; mt < kMt; ++mt) m_run[mt][0] = m_run[mt][1] = -INFINITY;

  for (int j = 0; j < tc; ++j) {
    const int c0 = j * BC, cols = min(BC, n - c0);
    copy_tile_unrolled<T, BC, D, LD, kThreadsFast>(sv, V + static_cast<std::size_t>(c0) * D, cols,
                                                p.counters, kV);
    cp_async_commit();
    cp_async_wait<1>();  // Q_i and K_j have landed (V_j may still be in flight)
    __syncthreads();

    float s[kMt][BC / 8][4] = {};  // (32, Bc) S of this warp
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      unsigned a[kMt][4];
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt)
        ldmatrix_x4(a[mt], sq + (warp * kRowsPerWarp + mt * 16 + (lane & 15)) * LD + kk * 16 +
                               (lane >> 4) * 8);
#pragma unroll
      for (int nt = 0; nt < BC / 16; ++nt) {
        unsigned b[4];
        ldmatrix_x4(b, sk + (nt * 16 + (lane & 7) + ((lane >> 4) << 3)) * LD + kk * 16 +
                           ((lane >> 3) & 1) * 8);
#pragma unroll
        for (int mt = 0; mt < kMt; ++mt) {
          mma<T>(s[mt][2 * nt], a[mt], b[0], b[1]);
          mma<T>(s[mt][2 * nt + 1], a[mt], b[2], b[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with K_j: start K_{j+1}
    if (j + 1 < tc)
      copy_tile_unrolled<T, BC, D, LD, kThreadsFast>(sk, K + static_cast<std::size_t>(c0 + BC) * D,
                                                  min(BC, n - c0 - BC), p.counters, kK);
    cp_async_commit();  // possibly empty: keeps the group count uniform

    // Does any of this warp's rows lose a column of this tile? Only the
    // ragged last tile and, causal, tiles reaching past the warp's first row.
    const bool masked = cols < BC || (p.causal && c0 + BC - 1 > w0);
#pragma unroll
    for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (masked) {
          const int row = w0 + mt * 16 + g + 8 * h;
          const int seen = p.causal ? min(cols, row - c0 + 1) : cols;
#pragma unroll
          for (int nt = 0; nt < BC / 8; ++nt)
#pragma unroll
            for (int e = 0; e < 2; ++e)
              if (nt * 8 + tig * 2 + e >= seen) s[mt][nt][2 * h + e] = -INFINITY;
        }
        // Online softmax on this row, in the log2 domain. Key 0 is in every
        // row's first tile, so m_new is finite from the first tile on
        // (padding rows past N see every real key).
        float mx = -INFINITY;
#pragma unroll
        for (int nt = 0; nt < BC / 8; ++nt) mx = fmaxf(mx, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float m_new = fmaxf(m_run[mt][h], mx * scale_log2);
        const float alpha = fast_exp2(m_run[mt][h] - m_new);  // 0 on the first block
        float sum = 0;
#pragma unroll
        for (int nt = 0; nt < BC / 8; ++nt)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& x = s[mt][nt][2 * h + e];
            x = fast_exp2(fmaf(x, scale_log2, -m_new));
            sum += x;
          }
        l_run[mt][h] = alpha * l_run[mt][h] + sum;
        m_run[mt][h] = m_new;
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt) o[mt][dt][2 * h] *= alpha, o[mt][dt][2 * h + 1] *= alpha;
      }

    cp_async_wait<1>();  // V_j has landed (K_{j+1} may still be in flight)
    __syncthreads();
#pragma unroll
    for (int kt = 0; kt < BC / 16; ++kt) {  // O += P V_j, P from the S registers
      unsigned a[kMt][4];
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt) {
        a[mt][0] = pack<T>(s[mt][2 * kt][0], s[mt][2 * kt][1]);
        a[mt][1] = pack<T>(s[mt][2 * kt][2], s[mt][2 * kt][3]);
        a[mt][2] = pack<T>(s[mt][2 * kt + 1][0], s[mt][2 * kt + 1][1]);
        a[mt][3] = pack<T>(s[mt][2 * kt + 1][2], s[mt][2 * kt + 1][3]);
      }
#pragma unroll
      for (int dt = 0; dt < D / 16; ++dt) {
        unsigned b[4];
        ldmatrix_x4_trans(b, sv + (kt * 16 + (lane & 15)) * LD + dt * 16 + (lane >> 4) * 8);
#pragma unroll
        for (int mt = 0; mt < kMt; ++mt) {
          mma<T>(o[mt][2 * dt], a[mt], b[0], b[1]);
          mma<T>(o[mt][2 * dt + 1], a[mt], b[2], b[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with V_j before the next copy
  }

  // O = O / l, L = m / log2 e + log l, for the real rows only; O leaves
  // through this warp's own rows of the Q tile in 16-byte stores (version 4).
  T* O = static_cast<T*>(p.o) + (head + r0) * D;
  T* so = sq + warp * kRowsPerWarp * LD;  // (32, d) of this warp
#pragma unroll
  for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float l = l_run[mt][h];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = 1.0f / l;
      const int r = mt * 16 + g + 8 * h;  // row within the warp's 32
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt)
        *reinterpret_cast<unsigned*>(so + r * LD + dt * 8 + tig * 2) =
            pack<T>(o[mt][dt][2 * h] * inv, o[mt][dt][2 * h + 1] * inv);
      if (warp * kRowsPerWarp + r < rows && tig == 0)
        p.lse[head + w0 + r] = m_run[mt][h] / kLog2e + logf(l);
    }
  __syncwarp();
  constexpr int kChunks = D * static_cast<int>(sizeof(T)) / 16;  // 16 B stores per row
  for (int idx = lane; idx < kRowsPerWarp * kChunks; idx += 32) {
    const int r = idx / kChunks, ch = idx % kChunks;
    if (warp * kRowsPerWarp + r < rows)
      *reinterpret_cast<uint4*>(O + static_cast<std::size_t>(warp * kRowsPerWarp + r) * D + ch * 8) =
          *reinterpret_cast<const uint4*>(so + r * LD + ch * 8);
  }
  tally(p.counters, kO, kWrite, rows, D, sizeof(T));
  tally(p.counters, kLse, kWrite, rows, 1, sizeof(float));
}

template <class T, int BR, int BC, int D>
cudaError_t launch_instance(const Params& p, cudaStream_t stream) {
  return launch(flash2_fast_kernel<T, BR, BC, D>, p.bh * ceil_div(p.n, BR), BR, shared_bytes_flash2_fast(p),
                stream, p);
}

template <class T, int BR>
cudaError_t by_tiles(const Params& p, cudaStream_t s) {
  if (p.d == 128) return launch_instance<T, BR, 64, 128>(p, s);
  return p.bc == 64 ? launch_instance<T, BR, 64, 64>(p, s) : launch_instance<T, BR, 128, 64>(p, s);
}
template <class T>
cudaError_t by_br(const Params& p, cudaStream_t s) {
  return p.br == 64 ? by_tiles<T, 64>(p, s) : by_tiles<T, 128>(p, s);
}

}  // namespace

bool flash2_fast_supports(const Params& p) {
  const bool tiles = p.d == 64 ? p.bc == 64 || p.bc == 128 : p.d == 128 && p.bc == 64;
  return p.storage != kFp32 && (p.br == 64 || p.br == 128) && tiles;
}

std::size_t shared_bytes_flash2_fast(const Params& p) { return shared_bytes_flash2_mma(p); }

cudaError_t launch_flash2_fast(const Params& p, cudaStream_t stream) {
  if (!flash2_fast_supports(p)) return cudaErrorInvalidValue;
  return p.storage == kFp16 ? by_br<__half>(p, stream) : by_br<__nv_bfloat16>(p, stream);
}

}  // namespace fasim::cuda::kernels
