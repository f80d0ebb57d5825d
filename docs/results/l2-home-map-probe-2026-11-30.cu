// L2 home-map probe (2026-11-30): which L2 half is home to each line (and,
// on one page, each 32-byte sector) of a 64 MiB buffer?
//
// fasim's L2 model spreads every tile's sectors evenly over the two halves
// and gives each half's sets a random (Poisson) share of them; it has no
// addresses. The flash1-pattern probe's `bits` call showed the GPU's reads
// change by up to 2x with which heads sit next to which half at the same
// balance, so where a line lives must depend on its address in a way the
// model does not see. This maps the first part of that: the home half.
//  1. Calibration, as the SM-partition probe (h200-2026-11-22-sm-partition-
//     probe.cu): after a flush the block on the reference SM (SM 0) reads
//     132 x 512 lines; then each SM times 512 of them. An SM next to the
//     other half finds about half of them slow: those are "far" SMs.
//  2. Per 8 MiB chunk of the buffer: a flush; the block on SM 0 reads the
//     first sector of every line (every sector on the buffer's first 2 MiB
//     page), so each sector sits at home and, if homed in the other half,
//     copied next to SM 0; then the far SMs share out the lines (sectors)
//     and time one dependent load each. Slow: only at home in SM 0's half.
// Output: SM lines (calibration), then per 2 MiB page of the buffer
//   PAGE k va=0x.. unit=128 slow=S HEX ...   one bit a line, line 0 the lowest bit
// and for page 0 the same with unit=32 (one bit a sector). A set bit: the
// line's home is SM 0's half. Also LAT: fast and slow modes seen.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o homemap l2-home-map-probe-2026-11-30.cu
// Run:   ./homemap > home-map.txt   (no ncu; caches and clocks left as they are)
// `./homemap slices`: instead, from SMs 0, 16, ..., 128 in turn, each line
// of the first page read, then timed (least of 3) next to the SM: does the
// near-hit latency, which spreads over 100 cycles, follow address bits?
//   NEAR sm=S va=0x.. unit=128 CYCLES c0 c1 ...   one number a line
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe_common.cuh"

namespace {
constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kBuffer = 64 * kMiB;
constexpr size_t kChunk = 8 * kMiB;
constexpr size_t kPage = 2 * kMiB;
constexpr int kCalLines = 512;  // calibration lines per SM
}  // namespace

__global__ void flush_k(const uint4* p, size_t n, unsigned long long* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

// The block on SM `ref` (one block an SM: shared memory forces it) reads
// one word every `unit` bytes of [base, base + bytes).
__global__ void touch_k(const char* base, size_t bytes, size_t unit, unsigned ref, unsigned long long* sink) {
  extern __shared__ volatile unsigned keep[];
  if (smid() != ref) return;
  unsigned acc = 0;
  for (size_t off = threadIdx.x * unit; off < bytes; off += blockDim.x * unit)
    acc ^= __ldcg(reinterpret_cast<const unsigned*>(base + off));
  if (acc == 0x9E3779B9u) *sink = acc;
  keep[0] = acc;
}

// Worker w of the SMs with worker_of_sm[smid] = w >= 0 (of `workers`) times
// one dependent load of units w, w + workers, ... of [base, base + bytes).
__global__ void time_k(const char* base, size_t bytes, size_t unit, const int* worker_of_sm, int workers,
                       unsigned short* cycles) {
  extern __shared__ volatile unsigned keep[];
  const int w = worker_of_sm[smid()];
  if (w < 0 || threadIdx.x != 0) return;
  unsigned idx = 0;
  for (size_t u = w; u * unit < bytes; u += workers) {
    long long t0, t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
    const unsigned v = __ldcg(reinterpret_cast<const unsigned*>(base + u * unit + (idx & 0x80000000u)));
    keep[0] = v;  // waits for the load
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
    idx = v;
    cycles[u] = static_cast<unsigned short>(t1 - t0 < 65535 ? t1 - t0 : 65535);
  }
}

// `slices`: the block on SM `sm` reads every line of [base, base + bytes)
// (so each is next to it: at home or copied), then times one dependent load
// of each, `reps` times; keeps the least cycles of each line.
__global__ void near_k(const char* base, size_t bytes, unsigned sm, int reps, unsigned short* cycles) {
  extern __shared__ volatile unsigned keep[];
  if (smid() != sm) return;
  unsigned acc = 0;
  for (size_t off = threadIdx.x * 128; off < bytes; off += blockDim.x * 128)
    acc ^= __ldcg(reinterpret_cast<const unsigned*>(base + off));
  keep[1] = acc;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned idx = 0;
  for (int rep = 0; rep < reps; ++rep)
    for (size_t u = 0; u * 128 < bytes; ++u) {
      long long t0, t1;
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
      const unsigned v = __ldcg(reinterpret_cast<const unsigned*>(base + u * 128 + (idx & 0x80000000u)));
      keep[0] = v;  // waits for the load
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
      idx = v;
      const unsigned short t = static_cast<unsigned short>(t1 - t0 < 65535 ? t1 - t0 : 65535);
      if (rep == 0 || t < cycles[u]) cycles[u] = t;
    }
}

int main(int argc, char** argv) {
  const bool slices = argc > 1 && std::string(argv[1]) == "slices";
  int sms = 0, smem = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaFuncSetAttribute(touch_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(time_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  char *buf, *scratch;
  unsigned long long* sink;
  int* worker_of_sm;
  unsigned short* cycles;
  CK(cudaMalloc(&buf, kBuffer));
  CK(cudaMemset(buf, 0, kBuffer));  // every load returns 0: the chain's index stays 0
  CK(cudaMalloc(&scratch, 240 * kMiB));
  CK(cudaMemset(scratch, 0x5A, 240 * kMiB));
  CK(cudaMalloc(&sink, 8));
  CK(cudaMalloc(&worker_of_sm, 1024 * sizeof(int)));
  CK(cudaMalloc(&cycles, kChunk / 32 * sizeof(unsigned short)));
  CK(cudaFuncSetAttribute(near_k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  if (slices) {  // per SM of 8 spread over the chip: each line's least near-hit cycles, page 0
    std::vector<unsigned short> c(kPage / 128);
    for (unsigned sm = 0; sm < static_cast<unsigned>(sms); sm += 16) {
      near_k<<<sms, 256, smem>>>(buf, kPage, sm, 3, cycles);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(c.data(), cycles, c.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
      std::printf("NEAR sm=%u va=%p unit=128 CYCLES", sm, static_cast<void*>(buf));
      for (const unsigned short t : c) std::printf(" %u", t);
      std::printf("\n");
    }
    std::printf("DONE\n");
    return 0;
  }
  const unsigned ref = 0;
  auto flush = [&] {
    for (int pass = 0; pass < 2; ++pass)
      flush_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16, sink);
  };
  // Times every `unit` bytes of [base, base + bytes) with the SMs given
  // (worker numbers), after SM `ref` read them; returns the cycles.
  auto map = [&](const char* base, size_t bytes, size_t unit, const std::vector<int>& workers_of_sm, int workers) {
    CK(cudaMemcpy(worker_of_sm, workers_of_sm.data(), 1024 * sizeof(int), cudaMemcpyHostToDevice));
    flush();
    touch_k<<<sms, 256, smem>>>(base, bytes, unit, ref, sink);
    time_k<<<sms, 32, smem>>>(base, bytes, unit, worker_of_sm, workers, cycles);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<unsigned short> c(bytes / unit);
    CK(cudaMemcpy(c.data(), cycles, c.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
    return c;
  };
  // 1. Calibration: every SM times its own 512 lines of the buffer's start.
  std::vector<int> all(1024, -1);
  for (int s = 0; s < sms; ++s) all[s] = s;
  std::vector<unsigned short> cal = map(buf, size_t{static_cast<size_t>(sms)} * kCalLines * 128, 128, all, sms);
  std::vector<unsigned short> sorted(cal);
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 4, sorted.end());
  const unsigned fast = sorted[sorted.size() / 4];  // a near hit: most loads are
  std::vector<int> far(1024, -1);
  int nfar = 0;
  for (int s = 0; s < sms; ++s) {  // worker s timed units s, s + sms, ...
    int slow = 0;
    for (int i = s; i < static_cast<int>(cal.size()); i += sms) slow += cal[i] > fast + 100 ? 1 : 0;
    const double share = static_cast<double>(slow) / kCalLines;
    std::printf("SM smid=%d slow_share=%.3f\n", s, share);
    if (share > 0.3) far[s] = nfar++;
  }
  std::printf("REF ref_sm=%u fast_cycles=%u far_sms=%d\n", ref, fast, nfar);
  if (nfar == 0) return 1;
  // 2. The map, chunk by chunk; page 0 also by sector.
  auto print = [&](size_t page, const std::vector<unsigned short>& c, size_t first, size_t unit,
                   std::vector<long>& hist) {
    const size_t units = kPage / unit;
    std::vector<int> nibble(units / 4, 0);
    int slow = 0;
    for (size_t i = 0; i < units; ++i) {
      const unsigned t = c[first + i];
      ++hist[std::min<size_t>(t / 20, hist.size() - 1)];
      if (t > fast + 100) ++slow, nibble[i / 4] |= 1 << (i % 4);
    }
    std::string hex;
    for (const int n : nibble) hex += "0123456789abcdef"[n];
    std::printf("PAGE %zu va=%p unit=%zu slow=%d HEX %s\n", page, static_cast<void*>(buf + page * kPage), unit, slow,
                hex.c_str());
  };
  std::vector<long> hist(100, 0);
  for (size_t chunk = 0; chunk < kBuffer; chunk += kChunk) {
    const std::vector<unsigned short> c = map(buf + chunk, kChunk, 128, far, nfar);
    for (size_t page = 0; page < kChunk / kPage; ++page) print(chunk / kPage + page, c, page * kPage / 128, 128, hist);
  }
  print(0, map(buf, kPage, 32, far, nfar), 0, 32, hist);
  std::printf("LAT cycles/20 histogram:");
  for (size_t i = 0; i < hist.size(); ++i)
    if (hist[i] > 0) std::printf(" %zu:%ld", i * 20, hist[i]);
  std::printf("\nDONE\n");
  return 0;
}
