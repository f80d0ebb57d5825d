// `fasim compare --recorded`: recorded GPU runs predicted again, no GPU needed.
#pragma once

#include <string>

#include "fasim/recorded_fit.hpp"

namespace fasim::cli {

/// @brief Prints the fit of the current model to the recorded points `sel`
/// picks: per metric, points within the bar and the mean and largest error;
/// for one point, its predicted and measured values. With `json`, the JSON of
/// recorded_fit.hpp instead. Writes the misses to misses_out, and the points
/// with today's predictions to out (write_repredicted_csv), unless they are
/// empty. Returns the exit code (0).
int compare_recorded(const RecordedSelection& sel, const std::string& misses_out, const std::string& out, bool json);

}  // namespace fasim::cli
