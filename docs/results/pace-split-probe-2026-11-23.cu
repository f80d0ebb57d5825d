// pace-split probe (written 2026-11-23, not yet run): why does a slower
// kernel miss more at the L2's edge?
//
// h200-2026-11-23-flash1-pace-probe.cu showed that the same accesses in the
// same order miss more when each tile waits longer (R = 20: +41% DRAM reads,
// +78% writes from no pause to flash1's pace). The L2 does not write dirty
// lines back while DRAM idles (h200-2026-11-21-l2-probes.md, session 6), so
// the clock itself is not the cause. Two candidates remain:
//   (a) phase: with no pause the 16 blocks drift apart, with a long pause
//       they move in step, and the interleaving of their accesses changes
//       how long each line waits between uses; near the edge that moves
//       lines across the cliff;
//   (b) the read-then-write of one O line (flash1's update) is treated
//       differently from a plain read or a plain write.
// 16 blocks placed as flash1's (its shared memory), one per head, 16 KiB
// tiles; for every key block j a block reads K_j and V_j, then for every
// query tile i reads Q_i and then, by mode:
//   RW  reads O_i (j > 0) and writes it back   (flash1; the earlier probe's S)
//   RO  reads O_i (j > 0), never writes it       (O stays clean)
//   WO  writes O_i, never reads it               (O dirty, never read)
// and pauses `pause` cycles. Each block records the global timer at the start
// of every pass; the probe prints how far apart the blocks are (PHASE: the
// spread of pass starts over the blocks, in passes, at a quarter, half and
// the end of the run).
// What the outcomes mean:
//   - RO and WO grow with the pause as RW does, and the spread shrinks: (a);
//   - only RW grows: (b);
//   - the spread is small at every pause: not (a).
// Every probe starts after flush() (two reads of a 240 MiB scratch buffer).
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o psplit pace-split-probe-2026-11-23.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./psplit
#include <cuda_runtime.h>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)
__device__ unsigned long long g_sink;
constexpr int kTileWords = 16 * 1024 / 16;  // 16 KiB of uint4
enum Mode : int { RW = 0, RO = 1, WO = 2 };

__device__ unsigned read_tile(const uint4* p) {
  unsigned acc = 0;
  for (int i = threadIdx.x; i < kTileWords; i += blockDim.x) { const uint4 x = __ldcg(p + i); acc ^= x.x ^ x.y ^ x.z ^ x.w; }
  return acc;
}
__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ void wait_cycles(long long n) {
  const long long t0 = clock64();
  while (clock64() - t0 < n) {}
}
// Only the instantiation <1> is profiled (the ncu filter); <0> stays unused.
template <int K>
__global__ void split_k(const uint4* __restrict__ q, uint4* __restrict__ o, const uint4* __restrict__ kv, int tiles,
                        int passes, int mode, long long pause, unsigned long long* starts) {
  extern __shared__ unsigned keep[];
  const size_t head = static_cast<size_t>(blockIdx.x) * tiles * kTileWords;
  unsigned acc = 0;
  for (int j = 0; j < passes; ++j) {
    if (threadIdx.x == 0) starts[static_cast<size_t>(j) * gridDim.x + blockIdx.x] = now_ns();
    acc ^= read_tile(kv + 2 * head + static_cast<size_t>(j) * kTileWords);
    acc ^= read_tile(kv + 2 * head + static_cast<size_t>(tiles + j) * kTileWords);
    for (int i = 0; i < tiles; ++i) {
      acc ^= read_tile(q + head + static_cast<size_t>(i) * kTileWords);
      uint4* out = o + head + static_cast<size_t>(i) * kTileWords;
      if (mode == RO) {
        if (j > 0) acc ^= read_tile(out);
      } else {
        for (int w = threadIdx.x; w < kTileWords; w += blockDim.x) {
          uint4 y = (mode == RW && j > 0) ? __ldcg(out + w) : make_uint4(j, i, w, 0);
          y.x += acc;
          out[w] = y;
        }
      }
      if (pause > 0) wait_cycles(pause);
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) keep[0] = acc;
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}
__global__ void rd_k(const uint4* __restrict__ p, size_t n) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) { const uint4 x = __ldcg(p + i); acc ^= x.x ^ x.y ^ x.z ^ x.w; }
  if (acc == 0x9E3779B9u) g_sink = acc;
}
namespace {
constexpr size_t kMiB = size_t{1} << 20;
constexpr int kBlocks = 16, kShared = 115968;
int sms = 0, probes = 0;
char* scratch = nullptr;
void flush() {
  for (int p = 0; p < 2; ++p) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}
unsigned long long* d_starts = nullptr;
constexpr int kMaxPasses = 128;
void probe(char* q, char* o, char* kv, int r, int mode, long long pause) {
  static const char* names[] = {"RW", "RO", "WO"};
  const int tiles = r * 64 / 16;  // 16 KiB tiles per head: R MiB of Q over 16 heads
  const int passes = tiles;       // one key block per query tile, as flash1 at these shapes
  flush();
  std::printf("PROBE %d %s R=%d passes=%d pause=%lld\n", probes++, names[mode], r, passes, pause);
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  split_k<1><<<kBlocks, 256, kShared>>>(reinterpret_cast<const uint4*>(q), reinterpret_cast<uint4*>(o),
                                        reinterpret_cast<const uint4*>(kv), tiles, passes, mode, pause, d_starts);
  CK(cudaEventRecord(b)); CK(cudaDeviceSynchronize());
  float ms = 0; CK(cudaEventElapsedTime(&ms, a, b));
  std::printf("TIME %d %.3f ms\n", probes - 1, ms);
  static unsigned long long st[kMaxPasses * kBlocks];
  CK(cudaMemcpy(st, d_starts, sizeof(unsigned long long) * passes * kBlocks, cudaMemcpyDeviceToHost));
  // A pass's length: the mean over blocks of (last pass start - first) / (passes - 1).
  double pass_ns = 0;
  for (int blk = 0; blk < kBlocks; ++blk) pass_ns += double(st[(passes - 1) * kBlocks + blk] - st[blk]) / (passes - 1);
  pass_ns /= kBlocks;
  std::printf("PHASE %d pass %.1f us; spread of pass starts over the blocks, in passes:", probes - 1, pass_ns / 1e3);
  for (int j : {passes / 4, passes / 2, passes - 1}) {
    unsigned long long lo = ~0ull, hi = 0;
    for (int blk = 0; blk < kBlocks; ++blk) { lo = std::min(lo, st[j * kBlocks + blk]); hi = std::max(hi, st[j * kBlocks + blk]); }
    std::printf(" j=%d %.2f", j, double(hi - lo) / pass_ns);
  }
  std::printf("\n");
}
}  // namespace
int main() {
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("SMS %d L2 %d\n", sms, l2);
  CK(cudaFuncSetAttribute(split_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  char* pool = nullptr;  // Q at 0, O at 64 MiB, K and V at 128 MiB: the earlier probe's layout A
  CK(cudaMalloc(&pool, 256 * kMiB)); CK(cudaMemset(pool, 1, 256 * kMiB));
  CK(cudaMalloc(&scratch, 240 * kMiB)); CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  char *q = pool, *o = pool + 64 * kMiB, *kv = pool + 128 * kMiB;
  CK(cudaMalloc(&d_starts, sizeof(unsigned long long) * kMaxPasses * kBlocks));
  for (int r : {16, 20})
    for (int mode : {RW, RO, WO})
      for (long long pause : {0LL, 22000LL, 160000LL}) probe(q, o, kv, r, mode, pause);
  std::printf("DONE %d probes\n", probes);
}
