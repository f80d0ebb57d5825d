#include "fasim/block_placement.hpp"

#include <stdexcept>

namespace fasim {

std::vector<std::int64_t> partitions_from_runs(const std::vector<std::int64_t>& runs, std::int64_t partitions) {
  std::vector<std::int64_t> of_sm;
  if (partitions < 1) throw std::invalid_argument("partitions_from_runs: at least one partition");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i] <= 0) throw std::invalid_argument("partitions_from_runs: a run of no SMs");
    of_sm.insert(of_sm.end(), static_cast<std::size_t>(runs[i]), static_cast<std::int64_t>(i) % partitions);
  }
  return of_sm;
}

bool takes_first_wave_runs(const DeviceSpec& device, ComputeModel compute, std::int64_t grid) {
  return !device.l2_first_wave_runs.empty() && compute == ComputeModel::cuda_simt && grid > device.sm_count;
}

bool takes_small_grid_fill(const DeviceSpec& device, ComputeModel compute, std::int64_t grid) {
  return !device.l2_small_grid_fill.empty() && compute == ComputeModel::cuda_simt && grid <= device.sm_count;
}

std::vector<std::int64_t> kernel_sm_partitions(const DeviceSpec& device, ComputeModel compute, std::int64_t grid) {
  if (takes_small_grid_fill(device, compute, grid)) {
    std::vector<std::int64_t> of_sm;
    for (const char half : device.l2_small_grid_fill) of_sm.push_back(half == 'B' ? 1 : 0);
    return of_sm;
  }
  if (!takes_first_wave_runs(device, compute, grid)) return {};
  return partitions_from_runs(device.l2_first_wave_runs, device.l2_partitions);
}

std::string placement_name(const DeviceSpec& device, ComputeModel compute, const std::vector<std::int64_t>& grids) {
  if (device.l2_partitions < 2) return "one L2";
  bool runs = false, fill = false;
  for (const std::int64_t g : grids) {
    runs = runs || takes_first_wave_runs(device, compute, g);
    fill = fill || takes_small_grid_fill(device, compute, g);
  }
  if (runs && fill) return "the GPU's first-wave runs and small-grid order";
  if (runs) return "the GPU's first-wave runs";
  if (fill) return "the GPU's small-grid order";
  return "dealt to the L2 halves in turn";
}

}  // namespace fasim
