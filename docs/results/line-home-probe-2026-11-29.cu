// Line-home probe (2026-11-29): which L2 half is home to each 128-byte line?
// fasim's L2 model deals every tile's lines evenly over the two halves, so
// which SM reads which 4 KiB chunk does not change how full each half gets.
// The readers probe (readers-probe-2026-11-29.cu) found that it does on the
// GPU: chunks dealt in turn to all SMs miss earlier than each SM reading its
// own contiguous slice. Here, for a 64 MiB buffer, each line's home is
// measured, and then the readers probe's two 132-block patterns run on the
// same buffer (same process, same physical pages) under ncu:
//  - one block on SM `ref` (half 0 by definition) reads a 4 MiB piece: each
//    line comes into L2 at its home (and a copy next to ref if homed far);
//  - one thread on SM `far` (next to the other half) then times one load a
//    line: a line homed next to `far` is an ordinary hit; one homed next to
//    `ref` is not in far's half and is fetched across, slower.
// Output: HOME lines, one a 4 KiB chunk: its index and 32 bits (bit i: line
// i is homed in ref's half), and a histogram of the timed loads' cycles;
// then the PROBE and BLOCKS lines of A132 and I132 at F = 36, 40, 44, 48.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o line-home line-home-probe-2026-11-29.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./line-home REF FAR
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

constexpr size_t kLineWords = 128 / 16, kChunkWords = 4096 / 16;

// The block on SM `sm` reads n words of p; every other block returns.
__global__ void warm_k(const uint4* __restrict__ p, size_t n, unsigned sm) {
  if (smid() != sm) return;
  unsigned acc = 0;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

// On SM `sm`, thread 0 times one load of each of `lines` lines of p, one
// after the other (each address depends on the load before).
__global__ void time_k(const uint4* __restrict__ p, size_t lines, unsigned sm, unsigned* cycles) {
  if (smid() != sm || threadIdx.x != 0) return;
  unsigned dep = 0;
  for (size_t i = 0; i < lines; ++i) {
    const long long t0 = clock64();
    const uint4 x = __ldcg(p + i * kLineWords + dep);
    dep = x.x == 0xDEADBEEFu ? 1 : 0;  // never: the buffer holds 0x01 bytes
    const long long t1 = clock64();
    cycles[i] = static_cast<unsigned>(t1 - t0);
  }
  if (dep) g_sink = dep;
}

// The readers probe's kernel (readers-probe-2026-11-29.cu).
template <int K>
__global__ void pass_k(const uint4* __restrict__ p, size_t chunks, size_t per_block, int dealt,
                       unsigned* block_sm) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  const size_t first = dealt ? blockIdx.x : blockIdx.x * per_block;
  const size_t step = dealt ? gridDim.x : 1;
  for (size_t k = 0; k < per_block; ++k) {
    const size_t c = first + k * step;
    if (c >= chunks) break;
    for (size_t i = threadIdx.x; i < kChunkWords; i += blockDim.x) {
      const uint4 x = __ldcg(p + c * kChunkWords + i);
      acc ^= x.x ^ x.y ^ x.z ^ x.w;
    }
  }
  if (threadIdx.x == 0) {
    keep[0] = acc;
    block_sm[blockIdx.x] = smid();
  }
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

__global__ void rd_k(const uint4* __restrict__ p, size_t n) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

namespace {
constexpr size_t kMiB = size_t{1} << 20;
constexpr int kShared = 115968, kPasses = 6, kBufferMiB = 64, kPieceMiB = 4;
int sms = 0;
int probes = 0;
char* scratch = nullptr;
unsigned* block_sm = nullptr;

void flush() {
  for (int pass = 0; pass < 2; ++pass) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}

void sequence(const char* name, const uint4* p, int f_mib, int blocks, int dealt) {
  const size_t chunks = static_cast<size_t>(f_mib) * kMiB / 4096;
  const size_t per_block = dealt ? (chunks + blocks - 1) / blocks : chunks / blocks;
  const size_t read = dealt ? chunks : per_block * blocks;
  flush();
  for (int pass = 1; pass <= kPasses; ++pass) {
    std::printf("PROBE %d %s F=%d pass=%d chunks=%zu\n", probes++, name, f_mib, pass, read);
    pass_k<1><<<blocks, 256, kShared>>>(p, chunks, per_block, dealt, block_sm);
    CK(cudaDeviceSynchronize());
  }
  std::vector<unsigned> bs(blocks);
  CK(cudaMemcpy(bs.data(), block_sm, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::printf("BLOCKS %s F=%d %d:", name, f_mib, blocks);
  for (unsigned s : bs) std::printf(" %u", s);
  std::printf("\n");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::printf("usage: %s REF_SM FAR_SM\n", argv[0]);
    return 2;
  }
  const unsigned ref = std::atoi(argv[1]), far = std::atoi(argv[2]);
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("SMS %d REF %u FAR %u\n", sms, ref, far);
  // One block an SM: with a grid of `sms` blocks, every SM has exactly one.
  for (const void* k : {reinterpret_cast<const void*>(warm_k), reinterpret_cast<const void*>(time_k),
                        reinterpret_cast<const void*>(pass_k<1>)})
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  char* pool = nullptr;
  CK(cudaMalloc(&pool, 128 * kMiB));  // as the readers probe: the buffer is its start
  CK(cudaMemset(pool, 1, 128 * kMiB));
  CK(cudaMalloc(&scratch, 240 * kMiB));
  CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  CK(cudaMalloc(&block_sm, 1024 * sizeof(unsigned)));
  const size_t lines = kBufferMiB * kMiB / 128, piece = kPieceMiB * kMiB / 128;
  unsigned* cycles = nullptr;
  CK(cudaMalloc(&cycles, lines * sizeof(unsigned)));
  CK(cudaDeviceSynchronize());
  const uint4* p = reinterpret_cast<const uint4*>(pool);
  flush();
  for (size_t first = 0; first < lines; first += piece) {
    warm_k<<<sms, 256, kShared>>>(p + first * kLineWords, piece * kLineWords, ref);
    time_k<<<sms, 32, kShared>>>(p + first * kLineWords, piece, far, cycles + first);
    CK(cudaDeviceSynchronize());
  }
  std::vector<unsigned> c(lines);
  CK(cudaMemcpy(c.data(), cycles, lines * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // The histogram (bins of 20 cycles) shows the two groups; the split is the
  // emptiest bin between the two fullest.
  std::vector<size_t> hist(200, 0);
  for (unsigned x : c) ++hist[std::min<size_t>(x / 20, hist.size() - 1)];
  std::printf("HIST");
  for (size_t b = 0; b < hist.size(); ++b)
    if (hist[b] > 0) std::printf(" %zu:%zu", b * 20, hist[b]);
  std::printf("\n");
  size_t a = 0;
  for (size_t b = 0; b < hist.size(); ++b) a = hist[b] > hist[a] ? b : a;
  size_t second = a == 0 ? 1 : 0;
  for (size_t b = 0; b < hist.size(); ++b)
    if ((b + 2 < a || b > a + 2) && hist[b] > hist[second]) second = b;
  size_t lo = std::min(a, second), hi = std::max(a, second), split = lo + 1;
  for (size_t b = lo + 1; b < hi; ++b) split = hist[b] < hist[split] ? b : split;
  const unsigned threshold = static_cast<unsigned>(split * 20 + 10);
  std::printf("SPLIT %u cycles (peaks at %zu and %zu)\n", threshold, lo * 20, hi * 20);
  size_t slow = 0;
  for (size_t chunk = 0; chunk < lines / 32; ++chunk) {
    unsigned bits = 0;
    for (int i = 0; i < 32; ++i)
      if (c[chunk * 32 + i] > threshold) bits |= 1u << i;
    slow += __builtin_popcount(bits);
    std::printf("HOME %zu %08x\n", chunk, bits);
  }
  std::printf("SLOW %zu of %zu lines\n", slow, lines);
  for (int f : {36, 40, 44, 48}) sequence("A132", p, f, sms, 0);
  for (int f : {36, 40, 44, 48}) sequence("I132", p, f, sms, 1);
  std::printf("DONE %d probes\n", probes);
  return 0;
}
