// Lesson text on a terminal: Markdown blocks wrapped to 78 columns, tables
// aligned, **bold** and `code` shown in colour when the terminal has it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"

namespace fasim::cli {

/// @brief How text is drawn: colour or plain, and the wrap width.
struct TextStyle {
  bool colour = false;
  int width = 78;

  std::string bold(std::string_view s) const { return wrap_sgr("1", s); }
  std::string dim(std::string_view s) const { return wrap_sgr("2", s); }
  std::string code(std::string_view s) const { return wrap_sgr("36", s); }
  std::string highlight(std::string_view s) const { return wrap_sgr("1;33", s); }
  std::string good(std::string_view s) const { return wrap_sgr("32", s); }
  std::string bad(std::string_view s) const { return wrap_sgr("31", s); }

 private:
  std::string wrap_sgr(const char* sgr, std::string_view s) const {
    if (!colour) return std::string(s);
    return "\033[" + std::string(sgr) + "m" + std::string(s) + "\033[0m";
  }
};

/// @brief True when stdout is a terminal that takes colour: TERM is set and
/// not "dumb", and NO_COLOR is unset.
bool colour_wanted();

/// @brief Columns `s` takes on a terminal: UTF-8 code points, colour codes not counted.
int display_width(std::string_view s);

/// @brief Words of `text` (blanks, newlines collapse) filled into lines of at
/// most style.width columns; the first line starts with `first`, the rest
/// with `rest` (indents or markers). Returns the lines joined with '\n'.
std::string wrap(std::string_view text, const TextStyle& style, std::string_view first = "",
                 std::string_view rest = "");

/// @brief A shell command filled into lines as wrap() does, but copy-pasteable:
/// a line breaks only before a flag (never between a flag and its value)
/// and a line that goes on ends in " \\". Drawn as code.
std::string wrap_command(std::string_view command, const TextStyle& style, std::string_view first = "",
                         std::string_view rest = "");

/// @brief Inline Markdown: **bold** and `code` styled (plain: bold markers
/// dropped, backticks kept), [text](url) as "text (url)".
std::string inline_markup(std::string_view text, const TextStyle& style);

/// @brief One block (not a scenario or exercise) as terminal lines, its
/// numbers expanded. Tables are aligned; code is indented by two columns.
std::string render_block(const LessonBlock& block, LessonNumbers& numbers, const TextStyle& style);

/// @brief A scenario as a command and a one-line summary of its run.
std::string render_scenario(const LessonScenario& sc, int number, const nlohmann::json& report,
                            const TextStyle& style);

/// @brief A one-line summary of a run's report ("flash2 on toy: N 16, ...").
std::string run_summary(const nlohmann::json& report);

/// @brief The command that shows a ```recorded block's numbers:
/// "fasim compare --recorded FILE [flags]", its paths as `resolved` has them,
/// made relative to the working directory.
std::string recorded_command(const LessonRecorded& rec, const RecordedSelection& resolved);

/// @brief A one-line summary of a recorded fit ("60 points measured on ...").
std::string recorded_summary(const nlohmann::json& fit);

/// @brief For a fit of one point, a Markdown table: quantity, predicted,
/// measured, error. Empty for more points.
std::string recorded_table(const nlohmann::json& fit);

/// @brief A ```recorded block: its command, summary and (one point) table.
std::string render_recorded(const LessonRecorded& rec, const std::string& command, const nlohmann::json& fit,
                            const TextStyle& style);

/// @brief An exercise's question, numbered, its numbers expanded.
std::string render_exercise(const LessonExercise& ex, int number, LessonNumbers& numbers, const TextStyle& style);

}  // namespace fasim::cli
