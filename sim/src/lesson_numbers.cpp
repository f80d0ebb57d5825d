// Checked numbers: finding `{{ }}`, running the scenarios they name (once
// each), walking the JSON report, and evaluating calc expressions.
#include "fasim/lesson_numbers.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/lesson_calc.hpp"
#include "fasim/report.hpp"

namespace fasim {
namespace {


int lines_in(std::string_view s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

std::string keys_of(const nlohmann::json& j) {
  std::string out;
  if (j.is_array()) return "indices 0 to " + std::to_string(static_cast<long long>(j.size()) - 1);
  for (const auto& [k, v] : j.items()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// Keys whose values only a run with numerics has.
bool needs_numerics(std::string_view key) {
  auto under = [&](std::string_view top) {
    return key == top || (key.size() > top.size() && key.substr(0, top.size()) == top && key[top.size()] == '.');
  };
  return under("numerics") || under("row");
}

}  // namespace

std::vector<TextPiece> split_placeholders(std::string_view text) {
  std::vector<TextPiece> out;
  std::string plain;
  int plain_offset = 0;
  std::size_t i = 0;
  auto flush = [&] {
    if (!plain.empty()) out.push_back({false, plain, plain_offset});
    plain.clear();
  };
  while (i < text.size()) {
    if (text.compare(i, 3, "\\{{") == 0) {
      if (plain.empty()) plain_offset = lines_in(text.substr(0, i));
      plain += "{{";
      i += 3;
    } else if (text.compare(i, 2, "{{") == 0) {
      const int offset = lines_in(text.substr(0, i));
      const std::size_t close = text.find("}}", i + 2);
      if (close == std::string_view::npos)
        throw PlaceholderError("this {{ is never closed; end it with }} (write \\{{ for a literal {{)", offset);
      const std::string_view body = text.substr(i + 2, close - i - 2);
      if (body.find("{{") != std::string_view::npos)
        throw PlaceholderError("a {{ inside {{ }}; close the first one with }} before opening another", offset);
      flush();
      out.push_back({true, trim(body), offset});
      i = close + 2;
    } else {
      if (plain.empty()) plain_offset = lines_in(text.substr(0, i));
      plain += text[i++];
    }
  }
  flush();
  return out;
}

const nlohmann::json& ScenarioReports::get(const std::vector<std::string>& args, bool numerics) {
  auto key = std::make_pair(args, numerics);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  std::unique_ptr<Simulation> sim = make_(args, numerics);
  // The watched row's running max and sum after each key block (lessons only).
  nlohmann::json m = nlohmann::json::array(), l = nlohmann::json::array();
  nlohmann::json final_m, final_l;
  while (sim->next()) {
    const Step& s = sim->step();
    if (!s.has_row) continue;
    final_m = s.row_m;
    final_l = s.row_l;
    if (s.kb < 0) continue;
    const auto j = static_cast<std::size_t>(s.kb);
    while (m.size() <= j) {
      m.push_back(nullptr);
      l.push_back(nullptr);
    }
    m[j] = s.row_m;
    l[j] = s.row_l;
  }
  std::optional<NumericsResult> num;
  if (sim->options().numerics) num = sim->numerics();
  nlohmann::json report = report_json(*sim, num);
  if (sim->options().numerics)
    report["row"] = {{"index", sim->options().watch.row}, {"m", m}, {"l", l}, {"final_m", final_m},
                     {"final_l", final_l}};
  return cache_.emplace(std::move(key), std::move(report)).first->second;
}

const nlohmann::json& json_at(const nlohmann::json& report, std::string_view key) {
  const nlohmann::json* at = &report;
  std::string path;
  std::size_t pos = 0;
  while (pos <= key.size()) {
    const std::size_t dot = std::min(key.find('.', pos), key.size());
    const std::string part(key.substr(pos, dot - pos));
    const std::string where = path.empty() ? "the report has " : "'" + path + "' has ";
    if (part.empty()) throw UserError("key '" + std::string(key) + "' has an empty part; write it like hbm.read_bytes");
    if (at->is_object() && at->contains(part)) {
      at = &(*at)[part];
    } else if (at->is_array() && std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); }) &&
               part.size() < 9 && std::stoul(part) < at->size()) {
      at = &(*at)[std::stoul(part)];
    } else if (at->is_object() || at->is_array()) {
      throw UserError("unknown key '" + std::string(key) + "': " + where + keys_of(*at));
    } else {
      throw UserError("unknown key '" + std::string(key) + "': '" + path + "' is a value, not an object; end the key at '" +
                      path + "'");
    }
    path += (path.empty() ? "" : ".") + part;
    pos = dot + 1;
  }
  if (at->is_object() || at->is_array())
    throw UserError("key '" + std::string(key) + "' names a group, not a number; pick one of its keys: " + keys_of(*at));
  if (at->is_null())
    throw UserError("key '" + std::string(key) +
                    "' has no value in this run (the watched row never reached it); pick a key block the row sees, or "
                    "another --row");
  return *at;
}

void LessonNumbers::fail(int line, const std::string& msg) const {
  throw UserError(lesson_.origin + ":" + std::to_string(line) + ": " + msg);
}

std::vector<std::string> LessonNumbers::scenario_args(std::string_view flags_or_name, int line) const {
  const std::string text = trim(flags_or_name);
  if (text.empty()) fail(line, "nothing after 'of'; write KEY of --flags or KEY of NAME");
  if (text.rfind("--", 0) == 0) {
    try {
      return split_words(text);
    } catch (const UserError& e) {
      fail(line, e.what());
    }
  }
  if (const LessonScenario* s = lesson_.scenario_named(text)) return s->args;
  std::string names;
  for (const auto& s : lesson_.scenarios)
    if (!s.name.empty()) names += (names.empty() ? "" : ", ") + s.name;
  for (const auto& r : lesson_.recorded) names += (names.empty() ? "" : ", ") + r.name;
  fail(line, "no scenario named '" + text + "'; " +
                 (names.empty() ? "name one with ```fasim NAME, or give flags (--algo ...)"
                                : "named scenarios here: " + names + ", or give flags (--algo ...)"));
}

nlohmann::json LessonNumbers::lookup(std::string_view ref, int line) {
  std::string r = trim(ref);
  std::replace_if(r.begin(), r.end(), [](unsigned char c) { return std::isspace(c); }, ' ');  // a mark may wrap
  const std::size_t of = r.find(" of ");
  if (of == std::string::npos)
    fail(line, "'" + r + "' is not KEY of FLAGS; write e.g. {{ hbm.read_bytes of --N 16 --d 4 }} or {{ calc: ... }}");
  const std::string key = trim(r.substr(0, of));
  if (key.empty() || key.find(' ') != std::string::npos)
    fail(line, "'" + key + "' is not a key; keys are dotted names such as hbm.read_bytes (see fasim run --json)");
  const std::string source = trim(r.substr(of + 4));
  if (const LessonRecorded* rec = lesson_.recorded_named(source))
    return lookup_recorded(key, rec->args, "'" + rec->name + "'", line);
  const std::vector<std::string> args = scenario_args(source, line);
  if (std::find(args.begin(), args.end(), "--recorded") != args.end())
    return lookup_recorded(key, args, "these flags", line);
  if (std::find(args.begin(), args.end(), "--ncu") != args.end()) return lookup_ncu(key, args, line);
  const nlohmann::json* report = nullptr;
  try {
    report = &reports_.get(args, needs_numerics(key));
  } catch (const UserError& e) {
    fail(line, std::string("the scenario of {{ ") + r + " }} does not run: " + e.what());
  }
  if (needs_numerics(key) && !report->contains("row"))
    fail(line, "'" + key + "' needs a run with values, and these flags count only; remove --no-numerics");
  try {
    return json_at(*report, key);
  } catch (const UserError& e) {
    fail(line, std::string(e.what()) + "; see `fasim run --json` for the keys");
  }
}

RecordedSelection LessonNumbers::selection(const std::vector<std::string>& words, int line) const {
  RecordedSelection sel;
  try {
    sel = parse_recorded_selection(words);
  } catch (const UserError& e) {
    fail(line, e.what());
  }
  sel.csv = beside_lesson(sel.csv);
  if (sel.device.ends_with(".toml") || sel.device.find('/') != std::string::npos)
    sel.device = beside_lesson(sel.device);
  return sel;
}

std::string LessonNumbers::beside_lesson(const std::string& path) const {
  // Paths are relative to the lesson's directory, as a scenario's --device FILE.toml is.
  const std::filesystem::path dir = std::filesystem::path(lesson_.origin).parent_path();
  return std::filesystem::path(path).is_relative() ? (dir / path).lexically_normal().string() : path;
}

nlohmann::json LessonNumbers::lookup_ncu(const std::string& key, const std::vector<std::string>& words, int line) {
  NcuSelection sel;
  try {
    sel = parse_ncu_selection(words);
  } catch (const UserError& e) {
    fail(line, e.what());
  }
  sel.csv = beside_lesson(sel.csv);
  const nlohmann::json* part = nullptr;
  try {
    part = &reports_.profile(sel);
  } catch (const UserError& e) {
    fail(line, std::string("the profiler run does not load: ") + e.what());
  }
  try {
    return json_at(*part, key);
  } catch (const UserError& e) {
    fail(line, std::string(e.what()) + "; the keys are run, kernel, launches and metrics.NAME (recorded_ncu.hpp)");
  }
}

nlohmann::json LessonNumbers::lookup_recorded(const std::string& key, const std::vector<std::string>& words,
                                              const std::string& what, int line) {
  const RecordedSelection sel = selection(words, line);
  const nlohmann::json* report = nullptr;
  try {
    report = &reports_.recorded(sel);
  } catch (const UserError& e) {
    fail(line, "the recorded run of " + what + " does not load: " + e.what());
  }
  const std::string top = key.substr(0, key.find('.'));
  if ((top == "point" || top == "bound" || top == "predicted" || top == "measured" || top == "error_pct" ||
       top == "measured_min" || top == "measured_max") &&
      !report->contains("point"))
    fail(line, "'" + key + "' is a key of one point, but " + what + " keeps " + report->at("points").dump() +
                   " recorded points; add filters (--algo, --dtype, --heads, --N, --d, ...) that keep one");
  try {
    return json_at(*report, key);
  } catch (const UserError& e) {
    fail(line, std::string(e.what()) + "; see `fasim compare --recorded FILE.csv --json` for the keys");
  }
}

RecordedSelection LessonNumbers::recorded_selection(const LessonRecorded& rec) const {
  return selection(rec.args, rec.line);
}

const nlohmann::json& LessonNumbers::recorded_report(const LessonRecorded& rec) {
  const RecordedSelection sel = recorded_selection(rec);
  try {
    return reports_.recorded(sel);
  } catch (const UserError& e) {
    fail(rec.line, std::string("this recorded run does not load: ") + e.what());
  }
}

const nlohmann::json& LessonNumbers::scenario_report(const LessonScenario& sc) {
  try {
    return reports_.get(sc.args, false);
  } catch (const UserError& e) {
    fail(sc.line, std::string("this scenario does not run: ") + e.what());
  }
}

std::unique_ptr<Simulation> LessonNumbers::scenario_simulation(const LessonScenario& sc) {
  try {
    return reports_.make(sc.args, true);
  } catch (const UserError& e) {
    fail(sc.line, std::string("this scenario does not run: ") + e.what());
  }
}

double LessonNumbers::calc(std::string_view text, int line) {
  const std::string expr = trim(text);  // columns count from the expression's first character
  try {
    return eval_calc(expr, [&](std::string_view ref) {
      const nlohmann::json v = lookup(ref, line);
      if (!v.is_number()) fail(line, "[" + std::string(ref) + "] is not a number, so calc cannot use it");
      return v.get<double>();
    });
  } catch (const CalcError& e) {
    fail(line, "bad expression '" + expr + "' at column " + std::to_string(e.column()) + ": " + e.what());
  }
}

nlohmann::json LessonNumbers::value(std::string_view body, int line) {
  const std::string b = trim(body);
  if (b.rfind("calc:", 0) == 0) return calc(std::string_view(b).substr(5), line);
  return lookup(b, line);
}

std::string LessonNumbers::expand(std::string_view text, int line) {
  std::vector<TextPiece> pieces;
  try {
    pieces = split_placeholders(text);
  } catch (const PlaceholderError& e) {
    fail(line + e.line_offset, e.what());
  }
  std::string out;
  for (const TextPiece& p : pieces) {
    if (!p.placeholder) {
      out += p.text;
      continue;
    }
    const int at = line + p.line_offset;
    const std::size_t bar = p.text.rfind('|');
    const std::string body = bar == std::string::npos ? p.text : p.text.substr(0, bar);
    const std::string format = bar == std::string::npos ? "" : trim(p.text.substr(bar + 1));
    if (trim(body).empty()) fail(at, "empty {{ }}; write {{ KEY of FLAGS }} or {{ calc: EXPR }}");
    const nlohmann::json v = value(body, at);
    try {
      out += format_value(v, format);
    } catch (const UserError& e) {
      fail(at, e.what());
    }
  }
  return out;
}

double LessonNumbers::answer(const LessonExercise& ex) {
  std::string a = trim(ex.answer);
  nlohmann::json v;
  if (a.size() >= 4 && a.rfind("{{", 0) == 0 && a.compare(a.size() - 2, 2, "}}") == 0) {
    std::string body = a.substr(2, a.size() - 4);
    if (const std::size_t bar = body.rfind('|'); bar != std::string::npos) body.resize(bar);
    v = value(body, ex.answer_line);
  } else {
    if (a.rfind("calc:", 0) == 0) a = a.substr(5);
    v = calc(a, ex.answer_line);
  }
  if (!v.is_number()) fail(ex.answer_line, "the answer '" + ex.answer + "' is not a number; exercises need numeric answers");
  return v.get<double>();
}

}  // namespace fasim
