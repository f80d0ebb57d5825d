// Placement probe: on which SMs do the 16 thread blocks of a flash1 launch
// run? fasim deals block b to SM b and SM s to L2 half s mod 2, so 16 blocks
// sit 8 and 8 next to the two halves. The SM-partition probe
// (h200-2026-11-22-sm-partition-probe.cu) found a 16-block grid of small
// blocks (256 threads, no shared memory) 12 and 4. flash1 launches 256
// threads with 116 KB (fp16, d = 128, 64 x 64 tiles) or 193 KB (fp32, d = 64,
// 64 x 227) of dynamic shared memory: one block per SM. This launches a
// kernel of each shape (and of 16 bytes of shared memory: the earlier
// probe's small blocks; it waits 50 us, so all blocks are resident at once)
// and prints the SM of every block, five times each.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o placement h200-2026-11-23-placement-probe.cu
// Run:   ./placement   (prints PLACE lines: grid, threads, shared bytes, rep, then the SM of each block)
// The halves of the SMs come from the SM-partition probe, run on the same GPU.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

__global__ void place_k(unsigned* block_sm, long long wait_cycles) {
  extern __shared__ unsigned keep[];
  if (threadIdx.x != 0) return;
  keep[0] = blockIdx.x;
  const long long t0 = clock64();
  while (clock64() - t0 < wait_cycles) {
  }
  block_sm[blockIdx.x] = smid() + 0 * keep[0];
}

int main() {
  int smem_max = 0;
  CK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaFuncSetAttribute(place_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
  unsigned* block_sm = nullptr;
  CK(cudaMalloc(&block_sm, 4096 * sizeof(unsigned)));
  struct Shape {
    int grid, threads, smem;
  };
  // 4 * (Bc (d + 1) + Bc d + Br d + Br Bc + 4 Br): cuda/src/flash1.cu, shared_bytes_flash1
  const int fp16_d128 = 4 * (64 * 129 + 64 * 128 + 64 * 128 + 64 * 64 + 4 * 64);
  const int fp32_d64 = 4 * (227 * 65 + 227 * 64 + 64 * 64 + 64 * 227 + 4 * 64);
  const Shape shapes[] = {{16, 256, 16}, {16, 256, fp16_d128}, {16, 256, fp32_d64}, {32, 256, fp16_d128}};
  std::vector<unsigned> bs(4096);
  for (const Shape& s : shapes)
    for (int rep = 0; rep < 5; ++rep) {
      place_k<<<s.grid, s.threads, s.smem>>>(block_sm, 100000);  // about 50 us
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(bs.data(), block_sm, sizeof(unsigned) * s.grid, cudaMemcpyDeviceToHost));
      std::printf("PLACE grid=%d threads=%d smem=%d rep=%d:", s.grid, s.threads, s.smem, rep);
      for (int b = 0; b < s.grid; ++b) std::printf(" %u", bs[b]);
      std::printf("\n");
    }
  return 0;
}
