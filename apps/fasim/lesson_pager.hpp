// Showing a lesson: its text and scenario steps as a sequence of screens.
// Interactive (a terminal): one screen at a time, Enter/n next, b back (the
// screens already drawn are kept), a to the end of the scenario, q quit.
// Otherwise (--auto, or no terminal): everything printed in order, with each
// scenario cut to its first and last steps.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"
#include "lesson_text.hpp"

namespace fasim::cli {

/// @brief One stretch of a lesson: drawn text, or a scenario to step through.
struct LessonPart {
  std::string where;   ///< "2/6 The rescaling identity": the screen's header
  std::string text;    ///< the text, drawn (empty for a scenario)
  int scenario = -1;   ///< index into Lesson::scenarios, or -1 for text
};

/// @brief Draws the whole lesson into parts, expanding every number and
/// checking that every scenario runs, so errors surface before anything is
/// shown. Throws UserError "file:line: problem; fix".
std::vector<LessonPart> build_parts(const Lesson& lesson, ScenarioReports& reports, const TextStyle& style);

/// @brief Steps shown in --auto mode: the first kAutoHead and the last kAutoTail.
inline constexpr int kAutoHead = 12;
inline constexpr int kAutoTail = 3;

/// @brief Prints every part to `out` (scenarios cut to their first and last steps).
void show_auto(const Lesson& lesson, const std::vector<LessonPart>& parts, ScenarioReports& reports,
               const TextStyle& style, std::ostream& out);

/// @brief Shows the parts one screen at a time, reading keys from the
/// terminal on stdin. Returns when the learner quits or passes the end.
void show_interactive(const Lesson& lesson, const std::vector<LessonPart>& parts, ScenarioReports& reports,
                      const TextStyle& style);

}  // namespace fasim::cli
