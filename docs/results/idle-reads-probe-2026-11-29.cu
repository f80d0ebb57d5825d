// Idle-reads probe (2026-11-29): does the GPU read DRAM on its own while a
// kernel runs, as it writes 256 KiB about every 14 ms
// (h200-2026-11-22-background-writes.md)? One warp per SM waits on
// %globaltimer for T ms and touches no memory; ncu counts each launch's DRAM
// bytes with the L2 flushed before it (idle-reads-2026-11-29.sh).
#include <cstdio>
#include <cuda_runtime.h>

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void idle(unsigned long long ns) {
  const unsigned long long t0 = now_ns();
  while (now_ns() - t0 < ns) {
  }
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int rep = 0; rep < 3; ++rep)
    for (double ms : {1.0, 10.0, 30.0, 100.0, 300.0}) idle<<<sms, 32>>>(static_cast<unsigned long long>(ms * 1e6));
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("PROBE idle-reads done: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
