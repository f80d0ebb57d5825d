// On-chip memory of one thread block: tiles in shared memory (SRAM) and tiles
// held in registers. Allocation is counted in bytes so the peak per block can
// be compared with the device's capacity.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <utility>

#include "fasim/dtype.hpp"

namespace fasim {

/// @brief Where a tile lives on chip.
enum class Placement : std::uint8_t { shared, registers };

using TileMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class OnChip;

/// @brief A buffer of rows x cols elements on chip. Its bytes are reserved in
/// its OnChip for as long as the Tile lives (RAII). In counting-only mode
/// `data` stays empty.
class Tile {
 public:
  Tile() = default;
  /// @brief Reserves rows x cols of `dtype` in `owner`'s shared memory or registers
  /// (`where`); allocates values only if `with_values`.
  Tile(OnChip* owner, Placement where, std::int64_t rows, std::int64_t cols, DType dtype,
       bool with_values);
  /// @brief Takes over `other`'s reservation; `other` becomes empty.
  Tile(Tile&& other) noexcept { *this = std::move(other); }
  /// @brief Releases this tile's bytes and takes over `other`'s.
  Tile& operator=(Tile&& other) noexcept;
  Tile(const Tile&) = delete;
  Tile& operator=(const Tile&) = delete;
  ~Tile() { release(); }

  TileMatrix data;  ///< values (capacity rows x cols), empty when counting only

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
