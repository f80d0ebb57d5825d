// DRAM bytes read by a range of launches, through fasim's CUPTI range
// profiler (cuda/src/hw_counters.cpp), for the evset probe's mode `window`
// (l2-evset-probe-2026-11-30.cu). Kept apart so that the probe's .cu does
// not see fasim's headers. Build: see the probe's build line.
#include <functional>

#include "fasim/cuda/hw_counters.hpp"

double dram_read_bytes_of(const std::function<void()>& launches) {
  return fasim::cuda::profile_range(launches).dram_read_bytes;
}
