// L2 probes behind fasim's L2 model (docs/timing-model.md, "The L2"): what an
// H200's L2 writes to and reads from DRAM for simple kernel sequences.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o l2probe h200-2026-11-21-l2-probes.cu
// Run (two runs: ./l2probe e, the E probes; ./l2probe p, the P probes):
//   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//       --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//       --csv --print-units base ./l2probe e
// Only the kernels instantiated with <1> are profiled, in the order the program
// prints PROBE lines. Ask ncu for the two DRAM metrics alone: with more, it
// replays each kernel (saving and restoring memory), and the numbers are wrong.
// Every sequence starts with flush(): two reads of a 240 MiB scratch buffer.
// X, Y: MiB. grid 0: 8 blocks of 256 threads per SM; grid 16: 16 blocks of 1024.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
__device__ unsigned long long g_sink;
template <int K> __global__ void rd_k(const uint4* __restrict__ p, size_t n, size_t shift) {
  unsigned acc = 0; size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t t = ((size_t)blockIdx.x * blockDim.x + threadIdx.x + shift) % stride;
  for (size_t i = t; i < n; i += stride) { uint4 x = __ldcg(p + i); acc ^= x.x ^ x.y ^ x.z ^ x.w; }
  if (acc == 0x9E3779B9u) g_sink = acc;
}
template <int K> __global__ void wr_k(uint4* __restrict__ p, size_t n, unsigned v) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = make_uint4(v, v + 1, v + 2, (unsigned)i);
}
template <int K> __global__ void rmw_k(uint4* __restrict__ p, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) { uint4 x = __ldcg(p + i); x.x += 1; p[i] = x; }
}
// K: 0 = setup/flush (not profiled), 1 = probe (profiled)
static char* pool; static size_t pool_bytes; static int sms; static int probes = 0;
const size_t MiB = 1 << 20;
static char* scratch; static cudaEvent_t ev0, ev1;
static void tstart(){ CK(cudaEventRecord(ev0)); }
static void tstop(){ CK(cudaEventRecord(ev1)); CK(cudaEventSynchronize(ev1)); float ms; CK(cudaEventElapsedTime(&ms, ev0, ev1)); printf("TIME %.2f us\n", ms*1000); }
void flush() { for (int pass = 0; pass < 2; ++pass) rd_k<0><<<sms * 8, 256>>>((const uint4*)scratch, 240 * MiB / 16, 0); CK(cudaDeviceSynchronize()); }
void rd(bool probe, char* p, size_t bytes, int grid = 0, int threads = 256, size_t shift = 0, const char* label = "") {
  if (!grid) grid = sms * 8;
  if (probe) { printf("PROBE %d %s\n", probes++, label); tstart(); rd_k<1><<<grid, threads>>>((const uint4*)p, bytes / 16, shift); tstop(); }
  else rd_k<0><<<grid, threads>>>((const uint4*)p, bytes / 16, shift);
  CK(cudaDeviceSynchronize());
}
void wr(bool probe, char* p, size_t bytes, int grid = 0, int threads = 256, const char* label = "") {
  if (!grid) grid = sms * 8;
  if (probe) { printf("PROBE %d %s\n", probes++, label); tstart(); wr_k<1><<<grid, threads>>>((uint4*)p, bytes / 16, 7); tstop(); }
  else wr_k<0><<<grid, threads>>>((uint4*)p, bytes / 16, 7);
  CK(cudaDeviceSynchronize());
}
void rmw(bool probe, char* p, size_t bytes, int grid, int threads, const char* label) {
  if (probe) { printf("PROBE %d %s\n", probes++, label); tstart(); rmw_k<1><<<grid, threads>>>((uint4*)p, bytes / 16); tstop(); }
  else rmw_k<0><<<grid, threads>>>((uint4*)p, bytes / 16);
  CK(cudaDeviceSynchronize());
}
int main(int argc, char** argv) {
  const bool e_set = argc > 1 && argv[1][0] == 'e';
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  printf("SMS %d L2 %d\n", sms, l2); CK(cudaEventCreate(&ev0)); CK(cudaEventCreate(&ev1));
  pool_bytes = 4096 * MiB; CK(cudaMalloc(&pool, pool_bytes)); CK(cudaMemset(pool, 1, pool_bytes));
  CK(cudaMalloc(&scratch, 240 * MiB)); CK(cudaMemset(scratch, 0x5A, 240 * MiB)); CK(cudaDeviceSynchronize());
  char* A = pool;                 // up to 128 MiB
  char* B = pool + 256 * MiB;     // streaming region
  char lab[200];
  if (e_set) {
  // E1: dirty A (X) then one streaming read of fresh B (Y); then re-read A.
  for (int X : {8, 16, 24, 32}) for (int Y : {8, 16, 24, 32, 40, 48, 64, 96}) {
    flush(); wr(false, A, X * MiB);
    snprintf(lab, sizeof lab, "E1 X=%d Y=%d streamB", X, Y); rd(true, B, Y * MiB, 0, 256, 0, lab);
    snprintf(lab, sizeof lab, "E1 X=%d Y=%d rereadA", X, Y); rd(true, A, X * MiB, 0, 256, 0, lab);
  }
  // E1c: clean A (X, read) then stream B (Y), re-read A: capacity for clean data, LRU vs scan resistance (A read once)
  for (int X : {16, 32}) for (int Y : {16, 32, 48, 96}) {
    flush(); rd(false, A, X * MiB);
    snprintf(lab, sizeof lab, "E1c X=%d Y=%d streamB", X, Y); rd(true, B, Y * MiB, 0, 256, 0, lab);
    snprintf(lab, sizeof lab, "E1c X=%d Y=%d rereadA", X, Y); rd(true, A, X * MiB, 0, 256, 0, lab);
  }
  // E5: A read twice (reused), then stream B (Y) once, then re-read A: scan resistance of reused lines
  for (int X : {16, 24}) for (int Y : {32, 48, 64, 128}) {
    flush(); rd(false, A, X * MiB); rd(false, A, X * MiB);
    snprintf(lab, sizeof lab, "E5 X=%d Y=%d streamB", X, Y); rd(true, B, Y * MiB, 0, 256, 0, lab);
    snprintf(lab, sizeof lab, "E5 X=%d Y=%d rereadA", X, Y); rd(true, A, X * MiB, 0, 256, 0, lab);
  }
  // E2: re-read capacity: read X twice, same mapping / shifted mapping (other SMs)
  for (int X : {16, 24, 32, 40, 48, 56, 64}) for (int sh : {0, 1}) {
    flush(); rd(false, A, X * MiB);
    size_t shift = sh ? (size_t)sms * 8 * 256 / 2 + 256 * 3 : 0;
    snprintf(lab, sizeof lab, "E2 X=%d shift=%d second", X, sh); rd(true, A, X * MiB, 0, 256, shift, lab);
    snprintf(lab, sizeof lab, "E2 X=%d shift=%d third", X, sh); rd(true, A, X * MiB, 0, 256, shift, lab);
  }
  // E3: rewrite loop (flash1-like): A (X) read-modify-written each iteration, fresh B region (Y) streamed
  for (int X : {8, 16, 24, 32, 40}) for (int g : {16, 0}) {
    flush(); wr(false, A, X * MiB, g ? g : sms * 8, g ? 1024 : 256);
    for (int it = 0; it < 4; ++it) {
      snprintf(lab, sizeof lab, "E3 X=%d grid=%d it=%d stream", X, g, it); rd(true, B + (size_t)it * 8 * MiB, 4 * MiB, g ? g : sms * 8, g ? 1024 : 256, 0, lab);
      snprintf(lab, sizeof lab, "E3 X=%d grid=%d it=%d rmwA", X, g, it); rmw(true, A, X * MiB, g ? g : sms * 8, g ? 1024 : 256, lab);
    }
  }
  // E4: dirty A (X), then B (Y) read 3 times (reused stream, flash2-like K/V), writes per pass
  for (int X : {8, 16}) for (int Y : {24, 32, 40, 48}) {
    flush(); wr(false, A, X * MiB);
    for (int it = 0; it < 3; ++it) { snprintf(lab, sizeof lab, "E4 X=%d Y=%d pass=%d", X, Y, it); rd(true, B, Y * MiB, 0, 256, 0, lab); }
  }
  } else {
  // P1: write-only kernel: its own DRAM writes vs X; then a rewrite; then a read
  for (int X = 8; X <= 64; X += 4) {
    flush();
    snprintf(lab, sizeof lab, "P1 X=%d write", X); wr(true, A, X * MiB, 0, 256, lab);
    snprintf(lab, sizeof lab, "P1 X=%d rewrite", X); wr(true, A, X * MiB, 0, 256, lab);
    snprintf(lab, sizeof lab, "P1 X=%d read", X); rd(true, A, X * MiB, 0, 256, 0, lab);
    snprintf(lab, sizeof lab, "P1 X=%d read2", X); rd(true, A, X * MiB, 0, 256, 0, lab);
  }
  // P5: RMW loop without stream, 16 blocks and all SMs
  for (int X : {20, 24, 28, 32, 36, 40, 44}) for (int g : {16, 0}) {
    flush(); wr(false, A, X * MiB, g ? g : sms * 8, g ? 1024 : 256);
    for (int it = 0; it < 3; ++it) { snprintf(lab, sizeof lab, "P5 X=%d grid=%d it=%d rmw", X, g, it); rmw(true, A, X * MiB, g ? g : sms * 8, g ? 1024 : 256, lab); }
  }
  // P7: one block (one SM, one partition): write, then RMW twice, then read
  for (int X : {8, 12, 16, 20, 24, 28, 32, 40}) {
    flush();
    snprintf(lab, sizeof lab, "P7 X=%d write1sm", X); wr(true, A, X * MiB, 1, 1024, lab);
    snprintf(lab, sizeof lab, "P7 X=%d read1sm", X); rd(true, A, X * MiB, 1, 1024, 0, lab);
    snprintf(lab, sizeof lab, "P7 X=%d rmw1sm", X); rmw(true, A, X * MiB, 1, 1024, lab);
    snprintf(lab, sizeof lab, "P7 X=%d rmw1sm2", X); rmw(true, A, X * MiB, 1, 1024, lab);
    snprintf(lab, sizeof lab, "P7 X=%d readall", X); rd(true, A, X * MiB, 0, 256, 0, lab);
  }
  // P8: one block reads clean data twice (capacity one SM sees)
  for (int X : {16, 24, 28, 32, 36, 40, 48}) {
    flush(); rd(false, A, X * MiB, 1, 1024);
    snprintf(lab, sizeof lab, "P8 X=%d read1sm", X); rd(true, A, X * MiB, 1, 1024, 0, lab);
  }
  }
  printf("DONE %d probes\n", probes);
}
