// Version 4: FlashAttention-2 forward on tensor cores (fp16/bf16 storage,
// fp32 accumulation). Same schedule, tiles and HBM traffic as version 2:
// one block per (head, query block i); load Q_i; for every key block j load
// K_j and V_j; online softmax; O /= l once; store O_i and L_i.
// What changes:
//   - each warp owns 16 query rows; S = Q K^T and O += P V are mma.sync
//     m16n8k16 with fp32 accumulators, fed from shared memory by ldmatrix;
//   - P never leaves registers: the S accumulators, rounded to the storage
//     type, are exactly the A operand of the P V product;
//   - tiles are copied with cp.async (16 B per copy) and overlap the math:
//     V_j streams in during S = Q K_j^T, K_{j+1} during the softmax and P V_j;
//     the copies are .ca: with .cg, copies into the padded rows below read
//     1.5x the L2 sectors they ask for (mma.cuh, cp_async16). With .ca the
//     L2 reads equal the simulator's count; time went up 0.3-1.5% (H200,
//     N = 4096 and 16384, d = 64 and 128, docs/results/h200-2026-11-21-l2-read-probe.md);
//   - rows of shared memory are padded by 16 B so ldmatrix hits distinct banks;
//   - O leaves through shared memory in 16-byte stores, whole sectors at a time;
//   - the ragged last tile copies only its real rows; the rest of the tile is
//     zeroed in shared memory (no HBM traffic) and masked to -inf in S.
// Causal, as version 2: the block visits key blocks j <= (r0 + rows - 1) / Bc
// only (no copy, no count for the rest) and masks keys j > i to -inf in the
// diagonal tiles, with the same compare that masks the ragged tile. Blocks run
// heaviest first (the last query block, which sees the most key blocks, gets
// the lowest block index), so the short blocks fill the tail of the grid; this
// changes only the order of blocks, not what any block moves.
// Instances: Br, Bc, d in {64, 128}, storage fp16 or bf16.
// Gained (H200, scripts/gpu-bench.sh, docs/results/h200-2026-11-21-gpu-bench-before-v7.txt): at N = 1024,
// non-causal, 192.5 TFLOP/s at d = 64 and 219.8 at d = 128, 36-37x version 2;
// at N = 4096, 0.66x PyTorch's FlashAttention-2 (225.3 against 340.2 at
// d = 128). Its warps own 16 rows each, so every K or V fragment feeds one
// mma.sync: version 6 shows what that costs.
#include "mma.cuh"

namespace fasim::cuda::kernels {

namespace {

template <class T, int BR, int BC, int D>
__global__ void __launch_bounds__(BR * 2) flash2_mma_kernel(Params p) {
  constexpr int kThreadsMma = BR * 2;  // BR / 16 warps, 16 query rows each
  constexpr int LD = D + 8;            // shared row stride in elements (+16 B)
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
  const std::size_t head = static_cast<std::size_t>(bh) * n;
  const T* Q = static_cast<const T*>(p.q) + (head + r0) * D;
  const T* K = static_cast<const T*>(p.k) + head * D;
  const T* V = static_cast<const T*>(p.v) + head * D;
  const float scale_log2 = p.scale * 1.4426950408889634f;  // exp(x) = exp2(x log2 e)

  copy_tile_async<T, BR, D, LD, kThreadsMma>(sq, Q, rows, p.counters, kQ);
  cp_async_commit();
  copy_tile_async<T, BC, D, LD, kThreadsMma>(sk, K, min(BC, n), p.counters, kK);
  cp_async_commit();

  float o[D / 8][4] = {};             // (16, d) of this warp, unnormalised
  float m_run[2] = {-INFINITY, -INFINITY};  // rows g, g + 8: running max of S log2 e
  float l_run[2] = {0, 0};            // this thread's part of the running sums

  for (int j = 0; j < tc; ++j) {
    const int c0 = j * BC, cols = min(BC, n - c0);
    copy_tile_async<T, BC, D, LD, kThreadsMma>(sv, V + static_cast<std::size_t>(c0) * D, cols,
                                               p.counters, kV);
    cp_async_commit();
    cp_async_wait<1>();  // Q_i and K_j have landed (V_j may still be in flight)
    __syncthreads();

    float s[BC / 8][4] = {};  // (16, Bc) S of this warp
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      unsigned a[4];
      ldmatrix_x4(a, sq + (warp * 16 + (lane & 15)) * LD + kk * 16 + (lane >> 4) * 8);
#pragma unroll
      for (int nt = 0; nt < BC / 16; ++nt) {
        unsigned b[4];
        ldmatrix_x4(b, sk + (nt * 16 + (lane & 7) + ((lane >> 4) << 3)) * LD + kk * 16 +
                           ((lane >> 3) & 1) * 8);
        mma<T>(s[2 * nt], a, b[0], b[1]);
        mma<T>(s[2 * nt + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // every warp is done with K_j: start K_{j+1}
    if (j + 1 < tc)
      copy_tile_async<T, BC, D, LD, kThreadsMma>(sk, K + static_cast<std::size_t>(c0 + BC) * D,
                                                 min(BC, n - c0 - BC), p.counters, kK);
    cp_async_commit();  // possibly empty: keeps the group count uniform

    // Online softmax on rows g (h = 0) and g + 8 (h = 1), in the log2 domain.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // Columns c < seen are this row's keys: the ragged tile ends at cols;
      // causal hides c0 + c > row. Key 0 is in every row's first tile, so
      // m_new is finite from the first tile on (padding rows too: they are
      // past N and see every real key).
      const int row = r0 + warp * 16 + g + 8 * h;
      const int seen = p.causal ? min(cols, row - c0 + 1) : cols;
      float mx = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < BC / 8; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[nt][2 * h + e];
          x = nt * 8 + tig * 2 + e < seen ? x * scale_log2 : -INFINITY;  // mask
          mx = fmaxf(mx, x);
        }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m_run[h], mx);
      const float alpha = exp2f(m_run[h] - m_new);  // 0 on the first block
      float sum = 0;
#pragma unroll
      for (int nt = 0; nt < BC / 8; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[nt][2 * h + e];
          x = exp2f(x - m_new);
          sum += x;
        }
      l_run[h] = alpha * l_run[h] + sum;
      m_run[h] = m_new;
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) o[dt][2 * h] *= alpha, o[dt][2 * h + 1] *= alpha;
    }

    cp_async_wait<1>();  // V_j has landed (K_{j+1} may still be in flight)
    __syncthreads();
#pragma unroll
    for (int kt = 0; kt < BC / 16; ++kt) {  // O += P V_j, P from the S registers
      const unsigned a[4] = {pack<T>(s[2 * kt][0], s[2 * kt][1]), pack<T>(s[2 * kt][2], s[2 * kt][3]),
                             pack<T>(s[2 * kt + 1][0], s[2 * kt + 1][1]),
                             pack<T>(s[2 * kt + 1][2], s[2 * kt + 1][3])};
#pragma unroll
      for (int dt = 0; dt < D / 16; ++dt) {
        unsigned b[4];
        ldmatrix_x4_trans(b, sv + (kt * 16 + (lane & 15)) * LD + dt * 16 + (lane >> 4) * 8);
        mma<T>(o[2 * dt], a, b[0], b[1]);
        mma<T>(o[2 * dt + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // every warp is done with V_j before the next copy
  }

  // O = O / l, L = m + log l, for the real rows only. O goes through this
  // warp's own rows of the Q tile (Q is no longer needed), so that HBM sees
  // whole 16-byte stores: straight from the accumulators each thread would
  // write 4 bytes, and every 32-byte sector would be written in two halves.
  T* O = static_cast<T*>(p.o) + (head + r0) * D;
  T* so = sq + warp * 16 * LD;  // (16, d) of this warp
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float l = l_run[h];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const float inv = 1.0f / l;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt)
      *reinterpret_cast<unsigned*>(so + (g + 8 * h) * LD + dt * 8 + tig * 2) =
          pack<T>(o[dt][2 * h] * inv, o[dt][2 * h + 1] * inv);
    const int r = warp * 16 + g + 8 * h;
    if (r < rows && tig == 0) p.lse[head + r0 + r] = m_run[h] / 1.4426950408889634f + logf(l);
  }
  __syncwarp();
  constexpr int kChunks = D * static_cast<int>(sizeof(T)) / 16;  // 16 B stores per row
  for (int idx = lane; idx < 16 * kChunks; idx += 32) {
    const int r = idx / kChunks, ch = idx % kChunks;
    if (warp * 16 + r < rows)
      *reinterpret_cast<uint4*>(O + static_cast<std::size_t>(warp * 16 + r) * D + ch * 8) =
          *reinterpret_cast<const uint4*>(so + r * LD + ch * 8);
  }
  tally(p.counters, kO, kWrite, rows, D, sizeof(T));
  tally(p.counters, kLse, kWrite, rows, 1, sizeof(float));
}

template <class T, int BR, int BC, int D>
cudaError_t launch_instance(const Params& p, cudaStream_t stream) {
  return launch(flash2_mma_kernel<T, BR, BC, D>, p.bh * ceil_div(p.n, BR), BR * 2,
                shared_bytes_flash2_mma(p), stream, p);
}

template <class T, int BR, int BC>
cudaError_t by_d(const Params& p, cudaStream_t s) {
  return p.d == 64 ? launch_instance<T, BR, BC, 64>(p, s) : launch_instance<T, BR, BC, 128>(p, s);
}
template <class T, int BR>
cudaError_t by_bc(const Params& p, cudaStream_t s) {
  return p.bc == 64 ? by_d<T, BR, 64>(p, s) : by_d<T, BR, 128>(p, s);
}
template <class T>
cudaError_t by_br(const Params& p, cudaStream_t s) {
  return p.br == 64 ? by_bc<T, 64>(p, s) : by_bc<T, 128>(p, s);
}

}  // namespace

bool flash2_mma_supports(const Params& p) {
  auto in = [](int x) { return x == 64 || x == 128; };
  return p.storage != kFp32 && in(p.br) && in(p.bc) && in(p.d);
}

std::size_t shared_bytes_flash2_mma(const Params& p) {
  return static_cast<std::size_t>(p.br + 2 * p.bc) * (p.d + 8) * 2;  // Q_i, K_j, V_j, padded
}

cudaError_t launch_flash2_mma(const Params& p, cudaStream_t stream) {
  if (!flash2_mma_supports(p)) return cudaErrorInvalidValue;
  return p.storage == kFp16 ? by_br<__half>(p, stream) : by_br<__nv_bfloat16>(p, stream);
}

cudaError_t probe_kernel_image() {
  cudaFuncAttributes attr{};
  return cudaFuncGetAttributes(&attr, flash2_mma_kernel<__half, 64, 64, 64>);
}

}  // namespace fasim::cuda::kernels
