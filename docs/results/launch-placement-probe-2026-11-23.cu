// Launch-placement probe: on which SM does every thread block of a launch
// run, for the launch shapes of the recorded sweep? fasim deals block b to
// SM b mod 132 and SM s to L2 half s mod 2; the GPU does not (the
// SM-partition probe, h200-2026-11-22-sm-partition-probe.md). This launches,
// for each shape "grid threads blocks_per_sm" read from stdin, a kernel whose
// dynamic shared memory lets exactly blocks_per_sm blocks share an SM (the
// occupancy fasim's simulator gives that kernel), each block waiting about
// 10 us, and prints the SM of every block in block order, twice.
// The shapes come from `fasim run --json` (time.kernels: grid,
// blocks_per_sm) for every point of the recorded sweep; launch-placement-2026-11-23.sh.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o launchplace launch-placement-probe-2026-11-23.cu
// Run:   ./launchplace < shapes.txt   (PLACE lines: grid, threads, blocks per SM, rep, then the SM of each block)
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
  int smem_block_max = 0, smem_sm = 0, reserved = 0;
  CK(cudaDeviceGetAttribute(&smem_block_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  CK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0));
  CK(cudaFuncSetAttribute(place_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_block_max));
  unsigned* block_sm = nullptr;
  const int max_grid = 1 << 16;
  CK(cudaMalloc(&block_sm, max_grid * sizeof(unsigned)));
  std::vector<unsigned> bs(max_grid);
  int grid = 0, threads = 0, per_sm = 0;
  while (std::scanf("%d %d %d", &grid, &threads, &per_sm) == 3) {
    if (grid > max_grid || per_sm < 1) continue;
    // The most bytes a block may take so that per_sm blocks, and not one more, fit.
    int smem = smem_sm / per_sm - reserved;
    if (smem > smem_block_max) smem = smem_block_max;
    int fit = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, place_k, threads, smem));
    for (int rep = 0; rep < 2; ++rep) {
      place_k<<<grid, threads, smem>>>(block_sm, 20000);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(bs.data(), block_sm, sizeof(unsigned) * grid, cudaMemcpyDeviceToHost));
      std::printf("PLACE grid=%d threads=%d per_sm=%d fit=%d smem=%d rep=%d:", grid, threads, per_sm, fit, smem, rep);
      for (int b = 0; b < grid; ++b) std::printf(" %u", bs[b]);
      std::printf("\n");
    }
  }
  return 0;
}
