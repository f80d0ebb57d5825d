// Lopsided probes: data re-read by 16 thread blocks placed as flash1's are.
// flash1's 16 blocks (one per head) land 12 next to one L2 half and 4 next
// to the other (h200-2026-11-23-placement-probe.txt). Each block re-reads
// its own Q rows and reads and rewrites its own O rows, once per key block.
// Near the L2's size the GPUs miss less there than fasim's L2 model says
// when it is given that placement. These probes ask how much a loaded half
// holds:
//  L1: each of 16 blocks reads its own q MiB, pass after pass (R = 16 q MiB
//      in all; C2 of the churn probes, but 16 blocks placed as flash1's).
//  L2: each block reads its own q MiB of Q, then reads and rewrites its own
//      q MiB of O, pass after pass (2R in all, half of it dirty): flash1.
// Every block asks for flash1's fp16 d = 128 shared memory (115,968 B), so
// one block runs per SM and the blocks land where flash1's do.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o lopsided h200-2026-11-23-lopsided-probe.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./lopsided
// Only kernels instantiated with <1> are profiled, in the order of the PROBE lines.
// Every sequence starts with flush(): two reads of a 240 MiB scratch buffer.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

// Block b: reads its n words of q; if o, reads and rewrites its n words of o.
template <int K>
__global__ void pass_k(const uint4* __restrict__ q, uint4* __restrict__ o, size_t n, unsigned* block_sm) {
  extern __shared__ unsigned keep[];
  const uint4* mine = q + blockIdx.x * n;
  unsigned acc = 0;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    const uint4 x = __ldcg(mine + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (o != nullptr) {
    uint4* out = o + blockIdx.x * n;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
      uint4 y = __ldcg(out + i);
      y.x += acc;
      out[i] = y;
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
void pass(const char* q, char* o, size_t kib_per_block, const char* label) {
  std::printf("PROBE %d %s\n", probes++, label);
  pass_k<1><<<kBlocks, 256, kShared>>>(reinterpret_cast<const uint4*>(q), reinterpret_cast<uint4*>(o),
                                        kib_per_block * 1024 / 16, block_sm);
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
  for (int r : {16, 20, 24, 28, 32, 36, 40, 48}) {  // L1: R MiB in all, R / 16 per block
    flush();
    for (int p = 1; p <= 6; ++p) {
      std::snprintf(label, sizeof label, "L1 R=%d pass=%d", r, p);
      pass(q, nullptr, static_cast<size_t>(r) * 1024 / kBlocks, label);
    }
  }
  for (int r : {8, 10, 12, 14, 16, 18, 20, 24}) {  // L2: R MiB of Q and R of O
    flush();
    for (int p = 1; p <= 6; ++p) {
      std::snprintf(label, sizeof label, "L2 R=%d pass=%d", r, p);
      pass(q, o, static_cast<size_t>(r) * 1024 / kBlocks, label);
    }
  }
  unsigned bs[kBlocks];
  CK(cudaMemcpy(bs, block_sm, sizeof bs, cudaMemcpyDeviceToHost));
  std::printf("BLOCKS %d:", kBlocks);
  for (unsigned s : bs) std::printf(" %u", s);
  std::printf("\nDONE %d probes\n", probes);
  return 0;
}
