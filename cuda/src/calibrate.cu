// The microbenchmarks of `fasim gpu calibrate` (calibrate.hpp says what each
// measures and how). Every kernel is timed the same way: warm-up launches,
// then CUDA events around each timed launch, the median of the runs; every
// CUDA call and every launch is checked. The GPU's clocks are never touched:
// the compute kernels read the SM clock they ran at (clock64 against
// %globaltimer) so that per-clock figures use the clock of the same launch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <stdexcept>

// Only C++17 headers here (nvcc compiles this file as C++17): no simulator
// headers; calibrate.cpp does the rest.
#include "fasim/cuda/calibrate.hpp"
#include "fasim/cuda/gpu_timer.hpp"
#include "fasim/format.hpp"

namespace fasim::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}
#define FASIM_CAL_CHECK(call) check((call), #call)
#define FASIM_CAL_LAUNCHED(kernel) check(cudaGetLastError(), "launch of " #kernel)

/// A device allocation freed on scope exit.
template <class T>
class Buffer {
 public:
  explicit Buffer(std::size_t n) : n_(n) { FASIM_CAL_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T))); }
  ~Buffer() { cudaFree(p_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    FASIM_CAL_CHECK(cudaEventCreate(&start));
    FASIM_CAL_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

/// Times `launch`: `warmup` untimed runs, then `runs` runs between two events
/// each. `before` (optional) runs ahead of every run and is synchronized,
/// outside the events; `after(seconds)` runs after each timed run has finished.
std::vector<double> timed(int warmup, int runs, const std::function<void()>& launch,
                          const std::function<void()>& before = {},
                          const std::function<void(double)>& after = {}) {
  Events ev;
  for (int i = 0; i < warmup; ++i) {
    if (before) before();
    launch();
  }
  FASIM_CAL_CHECK(cudaDeviceSynchronize());
  std::vector<double> s;
  for (int i = 0; i < runs; ++i) {
    if (before) {
      before();
      FASIM_CAL_CHECK(cudaDeviceSynchronize());
    }
    FASIM_CAL_CHECK(cudaEventRecord(ev.start, nullptr));
    launch();
    FASIM_CAL_CHECK(cudaEventRecord(ev.stop, nullptr));
    FASIM_CAL_CHECK(cudaEventSynchronize(ev.stop));
    FASIM_CAL_CHECK(cudaGetLastError());
    float ms = 0;
    FASIM_CAL_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    s.push_back(static_cast<double>(ms) * 1e-3);
    if (after) after(s.back());
  }
  return s;
}

// ---- clock ------------------------------------------------------------------

/// clock64() and %globaltimer at the start and end of block 0's thread 0.
struct ClockSample {
  long long cycles0, cycles1;
  unsigned long long ns0, ns1;
};

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void clock_start(ClockSample* c) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    c->ns0 = global_ns();
    c->cycles0 = clock64();
  }
}

__device__ __forceinline__ void clock_stop(ClockSample* c) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    c->cycles1 = clock64();
    c->ns1 = global_ns();
  }
}

/// Reads the clock of the last launch, in GHz (cycles per ns).
class ClockReader {
 public:
  ClockReader() : buf_(1) {}
  ClockSample* device() const { return buf_.get(); }
  double ghz() const {
    ClockSample c{};
    FASIM_CAL_CHECK(cudaMemcpy(&c, buf_.get(), sizeof c, cudaMemcpyDeviceToHost));
    const double ns = static_cast<double>(c.ns1 - c.ns0);
    return ns > 0 ? static_cast<double>(c.cycles1 - c.cycles0) / ns : 0;
  }

 private:
  Buffer<ClockSample> buf_;
};

// ---- HBM --------------------------------------------------------------------

__device__ __forceinline__ unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

__global__ void fill_random(uint4* __restrict__ p, std::size_t words, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < words;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const unsigned k = static_cast<unsigned>(i) * 4u + seed;
    p[i] = make_uint4(mix(k), mix(k + 1), mix(k + 2), mix(k + 3));
  }
}

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

__global__ void __launch_bounds__(512) hbm_copy(uint4* __restrict__ dst, const uint4* __restrict__ src,
                                                std::size_t words) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + 3 * stride < words; i += 4 * stride) {  // four 16-byte loads in flight per thread
    const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < words; i += stride) dst[i] = src[i];
}

__global__ void __launch_bounds__(512) hbm_read(const uint4* __restrict__ src, std::size_t words, unsigned magic,
                                                unsigned* __restrict__ sink) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < words; i += 4 * stride)
    acc ^= fold(src[i]) ^ fold(src[i + stride]) ^ fold(src[i + 2 * stride]) ^ fold(src[i + 3 * stride]);
  for (; i < words; i += stride) acc ^= fold(src[i]);
  if (acc == magic) *sink = acc;  // practically never; keeps the loads
}

// ---- L2 ---------------------------------------------------------------------

// Thread i reads words i, i + T, i + 2T, ... (T threads in all) modulo the
// working set (mask + 1 words), 16 bytes each, through L2 only.
__global__ void __launch_bounds__(512) l2_read(const uint4* __restrict__ data, unsigned mask, int iters,
                                               unsigned magic, unsigned* __restrict__ sink) {
  const unsigned t = gridDim.x * blockDim.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (int k = 0; k < iters; k += 4, i += 4 * t)
    acc ^= fold(__ldcg(data + (i & mask))) ^ fold(__ldcg(data + ((i + t) & mask))) ^
           fold(__ldcg(data + ((i + 2 * t) & mask))) ^ fold(__ldcg(data + ((i + 3 * t) & mask)));
  if (acc == magic) *sink = acc;
}

// ---- shared memory ----------------------------------------------------------

constexpr int kSmemThreads = 1024;

// Each of 1024 threads reads WPT 16-byte words per pass, one from each 16 KiB
// row of the array; a warp reads 512 contiguous, aligned bytes: no bank
// conflicts. Pass r rotates the columns by r * shift words (shift = 32, a
// kernel argument), so the assembler cannot prove two passes read the same
// addresses and fold their loads (it did, without the rotation: 4x too fast).
// cycles[block] = clock64() cycles of the passes, from the first barrier to
// the last.
template <int WPT>
__global__ void __launch_bounds__(kSmemThreads) smem_read(int reps, unsigned shift, long long* __restrict__ cycles,
                                                          unsigned* __restrict__ sink) {
  extern __shared__ uint4 s[];
  constexpr int kWords = WPT * kSmemThreads;
  for (int j = threadIdx.x; j < kWords; j += blockDim.x) s[j] = make_uint4(mix(j), mix(j + 1), j, ~j);
  __syncthreads();
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s));
  unsigned acc = 0;
  const long long t0 = clock64();
  for (int r = 0; r < reps; ++r) {
    const unsigned row = base + ((threadIdx.x + static_cast<unsigned>(r) * shift) & (kSmemThreads - 1)) * 16u;
#pragma unroll
    for (int j = 0; j < WPT; ++j) {
      unsigned a, b, c, d;
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                   : "r"(row + static_cast<unsigned>(j * kSmemThreads * 16)));
      acc ^= a ^ b ^ c ^ d;
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (acc == 0x9E3779B9u) *sink = acc;
}

// ---- arithmetic -------------------------------------------------------------

constexpr int kArithThreads = 256;
constexpr int kFmaChains = 16;
constexpr int kExpChains = 8;
constexpr int kMmaChains = 8;

__global__ void __launch_bounds__(kArithThreads) fma_loop(int iters, float y, float z, float* __restrict__ sink,
                                                          ClockSample* clk) {
  clock_start(clk);
  float x[kFmaChains];
#pragma unroll
  for (int k = 0; k < kFmaChains; ++k) x[k] = static_cast<float>((threadIdx.x + k) % 97) * 1e-3f;
#pragma unroll 8
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kFmaChains; ++k) x[k] = fmaf(x[k], y, z);
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kFmaChains; ++k) sum += x[k];
  if (sum == -1.0f) *sink = sum;
  __syncthreads();
  clock_stop(clk);
}

// KIND 0: ex2.approx.ftz.f32 (MUFU.EX2); 1: __expf; 2: expf. x stays in (0, 1).
template <int KIND>
__global__ void __launch_bounds__(kArithThreads) exp_loop(int iters, float* __restrict__ sink, ClockSample* clk) {
  clock_start(clk);
  float x[kExpChains];
#pragma unroll
  for (int k = 0; k < kExpChains; ++k) x[k] = 0.05f + static_cast<float>((threadIdx.x * 7 + k) % 89) * 0.01f;
#pragma unroll 4
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kExpChains; ++k) {
      if constexpr (KIND == 0) {
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(x[k]) : "f"(-x[k]));
      } else if constexpr (KIND == 1) {
        x[k] = __expf(-x[k]);
      } else {
        x[k] = expf(-x[k]);
      }
    }
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kExpChains; ++k) sum += x[k];
  if (sum == -1.0f) *sink = sum;
  __syncthreads();
  clock_stop(clk);
}

template <bool BF16>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
  unsigned u;
  if constexpr (BF16) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    std::memcpy(&u, &v, sizeof u);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    std::memcpy(&u, &v, sizeof u);
  }
  return u;
}

// mma.sync m16n8k16, fp32 accumulate, A (4 registers) and B (2) in registers,
// kMmaChains independent accumulators per warp.
template <bool BF16>
__global__ void __launch_bounds__(kArithThreads) mma_loop(int iters, float* __restrict__ sink, ClockSample* clk) {
  clock_start(clk);
  const unsigned t = threadIdx.x + blockIdx.x * 977u;
  unsigned a[4], b[2];
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = pack2<BF16>(1e-3f * ((t + k) % 7 + 1), 1e-3f * ((t + 3 * k) % 5 + 1));
#pragma unroll
  for (int k = 0; k < 2; ++k) b[k] = pack2<BF16>(1e-3f * ((t + k) % 3 + 1), 1e-3f * ((t + 5 * k) % 11 + 1));
  float c[kMmaChains][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kMmaChains; ++k) {
      if constexpr (BF16) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      }
    }
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kMmaChains; ++k) sum += c[k][0] + c[k][1] + c[k][2] + c[k][3];
  if (sum == -1.0f) *sink = sum;
  __syncthreads();
  clock_stop(clk);
}

// ---- latency and launch -----------------------------------------------------

// One thread follows next[] `steps` times through L2 only (ld.global.cg).
__global__ void chase(const unsigned* __restrict__ next, unsigned start, int steps, unsigned* __restrict__ end,
                      long long* __restrict__ cycles) {
  unsigned p = start;
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
  const long long t1 = clock64();
  *end = p;
  *cycles = t1 - t0;
}

__global__ void empty_kernel() {}

// ---- host helpers -----------------------------------------------------------

template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads, std::size_t smem) {
  int n = 0;
  FASIM_CAL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem));
  return std::max(1, n);
}

std::int64_t pow2_floor(std::int64_t x) {
  std::int64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// A random cycle through `nodes` nodes `stride_words` apart (Sattolo's
// algorithm): next[i * stride] = (the node after i) * stride, in words.
std::vector<unsigned> random_cycle(std::size_t nodes, std::size_t stride_words, std::uint64_t seed) {
  std::vector<unsigned> perm(nodes);
  std::iota(perm.begin(), perm.end(), 0u);
  std::mt19937_64 rng(seed);
  for (std::size_t i = nodes - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(perm[i], perm[pick(rng)]);
  }
  std::vector<unsigned> next(nodes * stride_words, 0u);
  for (std::size_t i = 0; i < nodes; ++i) next[i * stride_words] = static_cast<unsigned>(perm[i] * stride_words);
  return next;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

void detail::run_benchmarks(Calibration& c, const CalibrateOptions& o,
                            const std::function<void(std::string_view)>& progress) {
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  const int W = std::max(0, o.warmup), R = o.runs;
  auto scaled = [&](double n, std::int64_t multiple) {
    const auto v = static_cast<std::int64_t>(n * o.work);
    return std::max(multiple, v / multiple * multiple);
  };
  c.runs = R;
  c.warmup = W;
  c.hbm_figure = o.hbm;
  int device = 0, rt = 0, khz = 0;
  FASIM_CAL_CHECK(cudaGetDevice(&device));
  FASIM_CAL_CHECK(cudaRuntimeGetVersion(&rt));
  c.cuda_runtime = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
  cudaDeviceProp prop{};
  FASIM_CAL_CHECK(cudaGetDeviceProperties(&prop, device));
  FASIM_CAL_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  c.cc_major = prop.major;
  c.l2_partitions = prop.major >= 8 ? 2 : 1;
  c.cc_minor = prop.minor;
  c.sm_count = prop.multiProcessorCount;
  c.sram_bytes_per_sm = static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
  c.sram_bytes_per_block = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
  c.register_bytes_per_sm = std::int64_t{prop.regsPerMultiprocessor} * 4;
  c.register_bytes_per_block = std::int64_t{prop.regsPerBlock} * 4;
  c.l2_bytes = prop.l2CacheSize;
  c.hbm_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  c.peak_clock_ghz = khz / 1e6;
  const int sms = prop.multiProcessorCount;
  say("calibrating " + c.gpu + " (" + std::to_string(sms) + " SMs, L2 " + human_bytes(static_cast<double>(c.l2_bytes)) +
      "), driver " + c.driver + "; " + std::to_string(W) + " warm-up + " + std::to_string(R) + " timed runs each");

  Buffer<unsigned> sink(4);
  Buffer<float> fsink(4);
  ClockReader clock;

  // HBM: copy and read of a buffer far larger than L2, back to back.
  {
    std::size_t free_b = 0, total_b = 0;
    FASIM_CAL_CHECK(cudaMemGetInfo(&free_b, &total_b));
    std::int64_t bytes = std::max<std::int64_t>(static_cast<std::int64_t>(32.0 * c.l2_bytes * o.work), 4 * c.l2_bytes);
    bytes = std::min<std::int64_t>(bytes, static_cast<std::int64_t>(free_b / 4));
    bytes = bytes / (1 << 20) * (1 << 20);
    c.hbm_buffer_bytes = bytes;
    const std::size_t words = static_cast<std::size_t>(bytes) / 16;
    Buffer<uint4> src(words), dst(words);
    fill_random<<<sms * 4, 512>>>(src.get(), words, 1u);
    FASIM_CAL_LAUNCHED(fill_random);
    fill_random<<<sms * 4, 512>>>(dst.get(), words, 2u);
    FASIM_CAL_LAUNCHED(fill_random);
    const int grid_copy = sms * blocks_per_sm(hbm_copy, 512, 0), grid_read = sms * blocks_per_sm(hbm_read, 512, 0);
    const auto tc = timed(W, R, [&] {
      hbm_copy<<<grid_copy, 512>>>(dst.get(), src.get(), words);
      FASIM_CAL_LAUNCHED(hbm_copy);
    });
    const auto tr = timed(W, R, [&] {
      hbm_read<<<grid_read, 512>>>(src.get(), words, 0x2545F491u, sink.get());
      FASIM_CAL_LAUNCHED(hbm_read);
    });
    c.hbm_copy_gbps = 2.0 * static_cast<double>(bytes) / median(tc) / 1e9;
    c.hbm_read_gbps = static_cast<double>(bytes) / median(tr) / 1e9;
    say("  HBM bandwidth     copy " + fmt("%.0f", c.hbm_copy_gbps) + " GB/s (read + write), read " +
        fmt("%.0f", c.hbm_read_gbps) + " GB/s, over " + human_bytes(static_cast<double>(bytes)));
  }

  // L2: a working set of at most L2 / 8, read by every SM over and over.
  {
    const std::int64_t ws = pow2_floor(c.l2_bytes / 8);
    c.l2_working_set_bytes = ws;
    const std::size_t words = static_cast<std::size_t>(ws) / 16;
    Buffer<uint4> data(words);
    fill_random<<<sms * 4, 512>>>(data.get(), words, 3u);
    FASIM_CAL_LAUNCHED(fill_random);
    const int grid = sms * blocks_per_sm(l2_read, 512, 0);
    const double threads = static_cast<double>(grid) * 512;
    const int iters = static_cast<int>(scaled(8.0 * (1 << 30) / (threads * 16), 4));
    const double bytes = threads * iters * 16;
    const auto t = timed(W, R, [&] {
      l2_read<<<grid, 512>>>(data.get(), static_cast<unsigned>(words - 1), iters, 0x2545F491u, sink.get());
      FASIM_CAL_LAUNCHED(l2_read);
    });
    c.l2_gbps = bytes / median(t) / 1e9;
    say("  L2 bandwidth      " + fmt("%.0f", c.l2_gbps) + " GB/s, " + human_bytes(static_cast<double>(ws)) +
        " working set");
  }

  // Shared memory: one block per SM (128 KiB each), bytes per clock of each block.
  {
    const bool big = c.sram_bytes_per_block >= 128 * 1024;
    const int wpt = big ? 8 : 4;
    const std::size_t smem = static_cast<std::size_t>(wpt) * kSmemThreads * 16;
    auto kernel = big ? smem_read<8> : smem_read<4>;
    FASIM_CAL_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    const int reps = static_cast<int>(scaled(2048.0 * 8 / wpt, 1));
    Buffer<long long> cycles(static_cast<std::size_t>(sms));
    std::vector<long long> host(static_cast<std::size_t>(sms));
    std::vector<double> per_run;
    timed(
        W, R,
        [&] {
          kernel<<<sms, kSmemThreads, smem>>>(reps, 32u, cycles.get(), sink.get());
          FASIM_CAL_LAUNCHED(smem_read);
        },
        {},
        [&](double) {
          FASIM_CAL_CHECK(cudaMemcpy(host.data(), cycles.get(), host.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          const double bytes = static_cast<double>(reps) * static_cast<double>(smem);
          double sum = 0;
          for (long long cyc : host) sum += bytes / static_cast<double>(std::max(1LL, cyc));
          per_run.push_back(sum / static_cast<double>(host.size()));
        });
    c.sram_bytes_per_clock_per_sm = median(per_run);
    say("  shared memory     " + fmt("%.1f", c.sram_bytes_per_clock_per_sm) + " B per clock per SM");
  }

  // FP32 FMA (and the clock the SMs ran at).
  {
    const int grid = sms * blocks_per_sm(fma_loop, kArithThreads, 0);
    const int iters = static_cast<int>(scaled(32768, 8));
    std::vector<double> ghz;
    const auto t = timed(
        W, R,
        [&] {
          fma_loop<<<grid, kArithThreads>>>(iters, 0.999f, 1e-3f, fsink.get(), clock.device());
          FASIM_CAL_LAUNCHED(fma_loop);
        },
        {}, [&](double) { ghz.push_back(clock.ghz()); });
    const double flops = static_cast<double>(grid) * kArithThreads * iters * kFmaChains * 2.0;
    c.fp32_tflops = flops / median(t) / 1e12;
    c.clock_ghz = median(ghz);
    say("  FP32 FMA          " + fmt("%.1f", c.fp32_tflops) + " TFLOP/s at " + fmt("%.3f", c.clock_ghz) +
        " GHz (" + fmt("%.1f", c.fp32_tflops * 1e12 / (c.clock_ghz * 1e9 * sms)) + " FLOP per clock per SM)");
  }

  // mma.sync, fp16 and bf16.
  auto mma = [&](auto kernel, const char* what, double& tflops, double* clock_out) {
    const int grid = sms * blocks_per_sm(kernel, kArithThreads, 0);
    const int iters = static_cast<int>(scaled(16384, 1));
    std::vector<double> ghz;
    const auto t = timed(
        W, R,
        [&] {
          kernel<<<grid, kArithThreads>>>(iters, fsink.get(), clock.device());
          FASIM_CAL_LAUNCHED(mma_loop);
        },
        {}, [&](double) { ghz.push_back(clock.ghz()); });
    const double flops = static_cast<double>(grid) * (kArithThreads / 32) * iters * kMmaChains * 4096.0;
    tflops = flops / median(t) / 1e12;
    if (clock_out) *clock_out = median(ghz);
    say(std::string("  ") + what + " mma.sync     " + fmt("%.1f", tflops) + " TFLOP/s at " + fmt("%.3f", median(ghz)) +
        " GHz");
  };
  mma(mma_loop<false>, "fp16", c.matmul_fp16_tflops, &c.clock_matmul_ghz);
  mma(mma_loop<true>, "bf16", c.matmul_bf16_tflops, nullptr);

  // Exponentials: per clock per SM at the clock of the same launch.
  auto exps = [&](auto kernel, const char* what, double& per_clock) {
    const int grid = sms * blocks_per_sm(kernel, kArithThreads, 0);
    const int iters = static_cast<int>(scaled(8192, 4));
    const double count = static_cast<double>(grid) * kArithThreads * iters * kExpChains;
    std::vector<double> per_run;
    timed(
        W, R,
        [&] {
          kernel<<<grid, kArithThreads>>>(iters, fsink.get(), clock.device());
          FASIM_CAL_LAUNCHED(exp_loop);
        },
        {}, [&](double seconds) { per_run.push_back(count / seconds / (clock.ghz() * 1e9) / sms); });
    per_clock = median(per_run);
    say(std::string("  ") + what + fmt("%.2f", per_clock) + " per clock per SM");
  };
  exps(exp_loop<0>, "exp (ex2.approx)  ", c.exp_per_clock_per_sm);
  exps(exp_loop<1>, "exp (__expf)      ", c.expf_fast_per_clock_per_sm);
  exps(exp_loop<2>, "exp (expf)        ", c.expf_per_clock_per_sm);

  // Latency: pointer chase through L2 (warm) and through HBM (L2 flushed).
  {
    const std::size_t stride_words = static_cast<std::size_t>(c.chase_stride_bytes) / 4;
    Buffer<unsigned> end(1);
    Buffer<long long> cycles(1);
    auto run_chase = [&](std::int64_t region, std::int64_t steps, bool cold, double& ns, double& cyc) {
      const std::size_t nodes = static_cast<std::size_t>(region / c.chase_stride_bytes);
      const std::vector<unsigned> host = random_cycle(nodes, stride_words, 42);
      Buffer<unsigned> next(host.size());
      FASIM_CAL_CHECK(cudaMemcpy(next.get(), host.data(), host.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
      std::unique_ptr<L2Flusher> flusher;
      if (cold) flusher = std::make_unique<L2Flusher>();
      std::vector<double> per_cycle;
      const auto t = timed(
          W, R,
          [&] {
            chase<<<1, 1>>>(next.get(), 0u, static_cast<int>(steps), end.get(), cycles.get());
            FASIM_CAL_LAUNCHED(chase);
          },
          cold ? std::function<void()>([&] { flusher->flush(); }) : std::function<void()>{},
          [&](double) {
            long long cy = 0;
            FASIM_CAL_CHECK(cudaMemcpy(&cy, cycles.get(), sizeof cy, cudaMemcpyDeviceToHost));
            per_cycle.push_back(static_cast<double>(cy) / static_cast<double>(steps));
          });
      ns = median(t) / static_cast<double>(steps) * 1e9;
      cyc = median(per_cycle);
    };
    c.l2_chase_bytes = std::min<std::int64_t>(pow2_floor(c.l2_bytes / 8), 4 << 20);
    c.l2_chase_steps = scaled(4.0 * static_cast<double>(c.l2_chase_bytes / c.chase_stride_bytes), 1);
    run_chase(c.l2_chase_bytes, c.l2_chase_steps, false, c.l2_latency_ns, c.l2_latency_cycles);
    say("  L2 latency        " + fmt("%.0f", c.l2_latency_ns) + " ns (" + fmt("%.0f", c.l2_latency_cycles) +
        " cycles)");
    c.hbm_chase_bytes = 2 * c.l2_bytes / c.chase_stride_bytes * c.chase_stride_bytes;
    c.hbm_chase_steps = std::min<std::int64_t>(scaled(16384, 1), c.hbm_chase_bytes / c.chase_stride_bytes / 2);
    run_chase(c.hbm_chase_bytes, c.hbm_chase_steps, true, c.hbm_latency_ns, c.hbm_latency_cycles);
    say("  HBM latency       " + fmt("%.0f", c.hbm_latency_ns) + " ns (" + fmt("%.0f", c.hbm_latency_cycles) +
        " cycles)");
  }

  // Launch overhead: empty kernels back to back.
  {
    const int n = c.launches_per_run;
    const auto t = timed(W, R, [&] {
      for (int i = 0; i < n; ++i) {
        empty_kernel<<<1, 32>>>();
        FASIM_CAL_LAUNCHED(empty_kernel);
      }
    });
    c.launch_overhead_us = median(t) / n * 1e6;
    say("  launch overhead   " + fmt("%.2f", c.launch_overhead_us) + " us per kernel, back to back");
  }
}

}  // namespace fasim::cuda
