// Shared-read probe (C5): does dirty data in L2 go back to DRAM, pass after
// pass, while many SMs re-read the same clean data, as flash2's thread blocks
// all re-read one head's K and V while the O tiles they wrote sit dirty?
// The churn probes (h200-2026-11-22-churn-probe.cu) read each line from one or
// two SMs a pass; here every line is read by sms thread blocks a pass.
//  C5: write X MiB once (each line by one block), then 12 passes; in each the
//      R MiB are cut into 8 slices and block b reads all of slice b mod 8, so
//      every line is read by about sms blocks spread over the whole GPU.
//  C6: as C5 without the write: the read misses of shared re-reads alone.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o shared h200-2026-11-22-shared-read-probe.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./shared
// Only kernels instantiated with <1> are profiled, in the order of the PROBE lines.
// Every sequence starts with flush(): two reads of a 240 MiB scratch buffer.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;

// Grid-stride read of n 16-byte words (the flush).
template <int K>
__global__ void rd_k(const uint4* __restrict__ p, size_t n) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

// Block b reads all of slice b mod slices (slice_words 16-byte words each).
template <int K>
__global__ void rd_shared_k(const uint4* __restrict__ p, size_t slice_words, unsigned slices) {
  unsigned acc = 0;
  const uint4* s = p + (blockIdx.x % slices) * slice_words;
  for (size_t i = threadIdx.x; i < slice_words; i += blockDim.x) {
    const uint4 x = __ldcg(s + i);
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
constexpr unsigned kSlices = 8;
int sms = 0;
int probes = 0;
char* scratch = nullptr;

void flush() {
  for (int pass = 0; pass < 2; ++pass) rd_k<0><<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}
void read_shared(const char* p, size_t mib, const char* label) {
  std::printf("PROBE %d %s\n", probes++, label);
  rd_shared_k<1><<<sms * kSlices, 256>>>(reinterpret_cast<const uint4*>(p), mib * kMiB / 16 / kSlices, kSlices);
  CK(cudaDeviceSynchronize());
}
void write(char* p, size_t mib, const char* label) {
  std::printf("PROBE %d %s\n", probes++, label);
  wr_k<1><<<sms * 8, 256>>>(reinterpret_cast<uint4*>(p), mib * kMiB / 16, 7);
  CK(cudaDeviceSynchronize());
}
}  // namespace

int main() {
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
  char* dirty = pool;               // X MiB written once
  char* again = pool + 128 * kMiB;  // R MiB read over and over
  char label[160];
  for (int x : {8, 16})
    for (int r : {8, 16, 20, 24, 28, 32}) {
      flush();
      std::snprintf(label, sizeof label, "C5 X=%d R=%d write", x, r);
      write(dirty, x, label);
      for (int pass = 1; pass <= 12; ++pass) {
        std::snprintf(label, sizeof label, "C5 X=%d R=%d pass=%d", x, r, pass);
        read_shared(again, r, label);
      }
    }
  for (int r : {16, 20, 24, 28, 32, 36, 40}) {
    flush();
    for (int pass = 1; pass <= 4; ++pass) {
      std::snprintf(label, sizeof label, "C6 R=%d pass=%d", r, pass);
      read_shared(again, r, label);
    }
  }
  std::printf("DONE %d probes\n", probes);
  return 0;
}
