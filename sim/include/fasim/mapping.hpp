// Mapping: how an algorithm is tiled onto thread blocks (how, not what).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fasim {

/// @brief The attention algorithms fasim can execute.
/// naive: three kernels that write S and P to HBM (the paper's standard attention).
/// flash1: FlashAttention (paper Algorithm 1), key/value blocks outer, query blocks inner.
/// flash2: FlashAttention-2 order, query blocks outer, key/value blocks inner.
/// decode: Flash-Decoding, keys split over blocks, then a reduction kernel.
enum class Algo : std::uint8_t { naive, flash1, flash2, decode };

/// @brief Every algorithm name, for messages: "naive, flash1, flash2, decode".
inline constexpr std::string_view kAlgoNames = "naive, flash1, flash2, decode";

/// @brief "naive", "flash1", "flash2" or "decode".
std::string_view name(Algo a);
/// @brief Parses an algorithm name; nullopt if unknown.
std::optional<Algo> parse_algo(std::string_view s);

/// @brief Tile sizes. br: query rows per block tile; bc: key/value rows per tile.
struct Mapping {
  Algo algo = Algo::flash2;  ///< which algorithm runs
  std::int64_t br = 64;  ///< Br, query rows per tile
  std::int64_t bc = 64;  ///< Bc, key/value rows per tile
  bool double_buffer = false;  ///< loads of the next tile overlap this tile's compute
  /// decode: key chunks per query block, each its own thread block. 0 means
  /// the default, chosen when the Simulation starts (decode::default_splits).
  std::int64_t splits = 0;
  /// At most this many thread blocks resident on one SM at once (a cap: a
  /// kernel that fits fewer keeps its own number). 0: as many as fit. On the
  /// GPU the cap is kept by asking for more shared memory per block.
  std::int64_t blocks_per_sm = 0;
};

}  // namespace fasim
