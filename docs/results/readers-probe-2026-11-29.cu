// Readers probe (2026-11-29): does the L2's edge depend on who reads?
// fasim's L2 model fits two families of probes that disagree: data re-read by
// 16 blocks placed as flash1's (12 + 4 next to the two halves) misses late and
// sharply (lopsided-split-2026-11-28.md), data re-read by every SM (the churn
// probe's C2, 8 blocks an SM, 4 KiB chunks dealt in turn) misses earlier and
// keeps part of a too-large working set. Here one kernel re-reads F MiB,
// pass after pass, nothing written, in three ways, each with one block an SM
// (flash1 fp16 d = 128's shared memory, so the blocks land where flash1's do):
//  L16:  16 blocks, each its own contiguous F / 16 (flash1's placement);
//  A132: 132 blocks, one on every SM, each its own contiguous F / 132;
//  I132: 132 blocks, 4 KiB chunks dealt in turn (chunk c to block c mod 132),
//        as the churn probe deals them.
// A block reads its chunks in order, 4 KiB a step, as the replay does.
// 6 passes after a flush; the DRAM bytes of each pass.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o readers readers-probe-2026-11-29.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./readers
// Only kernels instantiated with <1> are profiled, in the order of the PROBE lines.
// Every sequence starts with flush(): two reads of a 240 MiB scratch buffer.
// Each sequence's BLOCKS line gives the SM of every block (its last pass).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

constexpr size_t kChunkWords = 4096 / 16;  // one 4 KiB chunk of uint4

// Block b reads chunks b, b + step, b + 2 step, ... below `chunks`, where a
// chunk's index is `first` of block b plus i * `step`: contiguous slices
// (first = b * per_block, step 1) or chunks dealt in turn (first = b, step = blocks).
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
constexpr int kShared = 115968, kPasses = 6;
int sms = 0;
int probes = 0;
char* scratch = nullptr;
unsigned* block_sm = nullptr;

void flush() {
  for (int pass = 0; pass < 2; ++pass) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}

// One sequence: flush, then kPasses kernels over F MiB, `blocks` blocks.
void sequence(const char* name, const uint4* p, int f_mib, int blocks, int dealt) {
  const size_t chunks = static_cast<size_t>(f_mib) * kMiB / 4096;
  // Contiguous: every block the same whole number of chunks (the bytes read
  // are blocks x per_block chunks). Dealt: every chunk, ceil(chunks / blocks) a block.
  const size_t per_block = dealt ? (chunks + blocks - 1) / blocks : chunks / blocks;
  const size_t read = dealt ? chunks : per_block * blocks;
  flush();
  char label[160];
  for (int pass = 1; pass <= kPasses; ++pass) {
    std::snprintf(label, sizeof label, "%s F=%d pass=%d chunks=%zu", name, f_mib, pass, read);
    std::printf("PROBE %d %s\n", probes++, label);
    pass_k<1><<<blocks, 256, kShared>>>(p, chunks, per_block, dealt, block_sm);
    CK(cudaDeviceSynchronize());
  }
  unsigned bs[1024];
  CK(cudaMemcpy(bs, block_sm, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::printf("BLOCKS %s F=%d %d:", name, f_mib, blocks);
  for (int b = 0; b < blocks; ++b) std::printf(" %u", bs[b]);
  std::printf("\n");
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
  CK(cudaMalloc(&block_sm, 1024 * sizeof(unsigned)));
  CK(cudaDeviceSynchronize());
  const uint4* p = reinterpret_cast<const uint4*>(pool);
  for (int f : {24, 28, 30, 32, 34, 36, 40, 48}) sequence("L16", p, f, 16, 0);
  for (int f : {32, 36, 40, 44, 48, 52, 56, 64}) sequence("A132", p, f, sms, 0);
  for (int f : {32, 36, 40, 44, 48, 52, 56, 64}) sequence("I132", p, f, sms, 1);
  std::printf("DONE %d probes\n", probes);
  return 0;
}
