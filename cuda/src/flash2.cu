// Version 2: FlashAttention-2 forward with fp32 arithmetic, the schedule of
// sim/src/algorithms/flash2.cpp. One block per (head, query block i):
//   load Q_i; for every key block j: load K_j, V_j; S = scale * Q_i K_j^T;
//   online softmax m' = max(m, rowmax S), P = exp(S - m'), alpha = exp(m - m'),
//   l' = alpha l + rowsum P; O = alpha O + P V_j;
//   at the end O /= l once and L = m + log l; store O_i and L_i.
// P is rounded to the storage type before P V, as the simulator does (tensor
// cores take P in the storage type). Any Br, Bc, d with Br * d <= 16384.
// Causal: the block visits key blocks j = 0 .. (r0 + rows - 1) / Bc only, the
// tiles its rows see (the simulator's key_tiles); the tiles after them are
// never loaded or counted. In a tile on the diagonal, row i's keys j > i get
// p = 0 (score -inf). Key 0 is in every row's first tile, so the running max
// is finite from the first tile on and exp(-inf - m) = 0 never sees -inf - -inf.
// Gained (H200, scripts/gpu-bench.sh, fp16 storage, N = 1024, non-causal,
// docs/results/h200-2026-11-21-gpu-bench-before-v7.txt): 5.4 TFLOP/s at d = 64 and 5.9 at d = 128, 1.3x
// version 1. S and P never reach HBM, but the arithmetic is still one fp32
// multiply-add per two shared-memory reads: the shared-memory port, not HBM,
// now sets the pace.
#include "tiles.cuh"

namespace fasim::cuda::kernels {

namespace {

template <class T>
__global__ void __launch_bounds__(kThreads) flash2_kernel(Params p) {
  extern __shared__ float smem[];
  const int n = p.n, d = p.d, br = p.br, bc = p.bc, k_ld = d + 1;
  const int tr = ceil_div(n, br);
  const int bh = blockIdx.x / tr, r0 = (blockIdx.x % tr) * br, rows = min(br, n - r0);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  float* q = smem;               // (Br, d) Q_i
  float* k = q + br * d;         // (Bc, d + 1) K_j, rows padded against bank conflicts
  float* v = k + bc * k_ld;      // (Bc, d) V_j
  float* s = v + bc * d;         // (Br, Bc) S, then P
  float* m = s + br * bc;        // (Br) running max
  float* l = m + br;             // (Br) running sum
  float* alpha = l + br;         // (Br) this step's rescale exp(m - m')
  const std::size_t head = static_cast<std::size_t>(bh) * n;

  for (int r = threadIdx.x; r < br; r += blockDim.x) m[r] = -INFINITY, l[r] = 0;
  OutTile o;  // (Br, d) unnormalised output, in registers
  o.zero();
  load_tile(q, d, static_cast<const T*>(p.q) + (head + r0) * d, d, rows, d, p.counters, kQ);

  const int c_end = p.causal ? r0 + rows : n;  // causal: the last key the last row sees, + 1
  for (int c0 = 0; c0 < c_end; c0 += bc) {
    const int cols = min(bc, n - c0);
    __syncthreads();  // every thread is done with the previous K_j, V_j, P
    load_tile(k, k_ld, static_cast<const T*>(p.k) + (head + c0) * d, d, cols, d, p.counters, kK);
    load_tile(v, d, static_cast<const T*>(p.v) + (head + c0) * d, d, cols, d, p.counters, kV);
    __syncthreads();
    scores(s, bc, q, k, k_ld, rows, cols, d, p.scale);  // (rows, cols)
    __syncthreads();
    for (int r = warp; r < rows; r += warps) {  // online softmax, one warp per row
      // Columns c < seen are this row's keys; causal hides c0 + c > r0 + r.
      const int seen = p.causal ? max(0, min(cols, r0 + r - c0 + 1)) : cols;
      float mx = -INFINITY, sum = 0;
      for (int c = lane; c < seen; c += 32) mx = fmaxf(mx, s[r * bc + c]);
      const float m_new = fmaxf(warp_max(mx), m[r]);
      for (int c = lane; c < cols; c += 32) {
        const float e = c < seen ? expf(s[r * bc + c] - m_new) : 0.0f;
        sum += e;
        s[r * bc + c] = round_to<T>(e);
      }
      sum = warp_sum(sum);
      if (lane == 0) {
        const float a = expf(m[r] - m_new);  // 0 on the first block (m = -inf)
        alpha[r] = a, l[r] = a * l[r] + sum, m[r] = m_new;
      }
    }
    __syncthreads();
    o.update(alpha, nullptr, s, bc, v, rows, cols, d);  // O = alpha O + P V_j
  }

  // O = O / l; L = m + log l. m and l were last written before the barrier above.
  o.store(static_cast<T*>(p.o) + (head + r0) * d, l, rows, d, p.counters);
  for (int r = threadIdx.x; r < rows; r += blockDim.x) p.lse[head + r0 + r] = m[r] + logf(l[r]);
  tally(p.counters, kLse, kWrite, rows, 1, sizeof(float));
}

}  // namespace

std::size_t shared_bytes_flash2(const Params& p) {
  return sizeof(float) * (p.br * p.d + p.bc * (p.d + 1) + p.bc * p.d + p.br * p.bc + 3 * p.br);
}

cudaError_t launch_flash2(const Params& p, cudaStream_t stream) {
  const int grid = p.bh * ceil_div(p.n, p.br);
  cudaError_t e = cudaSuccess;
  FASIM_BY_STORAGE(p.storage, T,
    e = launch(flash2_kernel<T>, grid, kThreads, shared_bytes_flash2(p), stream, p))
  return e;
}

}  // namespace fasim::cuda::kernels
