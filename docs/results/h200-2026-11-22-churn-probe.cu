// Churn probes: how the L2 behaves when data slightly over or under its size
// is read again and again, as flash2 re-reads K and V. Two questions:
//  C1: dirty data of X MiB stays in L2 while other data (R MiB, clean) is
//      read over and over by every SM. Does the dirty data go back to DRAM
//      once (when it ages out, as an LRU would decide after the first pass),
//      or a little more with every pass (churn)?
//  C2: R MiB read over and over by every SM, nothing dirty. How much of each
//      pass after the first misses? An LRU per set misses nearly all of it
//      once R passes what the sets hold; a random or scan-resistant
//      replacement keeps part of it.
// C3, C4 (./churn shifted): as C1 and C2, but each pass deals the chunks to
//      the blocks shifted by 37 blocks more than the pass before, so over the
//      passes every line is read by SMs of both L2 halves, as flash2 reads K
//      and V from thread blocks all over the GPU.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o churn h200-2026-11-22-churn-probe.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./churn [shifted]
// Only kernels instantiated with <1> are profiled, in the order of the PROBE lines.
// Every sequence starts with flush(): two reads of a 240 MiB scratch buffer.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

template <int K>
__global__ void rd_k(const uint4* __restrict__ p, size_t n, unsigned shift) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t block = (blockIdx.x + shift) % gridDim.x;  // the chunks of block `block`
  for (size_t i = block * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

template <int K>
__global__ void wr_k(uint4* __restrict__ p, size_t n, unsigned v) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = make_uint4(v, v + 1, v + 2, static_cast<unsigned>(i));
}

namespace {
constexpr size_t kMiB = size_t{1} << 20;
int sms = 0;
int probes = 0;
char* scratch = nullptr;

void flush() {
  for (int pass = 0; pass < 2; ++pass) rd_k<0><<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16, 0);
  CK(cudaDeviceSynchronize());
}
void read(const char* p, size_t mib, const char* label, unsigned shift = 0) {
  std::printf("PROBE %d %s\n", probes++, label);
  rd_k<1><<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(p), mib * kMiB / 16, shift);
  CK(cudaDeviceSynchronize());
}
void write(char* p, size_t mib, const char* label) {
  std::printf("PROBE %d %s\n", probes++, label);
  wr_k<1><<<sms * 8, 256>>>(reinterpret_cast<uint4*>(p), mib * kMiB / 16, 7);
  CK(cudaDeviceSynchronize());
}
}  // namespace

int main(int argc, char** argv) {
  const bool shifted = argc > 1 && argv[1][0] == 's';
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("SMS %d L2 %d\n", sms, l2);
  char* pool = nullptr;
  CK(cudaMalloc(&pool, 512 * kMiB));
  CK(cudaMemset(pool, 1, 512 * kMiB));
  CK(cudaMalloc(&scratch, 240 * kMiB));
  CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  CK(cudaDeviceSynchronize());
  char* dirty = pool;              // X MiB written once
  char* again = pool + 128 * kMiB;  // R MiB read over and over
  char label[160];
  if (shifted) {
    for (int x : {8, 16})
      for (int r : {8, 12, 16, 20, 24, 32}) {
        flush();
        std::snprintf(label, sizeof label, "C3 X=%d R=%d write", x, r);
        write(dirty, x, label);
        for (int pass = 1; pass <= 8; ++pass) {
          std::snprintf(label, sizeof label, "C3 X=%d R=%d pass=%d", x, r, pass);
          read(again, r, label, 37u * pass);
        }
      }
    for (int r : {12, 16, 20, 24, 28, 32, 36, 40, 48}) {
      flush();
      for (int pass = 1; pass <= 4; ++pass) {
        std::snprintf(label, sizeof label, "C4 R=%d pass=%d", r, pass);
        read(again, r, label, 37u * pass);
      }
    }
    std::printf("DONE %d probes\n", probes);
    return 0;
  }
  for (int x : {8, 16})
    for (int r : {16, 20, 24, 28, 32, 40}) {
      flush();
      std::snprintf(label, sizeof label, "C1 X=%d R=%d write", x, r);
      write(dirty, x, label);
      for (int pass = 1; pass <= 12; ++pass) {
        std::snprintf(label, sizeof label, "C1 X=%d R=%d pass=%d", x, r, pass);
        read(again, r, label);
      }
    }
  for (int r : {20, 24, 28, 32, 36, 40, 44, 48, 56, 64, 80}) {
    flush();
    for (int pass = 1; pass <= 4; ++pass) {
      std::snprintf(label, sizeof label, "C2 R=%d pass=%d", r, pass);
      read(again, r, label);
    }
  }
  std::printf("DONE %d probes\n", probes);
  return 0;
}
