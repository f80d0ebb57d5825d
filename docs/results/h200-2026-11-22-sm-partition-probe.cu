// SM-partition probe: which L2 half is next to which SM, and which SM runs
// which thread block. fasim deals SMs to the halves in turn (SM s: half
// s mod 2) and assumes block b runs on SM b mod SMs; the churn probes' C4
// said the GPU does neither quite so. This measures both.
//  1. After a flush, one block reads every line of a buffer of SMs x 512
//     lines once, on whatever SM it lands ("the reference SM"): every line
//     is now in its home half, and in the reference SM's half.
//  2. One block per SM (shared memory forces one), each timing its own 512
//     lines one dependent load at a time. An SM next to the reference SM's
//     half finds every line near (fast); one next to the other half finds
//     about half of them only in the far half (slow).
//  3. Which SM ran each block of a grid of SMs x 8 blocks (the probes'), and
//     of SMs / 2 + 4 blocks (fewer blocks than SMs, as flash1's 16).
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o smmap h200-2026-11-22-sm-partition-probe.cu
// Run:   ./smmap   (prints SM lines: smid, mean latency, slow share; then BLOCK lines)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

constexpr int kLines = 512;      // lines per SM
constexpr int kWordsPerLine = 32;  // 128-byte lines of 4-byte words

__global__ void flush_k(const uint4* p, size_t n, unsigned long long* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

// Step 1: one block touches the first word of every line.
__global__ void touch_k(const unsigned* buf, int lines, unsigned* ref_sm, unsigned long long* sink) {
  unsigned acc = 0;
  for (int i = threadIdx.x; i < lines; i += blockDim.x) acc ^= __ldcg(buf + static_cast<size_t>(i) * kWordsPerLine);
  if (threadIdx.x == 0) *ref_sm = smid();
  if (acc == 0x9E3779B9u) *sink = acc;
}

// Step 2: block b (one per SM) times loads of lines [b * kLines, (b+1) * kLines).
__global__ void time_k(const unsigned* buf, unsigned* block_sm, unsigned* cycles) {
  extern __shared__ volatile unsigned keep[];
  if (threadIdx.x != 0) return;
  const unsigned* mine = buf + size_t{blockIdx.x} * kLines * kWordsPerLine;
  unsigned idx = 0;
  for (int i = 0; i < kLines; ++i) {
    long long t0, t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
    const unsigned v = __ldcg(mine + static_cast<size_t>(i + (idx & 0x80000000u)) * kWordsPerLine);
    keep[0] = v;  // waits for the load
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
    idx = v;
    cycles[size_t{blockIdx.x} * kLines + i] = static_cast<unsigned>(t1 - t0);
  }
  block_sm[blockIdx.x] = smid();
}

__global__ void where_k(unsigned* block_sm) {
  if (threadIdx.x == 0) block_sm[blockIdx.x] = smid();
}

int main() {
  int sms = 0, l2 = 0, smem = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  std::printf("SMS %d L2 %d\n", sms, l2);
  const size_t lines = size_t{static_cast<size_t>(sms)} * kLines;
  unsigned *buf, *ref_sm, *block_sm, *cycles;
  unsigned long long* sink;
  char* scratch;
  CK(cudaMalloc(&buf, lines * kWordsPerLine * 4));
  CK(cudaMemset(buf, 0, lines * kWordsPerLine * 4));  // every load returns 0: idx stays 0
  CK(cudaMalloc(&scratch, 240u << 20));
  CK(cudaMemset(scratch, 0x5A, 240u << 20));
  CK(cudaMalloc(&ref_sm, 4));
  CK(cudaMalloc(&sink, 8));
  CK(cudaMalloc(&block_sm, 4 * size_t{static_cast<size_t>(sms)} * 8));
  CK(cudaMalloc(&cycles, 4 * lines));
  CK(cudaFuncSetAttribute(time_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<unsigned> c(lines), bs(static_cast<size_t>(sms) * 8);
  for (int rep = 0; rep < 3; ++rep) {
    for (int pass = 0; pass < 2; ++pass)
      flush_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), (240u << 20) / 16, sink);
    touch_k<<<1, 256>>>(buf, static_cast<int>(lines), ref_sm, sink);
    time_k<<<sms, 32, smem>>>(buf, block_sm, cycles);
    CK(cudaDeviceSynchronize());
    unsigned ref = 0;
    CK(cudaMemcpy(&ref, ref_sm, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), cycles, 4 * lines, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bs.data(), block_sm, 4 * static_cast<size_t>(sms), cudaMemcpyDeviceToHost));
    std::vector<unsigned> all(c);
    std::nth_element(all.begin(), all.begin() + all.size() / 4, all.end());
    const unsigned fast = all[all.size() / 4];  // a near hit: most loads are
    std::printf("REF rep=%d ref_sm=%u fast_cycles=%u\n", rep, ref, fast);
    for (int b = 0; b < sms; ++b) {
      double sum = 0;
      int slow = 0;
      for (int i = 0; i < kLines; ++i) {
        const unsigned t = c[static_cast<size_t>(b) * kLines + i];
        sum += t;
        slow += t > fast + 100 ? 1 : 0;
      }
      std::printf("SM rep=%d smid=%u mean_cycles=%.0f slow_share=%.3f\n", rep, bs[b], sum / kLines,
                  static_cast<double>(slow) / kLines);
    }
  }
  for (int blocks : {sms * 8, sms / 2 + 4, 16}) {
    where_k<<<blocks, 256>>>(block_sm);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(bs.data(), block_sm, 4 * static_cast<size_t>(blocks), cudaMemcpyDeviceToHost));
    std::printf("BLOCKS %d:", blocks);
    for (int b = 0; b < blocks; ++b) std::printf(" %u", bs[b]);
    std::printf("\n");
  }
  return 0;
}
