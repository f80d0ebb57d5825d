// The lesson parser: Markdown lines into sections and blocks, ```fasim
// scenarios and ```exercise blocks. Line-based and strict: anything the runner
// would misread is an error that names the line and the fix.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/input_file.hpp"
#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"
#include "fasim/recorded_fit.hpp"

namespace fasim {
namespace {


bool blank(std::string_view s) { return trim(s).empty(); }
bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "- x", "* x", "+ x" or "12. x": the length of the marker with its space, else 0.
std::size_t list_marker(std::string_view s) {
  if (s.size() >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ') return 2;
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > 0 && i + 1 < s.size() && s[i] == '.' && s[i + 1] == ' ') return i + 2;
  return 0;
}

bool valid_name(std::string_view s) {
  if (s.empty() || !std::islower(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
           c == '-' || c == '_';
  });
}

class Parser {
 public:
  Parser(std::string_view text, std::string origin) : origin_(std::move(origin)) {
    std::string line;
    for (char c : text) {
      if (c == '\n') {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines_.push_back(line);
        line.clear();
      } else {
        line += c;
      }
    }
    if (!line.empty()) lines_.push_back(line);
  }

  Lesson run() {
    Lesson L;
    L.origin = origin_;
    const std::string base = std::filesystem::path(origin_).filename().string();
    std::size_t digits = 0;
    while (digits < base.size() && std::isdigit(static_cast<unsigned char>(base[digits]))) ++digits;
    if (digits > 0 && digits < 4 && digits < base.size() && base[digits] == '-')
      L.number = std::stoi(base.substr(0, digits));

    std::size_t i = 0;
    while (i < lines_.size() && blank(lines_[i])) ++i;
    if (i == lines_.size() || !starts(lines_[i], "# "))
      fail(static_cast<int>(i + 1), "a lesson starts with its title, '# Title'; add that line first");
    L.title = trim(std::string_view(lines_[i]).substr(2));
    L.title_line = static_cast<int>(i + 1);
    ++i;

    std::vector<LessonBlock>* blocks = &L.intro;
    while (i < lines_.size()) {
      const std::string& s = lines_[i];
      const int n = static_cast<int>(i + 1);
      if (blank(s)) {
        ++i;
      } else if (starts(s, "## ")) {
        if (!L.sections.empty() && is_exercises(L.sections.back()))
          fail(n, "'## Exercises' must be the last section; move '" + trim(s.substr(3)) + "' before it");
        L.sections.push_back({trim(s.substr(3)), n, {}});
        blocks = &L.sections.back().blocks;
        ++i;
      } else if (starts(s, "# ")) {
        fail(n, "a lesson has one '# title'; start a section with '## '");
      } else if (starts(s, "```")) {
        i = fence(L, *blocks, i);
      } else if (starts(s, "### ")) {
        blocks->push_back({LessonBlockKind::heading, trim(s.substr(4)), n, "", -1});
        ++i;
      } else if (starts(s, "|")) {
        i = gather(*blocks, LessonBlockKind::table, i, [](const std::string& t) { return starts(t, "|"); });
      } else if (starts(s, ">")) {
        i = gather(*blocks, LessonBlockKind::quote, i, [](const std::string& t) { return starts(t, ">"); });
      } else if (list_marker(s) > 0) {
        // An item runs on over indented lines until a blank line or the next item.
        i = gather(*blocks, LessonBlockKind::list_item, i, [](const std::string& t) {
          return !blank(t) && list_marker(t) == 0 && t[0] == ' ';
        });
      } else {
        i = gather(*blocks, LessonBlockKind::paragraph, i, [](const std::string& t) {
          return !blank(t) && !starts(t, "#") && !starts(t, "```") && !starts(t, "|") && !starts(t, ">") &&
                 list_marker(t) == 0;
        });
      }
    }

    for (const auto& sec : L.sections)
      for (const auto& b : sec.blocks)
        if (b.kind == LessonBlockKind::exercise && !is_exercises(sec))
          fail(L.exercises[b.index].line, "exercise blocks belong in the last section, '## Exercises'; move it there");
    if (!L.sections.empty() && is_exercises(L.sections.back()) && L.exercises.empty())
      fail(L.sections.back().line, "'## Exercises' holds no ```exercise block; add at least one");
    check_placeholders(L);
    return L;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& msg) const {
    throw UserError(origin_ + ":" + std::to_string(line) + ": " + msg);
  }

  static bool is_exercises(const LessonSection& s) {
    std::string t = s.title;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t == "exercises";
  }

  // Consecutive lines that `more` accepts (the first always taken) into one block.
  template <typename More>
  std::size_t gather(std::vector<LessonBlock>& out, LessonBlockKind kind, std::size_t i, More more) {
    LessonBlock b{kind, lines_[i], static_cast<int>(i + 1), "", -1};
    for (++i; i < lines_.size() && more(lines_[i]); ++i) b.text += "\n" + lines_[i];
    out.push_back(std::move(b));
    return i;
  }

  std::size_t fence(Lesson& L, std::vector<LessonBlock>& out, std::size_t open) {
    const std::string info = trim(std::string_view(lines_[open]).substr(3));
    const int n = static_cast<int>(open + 1);
    std::size_t close = open + 1;
    while (close < lines_.size() && trim(lines_[close]) != "```") ++close;
    if (close == lines_.size()) fail(n, "this ``` block is never closed; end it with a line holding only ```");
    std::vector<std::string> body(lines_.begin() + static_cast<long>(open) + 1,
                                  lines_.begin() + static_cast<long>(close));
    std::vector<std::string> words;
    std::istringstream is(info);
    for (std::string w; is >> w;) words.push_back(w);
    const std::string lang = words.empty() ? "" : words[0];

    if (lang == "fasim") {
      out.push_back({LessonBlockKind::scenario, "", n, lang, static_cast<int>(L.scenarios.size())});
      L.scenarios.push_back(scenario(L, words, body, n));
    } else if (lang == "recorded") {
      out.push_back({LessonBlockKind::recorded, "", n, lang, static_cast<int>(L.recorded.size())});
      L.recorded.push_back(recorded(L, words, body, n));
    } else if (lang == "exercise") {
      if (words.size() > 1) fail(n, "an ```exercise fence takes no options; write just ```exercise");
      out.push_back({LessonBlockKind::exercise, "", n, lang, static_cast<int>(L.exercises.size())});
      L.exercises.push_back(exercise(body, n));
    } else {
      std::string text;
      for (std::size_t k = 0; k < body.size(); ++k) text += (k ? "\n" : "") + body[k];
      out.push_back({LessonBlockKind::code, text, n + 1, info, -1});
    }
    return close + 1;
  }

  LessonScenario scenario(const Lesson& L, const std::vector<std::string>& words, const std::vector<std::string>& body,
                          int n) {
    LessonScenario sc;
    sc.line = n;
    for (std::size_t k = 1; k < words.size(); ++k) {
      if (words[k] == "summary") {
        sc.summary_only = true;
      } else if (!sc.name.empty() || !valid_name(words[k])) {
        fail(n, "bad ```fasim option '" + words[k] +
                    "'; write ```fasim [NAME] [summary], NAME in lower case letters, digits, '-' and '_'");
      } else {
        if (L.scenario_named(words[k]) || L.recorded_named(words[k]))
          fail(n, "a scenario named '" + words[k] + "' already exists; pick another name");
        sc.name = words[k];
      }
    }
    const std::string flags = joined_flags(body);  // `#` starts a comment line
    if (flags.find("{{") != std::string::npos)
      fail(n, "a ```fasim block holds plain flags; remove the {{ }} from it");
    try {
      sc.args = split_words(flags);
    } catch (const UserError& e) {
      fail(n, e.what());
    }
    if (sc.args.size() >= 2 && sc.args[0] == "fasim" && sc.args[1] == "run") sc.args.erase(sc.args.begin(), sc.args.begin() + 2);
    if (sc.args.empty()) fail(n, "this ```fasim block is empty; write the flags of one `fasim run`, e.g. --algo flash2 --N 16");
    if (!starts(sc.args[0], "--"))
      fail(n, "a ```fasim block holds `fasim run` flags such as --algo flash2 --N 16; '" + sc.args[0] +
                  "' is not a flag");
    for (const auto& a : sc.args) sc.text += (sc.text.empty() ? "" : " ") + a;
    return sc;
  }

  // The flags of one block's lines: blank lines and `#` comments dropped.
  static std::string joined_flags(const std::vector<std::string>& body) {
    std::string flags;
    for (const auto& line : body) {
      const std::string t = trim(line);
      if (t.empty() || t[0] == '#') continue;
      flags += (flags.empty() ? "" : " ") + t;
    }
    return flags;
  }

  LessonRecorded recorded(const Lesson& L, const std::vector<std::string>& words, const std::vector<std::string>& body,
                          int n) {
    LessonRecorded rec;
    rec.line = n;
    if (words.size() != 2 || !valid_name(words[1]))
      fail(n, "a ```recorded block takes one name; write ```recorded NAME, NAME in lower case letters, digits, '-' "
              "and '_'");
    if (L.scenario_named(words[1]) || L.recorded_named(words[1]))
      fail(n, "a scenario named '" + words[1] + "' already exists; pick another name");
    rec.name = words[1];
    const std::string flags = joined_flags(body);
    if (flags.find("{{") != std::string::npos) fail(n, "a ```recorded block holds plain flags; remove the {{ }} from it");
    try {
      rec.args = split_words(flags);
      if (rec.args.size() >= 2 && rec.args[0] == "fasim" && rec.args[1] == "compare")
        rec.args.erase(rec.args.begin(), rec.args.begin() + 2);
      (void)parse_recorded_selection(rec.args);
    } catch (const UserError& e) {
      fail(n, e.what());
    }
    for (const auto& a : rec.args) rec.text += (rec.text.empty() ? "" : " ") + a;
    return rec;
  }

  LessonExercise exercise(const std::vector<std::string>& body, int n) {
    LessonExercise ex;
    ex.line = n;
    std::string* last = nullptr;
    for (std::size_t k = 0; k < body.size(); ++k) {
      const std::string& line = body[k];
      const int ln = n + 1 + static_cast<int>(k);
      if (blank(line)) continue;
      if (std::isspace(static_cast<unsigned char>(line[0]))) {
        if (!last) fail(ln, "an indented line continues a field, but no field came before; start with 'question:'");
        *last += " " + trim(line);
        continue;
      }
      const std::size_t colon = line.find(':');
      const std::string key = colon == std::string::npos ? trim(line) : trim(line.substr(0, colon));
      const std::string value = colon == std::string::npos ? "" : trim(line.substr(colon + 1));
      struct Field { const char* key; std::string* value; int* line; };
      const Field fields[] = {{"question", &ex.question, &ex.question_line},
                              {"answer", &ex.answer, &ex.answer_line},
                              {"tolerance", &ex.tolerance, &ex.tolerance_line},
                              {"hint", &ex.hint, &ex.hint_line},
                              {"unit", &ex.unit, &ex.unit_line}};
      const auto* f = std::find_if(std::begin(fields), std::end(fields), [&](const Field& f) { return key == f.key; });
      if (colon == std::string::npos || f == std::end(fields))
        fail(ln, "unknown exercise field '" + key +
                     "'; lines are 'question:', 'answer:', 'tolerance:', 'hint:' or 'unit:' (indent a line to continue one)");
      if (*f->line != 0)
        fail(ln, "'" + key + ":' appears twice in this exercise; keep one");
      *f->value = value;
      *f->line = ln;
      last = f->value;
    }
    auto need = [&](const std::string& v, const char* key, const char* why) {
      if (trim(v).empty())
        fail(n, std::string("this exercise has no '") + key + ":'; add a line '" + key + ": " + why + "'");
    };
    need(ex.question, "question", "...' (what to compute");
    need(ex.answer, "answer", "...' (a number, calc: EXPR or {{ KEY of FLAGS }}");
    need(ex.tolerance, "tolerance", "1%' (relative) or 'tolerance: 0.5' (absolute");
    need(ex.hint, "hint", "...' (shown after a wrong answer");
    return ex;
  }

  // Every `{{` must close in the same block, so an error points at its line.
  void check_placeholders(const Lesson& L) const {
    auto check = [&](const std::string& text, int line) {
      try {
        (void)split_placeholders(text);
      } catch (const PlaceholderError& e) {
        fail(line + e.line_offset, e.what());
      }
    };
    for (const auto& b : L.intro) check(b.text, b.line);
    for (const auto& s : L.sections) {
      check(s.title, s.line);
      for (const auto& b : s.blocks) check(b.text, b.line);
    }
    for (const auto& ex : L.exercises) {
      check(ex.question, ex.question_line);
      check(ex.hint, ex.hint_line);
    }
  }

  std::string origin_;
  std::vector<std::string> lines_;
};

}  // namespace

std::string Lesson::summary() const {
  for (const auto& b : intro) {
    if (b.kind != LessonBlockKind::paragraph) continue;
    std::string out = b.text;
    std::replace(out.begin(), out.end(), '\n', ' ');
    return out;
  }
  return "";
}

const LessonScenario* Lesson::scenario_named(std::string_view name) const {
  for (const auto& s : scenarios)
    if (!s.name.empty() && s.name == name) return &s;
  return nullptr;
}

const LessonRecorded* Lesson::recorded_named(std::string_view name) const {
  for (const auto& r : recorded)
    if (r.name == name) return &r;
  return nullptr;
}

Lesson parse_lesson(std::string_view markdown, const std::string& origin) { return Parser(markdown, origin).run(); }

Lesson load_lesson(const std::string& path) {
  return parse_lesson(read_input_file(path, "lesson", "check the path"), path);
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      const std::size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos)
        throw UserError(std::string("unclosed ") + c + " quote; close it or remove it");
      cur += text.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

}  // namespace fasim
