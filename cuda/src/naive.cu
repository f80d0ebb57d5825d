// Version 1: standard attention as three kernels, the schedule of
// sim/src/algorithms/naive.cpp. S and P go through HBM in the storage type.
//   kernel 1  block per (head, query block i): load Q_i once; for every key
//             block j: load K_j, S_ij = scale * Q_i K_j^T, store S_ij.
//   kernel 2  block per (head, query block i): P = softmax(S) over its Br rows.
//             rows_fit (the simulator's naive::softmax_rows_fit): load the Br
//             full rows chunk by chunk into shared memory, one pass, store P.
//             Otherwise pass 1 reads (Br, Bc) chunks for the running max and
//             sum, pass 2 reads them again and writes P.
//   kernel 3  block per (head, query block i): for every j load P_ij and V_j,
//             O_i += P_ij V_j; store O_i.
// Arithmetic is fp32; tiles are widened to fp32 in shared memory, except the
// softmax rows, which stay in the storage type as the simulator sizes them.
// Causal: as the simulator's naive (and PyTorch's eager code, which adds the
// mask to S), kernels 1 and 3 compute every tile; kernel 2 hides keys j > i
// (p = 0), so a causal run moves exactly the bytes of a plain one.
// Measured (H200, scripts/gpu-bench.sh, fp16 storage, N = 1024, non-causal,
// docs/results/h200-2026-11-21-gpu-bench-before-v7.txt): 4.0 TFLOP/s at d = 64, 4.6 at d = 128.
// The baseline every other version is measured against.
#include "tiles.cuh"

namespace fasim::cuda::kernels {

namespace {

struct Block {
  int bh, r0, rows;  // head, first query row, real rows of this query block
};

__device__ Block query_block(const Params& p) {
  const int tr = ceil_div(p.n, p.br);
  const int i = blockIdx.x % tr;
  return {static_cast<int>(blockIdx.x / tr), i * p.br, min(p.br, p.n - i * p.br)};
}

/// Keys query row `row` sees: keys 0 .. keys_seen - 1.
__device__ int keys_seen(const Params& p, int row) { return p.causal ? min(p.n, row + 1) : p.n; }

template <class T>
__global__ void __launch_bounds__(kThreads) scores_kernel(Params p) {
  extern __shared__ float smem[];
  const auto [bh, r0, rows] = query_block(p);
  const int n = p.n, d = p.d, k_ld = d + 1;  // K rows padded: column reads hit distinct banks
  float* q = smem;            // (Br, d)
  float* k = q + p.br * d;    // (Bc, d + 1)
  const std::size_t head = static_cast<std::size_t>(bh) * n;
  T* S = static_cast<T*>(p.s) + head * n;  // (N, N) of this head

  load_tile(q, d, static_cast<const T*>(p.q) + (head + r0) * d, d, rows, d, p.counters, kQ);
  for (int c0 = 0; c0 < n; c0 += p.bc) {
    const int cols = min(p.bc, n - c0);
    __syncthreads();  // every thread is done with the previous K_j
    load_tile(k, k_ld, static_cast<const T*>(p.k) + (head + c0) * d, d, cols, d, p.counters, kK);
    __syncthreads();
    // S_ij = scale * Q_i K_j^T, straight from registers to HBM. (rows, cols)
    for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x) {
      const int r = idx / cols, c = idx % cols;
      float acc = 0;
      for (int x = 0; x < d; ++x) acc = fmaf(q[r * d + x], k[c * k_ld + x], acc);
      S[static_cast<std::size_t>(r0 + r) * n + c0 + c] = from_float<T>(acc * p.scale);
    }
    tally(p.counters, kS, kWrite, rows, cols, sizeof(T));
  }
}

// P = exp(s - m) / l for one (rows, cols) chunk held in shared memory, to HBM;
// 0 for the keys a row does not see.
template <class T>
__device__ void store_probabilities(const Params& p, T* P, int r0, int c0, const T* s, int s_ld, int rows,
                                    int cols, const float* m, const float* l) {
  const int n = p.n;
  for (int idx = threadIdx.x; idx < rows * cols; idx += blockDim.x) {
    const int r = idx / cols, c = idx % cols;
    const float x = c0 + c < keys_seen(p, r0 + r) ? expf(to_float<T>(s[r * s_ld + c]) - m[r]) / l[r] : 0.0f;
    P[static_cast<std::size_t>(r0 + r) * n + c0 + c] = from_float<T>(x);
  }
  tally(p.counters, kP, kWrite, rows, cols, sizeof(T));
}

template <class T>
__global__ void __launch_bounds__(kThreads) softmax_kernel(Params p) {
  extern __shared__ float smem[];
  const auto [bh, r0, rows] = query_block(p);
  const int n = p.n, warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  float* m = smem;             // (Br) running row max
  float* l = m + p.br;         // (Br) running row sum
  T* s = reinterpret_cast<T*>(l + p.br);  // (Br, N) if rows_fit, else (Br, Bc)
  const std::size_t head = static_cast<std::size_t>(bh) * n;
  const T* S = static_cast<const T*>(p.s) + head * n;
  T* P = static_cast<T*>(p.p) + head * n;

  if (p.rows_fit) {
    for (int c0 = 0; c0 < n; c0 += p.bc)  // S_i, chunk by chunk, into one (Br, N) tile
      load_tile_raw(s + c0, n, S + static_cast<std::size_t>(r0) * n + c0, n, rows,
                    min(p.bc, n - c0), p.counters, kS);
    __syncthreads();
    for (int r = warp; r < rows; r += warps) {  // one warp per row: max, then sum
      const int seen = keys_seen(p, r0 + r);
      float mx = -INFINITY, sum = 0;
      for (int c = lane; c < seen; c += 32) mx = fmaxf(mx, to_float<T>(s[r * n + c]));
      mx = warp_max(mx);
      for (int c = lane; c < seen; c += 32) sum += expf(to_float<T>(s[r * n + c]) - mx);
      sum = warp_sum(sum);
      if (lane == 0) m[r] = mx, l[r] = sum;
    }
    __syncthreads();
    for (int c0 = 0; c0 < n; c0 += p.bc)
      store_probabilities(p, P, r0, c0, s + c0, n, rows, min(p.bc, n - c0), m, l);
    return;
  }

  for (int r = threadIdx.x; r < rows; r += blockDim.x) m[r] = -INFINITY, l[r] = 0;
  for (int c0 = 0; c0 < n; c0 += p.bc) {  // pass 1: m and l online
    const int cols = min(p.bc, n - c0);
    __syncthreads();
    load_tile_raw(s, p.bc, S + static_cast<std::size_t>(r0) * n + c0, n, rows, cols, p.counters, kS);
    __syncthreads();
    for (int r = warp; r < rows; r += warps) {
      // Columns c < seen are this row's keys; the first chunk holds key 0, so m is finite after it.
      const int seen = max(0, min(cols, keys_seen(p, r0 + r) - c0));
      float mx = -INFINITY, sum = 0;
      for (int c = lane; c < seen; c += 32) mx = fmaxf(mx, to_float<T>(s[r * p.bc + c]));
      mx = fmaxf(warp_max(mx), m[r]);  // m' = max(m, rowmax S_ij)
      for (int c = lane; c < seen; c += 32) sum += expf(to_float<T>(s[r * p.bc + c]) - mx);
      sum = warp_sum(sum);
      if (lane == 0) l[r] = l[r] * expf(m[r] - mx) + sum, m[r] = mx;  // l' = e^(m - m') l + rowsum
    }
  }
  for (int c0 = 0; c0 < n; c0 += p.bc) {  // pass 2: P = exp(S - m) / l
    const int cols = min(p.bc, n - c0);
    __syncthreads();
    load_tile_raw(s, p.bc, S + static_cast<std::size_t>(r0) * n + c0, n, rows, cols, p.counters, kS);
    __syncthreads();
    store_probabilities(p, P, r0, c0, s, p.bc, rows, cols, m, l);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) output_kernel(Params p) {
  extern __shared__ float smem[];
  const auto [bh, r0, rows] = query_block(p);
  const int n = p.n, d = p.d;
  float* pt = smem;            // (Br, Bc) P_ij
  float* vt = pt + p.br * p.bc;  // (Bc, d) V_j
  const std::size_t head = static_cast<std::size_t>(bh) * n;
  const T* P = static_cast<const T*>(p.p) + head * n;
  OutTile o;  // (Br, d) in registers
  o.zero();
  for (int c0 = 0; c0 < n; c0 += p.bc) {
    const int cols = min(p.bc, n - c0);
    __syncthreads();
    load_tile(pt, p.bc, P + static_cast<std::size_t>(r0) * n + c0, n, rows, cols, p.counters, kP);
    load_tile(vt, d, static_cast<const T*>(p.v) + (head + c0) * d, d, cols, d, p.counters, kV);
    __syncthreads();
    o.update(nullptr, nullptr, pt, p.bc, vt, rows, cols, d);  // O_i += P_ij V_j
  }
  o.store(static_cast<T*>(p.o) + (head + r0) * d, nullptr, rows, d, p.counters);
}

std::size_t shared_scores(const Params& p) { return sizeof(float) * (p.br * p.d + p.bc * (p.d + 1)); }
std::size_t shared_softmax(const Params& p) {
  const std::size_t b = p.storage == kFp32 ? 4 : 2;
  return 2 * sizeof(float) * p.br + b * p.br * (p.rows_fit ? p.n : p.bc);
}
std::size_t shared_output(const Params& p) { return sizeof(float) * (p.br * p.bc + p.bc * p.d); }

}  // namespace

std::size_t shared_bytes_naive(const Params& p) {
  const std::size_t a = shared_scores(p), b = shared_softmax(p), c = shared_output(p);
  return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

cudaError_t launch_naive(const Params& p, cudaStream_t stream) {
  const int grid = p.bh * ceil_div(p.n, p.br);
  cudaError_t e = cudaSuccess;
  FASIM_BY_STORAGE(p.storage, T,
    e = launch(scores_kernel<T>, grid, kThreads, shared_scores(p), stream, p);
    if (e == cudaSuccess) e = launch(softmax_kernel<T>, grid, kThreads, shared_softmax(p), stream, p);
    if (e == cudaSuccess) e = launch(output_kernel<T>, grid, kThreads, shared_output(p), stream, p))
  return e;
}

}  // namespace fasim::cuda::kernels
