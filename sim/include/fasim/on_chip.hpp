// On-chip memory of one thread block: tiles in shared memory (SRAM) and tiles
// held in registers. Allocation is counted in bytes so the peak per block can
// be compared with the device's capacity.
//
// What a tile counts is what the GPU would hold (rows x cols x dtype); what it
// holds on the host, with numerics, is as little as gives the same numbers:
//  - register tiles (S/P, the O accumulator, m and l: fp32 on the GPU too)
//    hold floats, from the start (zeros). A register tile whose values live
//    only within one of its block's turns (Block::step_registers: flash2's
//    S/P) holds none of its own: it works in a matrix all blocks share;
//  - shared-memory tiles hold floats only for rows loaded from tensors the run
//    writes (S, P, Opart, Lpart). A row loaded from an input (Q, K, V), which
//    no step writes once the run has started, equals its row in HBM, so it is
//    not copied: the tile keeps where the row is, and values() reads it from
//    HBM into a working copy when arithmetic needs it, rounded as stored, as
//    a copy made at the load would have been. Hundreds of blocks are resident
//    at once, and their Q, K, V tiles would otherwise take as much host memory
//    as their S and O (docs/results/bench-sim-memory-2026-11-21-s5.md).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "fasim/dtype.hpp"

namespace fasim {

class HbmValues;

/// @brief Where a tile lives on chip.
enum class Placement : std::uint8_t { shared, registers };

using TileMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// @brief Working copies of shared tiles whose rows stay in HBM (Tile::values):
/// slot n serves the nth shared tile of every block. One per simulation:
/// blocks take turns, and a tile's working copy lives only for one piece of
/// arithmetic, so the blocks need as many copies as one block has shared
/// tiles, not one each.
class TileScratch {
 public:
  /// @brief Slot n (made on first use; its address never changes).
  TileMatrix& slot(std::size_t n) {
    while (slots_.size() <= n) slots_.emplace_back();
    return slots_[n];
  }
  /// @brief The values of every block's step register tile (Block::step_registers).
  TileMatrix& step_registers() { return step_registers_; }

 private:
  std::deque<TileMatrix> slots_;
  TileMatrix step_registers_;
};

class OnChip;

/// @brief A buffer of rows x cols elements on chip. Its bytes are reserved in
/// its OnChip for as long as the Tile lives (RAII). In counting-only mode it
/// holds no values.
class Tile {
 public:
  Tile() = default;
  /// @brief Reserves rows x cols of `dtype` in `owner`'s shared memory or registers
  /// (`where`). With `with_values`, a register tile holds zeros, or works in
  /// `scratch` if given (step_values), and a shared tile reads rows that stay in
  /// HBM through `scratch` (see the top of this file).
  Tile(OnChip* owner, Placement where, std::int64_t rows, std::int64_t cols, DType dtype,
       bool with_values, TileMatrix* scratch = nullptr);
  /// @brief Takes over `other`'s reservation; `other` becomes empty.
  Tile(Tile&& other) noexcept { *this = std::move(other); }
  /// @brief Releases this tile's bytes and takes over `other`'s.
  Tile& operator=(Tile&& other) noexcept;
  Tile(const Tile&) = delete;
  Tile& operator=(const Tile&) = delete;
  ~Tile() { release(); }

  /// Values held on the host (capacity rows x cols): all of a register tile;
  /// of a shared tile, the rows copied in (held(), the first such load makes
  /// it, zeros), never rows that stay in HBM. Empty when counting only. Read
  /// a tile through values(); write data only where a load copied rows.
  TileMatrix data;

  /// @brief Rows [row0, row0 + n) become rows of `src` that stay in HBM:
  /// row row0 + r is `cols()` elements from `first + r * cols()`.
  void refer(std::int64_t row0, std::int64_t n, const HbmValues& src, std::int64_t first);
  /// @brief Rows [row0, row0 + n) are to be held in data, which it makes
  /// (zeros) if needed; rows that stayed in HBM are copied in first. Returns data.
  TileMatrix& held(std::int64_t row0, std::int64_t n);
  /// @brief The values as float: a step register tile's shared matrix
  /// (step_values); data itself when no row stays in HBM; else
  /// a working copy, in the tile's scratch slot, valid until the next values()
  /// of a tile of the same slot (another block's).
  const TileMatrix& values() const;
  /// @brief The values of a register tile made with a scratch matrix
  /// (Block::step_registers): that matrix, rows() x cols(), holding whatever
  /// the last block left there. Valid until the block's next co_yield.
  TileMatrix& step_values();

  /// @brief Rows reserved.
  std::int64_t rows() const { return rows_; }
  /// @brief Columns reserved.
  std::int64_t cols() const { return cols_; }
  /// @brief Element type; it sets the bytes per element.
  DType dtype() const { return dtype_; }
  /// @brief Shared memory or registers.
  Placement placement() const { return where_; }
  /// @brief Bytes reserved: rows * cols * bytes_of(dtype).
  std::int64_t bytes() const { return rows_ * cols_ * bytes_of(dtype_); }

 private:
  void release();
  OnChip* owner_ = nullptr;
  Placement where_ = Placement::shared;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  DType dtype_ = DType::fp32;
  // Rows [row0, row0 + rows) stay in HBM, one after another from `first` in *src_.
  struct Run {
    std::int64_t row0, rows, first;
  };
  void forget(std::int64_t row0, std::int64_t n);  // rows [row0, row0 + n) leave runs_
  const HbmValues* src_ = nullptr;
  std::vector<Run> runs_;  // disjoint, one per load that referred (one a tile unless paged)
  TileMatrix* scratch_ = nullptr;
};

/// @brief Byte accounting of one block's shared memory and register tiles.
class OnChip {
 public:
  /// @brief Bytes in use now.
  std::int64_t in_use(Placement p) const { return used_[static_cast<int>(p)]; }
  /// @brief Most bytes in use at any time.
  std::int64_t peak(Placement p) const { return peak_[static_cast<int>(p)]; }

  /// @brief Counts `bytes` more in use in `p` (and the peak).
  void reserve(Placement p, std::int64_t bytes) {
    auto i = static_cast<int>(p);
    used_[i] += bytes;
    peak_[i] = std::max(peak_[i], used_[i]);
  }
  /// @brief Counts `bytes` fewer in use in `p`.
  void free(Placement p, std::int64_t bytes) { used_[static_cast<int>(p)] -= bytes; }

 private:
  std::int64_t used_[2] = {0, 0};
  std::int64_t peak_[2] = {0, 0};
};

}  // namespace fasim
