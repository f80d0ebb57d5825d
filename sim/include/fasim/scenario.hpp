// Scenario: a TOML file holding the same settings as `fasim run` flags, so a
// lesson or a bug report can name one file instead of a long command line. The
// CLI applies the scenario first and then the flags on top; every field is
// optional, and an unset field leaves the CLI's default (or flag) alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fasim/dtype.hpp"
#include "fasim/mapping.hpp"

namespace fasim {

/// @brief Settings read from a scenario file; each is unset unless the file
/// gives it.
///
/// Schema (all keys optional; unknown keys and tables are errors):
/// @code{.toml}
/// title = "Quickstart"   # shown by the CLI
/// device = "h100"        # built-in name, or a path to a device .toml
/// [workload]
/// batch = 1
/// heads = 1
/// N = 1024
/// d = 64
/// dtype = "fp16"         # fp32 | fp16 | bf16
/// kv_heads = 1           # K/V heads (GQA, MQA); default: heads
/// N_kv = 4096            # key length; default: N
/// causal = false         # query i sees keys j <= i + N_kv - N
/// window = 0             # sliding window (implies causal); 0: none
/// page_size = 0          # rows per K/V page (paged KV cache); 0: contiguous
/// [mapping]
/// algo = "flash2"        # naive | flash1 | flash2 | decode
/// br = 64
/// bc = 64
/// double_buffer = false  # loads of the next tile overlap compute
/// splits = 0             # decode: key chunks per query block; 0: automatic
/// blocks_per_sm = 0      # at most this many blocks per SM; 0: as many as fit
/// [run]
/// seed = 1
/// numerics = true
/// row = 0
/// l2 = "cold"            # cold | warm
/// @endcode
struct Scenario {
  /// @brief Device name or path. A relative path is already resolved against
  /// the scenario file's directory, so it can be passed to load_device as is.
  std::optional<std::string> device;
  std::optional<std::int64_t> batch;  ///< @brief sequences (positive)
  std::optional<std::int64_t> heads;  ///< @brief attention heads (positive)
  std::optional<std::int64_t> N;      ///< @brief sequence length (positive)
  std::optional<std::int64_t> d;      ///< @brief head dimension (positive)
  std::optional<DType> dtype;         ///< @brief storage type (parse_dtype)
  std::optional<std::int64_t> kv_heads;   ///< @brief K/V heads (positive)
  std::optional<std::int64_t> N_kv;       ///< @brief key length (positive)
  std::optional<bool> causal;             ///< @brief causal mask
  std::optional<std::int64_t> window;     ///< @brief sliding window (>= 0; 0: none)
  std::optional<std::int64_t> page_size;  ///< @brief rows per K/V page (>= 0; 0: contiguous)
  std::optional<std::int64_t> splits;     ///< @brief decode key chunks (>= 0; 0: automatic)
  std::optional<std::int64_t> blocks_per_sm;  ///< @brief most blocks per SM (>= 0; 0: as many as fit)
  std::optional<Algo> algo;           ///< @brief algorithm (parse_algo)
  std::optional<std::int64_t> br;     ///< @brief Br, query rows per tile (positive)
  std::optional<std::int64_t> bc;     ///< @brief Bc, key/value rows per tile (positive)
  std::optional<std::uint64_t> seed;  ///< @brief seed of the random inputs (>= 0)
  std::optional<bool> numerics;       ///< @brief compute values (true) or only count bytes
  std::optional<std::int64_t> row;    ///< @brief watched query row for stepping (>= 0)
  std::optional<bool> double_buffer;  ///< @brief loads overlap compute
  std::optional<bool> l2_warm;        ///< @brief L2 starts holding Q, K, V ("warm") or empty ("cold")
  std::string title;                  ///< @brief optional `title = "..."`; empty if absent
};

/// @brief Parses a scenario's TOML text. `origin` names it in error messages;
/// `base_dir` is the directory a relative device path is resolved against
/// (empty: leave it relative to the working directory).
/// Throws UserError with one line, "origin:line:col: problem; fix", for a
/// syntax error, an unknown table or key, a value of the wrong type or range,
/// an unknown dtype, algorithm or built-in device name.
Scenario parse_scenario(std::string_view toml_text, const std::string& origin, const std::string& base_dir);

struct Workload;
struct SimOptions;

/// @brief Writes every setting `sc` gives into a run's workload, mapping and
/// options, and leaves the rest as they are. `fasim run` and `fasim sweep`
/// both start from it, so neither can drop a key. Tiles: one of br and bc
/// given sets both (square tiles, as the flags do); whether tiles were given
/// at all is the caller's to read from `sc` (if not, it picks default tiles).
void apply_scenario(const Scenario& sc, Workload& w, Mapping& m, SimOptions& o);

/// @brief One tile size given, the other takes its value: square tiles.
/// Both or neither given: unchanged.
inline void square_lone_tile(std::optional<std::int64_t>& br, std::optional<std::int64_t>& bc) {
  if (br && !bc) bc = br;
  if (bc && !br) br = bc;
}

/// @brief Reads and parses a scenario file; relative device paths are
/// resolved against the file's directory. Throws UserError if unreadable.
Scenario load_scenario(const std::string& path);

}  // namespace fasim
