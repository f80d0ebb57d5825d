// `fasim lesson N --check`: asks a lesson's exercises and grades the answers.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"
#include "lesson_text.hpp"

namespace fasim::cli {

/// @brief Asks every exercise, reads one answer per line from `in` (or takes
/// them from `answers`, comma-separated), says right or wrong with the hint
/// and the answer when wrong, and prints the score. An empty line skips a
/// question; the end of input leaves the rest unanswered. Returns 0. Throws
/// UserError when an answer is not a number (unless `in` is a terminal, where
/// the question is asked again) or `answers` has the wrong count.
int check_exercises(const Lesson& lesson, ScenarioReports& reports, const TextStyle& style,
                    const std::optional<std::string>& answers, std::istream& in, bool in_is_terminal,
                    std::ostream& out);

}  // namespace fasim::cli
