// Sweep: run many simulations over a grid of settings (the cartesian product
// of value lists for N, d, Br, Bc, algorithm, dtype, device, batch, heads,
// blocks per SM) and
// collect one flat row of numbers per point. `fasim sweep` is a thin layer
// over this; lessons and benchmarks can call it directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/mapping.hpp"
#include "fasim/simulation.hpp"
#include "fasim/sweep_table.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief Most points one range or one whole sweep may produce.
inline constexpr std::size_t kMaxSweepPoints = 100'000;

/// @brief Parses the values of an integer axis: comma-separated items, each a
/// positive whole number ("1024"), a geometric range "START:END:xFACTOR"
/// (512:16384:x2 is 512, 1024, ..., 16384) or an arithmetic range
/// "START:END:+STEP" (16:128:+16). A range stops at the last value <= END.
/// Throws UserError naming `flag`, the bad text and the right syntax.
std::vector<std::int64_t> parse_int_axis(std::string_view flag, std::string_view text);

/// @brief Splits a comma-separated list of names ("naive,flash2"); items are
/// trimmed. Throws UserError on an empty item.
std::vector<std::string> parse_name_list(std::string_view flag, std::string_view text);

/// @brief parse_name_list, each name checked with parse_algo.
std::vector<Algo> parse_algo_axis(std::string_view flag, std::string_view text);
/// @brief parse_name_list, each name checked with parse_dtype.
std::vector<DType> parse_dtype_axis(std::string_view flag, std::string_view text);

/// @brief The values of every axis. Each list must be non-empty, except br
/// and bc: both empty means default_tiles per point; only br given means
/// Bc = Br at each point (as `fasim run` does); only bc given means Br = Bc.
struct SweepSpec {
  std::vector<DeviceSpec> devices;  ///< device profiles
  std::vector<Algo> algos{Algo::flash2};  ///< algorithms
  std::vector<DType> dtypes{DType::fp16};  ///< storage types
  std::vector<std::int64_t> batch{1};  ///< batch sizes
  std::vector<std::int64_t> heads{1};  ///< heads
  std::vector<std::int64_t> d{64};     ///< head dimensions
  std::vector<std::int64_t> N{1024};   ///< sequence lengths
  std::vector<std::int64_t> br;  ///< query rows per tile (see above)
  std::vector<std::int64_t> bc;  ///< key rows per tile (see above)
  std::vector<std::int64_t> blocks_per_sm{0};  ///< Mapping::blocks_per_sm (0: as many as fit)
  /// The base point: every point copies it and overwrites only the axes
  /// above, so the settings no axis sweeps (kv_heads, N_kv, causal, window,
  /// page_size; double_buffer, splits) hold at every point.
  Workload workload;
  Mapping mapping;  ///< the base point's mapping (see workload)
  SimOptions options{.numerics = false};  ///< counting only unless asked
};

/// @brief One point of the grid: indices into the spec's lists.
struct SweepPoint {
  std::size_t device = 0;  ///< index into SweepSpec::devices
  Algo algo = Algo::flash2;  ///< the algorithm
  Workload workload;  ///< the shape
  std::optional<std::int64_t> br;  ///< unset: default tiles
  std::optional<std::int64_t> bc;  ///< unset: default tiles
  std::int64_t blocks_per_sm = 0;  ///< Mapping::blocks_per_sm (0: as many as fit)
};

/// @brief Number of points (product of the list sizes); 0 if a list is empty.
std::size_t sweep_size(const SweepSpec& spec);

/// @brief Every point, in this fixed order, outermost first (the last varies
/// fastest): device, algo, dtype, batch, heads, d, br, bc, blocks per SM, N. Throws
/// UserError if there are more than kMaxSweepPoints.
std::vector<SweepPoint> sweep_points(const SweepSpec& spec);

/// @brief Short text of the point's settings that vary in the sweep, e.g.
/// "N=4096 d=128 flash2" (for progress lines).
std::string describe(const SweepSpec& spec, const SweepPoint& p);

/// @brief Runs one point and returns its flat row: every number of
/// report_json, nested keys joined with '.', arrays left out. A point that
/// fails with UserError (tiles that do not fit, a shape too large to
/// execute) gives a row with its settings and "error" = the message.
FlatRow run_point(const SweepSpec& spec, const SweepPoint& p);

/// @brief Called before each point (points done so far, total, the point about
/// to run) and once more after the last (done == total).
using SweepProgress = std::function<void(std::size_t done, std::size_t total, const SweepPoint&)>;

/// @brief Runs every point of sweep_points(spec), in order, into a table.
SweepTable run_sweep(const SweepSpec& spec, const SweepProgress& progress = {});

}  // namespace fasim
