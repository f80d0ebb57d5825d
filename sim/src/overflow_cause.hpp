// Why an output value is NaN or Inf where the fp64 reference is finite: one of
// the three limits of the GPU arithmetic fasim models (docs/variants.md,
// "Hostile inputs"), named in one line with the fix in another.
#pragma once

#include <string>

#include "fasim/hbm.hpp"
#include "fasim/mapping.hpp"
#include "fasim/workload.hpp"

namespace fasim {

struct OverflowCause {
  std::string cause, fix;
};

// Checks the stored inputs against the limits in the order the data meets
// them: the fp32 score (every algorithm), naive's stored S, the fp32 sum of
// p V before the division by l (flash1, flash2, decode). Costs as much as the
// reference: call it only when some output overflowed.
OverflowCause overflow_cause(const Hbm& hbm, const Workload& w, Algo algo);

}  // namespace fasim
