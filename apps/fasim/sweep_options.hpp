// The flags of `fasim sweep` and how a scenario file and the flags combine
// into one SweepSpec (flags win). Apart from cmd_sweep.cpp so that the
// fuzzer of the command line (tests/fuzz/fuzz_cli.cpp) resolves flags without
// running a sweep.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "fasim/sweep.hpp"

namespace fasim::cli {

/// @brief Raw flag values of `fasim sweep`, as typed; each axis is text
/// parsed by parse_int_axis or parse_name_list.
struct SweepArgs {
  std::string N, d, br, bc, algo, dtype, device, batch, heads, blocks_per_sm, scenario, out, format, jobs;
  bool numerics = false;  ///< --numerics
  bool resume = false;    ///< --resume
};

/// @brief Values of one axis flag, written as `fasim sweep` and `fasim
/// compare --sweep` take them.
struct AxisExample {
  std::string_view flag;   ///< "--d"
  std::string_view list;   ///< a list of its values, "64,128"
  std::string_view range;  ///< a range of them, "32:256:x2"; empty for names
};

/// @brief The example values of `flag` (--N, --d, --algo, ...), or nullptr
/// when it is not an axis.
const AxisExample* axis_example(std::string_view flag);

/// @brief Adds the flags of `fasim sweep` to `sub`.
void add_sweep_flags(CLI::App& sub, SweepArgs& a);

/// @brief Defaults, then the scenario file, then the flags (`sub` says which
/// were given). Throws UserError.
SweepSpec build_spec(const SweepArgs& a, const CLI::App& sub);

/// @brief Points to run at once: --jobs if given (a positive whole number, or
/// UserError), else `fallback`.
std::size_t parse_jobs(const SweepArgs& a, const CLI::App& sub, std::size_t fallback);

}  // namespace fasim::cli
