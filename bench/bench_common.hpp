// Shared by the benchmarks: the device, the baselines every simulator figure
// is measured against, and the shapes the bars name.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>

#include "fasim/device_spec.hpp"
#include "fasim/sweep.hpp"

namespace fasim::bench {

/// @brief The H100 profile, loaded once.
inline const DeviceSpec& h100() {
  static const DeviceSpec dev = load_device("h100");
  return dev;
}

/// @brief Query x key tiles of one head: ceil(N / br) * ceil(N_kv / bc).
inline std::int64_t tiles_per_head(std::int64_t N, std::int64_t n_kv, std::int64_t br, std::int64_t bc) {
  return ((N + br - 1) / br) * ((n_kv + bc - 1) / bc);
}

/// @brief The baseline: a plain loop over flash2's tiles of bh heads, adding
/// the bytes flash2 moves (Q tile once per row of tiles, K and V tiles per
/// tile, O and L once per row), with no Steps, no timing and no L2. What the
/// simulator costs beyond it is the price of its model. Returns the bytes.
inline std::int64_t plain_tile_loop(std::int64_t bh, std::int64_t N, std::int64_t d, std::int64_t br,
                                    std::int64_t bc, std::int64_t elem) {
  std::int64_t read = 0, write = 0;
  for (std::int64_t h = 0; h < bh; ++h)
    for (std::int64_t i = 0; i < N; i += br) {
      const std::int64_t rows = std::min(br, N - i);
      read += rows * d * elem;
      for (std::int64_t j = 0; j < N; j += bc) benchmark::DoNotOptimize(read += 2 * std::min(bc, N - j) * d * elem);
      write += rows * d * elem + rows * 4;
    }
  return read + write;
}

/// @brief The sweep the bar names (102 points, N <= 8192), counting only as
/// `fasim sweep` runs by default: fasim sweep --algo naive,flash1,flash2
/// --d 64,128 --N 512:8192:+480 --heads 16.
inline SweepSpec sweep_102() {
  SweepSpec s;
  s.devices = {h100()};
  s.algos = {Algo::naive, Algo::flash1, Algo::flash2};
  s.d = {64, 128};
  s.N = parse_int_axis("--N", "512:8192:+480");
  s.heads = {16};
  return s;
}

}  // namespace fasim::bench
