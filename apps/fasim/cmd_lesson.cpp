// `fasim lesson`: list the lessons, show one (section by section, scenarios
// step by step), or grade its exercises. The lesson format lives in the
// library (fasim/lesson*.hpp); this file finds lessons, runs their scenarios
// with the same flags as `fasim run`, and picks the way to show them.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"
#include "lesson_check.hpp"
#include "lesson_markdown.hpp"
#include "lesson_pager.hpp"
#include "lesson_text.hpp"
#include "parse_error.hpp"
#include "run_options.hpp"

#ifndef FASIM_LESSONS_DIR
#define FASIM_LESSONS_DIR "lessons"
#endif

namespace fs = std::filesystem;

namespace fasim::cli {
namespace {

struct LessonArgs {
  std::string which, lessons, answers, out;
  bool automatic = false, check = false, markdown = false;
  CLI::App* app = nullptr;
};

// --lessons, else $FASIM_LESSONS, else the source tree's lessons/.
std::string lessons_dir(const LessonArgs& a) {
  if (a.app->count("--lessons") > 0) return a.lessons;
  if (const char* env = std::getenv("FASIM_LESSONS"); env && *env) return env;
  return FASIM_LESSONS_DIR;
}

// A device or scenario path in a lesson is relative to the lesson's directory.
std::string beside(const fs::path& dir, const std::string& path) {
  fs::path p(path);
  return p.is_relative() ? (dir / p).lexically_normal().string() : path;
}

// `fasim run` flags -> a Simulation, through the very parser `fasim run` uses.
SimulationFactory factory_for(const fs::path& lesson_dir) {
  return [lesson_dir](const std::vector<std::string>& args, bool numerics) {
    CLI::App app{"fasim run"};
    app.allow_extras();  // named below, in the order written
    RunFlags f;
    add_run_flags(app, f);
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    const std::string see = " (a scenario takes the flags of `fasim run`; see fasim run --help)";
    try {
      app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
      throw UserError("--help is not a scenario flag; remove it");
    } catch (const CLI::ParseError& e) {
      throw UserError(parse_error_line(e, app, "fasim run"));  // it names `fasim run --help`
    }
    if (!app.remaining().empty()) {
      std::string extra;
      for (const auto& a : app.remaining()) extra += (extra.empty() ? "" : " ") + a;
      throw UserError("unexpected '" + extra + "'" + see);
    }
    if (f.given("--scenario")) f.scenario = beside(lesson_dir, f.scenario);
    if (f.given("--device") && (f.device.ends_with(".toml") || f.device.find('/') != std::string::npos))
      f.device = beside(lesson_dir, f.device);
    RunConfig c = resolve(f);
    c.options.numerics = c.options.numerics && numerics;
    return std::make_unique<Simulation>(c.device, c.workload, c.mapping, c.options);
  };
}

std::string two_digits(int n) { return (n >= 0 && n < 10 ? "0" : "") + std::to_string(n); }

int list(const std::string& dir, const TextStyle& style) {
  const auto entries = list_lessons(dir);
  if (entries.empty()) {
    std::cout << "No lessons in " << dir << " (files named NN-slug.md).\n";
    return 0;
  }
  std::cout << "Lessons in " << dir << ":\n";
  for (const auto& e : entries) {
    const Lesson L = load_lesson(e.path);
    ScenarioReports reports(factory_for(fs::path(e.path).parent_path()));
    LessonNumbers numbers(L, reports);
    int line = L.title_line;
    for (const auto& b : L.intro)
      if (b.kind == LessonBlockKind::paragraph) {
        line = b.line;
        break;
      }
    std::string summary = inline_markup(numbers.expand(e.summary, line), TextStyle{});
    std::replace(summary.begin(), summary.end(), '\x1f', ' ');  // inline_markup's unbreakable spaces
    if (const std::size_t dot = summary.find(". "); dot != std::string::npos) summary.resize(dot + 1);
    const int room = style.width - 6;
    if (display_width(summary) > room) {
      std::size_t cut = static_cast<std::size_t>(room - 3);
      while (cut > 0 && summary[cut] != ' ') --cut;
      summary = summary.substr(0, cut) + "...";
    }
    std::cout << "\n  " << style.bold(two_digits(e.number) + "  " + e.title) << "\n      " << summary << "\n";
  }
  std::cout << "\nRun 'fasim lesson N' to take one: Enter/n next, b back, q quit.\n"
               "'--auto' prints it all at once; '--check' grades its exercises.\n";
  return 0;
}

// What to say for a lesson number that no lesson file can have (-1, 9999).
std::string no_such_lesson(const std::string& dir, const std::string& which) {
  const auto entries = list_lessons(dir);
  if (entries.empty())
    return "there is no lesson " + which + ": '" + dir + "' holds no lessons (files named NN-slug.md); give --lessons DIR";
  const auto [lo, hi] = std::minmax_element(entries.begin(), entries.end(),
                                            [](const LessonEntry& x, const LessonEntry& y) { return x.number < y.number; });
  return "there is no lesson " + which + "; the lessons are " + std::to_string(lo->number) + " to " +
         std::to_string(hi->number) + ": run 'fasim lesson' to list them";
}

}  // namespace

Action add_lesson(CLI::App& app) {
  auto args = std::make_shared<LessonArgs>();
  CLI::App* sub = app.add_subcommand(
      "lesson", "Take a lesson: text and scenarios step by step, then exercises (no number: list the lessons)");
  args->app = sub;
  sub->footer("Keys: Enter or n next, b back, a to the end of a scenario, q quit.\n"
              "Lessons are Markdown files; lessons/README.md describes the format.");
  sub->add_option("lesson", args->which, "Lesson number (see 'fasim lesson'), or the path of a lesson .md file");
  sub->add_flag("--auto", args->automatic,
                "Print the whole lesson without waiting for keys (each scenario cut to its first and last steps)");
  sub->add_flag("--check", args->check, "Ask the lesson's exercises and grade the answers (read from stdin); exits 0 whatever the score, which the last line prints");
  sub->add_option("--answers", args->answers, "With --check: the answers, comma-separated, instead of asking");
  sub->add_flag("--markdown", args->markdown,
                "Print the lesson as Markdown for the docs, its numbers computed (what the docs target runs)");
  sub->add_option("--out", args->out, "With --markdown: write it to FILE instead of stdout");
  sub->add_option("--lessons", args->lessons,
                  "Directory of the lessons (default: $FASIM_LESSONS, else the source tree's lessons/)");

  return [args] {
    const TextStyle style{colour_wanted(), 78};
    const std::string dir = lessons_dir(*args);
    const bool has_answers = args->app->count("--answers") > 0;
    if (has_answers && !args->check) throw UserError("--answers goes with --check; add --check");
    const bool to_file = file_flag_given(*args->app, "--out", args->out, "lesson.md");
    if (to_file && !args->markdown) throw UserError("--out goes with --markdown; add --markdown");
    if (args->markdown && (args->check || args->automatic))
      throw UserError("--markdown prints the lesson for the docs; leave out --check and --auto");
    if (args->which.empty()) {
      if (args->check || args->automatic || args->markdown)
        throw UserError("which lesson? give its number, e.g. 'fasim lesson 1 --check'");
      return list(dir, style);
    }

    std::string path;
    if (args->which.ends_with(".md") || args->which.find('/') != std::string::npos) {
      path = args->which;
    } else if (const std::size_t sign = args->which.starts_with('-') ? 1 : 0;
               args->which.size() > sign && args->which.find_first_not_of("0123456789", sign) == std::string::npos) {
      const std::size_t digits = args->which.size() - std::min(args->which.find_first_not_of('0'), args->which.size() - 1);
      if (sign == 1 || digits > 3)  // a number, but none a lesson file can have: -1, 9999
        throw UserError(no_such_lesson(dir, args->which));
      path = find_lesson(dir, std::stoi(args->which));
    } else {
      throw UserError("lesson '" + args->which +
                      "' is neither a number nor a .md file; run 'fasim lesson' to see the numbers");
    }
    const Lesson lesson = load_lesson(path);
    ScenarioReports reports(factory_for(fs::path(path).parent_path()));

    if (args->markdown) {
      char id[32];
      std::snprintf(id, sizeof id, "lesson-%02d", lesson.number < 0 ? 0 : lesson.number);
      const std::string page = lesson_markdown(lesson, reports, id);
      if (!to_file) {
        std::cout << page;
      } else {
        AtomicFile file(args->out);
        file.stream() << page;
        file.commit();
      }
      return 0;
    }
    if (args->check) {
      std::optional<std::string> answers;
      if (has_answers) answers = args->answers;
      return check_exercises(lesson, reports, style, answers, std::cin, isatty(STDIN_FILENO), std::cout);
    }
    // A lesson that quotes recorded GPU runs predicts them all again before
    // its first page (16 s to minutes for lesson 8 on two cores): say so,
    // before each file. On a terminal the line is rewritten and cleared;
    // elsewhere (a pipe, a log, an IDE) it is a line of its own.
    const bool terminal = isatty(STDERR_FILENO) == 1;
    bool noted = false;
    reports.on_recorded_predict([&](const std::string& csv, std::size_t points) {
      const std::string what = "predicting the " + std::to_string(points) + " recorded " +
                               plural(static_cast<std::int64_t>(points), "point") + " of " +
                               fs::path(csv).filename().string() + " again...";
      if (terminal) std::cerr << "\r\033[K" << what << std::flush;
      else std::cerr << "fasim: " << what << "\n" << std::flush;
      noted = true;
    });
    auto clear_note = [&] {
      if (noted && terminal) std::cerr << "\r\033[K" << std::flush;
    };
    std::vector<LessonPart> parts;
    try {
      parts = build_parts(lesson, reports, style);
    } catch (...) {
      clear_note();  // an error starts its own line
      throw;
    }
    clear_note();
    if (!args->automatic && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
      show_interactive(lesson, parts, reports, style);
    else
      show_auto(lesson, parts, reports, style, std::cout);
    return 0;
  };
}

}  // namespace fasim::cli
