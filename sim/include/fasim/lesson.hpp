// Lesson: a Markdown file in lessons/ that `fasim lesson` shows section by
// section. Besides ordinary Markdown it holds three things the runner
// understands (lessons/README.md is the author's guide):
//
//   ```fasim [NAME] [summary]     a scenario: `fasim run` flags, stepped
//   --algo flash2 --N 16 ...      through in the terminal (or, with `summary`,
//   ```                           only summarised)
//
//   {{ KEY of FLAGS-or-NAME | FORMAT }}   a number from `fasim run --json`
//   {{ calc: EXPR | FORMAT }}             arithmetic, see lesson_calc.hpp
//
//   ```recorded NAME              a recorded GPU run, predicted again: the
//   --recorded FILE.csv ...       flags of `fasim compare --recorded`, plus
//   ```                           filters that pick points (recorded_fit.hpp)
//
//   ```exercise                   in the last section, `## Exercises`
//   question: ...   answer: ...   tolerance: ...   hint: ...   [unit: ...]
//   ```
//
// This header holds the parsed form and the parser; numbers are expanded by
// lesson_numbers.hpp and exercises graded by lesson_exercise.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fasim {

/// @brief What a block of a lesson is.
enum class LessonBlockKind {
  paragraph,  ///< lines of prose, wrapped when shown
  list_item,  ///< "- item" or "1. item", wrapped with a hanging indent
  quote,      ///< "> text", wrapped
  heading,    ///< "### subheading"
  table,      ///< "| a | b |" lines, shown as written
  code,       ///< a fenced block in any other language, shown as written
  scenario,   ///< a ```fasim block (see LessonScenario)
  exercise,   ///< an ```exercise block (see LessonExercise)
  recorded,   ///< a ```recorded block (see LessonRecorded)
};

/// @brief One block of a section. `text` is the raw text (lines joined with
/// '\n'; for a list item the marker is kept) with `{{ }}` not yet expanded.
struct LessonBlock {
  LessonBlockKind kind = LessonBlockKind::paragraph;  ///< what the block is
  std::string text;  ///< the raw text, `{{ }}` not yet expanded
  int line = 0;       ///< 1-based line of the block's first text line
  std::string lang;   ///< code: the fence's info string
  int index = -1;     ///< scenario / exercise / recorded: index into Lesson::scenarios / exercises / recorded
};

/// @brief A ```fasim block: the flags of one `fasim run`.
struct LessonScenario {
  std::string name;                ///< optional name, for `{{ KEY of NAME }}`
  std::vector<std::string> args;   ///< the flags, split like a shell would (no "fasim run")
  std::string text;                ///< the flags as one line, for showing
  bool summary_only = false;       ///< `summary`: show the summary, do not step
  int line = 0;                    ///< line of the opening fence
};

/// @brief A ```recorded block: a recorded GPU run and the points of it to
/// look at, as `fasim compare --recorded FILE [filters]` words.
struct LessonRecorded {
  std::string name;                ///< its name, for `{{ KEY of NAME }}` (required)
  std::vector<std::string> args;   ///< the words (no "fasim compare"); paths relative to the lesson
  std::string text;                ///< the words as one line
  int line = 0;                    ///< line of the opening fence
};

/// @brief An ```exercise block. Values keep their `{{ }}` unexpanded.
struct LessonExercise {
  std::string question;  ///< the question; `{{ }}` allowed
  std::string answer;     ///< a number, `calc: EXPR`, or `{{ ... }}`
  std::string tolerance;  ///< "1%" (relative) or "0.5" (absolute)
  std::string hint;       ///< shown after a wrong answer
  std::string unit;       ///< optional, shown after the answer prompt
  int line = 0;           ///< line of the opening fence
  int question_line = 0;   ///< line of question:
  int answer_line = 0;     ///< line of answer:
  int tolerance_line = 0;  ///< line of tolerance:
  int hint_line = 0;       ///< line of hint:
  int unit_line = 0;       ///< line of unit:, 0 without one
};

/// @brief A `## section`: what one screen of the runner shows.
struct LessonSection {
  std::string title;  ///< the `## ` heading's text
  int line = 0;  ///< 1-based line of the heading
  std::vector<LessonBlock> blocks;  ///< its blocks, in order
};

/// @brief A parsed lesson.
struct Lesson {
  std::string origin;   ///< file name used in messages
  int number = -1;      ///< NN of "NN-slug.md"; -1 if the name has none
  std::string title;    ///< the `# title`
  int title_line = 0;  ///< 1-based line of the `# title`
  std::vector<LessonBlock> intro;         ///< blocks between the title and the first section
  std::vector<LessonSection> sections;    ///< in order; Exercises, if any, is last
  std::vector<LessonScenario> scenarios;  ///< every ```fasim block, in order
  std::vector<LessonExercise> exercises;  ///< every ```exercise block, in order
  std::vector<LessonRecorded> recorded;   ///< every ```recorded block, in order

  /// @brief The first paragraph of the intro, unexpanded (may be empty).
  std::string summary() const;
  /// @brief The scenario named `name`, or nullptr.
  const LessonScenario* scenario_named(std::string_view name) const;
  /// @brief The ```recorded block named `name`, or nullptr.
  const LessonRecorded* recorded_named(std::string_view name) const;
};

/// @brief Parses a lesson's Markdown. `origin` names it in messages; the
/// lesson number is read from its file name (NN-slug.md). Throws UserError
/// "origin:line: problem; fix" for: no `# title` first, an unclosed fence, an
/// empty or malformed ```fasim block, a duplicate scenario name, an exercise
/// block with an unknown or missing field, exercises outside a last
/// `## Exercises` section, an unclosed `{{`, a ```recorded block without a
/// name or with flags it does not take.
Lesson parse_lesson(std::string_view markdown, const std::string& origin);

/// @brief Reads and parses a lesson file. Throws UserError if unreadable.
Lesson load_lesson(const std::string& path);

/// @brief One lesson of a lessons directory, for the list.
struct LessonEntry {
  int number = -1;  ///< NN of "NN-slug.md"
  std::string path;  ///< the file
  std::string title;  ///< the `# title`
  std::string summary;  ///< first paragraph, unexpanded
};

/// @brief Every NN-slug.md in `dir`, parsed, sorted by number. Throws
/// UserError if `dir` is not a directory, a file does not parse, or two files
/// share a number.
std::vector<LessonEntry> list_lessons(const std::string& dir);

/// @brief The path of lesson `number` in `dir`. Throws UserError naming the
/// lessons there if there is none.
std::string find_lesson(const std::string& dir, int number);

/// @brief Splits a command line into words: blanks separate, "double" or
/// 'single' quotes group. Throws UserError (without a location) on an
/// unclosed quote.
std::vector<std::string> split_words(std::string_view text);

}  // namespace fasim
