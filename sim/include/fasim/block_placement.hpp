// Block placement: which L2 partition each SM sits next to, as one kernel's
// thread blocks see it.
//
// The simulator hands block b of a kernel's first wave to SM b (mod the SM
// count), so "which partition is SM s next to" is also "which partition does
// block s of the first wave read through". Three ways to answer:
//
//  - dealt in turn: SM s next to partition s mod P, so consecutive blocks
//    alternate between the partitions. The default, and what a device
//    profile without [l2] first_wave_runs gets;
//  - the GPU's order: the launch-placement probes (H100 and H200,
//    docs/results/launch-placement-2026-11-23.md) found that a large grid's
//    first wave fills SMs next to one partition in long runs (16, 48, 50
//    and 18 blocks, then the next partition), not alternating. The few
//    query blocks that read one head's K and V tiles then mostly sit next
//    to one partition, so the far partition keeps no copy of those tiles
//    and the output keeps its room in L2 (placement-rule-2026-11-28.md);
//  - the GPU's order for a grid of one wave or less: the GPU fills SMs in a
//    fixed order, and a grid of n blocks takes the first n. Which half each
//    SM of that order sits next to is [l2] small_grid_fill, measured for
//    every grid of 1 to 132 blocks on an H200 (small-grid-placement-
//    2026-11-28.md); the splits are the same on an H100 and two other H200s
//    at the nine sizes measured there (launch-placement-grids-2026-11-25.md).
//    16 blocks (flash1 with 16 heads) sit 12 + 4, 1 to 9 all next to one
//    half. The blocks' order within a grid differs from board to board; the
//    split does not, and the split is what the L2 feels.
//
// The simulator uses the GPU's order only where the GPU keeps it: grids run
// by the fp32 teaching kernels (ComputeModel::cuda_simt), whose long blocks
// end in step, so later waves keep the first wave's order.
// The tensor-core kernel's short blocks end out of step and its later waves
// scatter over both partitions (gpu-placement-2026-11-25.md); dealing in
// turn is the closer picture there, and for the ideal compute model too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/timing.hpp"

namespace fasim {

/// @brief The partition next to each SM when blocks fill SMs in runs:
/// run i (of `runs[i]` SMs) next to partition i mod `partitions`.
/// `runs` must sum to the SM count; an empty `runs` gives an empty list.
std::vector<std::int64_t> partitions_from_runs(const std::vector<std::int64_t>& runs, std::int64_t partitions);

/// @brief Whether a kernel of `grid` blocks priced by `compute` takes the
/// device's first-wave runs: cuda_simt kernels with more blocks than SMs,
/// on a device whose profile has runs.
bool takes_first_wave_runs(const DeviceSpec& device, ComputeModel compute, std::int64_t grid);

/// @brief Whether a kernel of `grid` blocks priced by `compute` takes the
/// device's small-grid order: cuda_simt kernels of one wave or less (at most
/// one block per SM), on a device whose profile has [l2] small_grid_fill.
bool takes_small_grid_fill(const DeviceSpec& device, ComputeModel compute, std::int64_t grid);

/// @brief The partition next to each SM for a kernel of `grid` blocks priced
/// by `compute`: the device's first-wave runs where it takes them
/// (takes_first_wave_runs), else empty, which means dealt in turn
/// (PartitionedL2::set_sm_partitions).
std::vector<std::int64_t> kernel_sm_partitions(const DeviceSpec& device, ComputeModel compute, std::int64_t grid);

/// @brief How `kernel_sm_partitions` placed a run's blocks, for a reader:
/// "the GPU's first-wave runs" if any of its kernels (of `grids` blocks)
/// took them, else "dealt to the L2 halves in turn" ("one L2" with one partition).
std::string placement_name(const DeviceSpec& device, ComputeModel compute, const std::vector<std::int64_t>& grids);

}  // namespace fasim
