// phase probe (written 2026-11-23): is it the clock or the blocks' phase?
//
// The pace-split probe (h200-2026-11-23-pace-split.md) found that a pause per
// tile makes flash1's pattern miss more in every mode (read-then-write O,
// read-only O, write-only O), and that with the pause the 16 blocks move in
// step (their pass starts spread over 0.3 passes, against 4 to 28 without).
// Two causes fit that: the time between uses (some ageing by the clock), or
// the phase (all blocks touching the same offset of their own head at once).
// This probe takes the clock out: no pause, and the blocks held in step by a
// barrier after every tile. And it takes the phase out: in step, but block b
// starts its tiles at b x tiles / 16 (rotated), so at any moment the blocks
// touch 16 different offsets. Configurations, each at R = 16 and 20, with O
// read then written (RW, flash1) and O only read (RO):
//   free          no barrier, no pause          (the pace-split probe's first column)
//   sync          barrier after every tile      (in step, no clock)
//   sync-rot      barrier, tiles rotated        (in step in time, out of phase in address)
//   free-rot      no barrier, tiles rotated     (control for the rotation)
//   pause         no barrier, pause 22000       (the pace-split probe's second column)
//   sync-rot-pause barrier, rotated, pause 22000 (the clock without the phase)
// What the outcomes mean:
//   - sync misses as pause does, sync-rot as free: the phase, not the clock;
//   - sync as free, sync-rot-pause as pause: the clock, not the phase.
// 16 blocks placed as flash1's (its shared memory), one per head, 16 KiB
// tiles, Q at 0, O at 64 MiB, K and V at 128 MiB of one pool; every probe
// after flush() (two reads of a 240 MiB scratch buffer); probe 0 is a
// warm-up and is not read. The whole set runs twice.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o phase phase-probe-2026-11-23.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./phase
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)
__device__ unsigned long long g_sink;
constexpr int kTileWords = 16 * 1024 / 16;  // 16 KiB of uint4
enum Mode : int { RW = 0, RO = 1 };

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
// A barrier over the grid (16 blocks, all resident: 132 SMs): the last block
// to arrive resets the count and bumps the generation the others spin on.
__device__ void grid_sync(unsigned* count, volatile unsigned* gen) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned g = *gen;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      *count = 0;
      __threadfence();
      atomicAdd(const_cast<unsigned*>(gen), 1u);
    } else {
      while (*gen == g) {}
    }
    __threadfence();
  }
  __syncthreads();
}
// Only the instantiation <1> is profiled (the ncu filter).
template <int K>
__global__ void phase_k(const uint4* __restrict__ q, uint4* __restrict__ o, const uint4* __restrict__ kv, int tiles,
                        int passes, int mode, int sync, int rotate, long long pause, unsigned* bar,
                        unsigned long long* starts) {
  extern __shared__ unsigned keep[];
  const size_t head = static_cast<size_t>(blockIdx.x) * tiles * kTileWords;
  const int first = rotate ? static_cast<int>(blockIdx.x) * tiles / static_cast<int>(gridDim.x) : 0;
  unsigned acc = 0;
  for (int j = 0; j < passes; ++j) {
    if (threadIdx.x == 0) starts[static_cast<size_t>(j) * gridDim.x + blockIdx.x] = now_ns();
    acc ^= read_tile(kv + 2 * head + static_cast<size_t>(j) * kTileWords);
    acc ^= read_tile(kv + 2 * head + static_cast<size_t>(tiles + j) * kTileWords);
    for (int t = 0; t < tiles; ++t) {
      const int i = (first + t) % tiles;
      acc ^= read_tile(q + head + static_cast<size_t>(i) * kTileWords);
      uint4* out = o + head + static_cast<size_t>(i) * kTileWords;
      if (mode == RO) {
        if (j > 0) acc ^= read_tile(out);
      } else {
        for (int w = threadIdx.x; w < kTileWords; w += blockDim.x) {
          uint4 y = j > 0 ? __ldcg(out + w) : make_uint4(j, i, w, 0);
          y.x += acc;
          out[w] = y;
        }
      }
      if (pause > 0) wait_cycles(pause);
      if (sync) grid_sync(bar, bar + 32);
      else __syncthreads();
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
unsigned* d_bar = nullptr;
constexpr int kMaxPasses = 128;
struct Config { const char* name; int sync, rotate; long long pause; };
void probe(char* q, char* o, char* kv, int r, int mode, const Config& c) {
  static const char* names[] = {"RW", "RO"};
  const int tiles = r * 64 / 16;  // 16 KiB tiles per head: R MiB of Q over 16 heads
  const int passes = tiles;       // one key block per query tile, as flash1 at these shapes
  CK(cudaMemset(d_bar, 0, 64 * sizeof(unsigned)));
  flush();
  std::printf("PROBE %d %s R=%d passes=%d %s\n", probes++, names[mode], r, passes, c.name);
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  phase_k<1><<<kBlocks, 256, kShared>>>(reinterpret_cast<const uint4*>(q), reinterpret_cast<uint4*>(o),
                                        reinterpret_cast<const uint4*>(kv), tiles, passes, mode, c.sync, c.rotate,
                                        c.pause, d_bar, d_starts);
  CK(cudaEventRecord(b)); CK(cudaDeviceSynchronize());
  float ms = 0; CK(cudaEventElapsedTime(&ms, a, b));
  static unsigned long long st[kMaxPasses * kBlocks];
  CK(cudaMemcpy(st, d_starts, sizeof(unsigned long long) * passes * kBlocks, cudaMemcpyDeviceToHost));
  double pass_ns = 0;
  for (int blk = 0; blk < kBlocks; ++blk) pass_ns += double(st[(passes - 1) * kBlocks + blk] - st[blk]) / (passes - 1);
  pass_ns /= kBlocks;
  std::printf("PHASE %d time %.3f ms pass %.1f us; spread of pass starts over the blocks, in passes:", probes - 1, ms,
              pass_ns / 1e3);
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
  CK(cudaFuncSetAttribute(phase_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  char* pool = nullptr;  // Q at 0, O at 64 MiB, K and V at 128 MiB: the pace probes' layout A
  CK(cudaMalloc(&pool, 256 * kMiB)); CK(cudaMemset(pool, 1, 256 * kMiB));
  CK(cudaMalloc(&scratch, 240 * kMiB)); CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  char *q = pool, *o = pool + 64 * kMiB, *kv = pool + 128 * kMiB;
  CK(cudaMalloc(&d_starts, sizeof(unsigned long long) * kMaxPasses * kBlocks));
  CK(cudaMalloc(&d_bar, 64 * sizeof(unsigned)));
  const Config configs[] = {{"free", 0, 0, 0},         {"sync", 1, 0, 0},   {"sync-rot", 1, 1, 0},
                            {"free-rot", 0, 1, 0},     {"pause", 0, 0, 22000}, {"sync-rot-pause", 1, 1, 22000}};
  probe(q, o, kv, 16, RW, configs[0]);  // warm-up, not read
  for (int rep = 0; rep < 2; ++rep)  // twice, to see how well a count repeats
    for (int r : {16, 20})
      for (int mode : {RW, RO})
        for (const Config& c : configs) probe(q, o, kv, r, mode, c);
  std::printf("DONE %d probes\n", probes);
}
