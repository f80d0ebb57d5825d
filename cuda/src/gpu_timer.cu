// Event timing, the L2 flush and a plain copy kernel (see gpu_timer.hpp).
#include "fasim/cuda/gpu_timer.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace fasim::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}
#define FASIM_TIMER_CHECK(call) check((call), #call)

// Reads every 16-byte word of the scratch buffer. The one store happens only
// if the xor of everything equals `magic` (a random 64-bit value, so in
// practice never); the loads cannot be dropped because the test needs them.
__global__ void read_all(const uint4* __restrict__ data, std::size_t words, unsigned long long magic,
                         unsigned long long* __restrict__ sink) {
  unsigned long long acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < words;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 x = data[i];
    acc ^= (static_cast<unsigned long long>(x.x) << 32 | x.y) ^ (static_cast<unsigned long long>(x.z) << 32 | x.w);
  }
  if (acc == magic) *sink = acc;
}

__global__ void copy_words(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t words) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < words;
       i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = src[i];
}

__global__ void copy_tail(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = src[i];
}

// Waits `ns` nanoseconds of the GPU's global timer and touches no memory:
// work whose DRAM bytes are zero, for seeing what the counters count anyway.
__global__ void wait_ns(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

int sm_count() {
  int sms = 0, device = 0;
  FASIM_TIMER_CHECK(cudaGetDevice(&device));
  FASIM_TIMER_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

int grid_for(std::size_t items, int threads) {
  const int sms = sm_count();
  const std::size_t want = (items + threads - 1) / threads;
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(want, std::size_t(sms) * 8)));
}

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    FASIM_TIMER_CHECK(cudaEventCreate(&start));
    FASIM_TIMER_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

}  // namespace

L2Flusher::L2Flusher(int factor) {
  if (factor < 2) throw std::invalid_argument("the L2 flush needs a scratch buffer of at least 2x the L2 size");
  int device = 0, l2 = 0;
  FASIM_TIMER_CHECK(cudaGetDevice(&device));
  FASIM_TIMER_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  l2_bytes_ = static_cast<std::size_t>(l2);
  bytes_ = std::max<std::size_t>(static_cast<std::size_t>(factor) * l2_bytes_, std::size_t{64} << 20);
  bytes_ = (bytes_ + 15) / 16 * 16;
  FASIM_TIMER_CHECK(cudaMalloc(&scratch_, bytes_));
  if (cudaMalloc(reinterpret_cast<void**>(&sink_), sizeof(unsigned long long)) != cudaSuccess) {
    cudaFree(scratch_);
    throw std::runtime_error("CUDA error in cudaMalloc: cannot allocate the L2 flush's sink");
  }
  // Written once here, so that flush() only ever reads defined, clean data.
  if (cudaMemset(scratch_, 0x5A, bytes_) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    cudaFree(scratch_);
    cudaFree(sink_);
    throw std::runtime_error("CUDA error in cudaMemset: cannot fill the L2 flush's scratch buffer");
  }
}

L2Flusher::~L2Flusher() {
  cudaFree(scratch_);
  cudaFree(sink_);
}

void L2Flusher::flush() {
  // Reads only, twice over 2x the L2: every line of earlier kernels leaves L2
  // (dirty ones go to DRAM now, outside any measured range) and L2 ends full
  // of clean scratch lines. A write here (an earlier version memset the
  // scratch) could leave dirty lines behind that the measured kernel would
  // then evict, charging it DRAM writes it did not cause.
  const std::size_t words = bytes_ / 16;
  for (int pass = 0; pass < 2; ++pass)
    read_all<<<grid_for(words, 256), 256>>>(static_cast<const uint4*>(scratch_), words, 0x9E3779B97F4A7C15ull, sink_);
  FASIM_TIMER_CHECK(cudaGetLastError());
  FASIM_TIMER_CHECK(cudaDeviceSynchronize());
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

TimeStats time_launches(const std::function<void()>& launch, const TimerOptions& options) {
  if (options.runs < 1) throw std::invalid_argument("timing needs at least one run");
  std::unique_ptr<L2Flusher> flusher;
  if (options.cold_l2) flusher = std::make_unique<L2Flusher>();
  Events ev;
  TimeStats t;
  t.runs = options.runs;
  t.warmup = std::max(0, options.warmup);
  t.cold_l2 = options.cold_l2;
  for (int i = 0; i < t.warmup; ++i) {
    if (flusher) flusher->flush();
    launch();
  }
  FASIM_TIMER_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < options.runs; ++i) {
    if (flusher) flusher->flush();  // synchronizes: nothing of the flush is inside the events
    FASIM_TIMER_CHECK(cudaEventRecord(ev.start, nullptr));
    launch();
    FASIM_TIMER_CHECK(cudaEventRecord(ev.stop, nullptr));
    FASIM_TIMER_CHECK(cudaEventSynchronize(ev.stop));
    FASIM_TIMER_CHECK(cudaGetLastError());
    float ms = 0;
    FASIM_TIMER_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    t.samples_s.push_back(static_cast<double>(ms) * 1e-3);
  }
  t.median_s = median(t.samples_s);
  t.min_s = *std::min_element(t.samples_s.begin(), t.samples_s.end());
  t.max_s = *std::max_element(t.samples_s.begin(), t.samples_s.end());
  return t;
}

void copy_bytes(void* dst, const void* src, std::size_t n) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(dst) % 16 == 0 && reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  const std::size_t words = aligned ? n / 16 : 0;
  if (words > 0) {
    copy_words<<<grid_for(words, 256), 256>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), words);
    FASIM_TIMER_CHECK(cudaGetLastError());
  }
  const std::size_t rest = n - words * 16;
  if (rest > 0) {
    copy_tail<<<grid_for(rest, 256), 256>>>(static_cast<unsigned char*>(dst) + words * 16,
                                            static_cast<const unsigned char*>(src) + words * 16, rest);
    FASIM_TIMER_CHECK(cudaGetLastError());
  }
}

void idle_for(double seconds) {
  wait_ns<<<sm_count(), 32>>>(static_cast<unsigned long long>(std::max(0.0, seconds) * 1e9));
  FASIM_TIMER_CHECK(cudaGetLastError());
}

}  // namespace fasim::cuda
