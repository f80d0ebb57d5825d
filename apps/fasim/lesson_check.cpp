// Grading a lesson's exercises on the terminal (see lesson_check.hpp).
#include "lesson_check.hpp"

#include <iostream>
#include <vector>

#include "fasim/error.hpp"
#include "fasim/lesson_exercise.hpp"

namespace fasim::cli {
namespace {

std::string shown(double v) { return format_value(v, ""); }

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out{""};
  for (char c : s) {
    if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

}  // namespace

int check_exercises(const Lesson& L, ScenarioReports& reports, const TextStyle& style,
                    const std::optional<std::string>& answers, std::istream& in, bool in_is_terminal,
                    std::ostream& out) {
  if (L.exercises.empty()) throw UserError(L.origin + ": this lesson has no exercises; add ```exercise blocks under '## Exercises'");
  LessonNumbers numbers(L, reports);
  // Everything computed first, so a broken exercise fails before any question.
  std::vector<double> expected;
  std::vector<Tolerance> tolerance;
  std::vector<std::string> question;
  for (const auto& ex : L.exercises) {
    expected.push_back(numbers.answer(ex));
    try {
      tolerance.push_back(parse_tolerance(ex.tolerance));
    } catch (const UserError& e) {
      throw UserError(L.origin + ":" + std::to_string(ex.tolerance_line) + ": " + e.what());
    }
    question.push_back(numbers.expand(ex.question, ex.question_line));
    (void)numbers.expand(ex.hint, ex.hint_line);
  }
  const std::size_t n = L.exercises.size();
  std::vector<std::string> given;
  if (answers) {
    given = split_commas(*answers);
    if (given.size() != n)
      throw UserError("--answers has " + std::to_string(given.size()) + " values but the lesson has " + std::to_string(n) +
                      " exercises; give " + std::to_string(n) + ", comma-separated, no thousands separators");
    for (std::size_t i = 0; i < n; ++i)  // all checked before any question is asked
      if (given[i].find_first_not_of(" \t") != std::string::npos && !parse_answer(given[i], L.exercises[i].unit))
        throw UserError("--answers: answer " + std::to_string(i + 1) + " '" + given[i] +
                        "' is not a number; answer with a number such as 1024, 2.5e-3 or 4*16");
  }

  out << wrap(style.bold(L.title) + ": " + std::to_string(n) +
                  " exercises. Answer with a number; arithmetic such as 4*16 works.",
              style)
      << "\n";
  std::size_t right = 0, answered = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const LessonExercise& ex = L.exercises[i];
    const std::string head = std::to_string(i + 1) + ". ";
    out << "\n" << wrap(inline_markup(question[i], style), style, style.bold(head), std::string(head.size(), ' ')) << "\n";
    std::optional<double> value;
    std::string text;
    bool ended = false;
    for (;;) {
      if (answers) {
        text = given[i];
      } else {
        out << "   answer" << (ex.unit.empty() ? "" : " (" + ex.unit + ")") << "> " << std::flush;
        if (!std::getline(in, text)) {
          out << "\n";
          ended = true;
          break;
        }
      }
      if (answers || !in_is_terminal) out << (answers ? "   answer> " : "") << text << "\n";
      if (text.find_first_not_of(" \t\r") == std::string::npos) break;  // skipped
      value = parse_answer(text, ex.unit);
      if (value) break;
      const std::string why = "answer " + std::to_string(i + 1) + " '" + text +
                              "' is not a number; answer with a number such as 1024, 2.5e-3 or 4*16";
      if (answers || !in_is_terminal) throw UserError(why);
      out << "   " << why << "\n";
    }
    if (ended) {  // input ended: the rest stay unanswered
      out << style.dim("   (no more answers: " + std::to_string(n - i) + " unanswered)") << "\n";
      break;
    }
    ++answered;
    const std::string unit = ex.unit.empty() ? "" : " " + ex.unit;
    if (value) {
      const Grade g = grade(*value, expected[i], tolerance[i]);
      if (g.right) {
        ++right;
        out << "   " << style.good("right") << ": " << shown(expected[i]) << unit
            << (tolerance[i].value > 0 ? " (within " + tolerance[i].describe() + ")" : "") << "\n";
        continue;
      }
      out << "   " << style.bad("wrong") << ": " << shown(*value) << unit
          << (tolerance[i].value > 0 ? " is not within " + tolerance[i].describe() + " of the answer" : " is not the answer")
          << "\n";
    } else {
      out << "   " << style.dim("skipped") << "\n";
    }
    out << wrap(inline_markup(numbers.expand(ex.hint, ex.hint_line), style), style, "   hint: ", "         ") << "\n";
    out << "   the answer: " << shown(expected[i]) << unit << "\n";
  }
  out << "\n" << style.bold("score: " + std::to_string(right) + " of " + std::to_string(n) + " right") <<
      (answered < n ? " (" + std::to_string(n - answered) + " unanswered)" : "") << "\n";
  return 0;
}

}  // namespace fasim::cli
