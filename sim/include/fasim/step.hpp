// Step: one action of one thread block — load a tile, store a tile, a matmul,
// a softmax update, a rescale. A Step carries its own bytes and FLOPs; the
// Ledger is nothing but the sum of the Steps.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "fasim/tensor.hpp"

namespace fasim {

/// @brief What a Step does.
enum class StepKind : std::uint8_t {
  load,     ///< HBM -> SRAM: a tile is read
  store,    ///< SRAM -> HBM: a tile is written
  matmul,   ///< a tile matmul (tensor cores)
  softmax,  ///< softmax work on a tile: max, exp, sum (online or not)
  rescale,  ///< scaling O or finishing the statistics
  /// the L2's, not a block's: at a kernel's end, the write-backs to DRAM that
  /// the L2 model made during the kernel and no step has counted yet
  /// (Simulation emits one per kernel, block -1, SM -1, zero duration)
  writeback,
};

/// @brief Every StepKind, in order.
inline constexpr std::array kAllStepKinds{StepKind::load, StepKind::store, StepKind::matmul,
                                          StepKind::softmax, StepKind::rescale, StepKind::writeback};

/// @brief "load", "store", "matmul", "softmax", "rescale" or "writeback".
std::string_view name(StepKind k);

/// @brief One action of one thread block, with everything it moved and computed.
struct Step {
  StepKind kind = StepKind::load;  ///< what the step does
  std::string_view what;        ///< short label, e.g. "S = scale * Q K^T"
  std::int32_t kernel = 0;      ///< index of the kernel in the algorithm
  std::int64_t block = 0;       ///< block index within the kernel's grid
  /// Which (batch, head) problem. For a load or store: the head of the tensor
  /// moved, which differs for K/V under GQA (the K/V head), for paged K/V (the
  /// page slot, see paged_kv.hpp) and for decode's packed query rows.
  std::int64_t bh = 0;
  std::int64_t qb = -1;         ///< query block i (tile row), -1 if none
  std::int64_t kb = -1;         ///< key/value block j (tile column), -1 if none
  TensorId tensor = TensorId::Q;  ///< tensor moved (load/store) or produced
  std::int64_t rows = 0;        ///< tile rows actually touched
  std::int64_t cols = 0;        ///< tile columns actually touched
  std::int64_t row0 = 0;        ///< load/store: first row of the tile in the tensor
  std::int64_t col0 = 0;        ///< load/store: first column of the tile in the tensor

  std::int64_t hbm_read_bytes = 0;   ///< bytes read from HBM by this step
  std::int64_t hbm_write_bytes = 0;  ///< bytes written to HBM by this step
  std::int64_t flops_matmul = 0;     ///< multiply-adds count 2
  std::int64_t flops_other = 0;      ///< exp, max, sum, scale, rescale (exp and log count 1)
  std::int64_t exps = 0;             ///< how many of flops_other are exp or log

  std::int64_t sram_bytes = 0;      ///< this block's shared memory in use after the step
  std::int64_t register_bytes = 0;  ///< this block's register tiles in use after the step

  // Filled by the machine model (L2 and timing), not by the tile program:
  std::int64_t l2_read_bytes = 0;     ///< sector-rounded bytes the load asked L2 for
  std::int64_t l2_write_bytes = 0;    ///< sector-rounded bytes the store wrote to L2
  std::int64_t l2_hit_bytes = 0;      ///< of l2_read_bytes, found in L2
  std::int64_t dram_read_bytes = 0;   ///< of l2_read_bytes, missed and read from DRAM
  std::int64_t dram_write_bytes = 0;  ///< dirty bytes this step evicted to DRAM
  std::int64_t l2_fabric_bytes = 0;   ///< bytes that crossed between the L2 partitions (copies, far stores)
  double start_s = 0;                 ///< simulated start time, seconds
  double end_s = 0;                   ///< simulated end time, seconds
  std::int64_t sm = 0;                ///< the SM that ran the block

  bool has_row = false;  ///< true if the watched row lives in this block
  float row_m = 0;       ///< running max of the watched row after this step
  float row_l = 0;       ///< running sum of the watched row after this step
};

}  // namespace fasim
