// Machine: the running GPU that steps are timed on.
//
// It holds the L2, the HBM port and, per SM, the shared-memory port, tensor
// cores, FP32 units and special function units, each a Server that is busy
// for a while per step. Machine::run fills a Step's L2 and DRAM bytes and its
// start and end times, and moves the block's clock. timing.hpp says how each
// step is priced; docs/timing-model.md explains the model for a learner.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/hbm.hpp"
#include "fasim/l2_lines.hpp"
#include "fasim/l2_partitions.hpp"
#include "fasim/step.hpp"
#include "fasim/tile_map.hpp"
#include "fasim/timing.hpp"

namespace fasim {

/// @brief Where one thread block is in time.
struct BlockClock {
  double t = 0;             ///< when the block can issue its next step
  double loads_done = 0;    ///< when every load issued so far has arrived
  double load_gate = 0;     ///< double buffering: loads may start from here
  double last_load = 0;     ///< loads issue in order
  double stores_done = 0;   ///< when every store issued so far has reached L2
  bool computing = false;   ///< the last step was a compute step
  std::int32_t sm = 0;       ///< the SM the block runs on (chooses its L2 partition)
  /// The block's index in the grid. Blocks start in index order, so of the
  /// blocks on one SM the lowest index started first: the oldest.
  std::int64_t block = 0;
};

/// @brief Sector-rounded bytes of a tile of tensor t: each contiguous run of
/// bytes is widened to whole sectors (tensors start sector-aligned).
std::int64_t sector_bytes(const HbmTensor& t, std::int64_t bh, std::int64_t row0, std::int64_t rows,
                          std::int64_t col0, std::int64_t cols, std::int64_t sector);

/// @brief Whether L2 starts empty or holding the inputs.
enum class L2Start : std::uint8_t {
  cold,  ///< L2 empty: every first read of a sector goes to DRAM (profilers flush L2 first)
  warm,  ///< Q, K and V already in L2 as far as they fit (back-to-back runs)
};

/// @brief The GPU that steps run on: an L2 (partitioned as the device says),
/// the HBM port, and per SM the shared-memory port and compute units.
///
/// Each resource is a Server: a step waits until it is free, then keeps it
/// busy for bytes / bandwidth or work / rate seconds. Loads and stores go
/// through the L2, which decides how many bytes reach DRAM; compute steps
/// use the SM's units as the ComputeModel prices them. One Machine times one
/// simulation; kernels run on it one after another.
class Machine {
 public:
  /// @brief A machine of `dev` over `hbm`; matmuls at `matmul_rate` FLOP/s
  /// (whole chip) unless `compute` prices them otherwise. `warps_per_block`
  /// > 0 prices the warp latency of the CUDA compute models (timing.hpp).
  Machine(const DeviceSpec& dev, const Hbm& hbm, double matmul_rate, bool double_buffer,
          ComputeModel compute = ComputeModel::ideal, int warps_per_block = 0,
          WarpLatency latency = kWarpLatency);

  /// @brief Block `block` arrived on SM `sm`: the warp latency is shared by
  /// the warps resident there, and the oldest block goes first (WarpLatency).
  void arrive(std::int32_t sm, std::int64_t block);
  /// @brief Block `block` left SM `sm`.
  void leave(std::int32_t sm, std::int64_t block);

  /// @brief Puts Q (Br-row tiles), K and V (Bc-row tiles) in L2 while they fit.
  void warm_inputs(std::int64_t br, std::int64_t bc);

  /// @brief Starts a kernel: per-kernel busy times restart from zero.
  void begin_kernel();
  /// @brief Counts L2 write-backs that accrued and are not yet counted; returns the bytes.
  std::int64_t settle_l2() { return lines_ ? 0 : l2_.settle(); }
  /// @brief From now on the DRAM bytes of loads and stores come from this
  /// line-level L2 (l2_lines.hpp), not from the count model, which still
  /// runs for the L2 fabric's bytes.
  void use_line_l2(LineL2 lines) { lines_.emplace(std::move(lines)); }
  /// @brief Whether the line-level L2 gives the DRAM bytes.
  bool line_l2() const { return lines_.has_value(); }
  /// @brief Dirty bytes now in the L2 (of the line-level L2 when it is used).
  std::int64_t l2_dirty_bytes() const { return lines_ ? lines_->dirty_bytes() : l2_.dirty_bytes(); }
  /// @brief Times step s of a block with clock c; fills its L2, DRAM and time fields.
  void run(Step& s, BlockClock& c);
  /// @brief Busy seconds of each resource since begin_kernel.
  std::array<double, kBoundCount> kernel_busy() const;

  /// @brief The L2 with what it holds now.
  const PartitionedL2& l2() const { return l2_; }
  /// @brief Which partition each SM sits next to for the next kernel
  /// (block_placement.hpp); empty: dealt in turn.
  void place_blocks(std::vector<std::int64_t> of_sm) { l2_.set_sm_partitions(std::move(of_sm)); }

 private:
  struct Sm {
    Server sram, tensor, fp32, sfu;
    double latency = 0;  // seconds of warp latency charged to this SM's pipes this kernel
    std::vector<std::int64_t> resident;  // indices of the blocks resident now (a handful)
    /// Blocks resident now, at least 1 (a step's own block counts).
    int blocks() const { return std::max(static_cast<int>(resident.size()), 1); }
  };
  // A request of block c to one of its SM's pipes: under the CUDA compute
  // models the oldest of two or more resident blocks is served ahead
  // (WarpLatency::oldest_first); otherwise in arrival order.
  double pipe(Server& unit, const BlockClock& c, double ready, double seconds) const;
  // When an earlier DRAM read of tile `key` lands, if after `now`; else 0.
  double dram_arrival(const TileKey& key, double now) const;
  // Tile `key` is on its way from DRAM and lands at `arrives`.
  void reading_from_dram(const TileKey& key, double arrives, double now);
  double load(Step& s, BlockClock& c);
  double store(Step& s, BlockClock& c);
  // The tile of a load or store as the line-level L2 takes it.
  LineRequest line_request(const Step& s, const BlockClock& c) const;
  double compute(Step& s, BlockClock& c);
  // cuda-simt: how long a block waits in one softmax step of `rows` rows
  // (WarpLatency); compute() divides it by the blocks resident on the SM.
  double simt_step_seconds(std::int64_t rows) const;

  const DeviceSpec& dev_;
  const Hbm& hbm_;
  double matmul_per_sm_, fp32_per_sm_, exp_per_sm_, sram_bw_;
  bool double_buffer_;
  ComputeModel compute_;
  int warps_per_block_;
  WarpLatency latency_;
  PartitionedL2 l2_;
  std::optional<LineL2> lines_;  // the line-level L2, when the run uses it
  Server hbm_server_, l2_server_;
  std::vector<Sm> sms_;
  // Tiles whose DRAM read has not landed yet, and when it lands. Blocks that
  // hit such a tile in L2 (its sectors are allocated) wait for it too.
  TileMap<double> in_flight_;
  std::deque<std::pair<TileKey, double>> landing_;  // the same reads, in the order they began
};

}  // namespace fasim
