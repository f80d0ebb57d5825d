// flash1-pace probe: flash1's access pattern without flash1 (fp16, d = 128,
// Br = Bc = 64, 16 heads, so 16 KiB tiles), one block per head placed as
// flash1's blocks are (flash1's shared memory: SMs 124-131, 0, 2, ..., 14).
// Block b, for every key block j: reads K_j and V_j, then for every query
// tile i reads Q_i, reads O_i (from j = 1) and writes O_i back, then pauses
// `pause` cycles (flash1 computes about 79 us per tile on an H200).
// R MiB of Q and R of O in all (R = 16 is flash1 at N = 4096).
// Runs (each starts after flush(): two reads of a 240 MiB scratch buffer):
//   ./f1pace 22000        S: one kernel of all passes, R = 8 ... 24, pause 0 and 22000;
//                       S without K and V; M: one kernel per pass (as the lopsided probe)
//   ./f1pace 22000 pace   S at R = 14, 16, 20 with pauses 0, 0, 22000, 80000, 160000
//   ./f1pace 22000 layout R = 16 with Q, K, V, O at other places: one pool at two
//                       layouts (A, B), separate cudaMallocs as fasim makes them (C),
//                       plus flash1's m and l (D, E), and flash1's 2-byte accesses (N, NA)
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o f1pace h200-2026-11-23-flash1-pace-probe.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./f1pace 22000 [pace|layout]
// Results: h200-2026-11-23-flash1-pace-probe.csv, read in h200-2026-11-23-flash1-placement.md.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)
__device__ unsigned long long g_sink;
__device__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
constexpr int kTileWords = 16 * 1024 / 16;  // 16 KiB of uint4

__device__ unsigned read_tile(const uint4* p) {
  unsigned acc = 0;
  for (int i = threadIdx.x; i < kTileWords; i += blockDim.x) { const uint4 x = __ldcg(p + i); acc ^= x.x ^ x.y ^ x.z ^ x.w; }
  return acc;
}
// Block b: for key block j in [j0, j0 + passes): read K_j, V_j; for each query
// tile i: read Q_i, read O_i (j > 0), write O_i; then pause `pause` cycles.
template <int K>
__global__ void f1_k(const uint4* __restrict__ q, uint4* __restrict__ o, const uint4* __restrict__ kv, int tiles,
                     int j0, int passes, long long pause, unsigned* block_sm, float* ml) {
  extern __shared__ unsigned keep[];
  const size_t head = static_cast<size_t>(blockIdx.x) * tiles * kTileWords;
  unsigned acc = 0;
  for (int j = j0; j < j0 + passes; ++j) {
    if (kv != nullptr) {
      acc ^= read_tile(kv + 2 * head + static_cast<size_t>(j) * kTileWords);
      acc ^= read_tile(kv + 2 * head + static_cast<size_t>(tiles + j) * kTileWords);
    }
    for (int i = 0; i < tiles; ++i) {
      acc ^= read_tile(q + head + static_cast<size_t>(i) * kTileWords);
      uint4* out = o + head + static_cast<size_t>(i) * kTileWords;
      for (int w = threadIdx.x; w < kTileWords; w += blockDim.x) {
        uint4 y = j > 0 ? __ldcg(out + w) : make_uint4(0, 0, 0, 0);
        y.x += acc;
        out[w] = y;
      }
      if (ml != nullptr && threadIdx.x < 128) {  // m_i, l_i: 64 floats each, rows of this head
        float* st = ml + (threadIdx.x < 64 ? 0 : static_cast<size_t>(gridDim.x) * tiles * 64) +
                    (static_cast<size_t>(blockIdx.x) * tiles + i) * 64 + threadIdx.x % 64;
        const float x = j > 0 ? __ldcg(st) : 0.0f;
        *st = x + 1.0f;
      }
      if (pause > 0) {
        const long long t0 = clock64();
        while (clock64() - t0 < pause) {}
      }
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) { keep[0] = acc; block_sm[blockIdx.x] = smid(); }
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

// The same, with flash1's accesses: one 2-byte element per thread and load
// (a warp asks for 64 B, two sectors of a line), O stored after the pause.
template <int K>
__global__ void f1n_k(const unsigned short* __restrict__ q, unsigned short* __restrict__ o, const unsigned short* __restrict__ kv,
                      int tiles, int passes, long long pause, unsigned* block_sm) {
  constexpr int kTileElems = 16 * 1024 / 2;
  extern __shared__ unsigned keep[];
  const size_t head = static_cast<size_t>(blockIdx.x) * tiles * kTileElems;
  unsigned acc = 0;
  for (int j = 0; j < passes; ++j) {
    for (int t = 0; t < 2; ++t)
      for (int e = threadIdx.x; e < kTileElems; e += blockDim.x) acc ^= __ldcg(kv + 2 * head + static_cast<size_t>(t * tiles + j) * kTileElems + e);
    for (int i = 0; i < tiles; ++i) {
      __syncthreads();
      for (int e = threadIdx.x; e < kTileElems; e += blockDim.x) acc ^= __ldcg(q + head + static_cast<size_t>(i) * kTileElems + e);
      unsigned short* out = o + head + static_cast<size_t>(i) * kTileElems;
      unsigned short y[kTileElems / 256];
#pragma unroll
      for (int e = 0; e < kTileElems / 256; ++e) y[e] = j > 0 ? __ldcg(out + threadIdx.x + e * 256) : 0;
      if (pause > 0) { const long long t0 = clock64(); while (clock64() - t0 < pause) {} }
      __syncthreads();
#pragma unroll
      for (int e = 0; e < kTileElems / 256; ++e) out[threadIdx.x + e * 256] = static_cast<unsigned short>(y[e] + acc);
    }
  }
  if (threadIdx.x == 0) { keep[0] = acc; block_sm[blockIdx.x] = smid(); }
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
unsigned* block_sm = nullptr;
void flush() {
  for (int p = 0; p < 2; ++p) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}
float* g_ml = nullptr;
void launch_n(char* q, char* o, char* kv, int tiles, long long pause, const char* label) {
  std::printf("PROBE %d %s\n", probes++, label);
  f1n_k<1><<<kBlocks, 256, kShared>>>(reinterpret_cast<const unsigned short*>(q), reinterpret_cast<unsigned short*>(o),
                                      reinterpret_cast<const unsigned short*>(kv), tiles, tiles, pause, block_sm);
  CK(cudaDeviceSynchronize());
}
void launch(char* q, char* o, char* kv, int tiles, int j0, int passes, long long pause, const char* label) {
  std::printf("PROBE %d %s\n", probes++, label);
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  f1_k<1><<<kBlocks, 256, kShared>>>(reinterpret_cast<const uint4*>(q), reinterpret_cast<uint4*>(o),
                                     reinterpret_cast<const uint4*>(kv), tiles, j0, passes, pause, block_sm, g_ml);
  CK(cudaEventRecord(b)); CK(cudaDeviceSynchronize());
  float ms = 0; CK(cudaEventElapsedTime(&ms, a, b));
  std::printf("TIME %d %.3f ms\n", probes - 1, ms);
}
}  // namespace
int main(int argc, char** argv) {
  const long long pace = argc > 1 ? std::atoll(argv[1]) : 22000;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("SMS %d L2 %d pace %lld\n", sms, l2, pace);
  CK(cudaFuncSetAttribute(f1_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  CK(cudaFuncSetAttribute(f1n_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  char *pool = nullptr;
  CK(cudaMalloc(&pool, 256 * kMiB)); CK(cudaMemset(pool, 1, 256 * kMiB));
  CK(cudaMalloc(&scratch, 240 * kMiB)); CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  CK(cudaMalloc(&block_sm, kBlocks * sizeof(unsigned)));
  char *q = pool, *o = pool + 64 * kMiB, *kv = pool + 128 * kMiB;
  char label[160];
  if (argc > 2 && std::string(argv[2]) == "layout") {  // R = 16, 64 passes: where Q, K, V, O sit
    char *sq, *sk, *sv, *so;  // separate allocations, as fasim's runner makes them
    CK(cudaMalloc(&sq, 16 * kMiB)); CK(cudaMalloc(&sk, 32 * kMiB)); sv = sk + 16 * kMiB; CK(cudaMalloc(&so, 16 * kMiB));
    CK(cudaMemset(sq, 1, 16 * kMiB)); CK(cudaMemset(sk, 1, 32 * kMiB));
    float* ml = nullptr;
    CK(cudaMalloc(&ml, 2 * 16 * 4096 * sizeof(float)));
    std::printf("ADDR pool %p q %p k %p v %p o %p ml %p\n", (void*)pool, (void*)sq, (void*)sk, (void*)sv, (void*)so, (void*)ml);
    for (long long pause : {0LL, 160000LL}) {
      flush(); std::snprintf(label, sizeof label, "N separate narrow pause=%lld", pause); launch_n(sq, so, sk, 64, pause, label);
      flush(); std::snprintf(label, sizeof label, "C separate Q K V O pause=%lld", pause); launch(sq, so, sk, 64, 0, 64, pause, label);
      flush(); std::snprintf(label, sizeof label, "NA pool narrow pause=%lld", pause); launch_n(q, o, kv, 64, pause, label);
    }
    for (long long pause : {0LL, 160000LL}) {
      // kv here: K for head h at kv + 2h MiB; "kvsep" needs K and V in one region, so the
      // separate layout puts K and V in one 32 MiB allocation below.
      flush(); std::snprintf(label, sizeof label, "A pool Q0 O64 KV128 pause=%lld", pause); launch(q, o, kv, 64, 0, 64, pause, label);
      flush(); std::snprintf(label, sizeof label, "B pool Q0 KV16 O48 pause=%lld", pause); launch(pool, pool + 48 * kMiB, pool + 16 * kMiB, 64, 0, 64, pause, label);
      flush(); std::snprintf(label, sizeof label, "C separate Q K V O pause=%lld", pause); launch(sq, so, sk, 64, 0, 64, pause, label);
      g_ml = ml;
      flush(); std::snprintf(label, sizeof label, "D separate + m l pause=%lld", pause); launch(sq, so, sk, 64, 0, 64, pause, label);
      flush(); std::snprintf(label, sizeof label, "E pool Q0 O64 KV128 + m l pause=%lld", pause); launch(q, o, kv, 64, 0, 64, pause, label);
      g_ml = nullptr;
    }
  } else if (argc > 2) {
 // pace sweep: S at R in {14, 16, 20}, pauses 0, 0 (again), 22000, 80000, 160000
    for (int r : {14, 16, 20}) for (long long pause : {0LL, 0LL, 22000LL, 80000LL, 160000LL}) {
      const int tiles = r * 64 / 16;
      flush();
      std::snprintf(label, sizeof label, "S R=%d pause=%lld kv=1 passes=%d", r, pause, tiles);
      launch(q, o, kv, tiles, 0, tiles, pause, label);
    }
  } else {
    // S: one kernel of 64 passes, R MiB of Q and R of O (R / 16 per head), K and V streaming.
    for (int r : {8, 12, 16, 20, 24}) for (long long pause : {0LL, pace}) {
      const int tiles = r * 64 / 16;  // 16 KiB tiles per head
      flush();
      std::snprintf(label, sizeof label, "S R=%d pause=%lld kv=1 passes=%d", r, pause, tiles);
      launch(q, o, kv, tiles, 0, tiles, pause, label);
    }
    // S without K and V, R = 16.
    for (long long pause : {0LL, pace}) {
      flush();
      std::snprintf(label, sizeof label, "S R=16 pause=%lld kv=0 passes=64", pause);
      launch(q, o, nullptr, 64, 0, 64, pause, label);
    }
    // M: the same R = 16 pattern, one kernel per pass (8 passes), as the lopsided probe.
    for (long long pause : {0LL, pace}) {
      flush();
      for (int j = 0; j < 8; ++j) {
        std::snprintf(label, sizeof label, "M R=16 pause=%lld kv=1 pass=%d", pause, j);
        launch(q, o, kv, 64, j, 1, pause, label);
      }
    }
  }
  unsigned bs[kBlocks]; CK(cudaMemcpy(bs, block_sm, sizeof bs, cudaMemcpyDeviceToHost));
  std::printf("BLOCKS %d:", kBlocks); for (unsigned s : bs) std::printf(" %u", s);
  std::printf("\nDONE %d probes\n", probes);
}
