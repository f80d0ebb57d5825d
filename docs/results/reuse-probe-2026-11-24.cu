// Reuse probe (2026-11-24): does the L2 keep data that was used twice longer
// than data used once? An LRU cache does not care: a line's place depends only
// on when it was last used. A cache that protects re-used lines (as RRIP-style
// policies do) keeps A through more of the stream B when A was used twice.
// fasim's L2 model is LRU within each set (sim/include/fasim/l2_sets.hpp).
//
// Four sequences, each after a flush, A = 16 MiB, B from 0 to 48 MiB; every
// kernel deals 4 KiB chunks to its blocks the same way, so each line is
// touched by the same block every time:
//   U1  read A,           read B, read A   (A used once)
//   U2  read A, read A,   read B, read A   (A used twice)
//   U3  write A,          read B, read A   (A dirty, used once)
//   U4  write A, read A,  read B, read A   (A dirty, used twice)
// An LRU gives U1 = U2 and U3 = U4 in the last kernel's DRAM reads.
// Every sequence runs twice (rep 1, rep 2) in one process.
// With the argument `pace`: U3 (P3) and U1 (P1) again with B read slowly,
// each block pausing S ns after every 4 KiB chunk (S = 0, 2000, 20000):
// does a slow stream of reads evict written data sooner than a fast one?
// With the argument `share`: X MiB written (S1) or read (S0), then read by
// other blocks (each 4 KiB chunk by the block 37 further on, so by SMs of
// the other L2 half for many lines), then by the blocks 74 further on; and
// (S2) written, then read by the same blocks. Nothing else runs: does
// reading written data from another L2 half write it back?
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o reuse reuse-probe-2026-11-24.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./reuse
// Only kernels instantiated with <1> are profiled; "PROBE i label" names the i-th.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

template <int K>
__global__ void rd_k(const uint4* __restrict__ p, size_t n) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

template <int K>
__global__ void rd_shift_k(const uint4* __restrict__ p, size_t n, unsigned shift) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t block = (blockIdx.x + shift) % gridDim.x;  // the chunks of block `block`
  for (size_t i = block * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

template <int K>
__global__ void rd_slow_k(const uint4* __restrict__ p, size_t n, unsigned pause_ns) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
    __syncthreads();
    if (threadIdx.x == 0 && pause_ns > 0) __nanosleep(pause_ns);
    __syncthreads();
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

template <int K>
__global__ void wr_k(uint4* __restrict__ p, size_t n, unsigned v) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = make_uint4(v, v + 1, v + 2, static_cast<unsigned>(i));
}

namespace {
constexpr size_t kMiB = size_t{1} << 20;
int sms = 0;
int probes = 0;
char* scratch = nullptr;

void flush() {
  for (int pass = 0; pass < 2; ++pass) rd_k<0><<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}
void read(const char* p, size_t mib, const char* seq, int b, int rep, const char* what) {
  if (mib == 0) return;
  std::printf("PROBE %d %s B=%d rep=%d %s\n", probes++, seq, b, rep, what);
  rd_k<1><<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(p), mib * kMiB / 16);
  CK(cudaDeviceSynchronize());
}
void read_slow(const char* p, size_t mib, const char* seq, int b, unsigned pause, const char* what) {
  if (mib == 0) return;
  std::printf("PROBE %d %s B=%d rep=%u %s\n", probes++, seq, b, pause, what);
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  CK(cudaEventRecord(t0));
  rd_slow_k<1><<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(p), mib * kMiB / 16, pause);
  CK(cudaEventRecord(t1));
  CK(cudaDeviceSynchronize());
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, t0, t1));
  std::printf("TIME %s B=%d pause=%u %.3f ms\n", seq, b, pause, ms);
}
void read_shift(const char* p, size_t mib, const char* seq, int x, unsigned shift, const char* what) {
  std::printf("PROBE %d %s B=%d rep=%u %s\n", probes++, seq, x, shift, what);
  rd_shift_k<1><<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(p), mib * kMiB / 16, shift);
  CK(cudaDeviceSynchronize());
}
void write(char* p, size_t mib, const char* seq, int b, int rep, const char* what) {
  std::printf("PROBE %d %s B=%d rep=%d %s\n", probes++, seq, b, rep, what);
  wr_k<1><<<sms * 8, 256>>>(reinterpret_cast<uint4*>(p), mib * kMiB / 16, 7u + probes);
  CK(cudaDeviceSynchronize());
}
}  // namespace

int main(int argc, char** argv) {
  const bool pace = argc > 1 && argv[1][0] == 'p';
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("SMS %d L2 %d\n", sms, l2);
  char* pool = nullptr;
  CK(cudaMalloc(&pool, 128 * kMiB));
  CK(cudaMemset(pool, 1, 128 * kMiB));
  CK(cudaMalloc(&scratch, 240 * kMiB));
  CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  CK(cudaDeviceSynchronize());
  constexpr size_t a = 16;
  char* A = pool;               // 16 MiB
  char* B = pool + 32 * kMiB;   // up to 48 MiB
  if (argc > 1 && argv[1][0] == 's') {  // "B" holds X, "rep" the shift
    for (int rep = 1; rep <= 2; ++rep)
      for (int x : {4, 8, 16, 24})
        for (int u : {1, 0, 2}) {
          const char* seq = u == 1 ? "S1" : u == 0 ? "S0" : "S2";
          flush();
          if (u == 0) read(A, static_cast<size_t>(x), seq, x, 0, "A1");
          else write(A, static_cast<size_t>(x), seq, x, 0, "A1");
          read_shift(A, static_cast<size_t>(x), seq, x, u == 2 ? 0u : 37u, "A");
          read_shift(A, static_cast<size_t>(x), seq, x, u == 2 ? 0u : 74u, "A2");
        }
    std::printf("DONE %d probes\n", probes);
    return 0;
  }
  if (pace) {  // "rep" holds the pause in ns
    for (unsigned pause : {0u, 2000u, 20000u})
      for (int b = 16; b <= 48; b += 8)
        for (int u : {3, 1}) {
          const char* seq = u == 3 ? "P3" : "P1";
          flush();
          if (u == 3) write(A, a, seq, b, static_cast<int>(pause), "A1");
          else read(A, a, seq, b, static_cast<int>(pause), "A1");
          read_slow(B, static_cast<size_t>(b), seq, b, pause, "B");
          read(A, a, seq, b, static_cast<int>(pause), "A");
        }
    std::printf("DONE %d probes\n", probes);
    return 0;
  }
  for (int rep = 1; rep <= 2; ++rep)
    for (int b = 0; b <= 48; b += 4)
      for (int u = 1; u <= 4; ++u) {
        char seq[4];
        std::snprintf(seq, sizeof seq, "U%d", u);
        flush();
        if (u <= 2) read(A, a, seq, b, rep, "A1");
        else write(A, a, seq, b, rep, "A1");
        if (u == 2 || u == 4) read(A, a, seq, b, rep, "A2");
        read(B, static_cast<size_t>(b), seq, b, rep, "B");
        read(A, a, seq, b, rep, "A");
      }
  std::printf("DONE %d probes\n", probes);
  return 0;
}
