// Simulation: runs an algorithm's Program on a device, one Step at a time.
// It owns the HBM tensors (random inputs Q, K, V; output O), drives every
// thread block's tile program in order, and keeps the Ledger.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fasim/block.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/hbm.hpp"
#include "fasim/ledger.hpp"
#include "fasim/mapping.hpp"
#include "fasim/program.hpp"
#include "fasim/step.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief How to run: with values or counting only, inputs' seed, watched row.
struct SimOptions {
  bool numerics = true;      ///< compute real values (execute) or only count (predict)
  std::uint64_t seed = 1;    ///< seed of the random inputs
  WatchedRow watch{};        ///< row whose running m and l the steps report
};

/// @brief Error of the output against the fp64 reference.
struct NumericsResult {
  double max_abs_error = 0;   ///< max |O - O_ref|
  double max_rel_error = 0;   ///< max |O - O_ref| / max |O_ref| (normwise)
  double max_abs_reference = 0;
};

/// @brief A running simulation.
class Simulation {
 public:
  /// @brief Validates the inputs (throws UserError) and prepares the first block.
  Simulation(DeviceSpec device, Workload workload, Mapping mapping, SimOptions options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// @brief Replaces the random values of input Q, K or V (all heads, row-major
  /// (bh, N, d)) before the first step; values are rounded to the dtype.
  /// Throws UserError if the size is wrong, after the first step, or when
  /// counting only.
  void set_input(TensorId t, const std::vector<float>& values);

  /// @brief Advances one Step. Returns false (and does nothing) when finished.
  bool next();
  /// @brief The Step taken by the last successful next().
  const Step& step() const { return step_; }
  /// @brief Runs every remaining Step.
  void run();
  /// @brief True when every block of every kernel has finished.
  bool done() const { return done_; }

  const Ledger& ledger() const { return ledger_; }
  const Hbm& hbm() const { return hbm_; }
  const DeviceSpec& device() const { return device_; }
  const Workload& workload() const { return workload_; }
  const Mapping& mapping() const { return mapping_; }
  const SimOptions& options() const { return options_; }
  const Program& program() const { return program_; }
  /// @brief Planned on-chip bytes per block (what the check against capacity used).
  const OnChipBytes& need() const { return need_; }

  /// @brief Compares O with an fp64 reference computed from the same inputs.
  /// Needs done() and options().numerics.
  NumericsResult numerics() const;

 private:
  bool start_next_block();

  DeviceSpec device_;
  Workload workload_;
  Mapping mapping_;
  SimOptions options_;
  OnChipBytes need_;
  Program program_;
  Hbm hbm_;
  Ledger ledger_;
  Step step_{};
  std::size_t kernel_ = 0;
  std::int64_t block_ = -1;
  std::unique_ptr<Block> block_ctx_;
  Generator<Step> body_;
  bool done_ = false;
};

}  // namespace fasim
