// Checked numbers: every `{{ }}` in a lesson is replaced, when the lesson is
// shown, by a number fasim computes, so the text cannot drift from the
// simulator.
//
//   {{ KEY of FLAGS | FORMAT }}   KEY of `fasim run --json FLAGS`
//   {{ KEY of NAME | FORMAT }}    the same, flags of the ```fasim NAME block
//   {{ calc: EXPR | FORMAT }}     arithmetic (lesson_calc.hpp); EXPR may hold
//                                 [KEY of FLAGS] and [KEY of NAME]
//   {{ KEY of RECORDED }}         KEY of `fasim compare --recorded ... --json`:
//                                 RECORDED names a ```recorded block, or is
//                                 flags that hold --recorded FILE.csv
//   {{ KEY of --ncu FILE.csv FLAGS }}  KEY of the part of a recorded ncu CSV
//                                 that FLAGS pick (recorded_ncu.hpp), e.g.
//                                 metrics.dram__bytes_read.sum
//   \{{                           a literal "{{"
//
// KEY is a dotted path into the JSON report: hbm.read_bytes,
// hbm.by_tensor.K.read_bytes, time.seconds, time.kernels.0.bound, and the
// device's figures, device_spec.sm_count or device_spec.balance_point.fp16
// (report.hpp, device_spec_json). Runs count
// only, unless KEY needs values: numerics.* (errors against the fp64
// reference) and row.* (lessons only: the watched row's running max and sum,
// row.m.J and row.l.J after key block J, row.final_m, row.final_l, row.index).
//
// FORMAT (optional): int (rounded, 1,234), .N (N decimals), bytes (1.50 KiB),
// ns / us / ms / s (seconds shown in that unit), % (a fraction as percent),
// si (4.29 G), sci (1.23e-05), raw (as JSON). Without one: integers get
// thousands separators, other numbers four significant digits.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fasim/lesson.hpp"
#include "fasim/recorded_fit.hpp"
#include "fasim/recorded_ncu.hpp"
#include "fasim/simulation.hpp"

namespace fasim {

/// @brief A piece of text: plain, or the body of one `{{ }}`.
struct TextPiece {
  bool placeholder = false;  ///< true: the body of a `{{ }}`; false: plain text
  std::string text;     ///< plain text (escapes resolved) or the trimmed body
  int line_offset = 0;  ///< lines between the text's start and this piece
};

/// @brief An unclosed or nested `{{`; line_offset is counted from the text's start.
class PlaceholderError : public std::runtime_error {
 public:
  /// @brief `message` says what is wrong; `offset` as line_offset.
  PlaceholderError(const std::string& message, int offset) : std::runtime_error(message), line_offset(offset) {}
  int line_offset;  ///< lines between the text's start and the problem
};

/// @brief Splits text at its `{{ }}`; `\{{` is a literal "{{". Throws PlaceholderError.
std::vector<TextPiece> split_placeholders(std::string_view text);

/// @brief Makes a Simulation from `fasim run` flags (no "fasim run"), with or
/// without numerics. Throws UserError, one line without a location, on bad
/// flags. The CLI supplies one built on its own flag parser.
using SimulationFactory =
    std::function<std::unique_ptr<Simulation>(const std::vector<std::string>& args, bool numerics)>;

/// @brief The finished reports of the scenarios a lesson names, each run once.
class ScenarioReports {
 public:
  /// @brief Reports of runs that `make` builds from flags.
  explicit ScenarioReports(SimulationFactory make) : make_(std::move(make)) {}
  /// @brief report_json of the finished run of `args`; with `numerics`, also
  /// "numerics" and the lesson-only "row" object. Cached per (args, numerics).
  const nlohmann::json& get(const std::vector<std::string>& args, bool numerics);
  /// @brief A fresh, unstarted Simulation of `args` (for stepping).
  std::unique_ptr<Simulation> make(const std::vector<std::string>& args, bool numerics) const {
    return make_(args, numerics);
  }
  /// @brief The fit JSON of recorded points (recorded_fit.hpp); each file is
  /// read and predicted again once.
  const nlohmann::json& recorded(const RecordedSelection& sel) { return recorded_.get(sel); }
  /// @brief Calls `note` before each recorded file is predicted again.
  void on_recorded_predict(std::function<void(const std::string&, std::size_t)> note) {
    recorded_.on_predict = std::move(note);
  }
  /// @brief The part of a recorded ncu CSV that `sel` picks (recorded_ncu.hpp);
  /// each file is read once.
  const nlohmann::json& profile(const NcuSelection& sel) { return profiles_.get(sel); }

 private:
  SimulationFactory make_;
  RecordedFits recorded_;
  RecordedProfiles profiles_;
  std::map<std::pair<std::vector<std::string>, bool>, nlohmann::json> cache_;
};

/// @brief The value at a dotted KEY of a report (array elements by index).
/// Throws UserError naming the keys that do exist where the path breaks off.
const nlohmann::json& json_at(const nlohmann::json& report, std::string_view key);

/// @brief Formats a number (or string) per FORMAT (see the file comment).
/// Throws UserError on an unknown format or a format a string cannot take.
std::string format_value(const nlohmann::json& value, std::string_view format);

/// @brief Expands one lesson's numbers. Errors are UserError
/// "origin:line: problem; fix".
class LessonNumbers {
 public:
  /// @brief The numbers of `lesson`, from runs cached in `reports`.
  LessonNumbers(const Lesson& lesson, ScenarioReports& reports) : lesson_(lesson), reports_(reports) {}

  /// @brief `text` with every `{{ }}` replaced; `line` is the line of its first line.
  std::string expand(std::string_view text, int line);
  /// @brief The value of one `{{ }}` body (format part ignored).
  nlohmann::json value(std::string_view body, int line);
  /// @brief The expected answer of an exercise: a number, `calc: EXPR` or `{{ }}`.
  double answer(const LessonExercise& ex);
  /// @brief The counting-only report of a ```fasim block; errors name its line.
  const nlohmann::json& scenario_report(const LessonScenario& sc);
  /// @brief A fresh Simulation of a ```fasim block, with values unless its
  /// flags say --no-numerics; errors name its line.
  std::unique_ptr<Simulation> scenario_simulation(const LessonScenario& sc);
  /// @brief The flags a reference names: FLAGS as written, or a NAME's flags.
  std::vector<std::string> scenario_args(std::string_view flags_or_name, int line) const;
  /// @brief A ```recorded block's selection, its paths made relative to the
  /// lesson's directory; errors name its line.
  RecordedSelection recorded_selection(const LessonRecorded& rec) const;
  /// @brief The fit JSON of a ```recorded block; errors name its line.
  const nlohmann::json& recorded_report(const LessonRecorded& rec);

 private:
  [[noreturn]] void fail(int line, const std::string& msg) const;
  nlohmann::json lookup(std::string_view ref, int line);  // "KEY of FLAGS-or-NAME"
  // KEY of a recorded run's fit JSON; `what` names the selection in messages.
  nlohmann::json lookup_recorded(const std::string& key, const std::vector<std::string>& words, const std::string& what,
                                 int line);
  RecordedSelection selection(const std::vector<std::string>& words, int line) const;
  // KEY of a recorded ncu CSV's part, picked by --ncu FILE.csv and filters.
  nlohmann::json lookup_ncu(const std::string& key, const std::vector<std::string>& words, int line);
  // A path as written in the lesson, made relative to the lesson's directory.
  std::string beside_lesson(const std::string& path) const;
  double calc(std::string_view expr, int line);

  const Lesson& lesson_;
  ScenarioReports& reports_;
};

}  // namespace fasim
