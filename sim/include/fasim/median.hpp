// The median of measured values (ncu launches, GPU placements).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace fasim {

/// @brief The median of `v` (the mean of the middle two when there are an
/// even number); `v` must not be empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace fasim
