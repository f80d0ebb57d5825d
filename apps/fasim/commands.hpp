// The subcommands of `fasim`. Each registers its flags on the app and returns
// the function that runs it (exit code).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "fasim/error.hpp"

namespace fasim::cli {

using Action = std::function<int()>;

/// @brief Whether `flag`, which names a file, was given to `sub`. Given with
/// an empty name (`--out ""`) it throws: an empty name must not read as "no
/// file" (a lost trace, a table on stdout). `example` is a file name to show.
inline bool file_flag_given(const CLI::App& sub, const std::string& flag, const std::string& path,
                            const std::string& example) {
  if (sub.count(flag) == 0) return false;
  if (path.empty())
    throw UserError(flag + " was given an empty file name; give one, e.g. " + flag + " " + example);
  return true;
}

/// @brief `fasim run`: one forward pass, summary or --json, optional --trace.
Action add_run(CLI::App& app);
/// @brief `fasim step`: the steps one by one.
Action add_step(CLI::App& app);
/// @brief `fasim devices`: built-in device profiles.
Action add_devices(CLI::App& app);
/// @brief `fasim sweep`: a grid of simulations, one row per point (CSV or JSON lines).
Action add_sweep(CLI::App& app);
/// @brief `fasim plot`: an SVG figure drawn from a sweep file.
Action add_plot(CLI::App& app);
/// @brief `fasim gpu run`: one forward pass measured on the GPU (needs FASIM_CUDA).
Action add_gpu(CLI::App& app);
/// @brief `fasim compare`: simulator prediction beside GPU measurement (needs FASIM_CUDA).
Action add_compare(CLI::App& app);
/// @brief `fasim lesson`: list the lessons, take one step by step, or grade its exercises.
Action add_lesson(CLI::App& app);
/// @brief `fasim trace --html FILE`: a run's trace inside a web page that steps through it.
Action add_trace(CLI::App& app);

}  // namespace fasim::cli
