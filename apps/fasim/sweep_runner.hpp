// Runs the points of a sweep so that Ctrl-C loses nothing finished: points run
// on worker threads (one per job, each taking the next point in grid order)
// while this thread watches for SIGINT and SIGTERM. On a signal it returns at
// once with the rows finished so far; the points still running are abandoned
// (the caller writes the rows and exits). Each row goes to its point's place,
// so the rows come out in grid order whatever the number of jobs.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "fasim/sweep.hpp"

namespace fasim::cli {

/// @brief Called before each point runs (points finished, total, the point)
/// and once after the last; from the calling thread.
using RunnerProgress = std::function<void(std::size_t done, std::size_t total, const SweepPoint&)>;

/// @brief While alive, SIGINT and SIGTERM only set a flag (they no longer end
/// the process); the handlers before it come back on destruction.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  /// @brief The signal that arrived (SIGINT or SIGTERM), or 0.
  static int caught();
};

/// @brief Runs run_point for every point whose row is missing, `jobs` points
/// at a time (started in grid order), filling rows[i]. Returns true when all
/// ran; false if StopSignals caught a signal first (rows holds what
/// finished, which with several jobs need not be the first points). Needs a
/// live StopSignals.
bool run_missing_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                        std::vector<std::optional<FlatRow>>& rows, const RunnerProgress& progress,
                        std::size_t jobs = 1);

/// @brief The default number of jobs: the machine's cores (at least 1).
std::size_t default_jobs();

}  // namespace fasim::cli
