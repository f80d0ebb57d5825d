// The flags shared by `fasim run` and `fasim step`, and how a scenario file
// and the flags combine into one configuration (flags win).
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/mapping.hpp"
#include "fasim/simulation.hpp"
#include "fasim/workload.hpp"

namespace fasim::cli {

/// @brief A check of a flag's text as a whole number of type T. CLI11 2.1
/// clamps integers that overflow and wraps negative unsigned values; check
/// the text itself first so "--N 99999999999999999999" or "--seed -1" is
/// named as the problem.
template <typename T>
CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        T value{};
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc::result_out_of_range) return "'" + text + "' is out of range";
        if (ec != std::errc() || ptr != end)
          return "'" + text + "' is not a " + (std::is_signed_v<T> ? "whole number" : "non-negative whole number");
        return {};
      },
      "");  // no description: CLI11 would print it after the type (INT:INT)
}

/// @brief CLI::Range(lo, hi) with no description: CLI11 would print it after
/// the type (--runs INT:INT in [20 - 100000]); the flag's own text gives the range.
inline CLI::Validator in_range(int lo, int hi) { return CLI::Range(lo, hi).description(""); }

/// @brief Raw flag values as typed by the user; unset means "not given".
struct RunFlags {
  std::string algo, dtype, device, scenario, l2;
  std::int64_t N = 0, d = 0, batch = 0, heads = 0, br = 0, bc = 0, row = 0;
  std::int64_t kv_heads = 0, N_kv = 0, window = 0, splits = 0, page_size = 0, blocks_per_sm = 0;
  bool causal = false;
  std::uint64_t seed = 0;
  std::vector<float> input_scale;  ///< --input-scale: one value, or Q,K,V
  bool no_numerics = false;
  bool double_buffer = false;
  CLI::App* app = nullptr;  ///< to ask which flags were given

  /// @brief True if the user typed `flag`. A command that does not offer the
  /// flag (e.g. `fasim compare` has no variant flags) never gave it.
  bool given(const std::string& flag) const {
    const CLI::Option* o = app->get_option_no_throw(flag);
    return o != nullptr && o->count() > 0;
  }
};

/// @brief Everything a Simulation needs.
struct RunConfig {
  DeviceSpec device;
  Workload workload;
  Mapping mapping;
  SimOptions options;
  std::string title;  ///< from the scenario, if any
};

/// @brief Adds --algo, --N, --d, --batch, --heads, --dtype, --br, --bc,
/// --device, --scenario, --seed, --input-scale, --no-numerics, --row, --l2, --double-buffer,
/// --blocks-per-sm, and the variants --kv-heads, --N-kv, --causal, --window,
/// --page-size, --splits to `app`.
void add_run_flags(CLI::App& app, RunFlags& f);

/// @brief Defaults, then the scenario file, then the flags. Throws UserError;
/// a check that fails on a value the scenario file gave (and no flag
/// replaced) names the file and its key ("x.toml: [run] row = 99999 ..."),
/// not the flag. Checks that need no device are made here; the Simulation
/// checks the device.
RunConfig resolve(const RunFlags& f);

}  // namespace fasim::cli
