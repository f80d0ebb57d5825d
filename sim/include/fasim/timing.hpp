// Timing vocabulary: servers that hand out time, what bounds a kernel, and
// the time report of one kernel.
//
// The model is cycle-approximate. Every resource — HBM, L2, and on each SM
// the shared-memory port, the tensor cores, the FP32 units and the special
// function units (exp) — is a server that works through requests one after
// another at its rate. A step asks each resource it uses for
// bytes / bandwidth or FLOPs / rate seconds, starting when the step is ready;
// it ends when the last of them is done, plus the latency of a memory access.
// Thread blocks run concurrently, so they queue for the shared resources.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace fasim {

/// @brief What limits a kernel's time.
enum class Bound : std::uint8_t { hbm, l2, sram, matmul, fp32, exp, latency, launch };
inline constexpr int kBoundCount = 8;

/// @brief "HBM", "L2", "SRAM", "matmul", "FP32", "exp", "latency", "launch".
std::string_view name(Bound b);

/// @brief A resource serving requests in arrival order at a fixed rate.
struct Server {
  double free_at = 0;  ///< when the last accepted request finishes
  double busy = 0;     ///< total seconds of work accepted

  /// @brief A request of `seconds` of work, ready at `ready`; returns its finish time.
  double serve(double ready, double seconds) {
    if (seconds <= 0) return ready;
    const double start = std::max(ready, free_at);
    free_at = start + seconds;
    busy += seconds;
    return free_at;
  }
};

/// @brief The predicted time of one kernel.
struct KernelTime {
  std::string_view name;
  std::int64_t grid = 0;           ///< thread blocks
  std::int64_t blocks_per_sm = 0;  ///< occupancy: blocks resident on one SM at once
  std::int64_t waves = 0;          ///< ceil(grid / (SMs * blocks_per_sm))
  double start_s = 0;              ///< launch begins
  double end_s = 0;                ///< last block and last store done
  double launch_s = 0;             ///< launch overhead inside [start, end]
  /// Busy seconds per Bound (hbm .. exp; latency and launch unused): chip-wide
  /// resources summed, per-SM resources the busiest SM.
  std::array<double, kBoundCount> busy{};
  Bound bound = Bound::latency;

  double seconds() const { return end_s - start_s; }
  /// @brief busy / (time after the launch) of one resource.
  double utilization(Bound b) const {
    const double t = seconds() - launch_s;
    return t > 0 ? busy[static_cast<int>(b)] / t : 0.0;
  }
};

/// @brief Picks the bound: the busiest resource if it is busy at least half
/// the kernel's time; else launch if the launch overhead is most of the time;
/// else latency (the kernel mostly waits).
Bound classify(const KernelTime& k);

}  // namespace fasim
