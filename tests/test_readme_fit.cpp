// The README's table of how well the model fits the recorded sweeps is
// today's model's: every cell is recomputed here, so a model change that
// moves a number fails until the README says so.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fasim/recorded_fit.hpp"

using namespace fasim;

namespace {

const std::filesystem::path kRoot = FASIM_SOURCE_DIR;

// The cells of a Markdown table row, trimmed ("| a | b |" -> {"a", "b"}).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::size_t at = row.find('|');
  while (at != std::string::npos) {
    const std::size_t next = row.find('|', at + 1);
    if (next == std::string::npos) break;
    std::string c = row.substr(at + 1, next - at - 1);
    c.erase(0, c.find_first_not_of(' '));
    c.erase(c.find_last_not_of(' ') + 1);
    out.push_back(c);
    at = next;
  }
  return out;
}

}  // namespace

TEST_CASE("README: the fit table is what the model gives today", "[fidelity][docs]") {
  std::ifstream in(kRoot / "README.md");
  REQUIRE(in);
  // Columns after the metric and its bar, in the README's order.
  const char* sets[][2] = {{"h200-2026-11-22-sweep.csv", "h200-2026-11-22-measured.toml"},
                           {"h100-2026-11-22-sweep.csv", "h100-2026-11-22-measured.toml"},
                           {"h200-2026-11-23-placements8.csv", "h200-2026-11-22-measured.toml"}};
  std::vector<nlohmann::json> fits;
  RecordedFits cache;
  for (const auto& s : sets) {
    RecordedSelection sel;
    sel.csv = (kRoot / "docs" / "results" / s[0]).string();
    sel.device = (kRoot / "docs" / "results" / s[1]).string();
    fits.push_back(cache.get(sel)["fit"]);
  }
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> c = cells(line);
    if (c.size() != 5 || c[0].size() < 3 || c[0].front() != '`') continue;
    const std::string metric = c[0].substr(1, c[0].size() - 2);
    if (!fits[0].contains(metric)) continue;
    ++rows;
    INFO(line);
    for (std::size_t k = 0; k < 3; ++k) {
      const nlohmann::json& f = fits[k][metric];
      char want[64];
      std::snprintf(want, sizeof want, "%d / %d, %.1f%%", f["in_bar"].get<int>(), f["points"].get<int>(),
                    f["mean_abs_error_pct"].get<double>());
      CHECK(c[2 + k] == want);
    }
    const double bar = fits[0][metric]["bar_pct"];
    CHECK(c[1] == (bar == 0 ? std::string("exact") : std::to_string(static_cast<int>(bar)) + "%"));
  }
  CHECK(rows == 7);  // every metric of fidelity.hpp, once
}
