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
enum class Bound : std::uint8_t {
  hbm,      ///< HBM (DRAM) bandwidth
  l2,       ///< L2 bandwidth
  sram,     ///< shared-memory bandwidth of the busiest SM
  matmul,   ///< matmul rate (tensor cores, or FP32 cores for fp32)
  fp32,     ///< FP32 rate of non-matmul work (softmax, rescaling)
  exp,      ///< special-function units (exponentials)
  latency,  ///< no resource is busy half the time: blocks mostly wait on memory latency
  launch    ///< the kernel launch overhead is most of the time
};
/// @brief How many Bound values there are (the size of KernelTime::busy).
inline constexpr int kBoundCount = 8;

/// @brief "HBM", "L2", "SRAM", "matmul", "FP32", "exp", "latency", "launch".
std::string_view name(Bound b);

/// @brief How compute steps are priced: an ideal kernel, or one of fasim's
/// CUDA kernels, so that `fasim compare` predicts the kernel that really runs.
enum class ComputeModel : std::uint8_t {
  /// Matmuls on the storage type's matmul units (tensor cores for fp16 and
  /// bf16, FP32 units for fp32), operands from registers: the algorithm's cost.
  ideal,
  /// fasim's CUDA teaching kernels (versions 1-3): every multiply-add runs on
  /// the FP32 units and reads both operands from shared memory, 4-byte words,
  /// so each 2 matmul FLOPs cost 8 bytes of the SM's shared-memory port.
  cuda_simt,
  /// fasim's tensor-core kernel (version 4): matmuls as `ideal`, but one
  /// thread block per SM (its 170-230 registers per thread allow no more).
  cuda_mma,
};

/// @brief "ideal", "cuda-simt" or "cuda-mma".
std::string_view name(ComputeModel m);

/// @brief Threads in a warp.
inline constexpr int kWarpSize = 32;

/// @brief Warps in one thread block of the kernel a compute model prices:
/// 8 for cuda-simt (256 threads, cuda/src/kernels.hpp kThreads), Br / 16 for
/// cuda-mma (16 query rows per warp), 0 for ideal (no warp latency priced).
int warps_per_block(ComputeModel m, std::int64_t br);

/// @brief Latency a warp waits out, per unit of work, in the CUDA compute
/// models (docs/timing-model.md, "Warps wait"). A pipe that serves W resident
/// warps of an SM is held for its own work plus latency / W per unit: the
/// other W - 1 warps hide the rest. Derived from ncu on an H200
/// (docs/results/h200-2026-11-21-ncu.csv): the profiled kernels' durations
/// less what the pipes alone take, per unit of work.
struct WarpLatency {
  /// cuda-simt: SM clock cycles per multiply-add of a warp (one per lane):
  /// both operands come from shared memory and the FMA waits for them.
  /// Fitted together with simt_step_cycles and simt_row_cycles, below.
  double simt_fma_cycles = 7.0;
  /// cuda-simt: SM clock cycles a block waits in each key step, whatever the
  /// tile's size, and cycles per query row in that step: barriers, the set-up
  /// of each loop, and per row two warp reductions (max and sum). All warps
  /// of the block wait at once, so only other blocks on the SM hide it: each
  /// softmax step holds the multiply-add pipe (step + rows x row) / B, with
  /// B the blocks resident on the SM. Small key tiles pay it often: flash2
  /// fp32 at N = 1024 ran 3.4x slower with Bc = 16 than with Bc = 128 on an
  /// H200 (docs/results/h200-2026-11-22-tile-steps.csv). fasim cannot price
  /// those parts one by one; this is one figure for all of them.
  /// The three cuda-simt figures were fitted on a grid (FMA 7, 8, 9; step
  /// 6000, 10000, 14000; row 100, 200, 300) to that tile probe and the H200
  /// sweep's times (docs/results/h200-2026-11-22-sweep.csv), each kernel with
  /// its own occupancy (cuda_occupancy.hpp): mean errors 5.4% and 4.1%. With
  /// no per-step cost and 10 cycles per FMA they were 24.3% and 5.2%.
  double simt_step_cycles = 10000;
  double simt_row_cycles = 200;  ///< see simt_step_cycles
  /// cuda-mma: per mma.sync m16n8k16 (4096 FLOPs) of a warp, in units of one
  /// mma at the SM's peak matmul rate (the rate was measured at the clock the
  /// tensor-core kernel runs at). Fitted to the times of the same sweep's 12
  /// flash2 fp16 points: the least mean error, 2.9% (6.0, 6.25, 6.75, 7.0:
  /// 3.5%, 3.1%, 3.1%, 3.4%). From ncu profiles it was 5.0.
  double mma_mma_times = 6.5;
  /// cuda-mma: SM clock cycles each key step holds the tensor pipe besides
  /// its mma.sync work: the loop, barriers, the softmax's bookkeeping and the
  /// rescale of O, issued by the same warps. Other blocks on the SM do not
  /// hide it. Chosen on version 4 at tilings holding two to four blocks per
  /// SM (docs/results/h200-2026-11-24-mma-occupancy.csv) among 500, 1000,
  /// 1500, 2000, 3000 (with 0 to 10 more a row, hidden by other blocks or
  /// not): with 1000 all 10 points there are within 25% (mean 14.7%), and 10
  /// of 10 held to one block per SM (7.6%); with none, 0 of 10 (41.5% too
  /// fast). The sweeps' tilings (Br = Bc = 128, one block per SM) wait on
  /// other units in each step and do not move (mean 3.0%).
  double mma_step_cycles = 1000;
  /// cuda-simt and cuda-mma: SM clock cycles per exponential of a lane (one
  /// softmax element: mask, max, exp, sum, each waiting for the last). From
  /// the same two tensor-core profiles.
  double exp_cycles = 16.9;
  /// cuda-simt: seconds per element a thread loads in the teaching kernels'
  /// tile loop (cuda/src/tiles.cuh: one 4-byte ld.global.cg, then a store to
  /// shared memory, element after element), when the element hits in L2 and
  /// when it comes from DRAM. A block of 256 threads per SM, measured by a
  /// probe on the H200 (docs/results/h200-2026-11-21-tile-load-probe.cu):
  /// 220 and 428 ns, against 145 and 337 ns for one thread chasing pointers.
  double simt_load_hit_s = 220e-9;
  double simt_load_miss_s = 428e-9;  ///< see simt_load_hit_s
  /// cuda-simt, where the line-level L2 counts (l2_lines.hpp): the weight
  /// of a load's own sampled lines in the hit share that times it; the rest
  /// is the count model's expected share for the same tile. The line model
  /// sees 1 line in 29 (a 16 KiB tile: about 4 of its 128 lines), so a
  /// tile's own share is a noisy estimate, and at weight 1 a block whose
  /// few sampled lines missed fell behind and stayed behind: flash1's
  /// blocks started their last key block 177 us apart where the GPU's are
  /// 43 (132 heads, N 512, d 128). Chosen on the GPU's drift alone
  /// (docs/results/h200-2026-12-01-flash1-drift.txt, three shapes), not on
  /// bytes: at 0.3 fasim's spreads are 48, 49 and 122 us against the GPU's
  /// 43, 64 and 129 (0.2: 38, 36, 95; 0.5: 79 at the first). Bytes move
  /// little (docs/results/load-timing-blend-2026-12-01.md).
  double simt_own_lines_weight = 0.3;
  /// cuda-simt and cuda-mma: the share of the queued work of an SM's pipes
  /// that the oldest block there skips. The warp scheduler issues the oldest
  /// ready warps first, so when two blocks share an SM the one that started
  /// first (on a tie, the lower index) ends first, and the other slot's
  /// blocks drift behind wave after wave. On an H200, flash2 fp32 at two
  /// blocks per SM: the lower-index block of every SM ended first (132 of
  /// 132), and the two slots' start times drifted apart by 5% to 13% of a
  /// block a wave, settling at about half a block; the tensor-core kernel
  /// does the same, faster (docs/results/block-times-2026-11-29.md). With 0
  /// both blocks end together and every wave starts at once. The model's
  /// timeline is the same for 0.44 to 0.48 (11% to 17% a wave, then half a
  /// block); below 0.44 it jumps to 3% a wave. 0.45, the middle of that
  /// range.
  double oldest_first = 0.45;
};

/// @brief The warp latencies fasim uses for the CUDA compute models.
inline constexpr WarpLatency kWarpLatency{};

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
  /// @brief The same request, served ahead of a share `skip` (0 to 1) of the
  /// work queued before it: its finish time moves that share of the way from
  /// the queue's end to ready + seconds. The work still counts for the
  /// requests after it (the server is busy just as long).
  double serve_ahead(double ready, double seconds, double skip) {
    const double in_turn = serve(ready, seconds);
    return in_turn - skip * (in_turn - (ready + seconds));
  }
};

/// @brief The predicted time of one kernel.
struct KernelTime {
  std::string_view name;           ///< the kernel's name in the Program, e.g. "flash2 forward"
  std::int64_t grid = 0;           ///< thread blocks
  std::int64_t blocks_per_sm = 0;  ///< occupancy: blocks resident on one SM at once
  std::int64_t waves = 0;          ///< ceil(grid / (SMs * blocks_per_sm))
  double start_s = 0;              ///< launch begins
  double end_s = 0;                ///< last block and last store done
  double launch_s = 0;             ///< launch overhead inside [start, end]
  /// Busy seconds per Bound (hbm .. exp; launch unused): chip-wide resources
  /// summed, per-SM resources the busiest SM. `latency`: the warp latency the
  /// CUDA compute models added to the busiest SM's pipes (already inside
  /// their busy seconds; 0 for the ideal model).
  std::array<double, kBoundCount> busy{};
  Bound bound = Bound::latency;    ///< what limits this kernel (see classify())

  /// @brief The kernel's time in seconds, launch included: end_s - start_s.
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
