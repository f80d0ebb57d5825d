// Tiling checks: do an algorithm's tiles fit on chip, and which tiles to use
// when the user gives none.
#pragma once

#include <cstdint>
#include <optional>

#include "fasim/device_spec.hpp"
#include "fasim/mapping.hpp"
#include "fasim/program.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief True if `need` fits the device's shared memory and registers per block.
bool fits(const OnChipBytes& need, const DeviceSpec& dev);

/// @brief flash1: the paper's Bc = ceil(M/4d), Br = min(Bc, d), capped by
/// the next power of two >= N_kv (Br: >= N), shrunk until it fits. Others:
/// the largest power of two t <= 128 whose tiles fit, with
/// Br = min(t, next power of two >= the query rows (decode: heads / kv_heads * N))
/// and Bc = min(t, next power of two >= N_kv); with paged K/V, Bc is rounded
/// down to a multiple (or a divisor) of the page size. splits stays 0 (automatic).
/// Throws UserError if not even 1 fits.
Mapping default_tiles(Algo algo, const Workload& w, const DeviceSpec& dev);
/// @brief default_tiles for `base` (its algorithm): its other settings
/// (double_buffer, splits, blocks_per_sm) are kept, and the tiles are chosen
/// to fit with them (double buffering holds two more K/V tiles).
Mapping default_tiles(const Mapping& base, const Workload& w, const DeviceSpec& dev);

/// @brief Checks the shape alone (positive, and small enough that every count
/// fits in 64 bits; kv_heads divides heads; N_kv, window, page_size not
/// negative); throws UserError naming the value and the fix.
void validate_workload(const Workload& w);

/// @brief Checks the tiling on its own, without a device: Br and Bc
/// positive, splits not negative, only with decode and not more than the key
/// tiles; throws UserError naming the value and the fix.
void validate_mapping(const Workload& w, const Mapping& m);

/// @brief Checks the shape and tiling (validate_workload, validate_mapping,
/// then the device); throws UserError with one line naming
/// the problem and the fix (tensors larger than the device's HBM; for tiles
/// that do not fit: bytes needed, capacity, and the largest Br/Bc that fit).
void validate(const Workload& w, const Mapping& m, const DeviceSpec& dev);

/// @brief Bytes the run's tensors occupy in HBM: Q and O, K and V (whole
/// pages when paged), and what the algorithm adds (naive: S and P, N x N_kv
/// per head; flash2 and decode: L; flash1: m and l; decode: its partials).
/// In double, so no shape overflows it. decode with splits = 0 counts the
/// splits it would choose on `dev`.
double hbm_footprint_bytes(const Workload& w, const Mapping& m, const DeviceSpec& dev);

/// @brief Bytes of float values an execute-mode run holds (tensors and the
/// reference), to refuse shapes that would exhaust host memory.
double execute_bytes(const Workload& w, const Mapping& m);

/// @brief Largest execute-mode footprint fasim accepts (4 GiB).
inline constexpr double kMaxExecuteBytes = 4.0 * 1024 * 1024 * 1024;

/// @brief How much work a run is, roughly, from its tiles alone (no
/// Simulation is built): to say before a long run how long it may take.
struct RunSize {
  double key_tile_visits = 0;  ///< (query block, key tile) pairs the mask lets through, all heads
  double steps = 0;            ///< steps, from the visits (within a quarter of the real count)
  double matmul_flops = 0;     ///< FLOPs of S = QK^T and PV over the visits (whole tiles)
};

/// @brief The RunSize of `w` tiled as `m` (its Br and Bc; decode's packed
/// query rows). With a mask, the key tiles of up to 4,096 query blocks,
/// spread evenly, stand for all of them.
RunSize estimate_run_size(const Workload& w, const Mapping& m);

/// @brief Wall seconds a step takes, counting only: 0.1 to 0.4 us of CPU
/// (flash2 the least, naive the most), 0.2 to 0.9 us of wall time on the
/// project's 2-core box with other builds running (2026-12; e.g. flash2
/// N = 65536, Br = Bc = 16: 8.4e7 steps in 14 s).
inline constexpr double kSecondsPerStep = 0.3e-6;
/// @brief Matmul FLOPs a second with values, the fp64 reference included:
/// flash2 N = 8192, d = 64 (1.7e10) took 3.7 s of wall time on the same box.
inline constexpr double kMatmulFlopsPerSecond = 5e9;

/// @brief Rough wall seconds of a run of size `s` on that box, with values
/// (`numerics`) or counting only.
double estimated_seconds(const RunSize& s, bool numerics);

}  // namespace fasim
