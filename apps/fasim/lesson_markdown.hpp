// A lesson as Markdown for the documentation site (Doxygen): every `{{ }}`
// replaced by the number fasim computes, each scenario shown as its command
// and the summary of its run, each exercise with its answer folded away.
#pragma once

#include <string>

#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"

namespace fasim::cli {

/// @brief The lesson as one Markdown page whose title carries the anchor
/// {#page_id}. Throws UserError "file:line: problem; fix" as the terminal
/// view does, so a lesson that breaks fails the docs build too.
std::string lesson_markdown(const Lesson& lesson, ScenarioReports& reports, const std::string& page_id);

}  // namespace fasim::cli
