// Split lopsided probes (2026-11-28): which lines does a loaded L2 half let go?
// The lopsided probes of 2026-11-23 (h200-2026-11-23-lopsided-probe.cu) put
// 16 blocks 12 + 4 next to the L2 halves, as flash1's, and had each block
// re-read its own Q and read and rewrite its own O in one kernel a pass.
// There the GPUs read about as much as they wrote back, pass after pass:
// either the dirty O lines leave and come back, or the GPU cleans O early
// while Q misses. One kernel cannot tell. Here each pass is two kernels, so
// the counters split:
//  S2: kernel Q reads each block's q MiB of Q; kernel O reads and rewrites
//      each block's q MiB of O (R = 16 q MiB of each): flash1's pattern;
//  S3: the same, but kernel O only reads O (nothing dirty): the control.
// DRAM reads in kernel O are O lines that left; DRAM writes in kernel Q are
// dirty O lines that Q's reads pushed out (or cleaned).
// Every block asks for flash1's fp16 d = 128 shared memory (115,968 B), so
// one block runs per SM and the blocks land where flash1's do.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o lopsided-split lopsided-split-probe-2026-11-28.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./lopsided-split
// Only kernels instantiated with <1> are profiled, in the order of the PROBE lines.
// Every sequence starts with flush(): two reads of a 240 MiB scratch buffer.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

// Block b reads its n words of p; with `rewrite`, writes each back changed.
template <int K>
__global__ void pass_k(uint4* __restrict__ p, size_t n, int rewrite, unsigned* block_sm) {
  extern __shared__ unsigned keep[];
  uint4* mine = p + blockIdx.x * n;
  unsigned acc = 0;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    uint4 x = __ldcg(mine + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
    if (rewrite) {
      x.x += 1;
      mine[i] = x;
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
constexpr int kBlocks = 16, kShared = 115968;
int sms = 0;
int probes = 0;
char* scratch = nullptr;
unsigned* block_sm = nullptr;

void flush() {
  for (int pass = 0; pass < 2; ++pass) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}
void pass(char* p, size_t kib_per_block, int rewrite, const char* label) {
  std::printf("PROBE %d %s\n", probes++, label);
  pass_k<1><<<kBlocks, 256, kShared>>>(reinterpret_cast<uint4*>(p), kib_per_block * 1024 / 16, rewrite, block_sm);
  CK(cudaDeviceSynchronize());
}
}  // namespace

int main() {
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("SMS %d L2 %d\n", sms, l2);
  CK(cudaFuncSetAttribute(pass_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  char* pool = nullptr;
  CK(cudaMalloc(&pool, 128 * kMiB));
  CK(cudaMemset(pool, 1, 128 * kMiB));
  CK(cudaMalloc(&scratch, 240 * kMiB));
  CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  CK(cudaMalloc(&block_sm, kBlocks * sizeof(unsigned)));
  CK(cudaDeviceSynchronize());
  char* q = pool;
  char* o = pool + 64 * kMiB;
  char label[160];
  for (int rewrite : {1, 0})  // S2 (O rewritten), then S3 (O only read)
    for (int r : {12, 14, 16, 18, 20, 24}) {  // R MiB of Q and R of O
      flush();
      for (int p = 1; p <= 6; ++p) {
        const size_t kib = static_cast<size_t>(r) * 1024 / kBlocks;
        std::snprintf(label, sizeof label, "S%d R=%d pass=%d Q", rewrite ? 2 : 3, r, p);
        pass(q, kib, 0, label);
        std::snprintf(label, sizeof label, "S%d R=%d pass=%d O", rewrite ? 2 : 3, r, p);
        pass(o, kib, rewrite, label);
      }
    }
  unsigned bs[kBlocks];
  CK(cudaMemcpy(bs, block_sm, sizeof bs, cudaMemcpyDeviceToHost));
  std::printf("BLOCKS %d:", kBlocks);
  for (unsigned s : bs) std::printf(" %u", s);
  std::printf("\nDONE %d probes\n", probes);
  return 0;
}
