// Markdown blocks of a lesson drawn for a terminal (see lesson_text.hpp).
#include "lesson_text.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "fasim/format.hpp"

namespace fasim::cli {
namespace {

constexpr char kNoBreak = '\x1f';  // a space that wrap() keeps inside its word

std::string unbreak(std::string s) {
  std::replace(s.begin(), s.end(), kNoBreak, ' ');
  return s;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string line; std::getline(is, line);) out.push_back(line);
  return out;
}

// Cells of "| a | b |" (an escaped \| stays in its cell).
std::vector<std::string> cells_of(const std::string& row) {
  std::string r = trim(row);
  if (!r.empty() && r.front() == '|') r.erase(0, 1);
  if (!r.empty() && r.back() == '|' && (r.size() < 2 || r[r.size() - 2] != '\\')) r.pop_back();
  std::vector<std::string> cells{""};
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i] == '\\' && i + 1 < r.size() && r[i + 1] == '|') {
      cells.back() += '|';
      ++i;
    } else if (r[i] == '|') {
      cells.emplace_back();
    } else {
      cells.back() += r[i];
    }
  }
  for (auto& c : cells) c = trim(c);
  return cells;
}

bool is_rule(const std::vector<std::string>& cells) {
  return std::all_of(cells.begin(), cells.end(), [](const std::string& c) {
    return !c.empty() && c.find_first_not_of(":-") == std::string::npos && c.find('-') != std::string::npos;
  });
}

std::string pad(const std::string& s, int width, bool right) {
  const std::string fill(static_cast<std::size_t>(std::max(0, width - display_width(s))), ' ');
  return right ? fill + s : s + fill;
}

std::string render_table(const std::string& text, const TextStyle& style) {
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;
  int rule = -1;
  for (const auto& line : lines_of(text)) {
    auto cells = cells_of(line);
    if (rule < 0 && rows.size() == 1 && is_rule(cells)) {
      rule = 1;
      for (const auto& c : cells) right.push_back(c.size() > 1 && c.back() == ':' && c.front() != ':');
      continue;
    }
    for (auto& c : cells) c = inline_markup(c, style);
    rows.push_back(std::move(cells));
  }
  std::vector<int> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], display_width(r[c]));
    }
  int total = 2;
  for (int w : width) total += w + 2;
  std::string out;
  if (total - 2 > style.width + 2) {  // too wide to align: show as written
    for (const auto& line : lines_of(text)) out += (out.empty() ? "" : "\n") + inline_markup(line, style);
    return out;
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line = " ";
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < rows[r].size() ? rows[r][c] : "";
      const std::string shown = r == 0 && rule == 1 ? style.bold(cell) : cell;
      line += " " + pad(shown, width[c] + display_width(shown) - display_width(cell), c < right.size() && right[c]) +
              (c + 1 < width.size() ? " " : "");
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += (out.empty() ? "" : "\n") + line;
    if (r == 0 && rule == 1) {
      std::string under = " ";
      for (std::size_t c = 0; c < width.size(); ++c)
        under += " " + std::string(static_cast<std::size_t>(width[c]), '-') + (c + 1 < width.size() ? " " : "");
      out += "\n" + style.dim(under);
    }
  }
  return out;
}

}  // namespace

bool colour_wanted() {
  const char* term = std::getenv("TERM");
  const char* no_colour = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && term && *term && std::strcmp(term, "dumb") != 0 && !(no_colour && *no_colour);
}

int display_width(std::string_view s) {
  int w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033') {  // skip "ESC [ ... m"
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++w;
  }
  return w;
}

std::string wrap(std::string_view text, const TextStyle& style, std::string_view first, std::string_view rest) {
  std::istringstream is{std::string(text)};
  std::string out(first), line(first);
  int used = display_width(first);
  bool empty_line = true;
  for (std::string word; is >> word;) {
    const int w = display_width(word);
    if (!empty_line && used + 1 + w > style.width) {
      out += "\n" + std::string(rest);
      used = display_width(rest);
      empty_line = true;
    }
    if (!empty_line) {
      out += ' ';
      ++used;
    }
    out += word;
    used += w;
    empty_line = false;
  }
  return unbreak(out);
}

std::string wrap_command(std::string_view command, const TextStyle& style, std::string_view first,
                         std::string_view rest) {
  // Pieces kept on one line: the words before the first flag ("fasim run"), then each flag with its values.
  std::vector<std::string> pieces;
  std::istringstream is{std::string(command)};
  for (std::string word; is >> word;) {
    const bool flag =
        word.size() > 1 && word[0] == '-' && (word[1] == '-' || std::isalpha(static_cast<unsigned char>(word[1])));
    if (pieces.empty() || flag)
      pieces.push_back(word);
    else
      pieces.back() += " " + word;
  }
  std::string out(first), line;
  int used = display_width(first);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const int room = style.width - (i + 1 < pieces.size() ? 2 : 0);  // a line that goes on ends in " \"
    const int w = display_width(pieces[i]);
    if (!line.empty() && used + 1 + w > room) {
      out += style.code(line) + " \\\n" + std::string(rest);
      used = display_width(rest);
      line.clear();
    }
    if (!line.empty()) {
      line += ' ';
      ++used;
    }
    line += pieces[i];
    used += w;
  }
  return out + style.code(line);
}

std::string inline_markup(std::string_view text, const TextStyle& style) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "**") == 0) {
      const std::size_t end = text.find("**", i + 2);
      if (end != std::string_view::npos) {
        out += style.bold(text.substr(i + 2, end - i - 2));
        i = end + 1;
        continue;
      }
    } else if (text[i] == '`') {
      const std::size_t end = text.find('`', i + 1);
      if (end != std::string_view::npos) {
        std::string code(text.substr(i + 1, end - i - 1));
        std::replace(code.begin(), code.end(), ' ', kNoBreak);  // a code span is not split across lines
        out += style.colour ? style.code(code) : "`" + std::string(code) + "`";
        i = end;
        continue;
      }
    } else if (text[i] == '[') {
      const std::size_t mid = text.find("](", i);
      const std::size_t end = mid == std::string_view::npos ? mid : text.find(')', mid);
      if (end != std::string_view::npos && text.substr(i, mid - i).find('\n') == std::string_view::npos) {
        out += std::string(text.substr(i + 1, mid - i - 1)) + " (" + std::string(text.substr(mid + 2, end - mid - 2)) + ")";
        i = end;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

// A block whose numbers are already expanded.
static std::string render_expanded(const LessonBlock& block, const std::string& text, const TextStyle& style) {
  switch (block.kind) {
    case LessonBlockKind::paragraph:
      return wrap(inline_markup(text, style), style);
    case LessonBlockKind::list_item: {
      std::size_t marker = text.find(' ') + 1;
      const std::string indent(marker, ' ');
      return wrap(inline_markup(text.substr(marker), style), style, "  " + text.substr(0, marker), "  " + indent);
    }
    case LessonBlockKind::quote: {
      std::string joined;
      for (auto line : lines_of(text)) joined += trim(std::string_view(line).substr(1)) + " ";
      return wrap(inline_markup(joined, style), style, "  | ", "  | ");
    }
    case LessonBlockKind::heading:
      return style.bold(inline_markup(text, style));
    case LessonBlockKind::table:
      return render_table(text, style);
    case LessonBlockKind::code: {
      std::string out;
      for (const auto& line : lines_of(text)) out += (out.empty() ? "  " : "\n  ") + line;
      return style.code(out);
    }
    default:
      return "";
  }
}

std::string render_block(const LessonBlock& block, LessonNumbers& numbers, const TextStyle& style) {
  return unbreak(render_expanded(block, numbers.expand(block.text, block.line), style));
}

std::string run_summary(const nlohmann::json& r) {
  const auto& w = r.value("workload", nlohmann::json::object());
  const auto& m = r.value("mapping", nlohmann::json::object());
  std::string s = m.value("algo", std::string("?")) + " on " + r.value("device", std::string("?")) + ": N " +
                  std::to_string(w.value("N", std::int64_t{0})) + ", d " + std::to_string(w.value("d", std::int64_t{0})) + ", " +
                  w.value("dtype", std::string("?"));
  if (w.value("batch", 1) * w.value("heads", 1) > 1)
    s += ", " + std::to_string(w.value("batch", 1)) + "x" + std::to_string(w.value("heads", 1)) + " heads";
  s += ", Br " + std::to_string(m.value("br", std::int64_t{0})) + ", Bc " + std::to_string(m.value("bc", std::int64_t{0})) + "; " +
       with_commas(r.value("steps", std::int64_t{0})) + " steps; HBM read " + with_commas(r["hbm"].value("read_bytes", std::int64_t{0})) +
       " B, written " + with_commas(r["hbm"].value("write_bytes", std::int64_t{0})) + " B";
  if (r.contains("time")) {
    s += "; " + micros(r["time"].value("seconds", 0.0), 2) + ", " + r["time"].value("bound", std::string("?")) +
         "-bound";
  }
  return s;
}

std::string render_scenario(const LessonScenario& sc, int number, const nlohmann::json& report,
                            const TextStyle& style) {
  std::string head = "  scenario " + std::to_string(number) + (sc.name.empty() ? "" : " (" + sc.name + ")") + ": ";
  std::string out = wrap_command("fasim run " + sc.text, style, style.bold(head), "    ");
  out += "\n" + wrap(run_summary(report), style, "    ", "    ");
  if (!sc.summary_only) out += "\n" + style.dim("    (its steps come next)");
  return out;
}

std::string recorded_command(const LessonRecorded& rec, const RecordedSelection& resolved) {
  auto here = [](const std::string& path) {
    std::error_code ec;
    const std::filesystem::path rel = std::filesystem::proximate(path, ec);
    return ec || rel.empty() ? path : rel.string();
  };
  std::string out = "fasim compare";
  for (std::size_t i = 0; i < rec.args.size(); ++i) {
    std::string word = rec.args[i];
    if (i > 0 && rec.args[i - 1] == "--recorded") word = here(resolved.csv);
    if (i > 0 && rec.args[i - 1] == "--device" && resolved.device != word) word = here(resolved.device);
    out += " " + word;
  }
  return out;
}

std::string recorded_summary(const nlohmann::json& fit) {
  const std::string where = "measured on " + fit.value("gpu", std::string("?")) + " (driver " +
                            fit.value("driver", std::string("?")) + ", " + fit.value("date", std::string("?")) +
                            "), predicted again now on " + fit.value("device", std::string("?"));
  if (fit.contains("point"))
    return fit["point"].get<std::string>() + ": " + where + ", " + fit.value("bound", std::string("?")) + "-bound";
  const std::int64_t points = fit.value("points", std::int64_t{0}), misses = fit.value("misses", std::int64_t{0});
  return with_commas(points) + " " + plural(points, "point") + " " + where + "; " + with_commas(misses) + " " +
         plural(misses, "(point, metric) pair") + (misses == 1 ? " outside its bar" : " outside their bars");
}

std::string recorded_table(const nlohmann::json& fit) {
  if (!fit.contains("point")) return "";
  auto shown = [](const std::string& metric, double v) {
    if (metric != "time_s") return with_commas(static_cast<std::int64_t>(std::llround(v)));
    return micros(v, 2);
  };
  std::string out = "| quantity | predicted | measured | error |\n|---|---:|---:|---:|";
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    const auto m = static_cast<Metric>(i);
    const std::string key = name(m);
    if (!fit["measured"].contains(key)) continue;  // not recorded (an older CSV)
    const double p = fit["predicted"].value(key, 0.0);
    const double v = fit["measured"][key].get<double>();
    std::string error = "n/a";
    const nlohmann::json& e = fit["error_pct"][key];
    if (p == v) {
      error = "exact";
    } else if (e.is_number()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%+.1f%%", e.get<double>());
      error = buf;
    }
    out += "\n| " + std::string(metric_label(m)) + " | " + shown(key, p) + " | " + shown(key, v) + " | " + error + " |";
  }
  return out;
}

std::string render_recorded(const LessonRecorded& rec, const std::string& command, const nlohmann::json& fit,
                            const TextStyle& style) {
  const std::string head = "  recorded (" + rec.name + "): ";
  std::string out = wrap_command(command, style, style.bold(head), "    ");
  out += "\n" + wrap(recorded_summary(fit), style, "    ", "    ");
  if (const std::string table = recorded_table(fit); !table.empty()) {
    TextStyle narrow = style;
    narrow.width -= 2;
    std::string drawn = render_table(table, narrow);
    for (const auto& line : lines_of(drawn)) out += "\n  " + line;
  }
  return out;
}

std::string render_exercise(const LessonExercise& ex, int number, LessonNumbers& numbers, const TextStyle& style) {
  const std::string q = numbers.expand(ex.question, ex.question_line);
  std::string head = std::to_string(number) + ". ";
  std::string out = wrap(inline_markup(q, style), style, style.bold(head), std::string(head.size(), ' '));
  if (!ex.unit.empty()) out += "\n" + std::string(head.size(), ' ') + style.dim("(answer in " + ex.unit + ")");
  return out;
}

}  // namespace fasim::cli
