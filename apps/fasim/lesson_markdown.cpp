#include "lesson_markdown.hpp"

#include "fasim/format.hpp"
#include "lesson_text.hpp"

namespace fasim::cli {
namespace {

std::string block_markdown(const LessonBlock& b, LessonNumbers& numbers) {
  const std::string text = numbers.expand(b.text, b.line);
  if (b.kind == LessonBlockKind::code) return "```" + (b.lang == "text" ? std::string() : b.lang) + "\n" + text + "\n```";
  return text;
}

std::string scenario_markdown(const LessonScenario& sc, int number, LessonNumbers& numbers, int lesson) {
  const nlohmann::json& report = numbers.scenario_report(sc);
  std::string out = "**Scenario " + std::to_string(number) + "**" + (sc.name.empty() ? "" : " (`" + sc.name + "`)") +
                    ":\n\n```sh\nfasim run " + sc.text + "\n```\n\n> " + run_summary(report) + ".\n";
  if (!sc.summary_only) {
    out += "\nStep through it in a terminal with `fasim lesson " + std::to_string(lesson) +
           "`, or in a browser: `fasim trace --html scenario.html " + sc.text + "` writes a page that plays it.\n";
  }
  return out;
}

std::string recorded_markdown(const LessonRecorded& rec, LessonNumbers& numbers) {
  const nlohmann::json& fit = numbers.recorded_report(rec);
  std::string out = "**Recorded run** (`" + rec.name + "`):\n\n```sh\n" +
                    recorded_command(rec, numbers.recorded_selection(rec)) + "\n```\n\n> " + recorded_summary(fit) +
                    ".\n";
  if (const std::string table = recorded_table(fit); !table.empty()) out += "\n" + table + "\n";
  return out;
}

std::string exercise_markdown(const LessonExercise& ex, int number, LessonNumbers& numbers) {
  std::string out = "**Exercise " + std::to_string(number) + ".** " + numbers.expand(ex.question, ex.question_line);
  if (!ex.unit.empty()) out += " (answer in " + ex.unit + ")";
  const std::string answer = format_value(nlohmann::json(numbers.answer(ex)), "");
  const std::string tolerance = ex.tolerance == "0" ? "exact" : "within " + ex.tolerance;
  out += "\n\n\\htmlonly[block]<details><summary>Answer</summary>\\endhtmlonly\n\n" + answer +
         (ex.unit.empty() ? "" : " " + ex.unit) + " (" + tolerance + "). " + numbers.expand(ex.hint, ex.hint_line) +
         "\n\n\\htmlonly[block]</details>\\endhtmlonly\n";
  return out;
}

}  // namespace

std::string lesson_markdown(const Lesson& lesson, ScenarioReports& reports, const std::string& page_id) {
  LessonNumbers numbers(lesson, reports);
  std::string out = "# Lesson " + std::to_string(lesson.number) + ": " + lesson.title + " {#" + page_id + "}\n\n";
  int scenario = 0, exercise = 0;
  auto blocks = [&](const std::vector<LessonBlock>& list) {
    for (const LessonBlock& b : list) {
      if (b.kind == LessonBlockKind::scenario)
        out += scenario_markdown(lesson.scenarios[static_cast<std::size_t>(b.index)], ++scenario, numbers, lesson.number);
      else if (b.kind == LessonBlockKind::recorded)
        out += recorded_markdown(lesson.recorded[static_cast<std::size_t>(b.index)], numbers);
      else if (b.kind == LessonBlockKind::exercise)
        out += exercise_markdown(lesson.exercises[static_cast<std::size_t>(b.index)], ++exercise, numbers);
      else
        out += block_markdown(b, numbers) + "\n";
      out += "\n";
    }
  };
  blocks(lesson.intro);
  for (const LessonSection& s : lesson.sections) {
    out += "## " + numbers.expand(s.title, s.line) + "\n\n";
    blocks(s.blocks);
  }
  out += "---\n\nEvery number on this page was computed by fasim when the docs were built; `fasim lesson " +
         std::to_string(lesson.number) + "` takes the lesson in a terminal and `fasim lesson " +
         std::to_string(lesson.number) + " --check` grades the exercises.\n";
  return out;
}

}  // namespace fasim::cli
