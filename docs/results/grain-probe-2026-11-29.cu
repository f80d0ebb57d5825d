// Grain probe (2026-11-29): chunks dealt in turn miss earlier than own rows
// (readers-2026-11-29.md). Is it the grain of the dealing? The readers
// probe's I132 deals 4 KiB chunks, the size of an L2 home; A132 gives each
// SM one run of F / 132. Here 132 blocks (one an SM) deal runs of G KiB in
// turn (run r to block r mod 132), G = 4, 8, 16, 64 and 256, at F = 40 and
// 44 MiB, with A132 beside them. The readers probe's kernel, with G / 4
// chunks a run.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o grain grain-probe-2026-11-29.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./grain
// Only kernels instantiated with <1> are profiled, in the order of the PROBE lines.
// Every sequence starts with flush(): two reads of a 240 MiB scratch buffer.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

constexpr size_t kChunkWords = 4096 / 16;  // one 4 KiB chunk of uint4

// Block b reads runs b, b + blocks, ... of `run` chunks each (dealt), or
// its own contiguous per_block chunks (run = 0), 4 KiB a step, in order.
template <int K>
__global__ void pass_k(const uint4* __restrict__ p, size_t chunks, size_t per_block, size_t run,
                       unsigned* block_sm) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  for (size_t k = 0; k < per_block; ++k) {
    const size_t c = run == 0 ? blockIdx.x * per_block + k
                              : ((k / run) * gridDim.x + blockIdx.x) * run + k % run;
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

// One sequence: flush, then kPasses kernels over F MiB, one block an SM,
// runs of `run_kib` KiB dealt in turn (0: each block its own rows).
void sequence(const char* name, const uint4* p, int f_mib, int run_kib) {
  const size_t chunks = static_cast<size_t>(f_mib) * kMiB / 4096, run = run_kib / 4;
  const size_t runs = run == 0 ? 0 : (chunks + run - 1) / run;
  // Own rows: every block the same whole number of chunks. Dealt: every
  // chunk, ceil(runs / blocks) runs a block.
  const size_t per_block = run == 0 ? chunks / sms : (runs + sms - 1) / sms * run;
  const size_t read = run == 0 ? per_block * sms : chunks;
  flush();
  for (int pass = 1; pass <= kPasses; ++pass) {
    std::printf("PROBE %d %s F=%d pass=%d chunks=%zu\n", probes++, name, f_mib, pass, read);
    pass_k<1><<<sms, 256, kShared>>>(p, chunks, per_block, run, block_sm);
    CK(cudaDeviceSynchronize());
  }
  unsigned bs[1024];
  CK(cudaMemcpy(bs, block_sm, sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::printf("BLOCKS %s F=%d %d:", name, f_mib, sms);
  for (int b = 0; b < sms; ++b) std::printf(" %u", bs[b]);
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
  char name[16];
  for (int f : {40, 44}) {
    sequence("A132", p, f, 0);
    for (int g : {4, 8, 16, 64, 256}) {
      std::snprintf(name, sizeof name, "G%d", g);
      sequence(name, p, f, g);
    }
  }
  std::printf("DONE %d probes\n", probes);
  return 0;
}
