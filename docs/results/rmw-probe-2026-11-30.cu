// Read-modify-write probe (2026-11-30): do written lines move the L2's edge?
// flash1 with one head per SM (132 blocks, 66 next to each L2 half) reads
// more from DRAM near the L2's size than fasim predicts (-10% to -22%), while
// the readers probe (readers-probe-2026-11-29.cu) found that 132 blocks each
// re-reading their own rows, nothing written, miss about where fasim says.
// flash1 differs from that probe in one big way: it writes O back every step.
// Here each block re-reads its own contiguous F / blocks, pass after pass, in
// four ways, with 132, 16 and 10 blocks (one an SM, flash1 fp16 d = 128's
// shared memory, so the blocks land where flash1's do):
//  R: read each 4 KiB chunk (the readers probe's A132 / L16);
//  M: read each chunk and write it back changed (flash1's O);
//  H: chunks alternate: even ones read, odd ones read and written (Q and O);
//  W: write each chunk, not read.
// Sequence names are MODE then the block count (R132, M16, ...). A block
// takes its chunks in order, 4 KiB a step, as the replay does. 6 passes after
// a flush; ncu gives each pass's DRAM bytes.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o rmw rmw-probe-2026-11-30.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./rmw
// Only kernels instantiated with <1> are profiled, in the order of the PROBE
// lines; each sequence's BLOCKS line gives the SM of every block.
// `./rmw placements K` runs seven sequences near the edge in K placements of
// the pool instead: each placement a new 128 MiB allocation, the earlier ones
// still held (so on pages no other placement had); names get /pK.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

constexpr size_t kChunkWords = 4096 / 16;  // one 4 KiB chunk of uint4
enum Mode { kRead = 0, kModify = 1, kHalf = 2, kWrite = 3 };

// Block b takes chunks b * per_block ... (b + 1) * per_block - 1, in order.
template <int K>
__global__ void pass_k(uint4* __restrict__ p, size_t per_block, int mode, unsigned* block_sm) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  for (size_t k = 0; k < per_block; ++k) {
    const size_t c = blockIdx.x * per_block + k;
    const bool read = mode != kWrite;
    const bool write = mode == kModify || mode == kWrite || (mode == kHalf && (k & 1));
    for (size_t i = threadIdx.x; i < kChunkWords; i += blockDim.x) {
      uint4* at = p + c * kChunkWords + i;
      uint4 x = make_uint4(k, i, 0, 0);
      if (read) {
        x = __ldcg(at);
        acc ^= x.x ^ x.y ^ x.z ^ x.w;
      }
      if (write) {
        x.x += 1;
        __stcg(at, x);
      }
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

// Two reads of a 240 MiB scratch buffer: the L2 holds nothing of the pool,
// and whatever was dirty has gone back.
void flush() {
  for (int pass = 0; pass < 2; ++pass) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}

// One sequence: flush, then kPasses kernels over F MiB, `blocks` blocks, each
// the same whole number of chunks.
void sequence(uint4* p, int mode, int f_mib, int blocks, int placement = -1) {
  static const char kLetter[] = "RMHW";
  const size_t chunks = static_cast<size_t>(f_mib) * kMiB / 4096;
  const size_t per_block = chunks / blocks;
  flush();
  char name[24];
  if (placement < 0)
    std::snprintf(name, sizeof name, "%c%d", kLetter[mode], blocks);
  else
    std::snprintf(name, sizeof name, "%c%d/p%d", kLetter[mode], blocks, placement);
  for (int pass = 1; pass <= kPasses; ++pass) {
    std::printf("PROBE %d %s F=%d pass=%d chunks=%zu\n", probes++, name, f_mib, pass, per_block * blocks);
    pass_k<1><<<blocks, 256, kShared>>>(p, per_block, mode, block_sm);
    CK(cudaDeviceSynchronize());
  }
  unsigned bs[1024];
  CK(cudaMemcpy(bs, block_sm, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::printf("BLOCKS %s F=%d %d:", name, f_mib, blocks);
  for (int b = 0; b < blocks; ++b) std::printf(" %u", bs[b]);
  std::printf("\n");
}
}  // namespace

int main(int argc, char** argv) {
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
  uint4* p = reinterpret_cast<uint4*>(pool);
  if (argc == 3 && std::string(argv[1]) == "placements") {
    const int k = std::atoi(argv[2]);
    for (int placement = 0; placement < k; ++placement) {
      if (placement > 0) {  // the old pool stays allocated: new pages
        CK(cudaMalloc(&pool, 128 * kMiB));
        CK(cudaMemset(pool, 1, 128 * kMiB));
        p = reinterpret_cast<uint4*>(pool);
      }
      sequence(p, kRead, 40, sms, placement);
      sequence(p, kRead, 44, sms, placement);
      sequence(p, kHalf, 36, sms, placement);
      sequence(p, kHalf, 40, sms, placement);
      sequence(p, kModify, 40, sms, placement);
      sequence(p, kRead, 40, 16, placement);
      sequence(p, kHalf, 36, 16, placement);
    }
    std::printf("DONE %d probes\n", probes);
    return 0;
  }
  for (int f : {32, 36, 40, 44, 48, 52}) sequence(p, kRead, f, sms);
  for (int f : {24, 28, 32, 36, 40, 44, 48}) sequence(p, kModify, f, sms);
  for (int f : {28, 32, 36, 40, 44, 48}) sequence(p, kHalf, f, sms);
  for (int f : {28, 32, 36, 40, 44, 48}) sequence(p, kWrite, f, sms);
  for (int f : {28, 32, 36, 40, 48}) sequence(p, kRead, f, 16);
  for (int f : {20, 24, 28, 32, 36, 40}) sequence(p, kModify, f, 16);
  for (int f : {24, 28, 32, 36, 40}) sequence(p, kHalf, f, 16);
  for (int f : {20, 24, 28, 32, 36, 40}) sequence(p, kRead, f, 10);
  for (int f : {16, 20, 24, 28, 32, 36}) sequence(p, kModify, f, 10);
  std::printf("DONE %d probes\n", probes);
  return 0;
}
