// Timing kernels on the GPU the way GPU.md asks: CUDA events around the
// launch only, warm-up runs first, the median (and min, max) of at least 20
// runs that nothing profiles, and the L2 flushed before every timed run in
// cold mode (outside the timed region) or left holding the inputs in warm mode.
//
//   fasim::cuda::L2Flusher flush;                 // 2 x L2 of scratch
//   const auto t = fasim::cuda::time_launches([&] { dr.launch(false); },
//                                             {.runs = 20, .cold_l2 = true});
//   t.median_s, t.min_s, t.max_s
//
// The same L2Flusher empties L2 before a CUPTI range (hw_counters.hpp).
// This header is plain C++17 with no CUDA types (gpu_timer.cu includes it).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace fasim::cuda {

/// @brief Empties the GPU's L2 of everything a kernel left there: reads a
/// scratch buffer of `factor` x the L2 size twice (written once, when the
/// flusher is made), so dirty lines of earlier kernels are written to DRAM
/// now, and L2 ends up holding clean scratch lines only (which a later kernel
/// evicts without a DRAM write).
class L2Flusher {
 public:
  /// @brief Allocates the scratch buffer (factor >= 2). Throws std::runtime_error
  /// with one line if a CUDA call fails (as every function here).
  explicit L2Flusher(int factor = 2);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  /// @brief Enqueues the flush on the default stream and waits for it.
  void flush();
  /// @brief The GPU's L2 size in bytes (cudaDeviceProp::l2CacheSize).
  std::size_t l2_bytes() const { return l2_bytes_; }
  /// @brief The scratch buffer's size in bytes.
  std::size_t scratch_bytes() const { return bytes_; }

 private:
  void* scratch_ = nullptr;
  unsigned long long* sink_ = nullptr;
  std::size_t bytes_ = 0, l2_bytes_ = 0;
};

/// @brief How to time.
struct TimerOptions {
  int warmup = 3;               ///< untimed runs first (clocks up, code loaded)
  int runs = 20;                ///< timed runs (at least 20 for a median that holds)
  bool cold_l2 = true;          ///< flush L2 before each run; false: warm, inputs stay in L2
};

/// @brief Times of the timed runs, in seconds.
struct TimeStats {
  /// median of the timed runs
  double median_s = 0;
  /// fastest run
  double min_s = 0;
  /// slowest run
  double max_s = 0;
  /// timed runs
  int runs = 0;
  /// untimed runs before them
  int warmup = 0;
  /// L2 was flushed before each run
  bool cold_l2 = true;
  std::vector<double> samples_s;  ///< in run order
};

/// @brief Times `launch` (which enqueues one or more kernels on the default
/// stream) with CUDA events: `warmup` untimed runs, then `runs` timed ones.
/// cold_l2: L2 is flushed before each run, outside the events. Otherwise (warm) runs follow
/// each other, so each finds what the previous one left in L2. Throws
/// std::invalid_argument if runs < 1.
TimeStats time_launches(const std::function<void()>& launch, const TimerOptions& options = {});

/// @brief Median of the values (the mean of the middle two for an even count); 0 if empty.
double median(std::vector<double> values);

/// @brief Copies n bytes on the GPU with a plain grid-stride kernel (16-byte
/// loads and stores where aligned): a workload whose DRAM bytes are known,
/// for checking the hardware counters. Enqueued on the default stream.
void copy_bytes(void* dst, const void* src, std::size_t n);

/// @brief Runs a kernel (one warp per SM) that waits `seconds` of GPU time
/// and touches no memory: a range whose own DRAM traffic is zero, for
/// measuring what the counters see without work. Enqueued on the default stream.
void idle_for(double seconds);

}  // namespace fasim::cuda
