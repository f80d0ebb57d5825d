// libFuzzer target: a scenario TOML file (parse_scenario), as a user would
// pass with --scenario run.toml. Either every value it sets is in its
// documented range, or it is one UserError line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fasim/scenario.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using fasim::fuzz::require;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const fasim::Scenario s = fasim::parse_scenario(text, "fuzz.toml", "base");
    for (const auto& v : {s.batch, s.heads, s.N, s.d, s.kv_heads, s.N_kv, s.br, s.bc})
      require(!v || *v > 0, "sizes are positive");
    for (const auto& v : {s.window, s.page_size, s.splits, s.row}) require(!v || *v >= 0, "counts are not negative");
    require(!s.device || !s.device->empty(), "a device is never empty");
  } catch (const fasim::UserError& e) {
    fasim::fuzz::check_one_line(e.what());
  }
  return 0;
}
