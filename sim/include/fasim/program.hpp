// Program: an algorithm's tile schedule, written once — a list of kernels,
// each a grid of thread blocks running the same tile program.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "fasim/block.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/generator.hpp"
#include "fasim/hbm.hpp"
#include "fasim/mapping.hpp"
#include "fasim/step.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief On-chip bytes one thread block needs at its peak.
struct OnChipBytes {
  std::int64_t shared = 0;     ///< shared memory (SRAM)
  std::int64_t registers = 0;  ///< register tiles (fp32 accumulators, scores, statistics)
};

/// @brief One kernel launch: `grid` blocks, each running `body`.
struct Kernel {
  std::string_view name;  ///< e.g. "flash2 forward"
  std::int64_t grid = 0;  ///< number of thread blocks
  /// The tile program of one block; Block::id() says which block it is.
  std::function<Generator<Step>(Block&)> body;
};

/// @brief Everything an algorithm runs, in order.
struct Program {
  std::vector<Kernel> kernels;  ///< run one after another
};

/// @brief ceil(a / b) for positive b.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// @brief An algorithm: how much it needs on chip, which HBM tensors it adds
/// beyond Q, K, V and O, and its kernels.
struct AlgorithmInfo {
  Algo algo;  ///< which algorithm
  std::string_view name;  ///< its name, as `--algo` takes it
  std::string_view summary;  ///< one line for `--help` and messages
  /// Peak on-chip bytes per block for this shape and tiling on this device.
  OnChipBytes (*need)(const Workload&, const Mapping&, const DeviceSpec&);
  /// Declares the algorithm's own HBM tensors (S, P, L, ...) in hbm.
  void (*declare)(const Workload&, const Mapping&, Hbm& hbm, bool with_values);
  /// Builds the kernels. The Mapping and DeviceSpec are copied into the program.
  Program (*build)(const Workload&, const Mapping&, const DeviceSpec&);
};

/// @brief The registry: every algorithm, in a stable order.
const std::vector<AlgorithmInfo>& algorithms();
/// @brief The entry for one algorithm.
const AlgorithmInfo& algorithm(Algo a);

}  // namespace fasim
