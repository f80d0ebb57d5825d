// Simulation: runs an algorithm's Program on a device, one Step at a time.
// It owns the HBM tensors (random inputs Q, K, V; output O), drives every
// thread block's tile program in order, and keeps the Ledger.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fasim/block.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/hbm.hpp"
#include "fasim/ledger.hpp"
#include "fasim/machine.hpp"
#include "fasim/timing.hpp"
#include "fasim/mapping.hpp"
#include "fasim/program.hpp"
#include "fasim/ready_queue.hpp"
#include "fasim/step.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief Standard deviations of the random inputs (1: N(0, 1)). Large ones
/// show where fp16, bf16 and fp32 overflow (docs/variants.md, "Hostile inputs").
struct InputScale {
  float q = 1;  ///< Q ~ N(0, q^2)
  float k = 1;  ///< K ~ N(0, k^2)
  float v = 1;  ///< V ~ N(0, v^2)
};

/// @brief How to run: with values or counting only, inputs' seed, watched row.
struct SimOptions {
  bool numerics = true;      ///< compute real values (execute) or only count (predict)
  std::uint64_t seed = 1;    ///< seed of the random inputs
  InputScale scale{};        ///< standard deviations of the random inputs
  WatchedRow watch{};        ///< row whose running m and l the steps report
  L2Start l2 = L2Start::cold;  ///< L2 starts empty or holding Q, K and V
  /// how compute steps are priced (fasim compare picks its CUDA kernel's)
  ComputeModel compute = ComputeModel::ideal;
  /// the CUDA compute models' figures (timing.hpp); tests change them
  WarpLatency latency = kWarpLatency;
};

/// @brief Throws UserError unless `row`, the watched row, is a row of the
/// sequence (0 .. N-1). The Simulation checks it; the CLI checks it first,
/// where it knows whether the row came from a flag or a scenario file.
void validate_watched_row(const Workload& w, std::int64_t row);

/// @brief Predicted time of the whole run.
struct TimeReport {
  double seconds = 0;               ///< first launch to last kernel's end
  Bound bound = Bound::latency;     ///< the bound of the longest kernel
  std::vector<KernelTime> kernels;  ///< one per kernel, in order
};

/// @brief Error of the output against the fp64 reference, and where O holds
/// NaN or Inf: as the reference does (from NaN or Inf inputs), or where the
/// reference is finite because the GPU arithmetic fasim models overflowed.
struct NumericsResult {
  /// max |O - O_ref| over the values whose O_ref is finite; infinite if O is
  /// NaN or Inf at one of them, or differs from a NaN or Inf O_ref
  double max_abs_error = 0;
  double max_rel_error = 0;   ///< max |O - O_ref| / max |O_ref| (normwise)
  /// max finite |O_ref|: the scale max_rel_error divides by
  double max_abs_reference = 0;
  std::int64_t nonfinite_inputs = 0;  ///< values of Q, K and V that are NaN or Inf as stored
  std::int64_t propagated = 0;        ///< values of O that are NaN or Inf as O_ref is, the same way
  std::int64_t overflowed = 0;        ///< values of O that are NaN or Inf where O_ref is finite
  /// why `overflowed` values exist, one line (empty when there are none)
  std::string overflow_cause;
  /// what to change so they do not, one line (empty when there are none)
  std::string overflow_fix;
};

/// @brief A running simulation. Thread blocks run concurrently on the SMs as
/// occupancy allows; next() returns their steps in simulated-time order.
class Simulation {
 public:
  /// @brief Validates the inputs (throws UserError) and prepares the first block.
  Simulation(DeviceSpec device, Workload workload, Mapping mapping, SimOptions options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// @brief Replaces the random values of input Q, K or V (all heads, row-major
  /// (bh, N, d) for Q, (batch * kv_heads, N_kv, d) for K and V, logical order
  /// even when paged) before the first step; values are rounded to the dtype.
  /// Throws UserError if the size is wrong, after the first step, or when
  /// counting only.
  void set_input(TensorId t, const std::vector<float>& values);

  /// @brief Advances one Step. Returns false (and does nothing) when finished.
  /// Each kernel ends with one StepKind::writeback step (block -1): the DRAM
  /// write-backs the L2 model made in the kernel that no step counted yet, so
  /// the steps' bytes always sum to the ledger's.
  bool next();
  /// @brief The Step taken by the last successful next().
  const Step& step() const { return step_; }
  /// @brief Runs every remaining Step.
  void run();
  /// @brief True when every block of every kernel has finished and the last
  /// writeback step was taken: next() returns false.
  bool done() const { return done_; }

  /// @brief Traffic and FLOPs of every step so far.
  const Ledger& ledger() const { return ledger_; }
  /// @brief The tensors in HBM, with values when executing.
  const Hbm& hbm() const { return hbm_; }
  /// @brief The device it runs on.
  const DeviceSpec& device() const { return device_; }
  /// @brief The attention shape.
  const Workload& workload() const { return workload_; }
  /// @brief The algorithm and its tiles.
  const Mapping& mapping() const { return mapping_; }
  /// @brief How it runs: numerics, seed, watched row, L2 start.
  const SimOptions& options() const { return options_; }
  /// @brief The algorithm's kernels.
  const Program& program() const { return program_; }
  /// @brief Planned on-chip bytes per block (what the check against capacity used).
  const OnChipBytes& need() const { return need_; }
  /// @brief Blocks one SM holds at once: limited by SRAM, registers and 32,
  /// and by Mapping::blocks_per_sm when it is set. Under cuda-simt each kernel has its own (cuda_occupancy.hpp); this is
  /// the kernel running now, or the last one once done. KernelTime has each.
  std::int64_t blocks_per_sm() const { return blocks_per_sm_; }
  /// @brief Predicted time so far (complete once done()).
  const TimeReport& time() const { return time_; }
  /// @brief Dirty bytes still in L2 (written by the kernels, not yet in DRAM).
  std::int64_t l2_dirty_bytes() const;
  /// @brief Whether this run's DRAM bytes come from the line-level L2 of
  /// the device's sampled sets (l2_lines.hpp) rather than the count model.
  bool line_l2() const;

  /// @brief Compares O with an fp64 reference computed from the same inputs.
  /// Needs done() and options().numerics.
  NumericsResult numerics() const;

 private:
  // One resident thread block: its context, its tile program, its clock.
  struct Slot {
    std::unique_ptr<Block> ctx;
    Generator<Step> body;  // destroyed before ctx: its tiles live in ctx's OnChip
    BlockClock clock;
  };
  void start_kernel(double t);
  void finish_kernel();
  // Starts the kernel's next block in `slot` at time t; returns when it is
  // ready (t), or ReadyQueue::kIdle when the grid has no block left.
  double dispatch(std::size_t slot, double t);
  // The blocks per SM a kernel fits, held to Mapping::blocks_per_sm if set.
  std::int64_t capped_occupancy(std::int64_t fits) const {
    return mapping_.blocks_per_sm > 0 ? std::min(fits, mapping_.blocks_per_sm) : fits;
  }

  DeviceSpec device_;
  Workload workload_;
  Mapping mapping_;
  SimOptions options_;
  OnChipBytes need_;
  std::int64_t blocks_per_sm_ = 1;
  Program program_;
  Hbm hbm_;
  Ledger ledger_;
  std::unique_ptr<Machine> machine_;
  TimeReport time_;
  Step step_{};  // every block writes its steps here (block.hpp says why)
  TileScratch scratch_;  // working copies of the blocks' Q, K, V tiles (on_chip.hpp)

  std::size_t kernel_ = 0;       // the running kernel
  std::int64_t next_block_ = 0;  // next block of it to dispatch
  double kernel_end_ = 0;        // latest block or store end seen in it
  std::vector<Slot> slots_;
  // The block that can issue a step earliest goes next (ties: the lower slot).
  ReadyQueue ready_;
  Step writeback_{};  // the writeback step of the kernel that just finished
  bool writeback_pending_ = false;  // next() returns writeback_ before anything else
  bool done_ = false;
};

}  // namespace fasim
