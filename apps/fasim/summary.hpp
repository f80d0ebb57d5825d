// The human-readable summary of a finished run.
#pragma once

#include <optional>
#include <ostream>

#include "fasim/simulation.hpp"

namespace fasim::cli {

/// @brief Prints workload, mapping, HBM traffic per tensor, FLOPs, on-chip use
/// and (if given) the numerical error.
void print_summary(std::ostream& os, const Simulation& sim, const std::optional<NumericsResult>& num);

}  // namespace fasim::cli
