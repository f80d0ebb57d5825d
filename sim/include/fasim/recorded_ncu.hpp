// Recorded profiler runs: the CSV that `ncu --csv` wrote while gpu-check
// profiled a few configurations (docs/results/NAME-ncu.csv), read back so a
// lesson can quote a profiler's figure and a test rechecks it.
//
// The file is one or more parts. Each part starts with a comment line naming
// the configuration profiled, in `fasim compare` flags, then ncu's own CSV
// (a header row, then one row per metric of each profiled launch):
//
//   # --algo flash2 --dtype fp32 --N 2048 --d 64 --heads 16
//   "ID","Process ID",...,"Section Name","Metric Name","Metric Unit","Metric Value",...
//   "0",...,"Command line profiler metrics","dram__bytes_read.sum","byte","25208832",...
//
// The JSON of one part (`{{ KEY of --ncu FILE.csv FILTERS }}` in a lesson):
//
//   run        the part's comment line, its flags
//   kernel     the kernel ncu profiled
//   launches   how many launches of it were profiled (ncu's "ID" column)
//   metrics.NAME              a metric of "Command line profiler metrics",
//                             by its ncu name: metrics.dram__bytes_read.sum
//   metrics.SECTION.NAME      a metric of another section, both names in
//                             lower case with '_' for other characters:
//                             metrics.compute_workload_analysis.issue_slots_busy
//
// A number is the median over the launches (the middle one, or the mean of
// the middle two); text is the first launch's.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fasim {

/// @brief A recorded ncu CSV and the filters that pick one of its parts.
struct NcuSelection {
  std::string csv;  ///< path of the ncu CSV
  /// (flag, value) pairs, e.g. ("--algo", "flash2"): a part is kept when its
  /// comment line has every one of them.
  std::vector<std::pair<std::string, std::string>> filters;
};

/// @brief Parses `--ncu FILE.csv [--FLAG VALUE]...`. Throws UserError (no
/// location) on a missing --ncu, a flag without a value, or a flag twice.
NcuSelection parse_ncu_selection(const std::vector<std::string>& words);

/// @brief The JSON (see the file comment) of every part of an ncu CSV's
/// text, in file order. `origin` names the file in errors. Throws UserError
/// on a part without a comment line, a row whose cells do not match its
/// header, or a header without the columns that are read.
std::vector<nlohmann::json> parse_ncu_csv(std::string_view text, const std::string& origin);

/// @brief The metric key of a section's metric: lower case, every run of
/// other characters one '_', none at either end ("L1/TEX Hit Rate" gives
/// "l1_tex_hit_rate").
std::string ncu_key(std::string_view name);

/// @brief Recorded ncu files, each read once, and the part a selection picks.
class RecordedProfiles {
 public:
  /// @brief The JSON of the one part whose comment line has every filter.
  /// Throws UserError (no location) if the file does not load, or if the
  /// filters keep no part, or more than one, or a part without rows.
  const nlohmann::json& get(const NcuSelection& sel);

 private:
  std::map<std::string, std::vector<nlohmann::json>> files_;
};

}  // namespace fasim
