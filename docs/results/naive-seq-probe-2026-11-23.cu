// naive-sequence probe (written 2026-11-23): naive attention's bytes without
// its arithmetic, to see which part of the softmax kernel the L2 model gets
// wrong.
//
// naive fp16, N = 1024, d = 64, 16 heads, Br = Bc = 128 (S and P 32 MiB each)
// reads 11% more from DRAM in fasim's model than on an H200 or H100, and ncu
// per kernel (h200-2026-11-23-naive-kernels.txt) puts the whole gap in the
// softmax kernel: it reads S twice (pass 1: m and l; pass 2: P = exp(S - m) / l,
// written chunk by chunk), and the model misses 20.9 MB where the GPU misses
// 13.0. This probe makes the same accesses, same addresses and same order,
// with plain loads and stores, and varies the softmax:
//   A  scores, softmax (pass 1, then pass 2 writing P), output   (naive)
//   B  scores, softmax with pass 2 alone (read S, write P), output
//   C  scores, softmax with both passes but no P written
//   D  scores, softmax writing P only (S not read), output
// Kernels (128 blocks of 256 threads, block b = head b / 8, query block b % 8;
// chunk c = rows of the block x keys 128c .. 128c + 127):
//   scores<1>   read Q_b; for c: read K_c, write S chunk c
//   softmax<1>  [pass 1: read S chunks 0..7]; pass 2: for c: [read S chunk c], [write P chunk c]
//   output<1>   for c: read P chunk c, read V_c; write O_b
// Every sequence starts after flush() (two reads of a 240 MiB scratch
// buffer) and runs twice; ncu reads each kernel's DRAM bytes.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o nseq naive-seq-probe-2026-11-23.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base function \
//            --kernel-name regex:'scores_k|softmax_k|output_k' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./nseq
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)
__device__ unsigned long long g_sink;
constexpr int kN = 1024, kD = 64, kB = 128, kHeads = 16;  // fp16: 2 bytes an element
constexpr int kRowVec = kB * 2 / 16;                      // uint4 per chunk row (256 B)

// A (rows x 256 B) chunk of an (N x N) fp16 matrix of head h at rows r0, keys c0.
__device__ uint4* chunk(uint4* m, int h, int r0, int c0) {
  return m + (static_cast<size_t>(h) * kN * kN + static_cast<size_t>(r0) * kN + c0) * 2 / 16;
}
__device__ unsigned read_chunk(const uint4* p) {
  unsigned acc = 0;
  for (int i = threadIdx.x; i < kB * kRowVec; i += blockDim.x) {
    const uint4 x = __ldcg(p + static_cast<size_t>(i / kRowVec) * (kN * 2 / 16) + i % kRowVec);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  return acc;
}
__device__ void write_chunk(uint4* p, unsigned v) {
  for (int i = threadIdx.x; i < kB * kRowVec; i += blockDim.x)
    p[static_cast<size_t>(i / kRowVec) * (kN * 2 / 16) + i % kRowVec] = make_uint4(v, i, 0, 0);
}
// A (128 x d) fp16 tile of a (N x d) matrix: contiguous, 16 KiB.
__device__ unsigned read_tile(const uint4* p, int h, int r0) {
  const uint4* t = p + (static_cast<size_t>(h) * kN + r0) * kD * 2 / 16;
  unsigned acc = 0;
  for (int i = threadIdx.x; i < kB * kD * 2 / 16; i += blockDim.x) { const uint4 x = __ldcg(t + i); acc ^= x.x ^ x.y ^ x.z ^ x.w; }
  return acc;
}
template <int K>
__global__ void scores_k(const uint4* q, const uint4* k, uint4* s) {
  const int h = blockIdx.x / (kN / kB), r0 = blockIdx.x % (kN / kB) * kB;
  unsigned acc = read_tile(q, h, r0);
  for (int c0 = 0; c0 < kN; c0 += kB) {
    acc ^= read_tile(k, h, c0);
    __syncthreads();
    write_chunk(chunk(s, h, r0, c0), acc);
  }
}
template <int K>
__global__ void softmax_k(const uint4* s, uint4* p, int pass1, int read2, int write2) {
  const int h = blockIdx.x / (kN / kB), r0 = blockIdx.x % (kN / kB) * kB;
  unsigned acc = 0;
  if (pass1)
    for (int c0 = 0; c0 < kN; c0 += kB) acc ^= read_chunk(chunk(const_cast<uint4*>(s), h, r0, c0));
  for (int c0 = 0; c0 < kN; c0 += kB) {
    if (read2) acc ^= read_chunk(chunk(const_cast<uint4*>(s), h, r0, c0));
    __syncthreads();
    if (write2) write_chunk(chunk(p, h, r0, c0), acc);
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}
template <int K>
__global__ void output_k(const uint4* p, const uint4* v, uint4* o) {
  const int h = blockIdx.x / (kN / kB), r0 = blockIdx.x % (kN / kB) * kB;
  unsigned acc = 0;
  for (int c0 = 0; c0 < kN; c0 += kB) {
    acc ^= read_chunk(chunk(const_cast<uint4*>(p), h, r0, c0));
    acc ^= read_tile(v, h, c0);
  }
  uint4* t = o + (static_cast<size_t>(h) * kN + r0) * kD * 2 / 16;
  for (int i = threadIdx.x; i < kB * kD * 2 / 16; i += blockDim.x) t[i] = make_uint4(acc, i, 0, 0);
}
__global__ void rd_k(const uint4* __restrict__ p, size_t n) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) { const uint4 x = __ldcg(p + i); acc ^= x.x ^ x.y ^ x.z ^ x.w; }
  if (acc == 0x9E3779B9u) g_sink = acc;
}
namespace {
constexpr size_t kMiB = size_t{1} << 20;
int sms = 0;
char* scratch = nullptr;
void flush() {
  for (int p = 0; p < 2; ++p) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}
}  // namespace
int main() {
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("SMS %d L2 %d\n", sms, l2);
  const size_t qkv = size_t{kHeads} * kN * kD * 2, sp = size_t{kHeads} * kN * kN * 2;
  uint4 *q, *k, *v, *o, *s, *p;  // separate cudaMallocs, in fasim's order
  for (uint4** x : {&q, &k, &v, &o}) { CK(cudaMalloc(x, qkv)); CK(cudaMemset(*x, 1, qkv)); }
  CK(cudaMalloc(&s, sp)); CK(cudaMemset(s, 1, sp));
  CK(cudaMalloc(&p, sp)); CK(cudaMemset(p, 1, sp));
  CK(cudaMalloc(&scratch, 240 * kMiB)); CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  struct Seq { const char* name; int pass1, read2, write2, output; };
  const Seq seqs[] = {{"A naive", 1, 1, 1, 1}, {"B pass 2 alone", 0, 1, 1, 1},
                      {"C no P written", 1, 1, 0, 0}, {"D P written, S not read", 0, 0, 1, 1}};
  int seq = 0;
  for (int rep = 0; rep < 2; ++rep)
    for (const Seq& x : seqs) {
      flush();
      std::printf("SEQ %d %s\n", seq++, x.name);
      scores_k<1><<<kHeads * kN / kB, 256>>>(q, k, s);
      softmax_k<1><<<kHeads * kN / kB, 256>>>(s, p, x.pass1, x.read2, x.write2);
      if (x.output) output_k<1><<<kHeads * kN / kB, 256>>>(p, v, o);
      CK(cudaDeviceSynchronize());
    }
  std::printf("DONE %d sequences\n", seq);
}
