// Does the H200's L2 write dirty lines back to DRAM while DRAM is idle, as
// time passes, or only when something evicts them? Each kernel writes X MiB
// (every 16-byte word once, all SMs), then every thread spins on the SM clock
// for S microseconds, touching no memory. ncu reads dram__bytes_write.sum of
// the kernel. With eviction only, the writes do not depend on S; with eager
// write-back they grow with S. The L2 is flushed (a 256 MiB read) first.
//
// Build: nvcc -O3 -arch=sm_90a -o writeback-probe h200-2026-11-21-writeback-probe.cu
// Run:   ncu --cache-control none --clock-control none
//            --metrics dram__bytes_write.sum,dram__bytes_read.sum,gpu__time_duration.sum ./writeback-probe
#include <cuda_runtime.h>

#include <cstdio>

namespace {

__global__ void write_then_spin(uint4* dst, long words, long long spin_cycles, unsigned* sink) {
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    dst[i] = make_uint4(static_cast<unsigned>(i), 1, 2, 3);
  const long long t0 = clock64();
  unsigned x = threadIdx.x;
  while (clock64() - t0 < spin_cycles) x = x * 1664525u + 1013904223u;
  if (x == 0x12345678u) *sink = x;
}

__global__ void read_all(const uint4* p, long n, unsigned* sink) {
  unsigned a = 0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    a += __ldcg(p + i).x;
  if (a == 0x12345678u) *sink = a;
}

}  // namespace

int main() {
  const long flush_words = (256L << 20) / 16;
  uint4 *buf = nullptr, *flush = nullptr;
  unsigned* sink = nullptr;
  cudaMalloc(&buf, 32L << 20);
  cudaMalloc(&flush, flush_words * 16);
  cudaMalloc(&sink, 4);
  cudaMemset(flush, 0, flush_words * 16);
  int sms = 0, clock_khz = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  for (long mib : {8L, 24L})
    for (long us : {0L, 100L, 1000L, 5000L}) {
      read_all<<<sms * 8, 256>>>(flush, flush_words, sink);
      cudaDeviceSynchronize();
      write_then_spin<<<sms * 8, 256>>>(buf, (mib << 20) / 16, us * static_cast<long long>(clock_khz) / 1000, sink);
      cudaDeviceSynchronize();
      std::printf("write %ld MiB, then spin %ld us: %s\n", mib, us, cudaGetErrorString(cudaGetLastError()));
    }
  return 0;
}
