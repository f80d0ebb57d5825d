// A lesson as screens: built once (numbers expanded, scenarios checked), then
// printed (--auto) or paged with keys, scenario steps drawn as they happen.
#include "lesson_pager.hpp"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <deque>
#include <iostream>
#include <memory>
#include <optional>

#include "fasim/format.hpp"
#include "lesson_view.hpp"

namespace fasim::cli {
namespace {

std::string rule(const std::string& title, const TextStyle& style) {
  const int fill = std::max(3, style.width - display_width(title) - 4);
  return style.bold("-- " + title + " ") + style.dim(std::string(static_cast<std::size_t>(fill), '-'));
}

std::string lesson_name(const Lesson& L) {
  return "Lesson " + (L.number >= 0 ? std::string(L.number < 10 ? "0" : "") + std::to_string(L.number) + ": " : "") + L.title;
}

// One scenario run step by step, drawn as it goes.
struct Stepper {
  Stepper(LessonNumbers& numbers, const LessonScenario& sc, const TextStyle& style)
      : report(numbers.scenario_report(sc)),
        sim(numbers.scenario_simulation(sc)),
        view(*sim, report.value("steps", std::int64_t{0}), style),
        style_(style) {}

  bool next() {
    if (!sim->next()) return false;
    view.absorb(*sim);
    return true;
  }
  std::string frame() const {
    std::string f = view.frame(*sim);
    if (sim->ledger().steps() == report.value("steps", std::int64_t{-1}))
      f += "\n" + wrap("scenario done: " + run_summary(report), style_, "", "  ");
    return f;
  }

  const nlohmann::json& report;
  std::unique_ptr<Simulation> sim;
  StepView view;
  TextStyle style_;
};

// Keys from the terminal, one at a time, without echo; restored on exit.
class KeyReader {
 public:
  enum Key { next, back, to_end, quit };
  KeyReader() {
    if (tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO | ISIG));  // Ctrl-C arrives as a key: quit
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  ~KeyReader() {
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  KeyReader(const KeyReader&) = delete;
  KeyReader& operator=(const KeyReader&) = delete;

  Key read() {
    for (;;) {
      char c = 0;
      if (::read(STDIN_FILENO, &c, 1) != 1) return quit;
      switch (c) {
        case '\n': case '\r': case ' ': case 'n': case 'j': return next;
        case 'b': case 'k': case 127: return back;
        case 'a': return to_end;
        case 'q': case 3: case 4: return quit;
        case '\033': {  // arrows: ESC [ C (right) and ESC [ D (left)
          char seq[2] = {0, 0};
          pollfd p{STDIN_FILENO, POLLIN, 0};
          if (poll(&p, 1, 50) > 0 && ::read(STDIN_FILENO, seq, 2) == 2 && seq[0] == '[') {
            if (seq[1] == 'C') return next;
            if (seq[1] == 'D') return back;
          }
          break;
        }
        default: break;
      }
    }
  }

 private:
  termios saved_{};
  bool active_ = false;
};

}  // namespace

std::vector<LessonPart> build_parts(const Lesson& L, ScenarioReports& reports, const TextStyle& style) {
  LessonNumbers numbers(L, reports);
  std::vector<LessonPart> parts;
  auto blocks_text = [&](const std::vector<LessonBlock>& blocks, std::size_t from, std::size_t to) {
    std::string text;
    for (std::size_t k = from; k < to; ++k) {
      const LessonBlock& b = blocks[k];
      std::string drawn;
      if (b.kind == LessonBlockKind::scenario) {
        const LessonScenario& sc = L.scenarios[static_cast<std::size_t>(b.index)];
        drawn = render_scenario(sc, b.index + 1, numbers.scenario_report(sc), style);
        if (!sc.summary_only) (void)numbers.scenario_simulation(sc);  // fails now, not halfway through
      } else if (b.kind == LessonBlockKind::recorded) {
        const LessonRecorded& rec = L.recorded[static_cast<std::size_t>(b.index)];
        drawn = render_recorded(rec, recorded_command(rec, numbers.recorded_selection(rec)),
                                numbers.recorded_report(rec), style);
      } else if (b.kind == LessonBlockKind::exercise) {
        drawn = render_exercise(L.exercises[static_cast<std::size_t>(b.index)], b.index + 1, numbers, style);
      } else {
        drawn = render_block(b, numbers, style);
      }
      const bool in_list = k > from && b.kind == LessonBlockKind::list_item && blocks[k - 1].kind == b.kind;
      text += (text.empty() ? "" : in_list ? "\n" : "\n\n") + drawn;
    }
    return text;
  };

  const std::string name = lesson_name(L);
  std::string intro = style.bold(name) + "\n" + style.dim(std::string(static_cast<std::size_t>(display_width(name)), '='));
  if (!L.intro.empty()) intro += "\n\n" + blocks_text(L.intro, 0, L.intro.size());
  parts.push_back({"", intro, -1});

  const std::size_t n = L.sections.size();
  for (std::size_t s = 0; s < n; ++s) {
    const LessonSection& sec = L.sections[s];
    const std::string where = std::to_string(s + 1) + "/" + std::to_string(n) + " " + sec.title;
    const std::string heading = rule(numbers.expand(sec.title, sec.line), style);
    std::size_t from = 0;
    bool first = true;
    // Text up to and including each stepped scenario's box, then its steps.
    for (std::size_t k = 0; k <= sec.blocks.size(); ++k) {
      const bool end = k == sec.blocks.size();
      const bool stepped = !end && sec.blocks[k].kind == LessonBlockKind::scenario &&
                           !L.scenarios[static_cast<std::size_t>(sec.blocks[k].index)].summary_only;
      if (!end && !stepped) continue;
      const std::size_t to = end ? k : k + 1;
      if (to > from || first) {
        std::string text = blocks_text(sec.blocks, from, to);
        if (first) text = heading + (text.empty() ? "" : "\n\n" + text);
        parts.push_back({where, text, -1});
      }
      if (stepped) parts.push_back({where, "", sec.blocks[k].index});
      from = to;
      first = false;
    }
  }
  if (!L.exercises.empty()) {
    const std::string n_arg = L.number >= 0 ? std::to_string(L.number) : L.origin;
    parts.back().text += "\n\n" + style.dim("Check your answers: fasim lesson " + n_arg + " --check");
  }
  return parts;
}

void show_auto(const Lesson& L, const std::vector<LessonPart>& parts, ScenarioReports& reports, const TextStyle& style,
               std::ostream& out) {
  LessonNumbers numbers(L, reports);
  bool first = true;
  for (const LessonPart& p : parts) {
    if (p.scenario < 0) {
      out << (first ? "" : "\n") << p.text << "\n";
      first = false;
      continue;
    }
    const LessonScenario& sc = L.scenarios[static_cast<std::size_t>(p.scenario)];
    Stepper st(numbers, sc, style);
    const std::int64_t total = st.report.value("steps", std::int64_t{0});
    std::string title = "scenario " + std::to_string(p.scenario + 1) + (sc.name.empty() ? "" : " (" + sc.name + ")") + ": ";
    title += total <= kAutoHead + kAutoTail ? "all " + with_commas(total) + " steps"
                                           : "steps 1-" + std::to_string(kAutoHead) + " and " +
                                                 with_commas(total - kAutoTail + 1) + "-" + with_commas(total) + " of " +
                                                 with_commas(total);
    out << "\n" << rule(title, style) << "\n";
    std::deque<std::string> tail;
    while (st.next()) {
      const std::int64_t i = st.view.count();
      if (i <= kAutoHead) {
        out << "\n" << st.frame() << "\n";
      } else if (i > total - kAutoTail) {
        tail.push_back(st.frame());
      }
    }
    if (total > kAutoHead + kAutoTail)
      out << "\n" << style.dim("... " + with_commas(total - kAutoHead - static_cast<std::int64_t>(tail.size())) +
                               " steps not shown (on a terminal you can step through all) ...")
          << "\n";
    for (const auto& f : tail) out << "\n" << f << "\n";
  }
}

void show_interactive(const Lesson& L, const std::vector<LessonPart>& parts, ScenarioReports& reports,
                      const TextStyle& style) {
  KeyReader keys;
  std::vector<std::string> history;  // every screen drawn so far
  std::size_t pos = 0;
  std::size_t part = 0;
  std::unique_ptr<Stepper> stepper;
  LessonNumbers numbers(L, reports);
  const std::string name = lesson_name(L);

  auto screen = [&](const LessonPart& p, const std::string& body) {
    std::string head = name + (p.where.empty() ? "" : " | " + p.where);
    if (display_width(head) > style.width) head = head.substr(0, static_cast<std::size_t>(style.width - 3)) + "...";
    return style.dim(head) + "\n\n" + body;
  };
  // The next screen, made on demand; nullopt past the end.
  auto produce = [&](bool to_end) -> std::optional<std::string> {
    while (part < parts.size()) {
      const LessonPart& p = parts[part];
      if (p.scenario < 0) {
        ++part;
        return screen(p, p.text);
      }
      if (!stepper) stepper = std::make_unique<Stepper>(numbers, L.scenarios[static_cast<std::size_t>(p.scenario)], style);
      bool moved = stepper->next();
      if (moved && to_end)
        while (stepper->next()) {
        }
      if (moved) return screen(p, stepper->frame());
      stepper.reset();
      ++part;
    }
    return std::nullopt;
  };
  auto draw = [&](const std::string& s) {
    std::cout << "\033[H\033[2J" << s << "\n\n"
              << style.dim("Enter/n next   b back   a end of scenario   q quit") << std::flush;
  };

  std::optional<std::string> first = produce(false);
  if (!first) return;
  history.push_back(*first);
  draw(history[pos]);
  for (;;) {
    const KeyReader::Key k = keys.read();
    if (k == KeyReader::quit) break;
    if (k == KeyReader::back) {
      if (pos > 0) --pos;
    } else if (pos + 1 < history.size() && k == KeyReader::next) {
      ++pos;
    } else {
      pos = history.size() - 1;
      std::optional<std::string> s = produce(k == KeyReader::to_end && stepper);
      if (!s) break;
      history.push_back(*s);
      pos = history.size() - 1;
    }
    draw(history[pos]);
  }
  std::cout << "\n";
}

}  // namespace fasim::cli
