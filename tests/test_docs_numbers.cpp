// Numbers the README, docs/fidelity.md and docs/timing-model.md print are
// today's: the fit tables are recomputed from the recorded runs, and the
// README's output blocks are what fasim prints now. A change that moves one
// fails here until the page says so.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
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

TEST_CASE("README: the fit table is what the model gives today", "[fidelity][docs][slow]") {
  std::ifstream in(kRoot / "README.md");
  REQUIRE(in);
  // Columns after the metric and its bar, in the README's order.
  const char* sets[][2] = {{"h200-2026-11-22-sweep.csv", "h200-2026-11-22-measured.toml"},
                           {"h100-2026-11-22-sweep.csv", "h100-2026-11-22-measured.toml"},
                           {"h200-2026-11-23-placements8.csv", "h200-2026-11-22-measured.toml"},
                           {"h100-2026-11-23-placements8.csv", "h100-2026-11-22-measured.toml"}};
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
    if (c.size() != 2 + std::size(sets) || c[0].size() < 3 || c[0].front() != '`') continue;
    const std::string metric = c[0].substr(1, c[0].size() - 2);
    if (!fits[0].contains(metric)) continue;
    ++rows;
    INFO(line);
    for (std::size_t k = 0; k < fits.size(); ++k) {
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

namespace {

// "IN / POINTS" of one metric of a fit, or "not counted" where the recording has none.
std::string score(const nlohmann::json& fit, const char* metric) {
  if (!fit.contains(metric) || fit[metric]["points"].get<int>() == 0) return "not counted";
  return std::to_string(fit[metric]["in_bar"].get<int>()) + " / " + std::to_string(fit[metric]["points"].get<int>());
}

}  // namespace

TEST_CASE("docs/fidelity.md: the held-out sweeps' table is what the model gives today", "[fidelity][docs][slow]") {
  // Rows: | `FILE.csv` | what was new | DRAM reads | DRAM writes | drained writes |
  std::ifstream in(kRoot / "docs" / "fidelity.md");
  REQUIRE(in);
  // Every held-out sweep, once each, in this order.
  const std::vector<std::string> sweeps = {
      "h200-2026-11-29-sweep-s46.csv", "h200-2026-11-29-sweep-s47.csv",  "h200-2026-11-29-sweep-s51.csv",
      "h200-2026-11-29-sweep-s51b.csv", "h200-2026-11-30-sweep-s52.csv", "h200-2026-11-30-sweep-s52b.csv",
      "h200-2026-11-30-sweep-s53.csv", "h200-2026-11-30-sweep-s55.csv"};
  RecordedFits cache;
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> c = cells(line);
    if (c.size() != 5 || !c[0].starts_with('`') || !c[0].ends_with(".csv`")) continue;
    const std::string csv = c[0].substr(1, c[0].size() - 2);
    rows.push_back(csv);
    INFO(line);
    RecordedSelection sel;
    sel.csv = (kRoot / "docs" / "results" / csv).string();
    sel.device = (kRoot / "docs" / "results" / "h200-2026-11-22-measured.toml").string();
    const nlohmann::json& f = cache.get(sel)["fit"];
    CHECK(c[2] == score(f, "dram_read_bytes"));
    CHECK(c[3] == score(f, "dram_write_bytes"));
    CHECK(c[4] == score(f, "dram_write_drained_bytes"));
  }
  CHECK(rows == sweeps);
}

TEST_CASE("README: the latest sweep's sentence is what the model gives today", "[fidelity][docs][slow]") {
  std::ifstream in(kRoot / "README.md");
  REQUIRE(in);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The README wraps lines: compare with runs of white space folded to one space.
  std::string folded;
  for (const char ch : text) {
    const char c = ch == '\n' ? ' ' : ch;
    if (c == ' ' && !folded.empty() && folded.back() == ' ') continue;
    folded += c;
  }
  RecordedSelection sel;
  sel.csv = (kRoot / "docs" / "results" / "h200-2026-11-30-sweep-s55.csv").string();
  sel.device = (kRoot / "docs" / "results" / "h200-2026-11-22-measured.toml").string();
  RecordedFits cache;
  const nlohmann::json& f = cache.get(sel)["fit"];
  const std::string want = "(`h200-2026-11-30-sweep-s55.csv`), scores reads " + score(f, "dram_read_bytes") +
                           " and writes " + score(f, "dram_write_bytes") + " with today's model, drained writes " +
                           score(f, "dram_write_drained_bytes") + ".";
  INFO(want);
  CHECK(folded.find(want) != std::string::npos);
}

TEST_CASE("timing-model.md: the time-fit table is what the model gives today", "[fidelity][docs][slow]") {
  // Rows: | name: `FILE.csv` | `PROFILE.toml` | in bar | mean error | largest |
  std::ifstream in(kRoot / "docs" / "timing-model.md");
  REQUIRE(in);
  RecordedFits cache;
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> c = cells(line);
    if (c.size() != 5 || !c[1].starts_with('`') || !c[1].ends_with(".toml`")) continue;
    const std::size_t tick = c[0].find('`');
    REQUIRE(tick != std::string::npos);
    ++rows;
    INFO(line);
    RecordedSelection sel;
    sel.csv = (kRoot / "docs" / "results" / c[0].substr(tick + 1, c[0].size() - tick - 2)).string();
    sel.device = (kRoot / "docs" / "results" / c[1].substr(1, c[1].size() - 2)).string();
    const nlohmann::json& f = cache.get(sel)["fit"]["time_s"];
    char in_bar[32], mean[32], largest[32];
    std::snprintf(in_bar, sizeof in_bar, "%d / %d", f["in_bar"].get<int>(), f["points"].get<int>());
    std::snprintf(mean, sizeof mean, "%.1f%%", f["mean_abs_error_pct"].get<double>());
    std::snprintf(largest, sizeof largest, "%.1f%%", f["max_abs_error_pct"].get<double>());
    CHECK(c[2] == in_bar);
    CHECK(c[3] == mean);
    CHECK(c[4] == largest);
  }
  CHECK(rows == 15);
}

namespace {

// The lines of the first ```text block after `marker` in README.md.
std::vector<std::string> readme_block(const std::string& marker) {
  std::ifstream in(kRoot / "README.md");
  std::vector<std::string> lines;
  bool seen = false, inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!seen) {
      seen = line.find(marker) != std::string::npos;
      continue;
    }
    if (!inside) {
      inside = line == "```text";
      continue;
    }
    if (line == "```") break;
    lines.push_back(line);
  }
  return lines;
}

// The block's first line is the command it shows ("$ fasim ARGS..."); runs
// it (paths in the source tree made absolute) and checks that every other
// line but "..." is in what it prints.
void check_block(const std::vector<std::string>& block) {
  REQUIRE(block.size() >= 4);
  const std::string prompt = "$ fasim ";
  REQUIRE(block.front().rfind(prompt, 0) == 0);
  std::vector<std::string> args;
  std::istringstream words(block.front().substr(prompt.size()));
  for (std::string w; words >> w;)
    args.push_back(std::filesystem::exists(kRoot / w) ? (kRoot / w).string() : w);
  const auto r = fasim::test::run_fasim(args);
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  for (std::size_t i = 1; i < block.size(); ++i)
    if (!block[i].empty() && block[i] != "...") CHECK_THAT(r.out, Catch::Contains(block[i]));
}

}  // namespace

TEST_CASE("README: the quick start's first run prints what the README shows", "[docs][cli]") {
  // scripts/quickstart.sh runs this scenario.
  check_block(readme_block("This is the first"));
}

TEST_CASE("README: naive's traffic by kernel is what fasim run prints", "[docs][cli]") {
  check_block(readme_block("and it spills"));
}
