// `fasim compare --recorded`: recorded GPU runs predicted again, no GPU needed.
#pragma once

#include <string>

namespace fasim::cli {

/// @brief NAME-measured.toml beside NAME-sweep.csv if it exists, else "".
std::string recorded_device_path(const std::string& csv);

/// @brief Prints the fit of the current model to a recorded run; writes the
/// misses to misses_out unless it is empty. Returns the exit code (0).
int compare_recorded(const std::string& csv, const std::string& device, const std::string& misses_out);

}  // namespace fasim::cli
