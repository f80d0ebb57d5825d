// Version 3: FlashAttention (paper Algorithm 1) with fp32 arithmetic, the
// schedule of sim/src/algorithms/flash1.cpp. One block per head:
//   for every key block j: load K_j, V_j;
//     for every query block i: load Q_i; for j >= 1 load O_i, m_i, l_i (on the
//     first key block they start as 0, -inf, 0 on chip and nothing is read);
//     S = scale * Q_i K_j^T; m~ = rowmax S, P~ = exp(S - m~), l~ = rowsum P~;
//     m' = max(m, m~), l' = e^(m - m') l + e^(m~ - m') l~;
//     O = (l e^(m - m') O + e^(m~ - m') P~ V_j) / l'; store O_i, m_i, l_i.
// O_i lives in HBM in the storage type between key blocks, so it is rounded
// after every key block, as the paper's kernel and the simulator do.
// Causal: for key block j the block visits only the query blocks that see it,
// i >= floor(j Bc / Br) (the simulator's sees(i, j)); the others are skipped
// with no load or store. Every query block sees key block 0 (key 0), so j = 0
// is still each one's first block: nothing is read back there. With N_kv = N
// the last query block sees every key block, so every K_j, V_j is loaded. In
// a tile on the diagonal, row i's keys j > i get p~ = 0; a row that sees no
// key of the tile has m~ = -inf and keeps O, m, l (a = 1, c = 0).
// Measured (H200, scripts/gpu-bench.sh, fp16 storage, N = 1024, non-causal,
// docs/results/h200-2026-11-21-gpu-bench-before-v7.txt): 2.9 TFLOP/s at d = 64, 3.1 at d = 128: slower than
// version 2, as the paper's loop order predicts (one block per head, and O,
// m, l go back to HBM after every key block).
#include "tiles.cuh"

namespace fasim::cuda::kernels {

namespace {

template <class T>
__global__ void __launch_bounds__(kThreads) flash1_kernel(Params p) {
  extern __shared__ float smem[];
  const int n = p.n, d = p.d, br = p.br, bc = p.bc, k_ld = d + 1;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  float* k = smem;               // (Bc, d + 1) K_j, rows padded against bank conflicts
  float* v = k + bc * k_ld;      // (Bc, d) V_j
  float* q = v + bc * d;         // (Br, d) Q_i
  float* s = q + br * d;         // (Br, Bc) S, then P~
  float* m = s + br * bc;        // (Br) m_i
  float* l = m + br;             // (Br) l_i
  float* a = l + br;             // (Br) factor of the old O: l e^(m - m') / l'
  float* c = a + br;             // (Br) factor of P~ V: e^(m~ - m') / l'
  const std::size_t head = static_cast<std::size_t>(blockIdx.x) * n;
  T* O = static_cast<T*>(p.o) + head * d;
  float* M = p.m + head;
  float* L = p.l + head;

  for (int c0 = 0; c0 < n; c0 += bc) {
    const int cols = min(bc, n - c0);
    __syncthreads();  // every thread is done with the previous K_j, V_j
    load_tile(k, k_ld, static_cast<const T*>(p.k) + (head + c0) * d, d, cols, d, p.counters, kK);
    load_tile(v, d, static_cast<const T*>(p.v) + (head + c0) * d, d, cols, d, p.counters, kV);

    // Causal: the first query block with a row i >= c0 (query blocks before it see no key here).
    for (int r0 = p.causal ? c0 / br * br : 0; r0 < n; r0 += br) {
      const int rows = min(br, n - r0);
      __syncthreads();  // every thread is done with the previous Q_i, P~, m_i, l_i
      load_tile(q, d, static_cast<const T*>(p.q) + (head + r0) * d, d, rows, d, p.counters, kQ);
      OutTile o;  // (Br, d) O_i in registers
      if (c0 == 0) {
        o.zero();
        for (int r = threadIdx.x; r < rows; r += blockDim.x) m[r] = -INFINITY, l[r] = 0;
      } else {
        o.load(O + static_cast<std::size_t>(r0) * d, rows, d, p.counters);
        load_stats(m, M + r0, rows, p.counters, kM);
        load_stats(l, L + r0, rows, p.counters, kL);
      }
      __syncthreads();
      scores(s, bc, q, k, k_ld, rows, cols, d, p.scale);  // (rows, cols)
      __syncthreads();
      for (int r = warp; r < rows; r += warps) {  // one warp per row
        // Columns x < seen are this row's keys; causal hides c0 + x > r0 + r.
        const int seen = p.causal ? max(0, min(cols, r0 + r - c0 + 1)) : cols;
        float mt = -INFINITY, lt = 0;
        for (int x = lane; x < seen; x += 32) mt = fmaxf(mt, s[r * bc + x]);
        mt = warp_max(mt);
        for (int x = lane; x < cols; x += 32) {
          const float e = x < seen ? expf(s[r * bc + x] - mt) : 0.0f;
          lt += e;
          s[r * bc + x] = round_to<T>(e);
        }
        lt = warp_sum(lt);
        if (lane == 0) {
          const float m_new = fmaxf(m[r], mt);
          if (m_new == -INFINITY) {  // no key seen yet (cannot happen with N_kv = N): keep the state
            a[r] = 1, c[r] = 0;
            continue;
          }
          const float e_old = expf(m[r] - m_new), e_new = expf(mt - m_new);
          const float l_new = e_old * l[r] + e_new * lt;
          a[r] = l[r] * e_old / l_new, c[r] = e_new / l_new;
          m[r] = m_new, l[r] = l_new;
        }
      }
      __syncthreads();
      o.update(a, c, s, bc, v, rows, cols, d);  // O = a O + c P~ V_j
      o.store(O + static_cast<std::size_t>(r0) * d, nullptr, rows, d, p.counters);
      store_stats(M + r0, m, rows, p.counters, kM);
      store_stats(L + r0, l, rows, p.counters, kL);
    }
  }
}

}  // namespace

std::size_t shared_bytes_flash1(const Params& p) {
  return sizeof(float) * (p.bc * (p.d + 1) + p.bc * p.d + p.br * p.d + p.br * p.bc + 4 * p.br);
}

cudaError_t launch_flash1(const Params& p, cudaStream_t stream) {
  cudaError_t e = cudaSuccess;
  FASIM_BY_STORAGE(p.storage, T,
    e = launch(flash1_kernel<T>, p.bh, kThreads, shared_bytes_flash1(p), stream, p))
  return e;
}

}  // namespace fasim::cuda::kernels
