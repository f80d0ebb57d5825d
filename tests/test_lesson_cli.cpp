// `fasim lesson` end to end: the list, --auto (numbers equal `fasim run
// --json`), --check with piped answers, one-line errors, every lesson in
// lessons/ rendering, and the interactive stepper driven through tmux.
// Tag [lesson][cli].
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "fasim/lesson.hpp"

namespace fs = std::filesystem;
using Catch::Contains;
using Catch::StartsWith;
using fasim::test::ProcessResult;
using fasim::test::run_fasim;
using fasim::test::with_commas;

namespace {

const std::string kLessons = std::string(FASIM_SOURCE_DIR) + "/lessons";
const std::string kData = std::string(FASIM_TEST_DATA) + "/lessons";
const std::vector<std::string> kTiny = {"--algo", "flash2", "--N", "16", "--d", "4", "--br", "4",
                                        "--bc", "4", "--device", "toy", "--row", "1"};

nlohmann::json run_json(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.push_back("--json");
  args.push_back("--no-numerics");
  const ProcessResult r = run_fasim(args);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Columns on a terminal: UTF-8 code points.
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

// Exit 2, nothing on stdout, exactly one "fasim: error:" line on stderr.
void require_one_line_error(const ProcessResult& r, const std::string& starts) {
  INFO(r.describe());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count(r.err, "\n") == 1);
  CHECK_THAT(r.err, StartsWith("fasim: error: " + starts));
}

}  // namespace

TEST_CASE("lesson list: number, title and first sentence of each lesson, in order", "[lesson][cli]") {
  const ProcessResult r = run_fasim({"lesson", "--lessons", kData});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto first = r.out.find("01  A tiny lesson");
  const auto second = r.out.find("02  Only a summary");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  CHECK(first < second);
  CHECK_THAT(r.out, Contains("This lesson exists for the tests."));
  CHECK_THAT(r.out, !Contains("{{"));
}

TEST_CASE("lesson list: FASIM_LESSONS, else the source tree's lessons/", "[lesson][cli]") {
  ::setenv("FASIM_LESSONS", kData.c_str(), 1);
  const ProcessResult with_env = run_fasim({"lesson"});
  ::unsetenv("FASIM_LESSONS");
  CHECK_THAT(with_env.out, Contains("A tiny lesson"));
  const ProcessResult built_in = run_fasim({"lesson"});
  INFO(built_in.describe());
  CHECK(built_in.exit_code == 0);
  CHECK_THAT(built_in.out, Contains("01  The online softmax"));
}

TEST_CASE("lesson --auto: every number is fasim's and the steps are cut to first and last", "[lesson][cli]") {
  const ProcessResult r = run_fasim({"lesson", "1", "--lessons", kData, "--auto"});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto j = run_json(kTiny);
  const long long read = j["hbm"]["read_bytes"], steps = j["steps"];
  CHECK_THAT(r.out, Contains("It reads " + with_commas(read) + " bytes."));
  CHECK_THAT(r.out, Contains("The run reads " + with_commas(read) + " bytes of HBM"));
  CHECK_THAT(r.out, Contains("K alone: " + with_commas(j["hbm"]["by_tensor"]["K"]["read_bytes"]) + " B"));
  CHECK_THAT(r.out, Contains("Tiles: 16."));
  CHECK(count(r.out, "{{") == 1);  // only the escaped one
  CHECK_THAT(r.out, Contains("A literal {{ stays."));
  CHECK_THAT(r.out, Contains("step 1 of " + std::to_string(steps) + " |"));
  CHECK_THAT(r.out, Contains("step 12 of "));
  CHECK_THAT(r.out, !Contains("step 13 of "));
  CHECK_THAT(r.out, Contains("step " + std::to_string(steps) + " of "));
  CHECK_THAT(r.out, Contains(with_commas(steps - 15) + " steps not shown"));
  CHECK_THAT(r.out, Contains("[#]"));
  CHECK_THAT(r.out, Contains("Q blocks i down, K/V blocks j across"));
  CHECK_THAT(r.out, Contains("row 1 (Q block 0): m = "));
  CHECK_THAT(r.out, Contains("Check your answers: fasim lesson 1 --check"));
  for (const auto& line : fasim::test::split_lines(r.out)) {
    INFO(line);
    CHECK(columns(line) <= 80);
  }
}

TEST_CASE("lesson --auto: the step view's shared figure is what the block reserved, not the tile loaded", "[lesson][cli]") {
  const ProcessResult r = run_fasim({"lesson", "1", "--lessons", kData, "--auto"});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  // Step 1 loads Q rows 0-3, 4 x 4 fp16 = 32 B. The 96 B beside it is the
  // block's room for Q, K and V, reserved at its start: (Br + 2 Bc) d b =
  // (4 + 2 * 4) * 4 * 2. The line must say so, not read as the Q tile's size.
  CHECK_THAT(r.out, Contains("SRAM of block 0: Q rows 0-3\n"
                             "  reserved for all its tiles, loaded or not: shared 96 B of 4,096 B (2.3%),\n"
                             "  registers 160 B of 8,192 B (2.0%)\n"));
  CHECK_THAT(r.out, !Contains("  shared 96 B"));
}

TEST_CASE("lesson --auto: before predicting recorded runs again it says so on stderr, terminal or not", "[lesson][cli]") {
  fasim::test::ScratchDir dir;
  fasim::test::write_text(dir.file("rec.csv"),
                          "device,driver,date,algo,dtype,batch,heads,N,d,br,bc,l2_mode,metric,predicted,measured\n"
                          "x,y,z,flash2,fp16,1,1,256,64,64,64,cold,time_s,1,1\n");
  fasim::test::write_text(dir.file("01-r.md"), "# R\n\nIntro.\n\n## A\n\n```recorded one\n--recorded rec.csv "
                                               "--device h100\n```\n");
  // stderr is a pipe here, as under a script, an IDE or `2>log`: the line
  // is a plain one, not the terminal's line that rewrites itself.
  const ProcessResult r = run_fasim({"lesson", dir.file("01-r.md"), "--auto"});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "fasim: predicting the 1 recorded point of rec.csv again...\n");
  CHECK_THAT(r.out, Contains("recorded"));
}

TEST_CASE("lesson --auto: a summary-only scenario is not stepped", "[lesson][cli]") {
  const ProcessResult r = run_fasim({"lesson", kData + "/02-summary.md", "--auto"});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("scenario 1 (big)"));
  CHECK_THAT(r.out, !Contains("step 1 of"));
  CHECK_THAT(r.out, !Contains("{{"));
}

TEST_CASE("lesson --auto: a scenario's command wraps as one shell command, a flag beside its value", "[lesson][cli]") {
  fasim::test::ScratchDir dir;
  // As one line, "--bc" would end the first line and "8" begin the next.
  const std::string args = "--algo flash2 --N 64 --d 64 --br 16 --bc 8 --device toy --no-numerics --row 3";
  fasim::test::write_text(dir.file("01-x.md"), "# T\n\nIntro.\n\n## A\n\n```fasim longnames summary\n" + args + "\n```\n");
  const ProcessResult r = run_fasim({"lesson", dir.file("01-x.md"), "--auto"});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> lines = fasim::test::split_lines(r.out);
  const std::string head = "  scenario 1 (longnames): ";
  auto at = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(head, 0) == 0; });
  REQUIRE(at != lines.end());
  std::string command = at->substr(head.size());
  int continued = 0;
  while (command.ends_with(" \\")) {  // the shell joins a line ending in a backslash to the next
    command.resize(command.size() - 2);
    REQUIRE(++at != lines.end());
    INFO(*at);
    CHECK(columns(*at) <= 80);
    CHECK(at->rfind("    --", 0) == 0);  // a line goes on with a flag, not a flag's value
    command += " " + at->substr(4);
    ++continued;
  }
  CHECK(continued >= 1);
  CHECK(command == "fasim run " + args);
}

TEST_CASE("lesson --check: piped answers are graded, a wrong one gets its hint", "[lesson][cli]") {
  const long long read = run_json(kTiny)["hbm"]["read_bytes"];
  const ProcessResult r = run_fasim({"lesson", "1", "--lessons", kData, "--check"},
                                    with_commas(read) + " B\n0.5\n");
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(count(r.out, "   right: " + with_commas(read) + " B") == 1);
  CHECK(count(r.out, "   wrong: 0.5 is not within 1% of the answer") == 1);
  CHECK_THAT(r.out, Contains("hint: About one twentieth."));
  CHECK_THAT(r.out, Contains("the answer: 0.04979"));
  CHECK_THAT(r.out, Contains("score: 1 of 2 right"));

  const ProcessResult all = run_fasim({"lesson", "1", "--lessons", kData, "--check", "--answers",
                                       std::to_string(read) + ",0.0495"});
  INFO(all.describe());
  CHECK(all.exit_code == 0);
  CHECK_THAT(all.out, Contains("score: 2 of 2 right"));

  const ProcessResult early = run_fasim({"lesson", "1", "--lessons", kData, "--check"}, "1\n");
  CHECK(early.exit_code == 0);
  CHECK_THAT(early.out, Contains("score: 0 of 2 right (1 unanswered)"));
}

TEST_CASE("lesson errors: one line, exit 2, naming the file, the line and the fix", "[lesson][cli]") {
  require_one_line_error(run_fasim({"lesson", "9", "--lessons", kData}), "no lesson 9 in");
  require_one_line_error(run_fasim({"lesson", "nine", "--lessons", kData}), "lesson 'nine' is neither a number");
  require_one_line_error(run_fasim({"lesson", "--lessons", kData + "/nowhere"}), "no lessons directory at");
  require_one_line_error(run_fasim({"lesson", kData + "/bad/unknown-key.md", "--auto"}),
                         kData + "/bad/unknown-key.md:8: unknown key 'hbm.read': 'hbm' has by_tensor");
  require_one_line_error(run_fasim({"lesson", kData + "/bad/bad-calc.md", "--auto"}),
                         kData + "/bad/bad-calc.md:7: bad expression '2 + * 3' at column 5");
  require_one_line_error(run_fasim({"lesson", kData + "/bad/bad-flags.md", "--auto"}),
                         kData + "/bad/bad-flags.md:7: this scenario does not run: unexpected '--frobnicate 3'");
  require_one_line_error(run_fasim({"lesson", kData + "/bad/unclosed.md", "--auto"}),
                         kData + "/bad/unclosed.md:7: this ``` block is never closed");
  require_one_line_error(run_fasim({"lesson", "1", "--lessons", kData, "--check", "--answers", "1"}),
                         "--answers has 1 values but the lesson has 2 exercises");
  require_one_line_error(run_fasim({"lesson", "1", "--lessons", kData, "--check", "--answers", "1,x"}),
                         "--answers: answer 2 'x' is not a number");
  require_one_line_error(run_fasim({"lesson", "1", "--lessons", kData, "--answers", "1,2"}),
                         "--answers goes with --check");
  const ProcessResult piped = run_fasim({"lesson", "1", "--lessons", kData, "--check"}, "lots\n");
  CHECK(piped.exit_code == 2);
  CHECK_THAT(piped.err, StartsWith("fasim: error: answer 1 'lots' is not a number"));
}

TEST_CASE("lesson: every lesson in lessons/ renders in --auto mode and grades its exercises", "[lesson][cli][slow]") {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(kLessons)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 4 || !std::isdigit(static_cast<unsigned char>(name[0])) || e.path().extension() != ".md") continue;
    ++seen;
    const std::string path = e.path().string();
    INFO(path);
    const fasim::Lesson L = fasim::load_lesson(path);
    CHECK(L.number >= 0);
    CHECK(L.exercises.size() >= 2);
    CHECK(L.exercises.size() <= 4);
    CHECK_FALSE(L.summary().empty());

    const ProcessResult r = run_fasim({"lesson", path, "--auto"}, std::nullopt, fasim::test::kWholeSweepsTimeout);
    INFO(r.describe());
    REQUIRE(r.exit_code == 0);
    for (const auto& line : fasim::test::split_lines(r.err)) {  // only what it is predicting (lesson 8)
      INFO(line);
      CHECK(line.rfind("fasim: predicting the ", 0) == 0);
      CHECK(line.ends_with(" again..."));
    }
    CHECK_THAT(r.out, !Contains("{{"));
    for (const auto& line : fasim::test::split_lines(r.out)) {
      INFO(line);
      CHECK(columns(line) <= 80);
      CHECK(line.rfind('|', 0) != 0);  // a table too wide for 78 columns prints as raw Markdown
    }
    const std::vector<std::string> lines = fasim::test::split_lines(r.out);
    for (std::size_t i = 0; i + 1 < lines.size(); ++i)
      if (lines[i].ends_with(" \\") && lines[i].find("fasim ") != std::string::npos) {
        INFO(lines[i] << "\n" << lines[i + 1]);
        CHECK(lines[i + 1].find_first_not_of(' ') == lines[i + 1].find("--"));  // a command goes on with a flag
      }
    std::string zeros;
    for (std::size_t i = 0; i < L.exercises.size(); ++i) zeros += i ? ",0" : "0";
    const ProcessResult c = run_fasim({"lesson", path, "--check", "--answers", zeros});
    INFO(c.describe());
    CHECK(c.exit_code == 0);
    CHECK_THAT(c.out, Contains("score: "));
  }
  CHECK(seen >= 1);
}

// The stepper on a real terminal: tmux gives fasim an 80-column pty; keys
// go in with send-keys and the screen comes back with capture-pane.
namespace {

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string p = dir + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// A private tmux server (its own socket), killed at the end.
class Tmux {
 public:
  explicit Tmux(std::string exe) : exe_(std::move(exe)), socket_("fasim-test-" + std::to_string(::getpid())) {}
  ~Tmux() { run({"kill-server"}); }
  ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), {"-L", socket_});
    fasim::test::ChildProcess p(exe_, args);
    return p.wait(std::chrono::seconds(20));
  }
  std::string screen() { return run({"capture-pane", "-p", "-t", "lesson"}).out; }
  // Polls the screen until `ok` holds (true) or 15 s pass (false).
  bool wait_for(const std::function<bool(const std::string&)>& ok) {
    for (int i = 0; i < 150; ++i) {
      if (ok(screen())) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  bool wait_for(const std::string& text) {
    return wait_for([&](const std::string& s) { return s.find(text) != std::string::npos; });
  }
  void key(const std::string& k) { run({"send-keys", "-t", "lesson", k}); }

 private:
  std::string exe_, socket_;
};

}  // namespace

TEST_CASE("lesson stepper on a terminal: advance twice, go back once, quit", "[lesson][cli][tmux]") {
  const std::string exe = find_program("tmux");
  if (exe.empty()) {
    WARN("SKIPPED: tmux is not installed (apt-get install tmux); the interactive stepper is untested");
    return;
  }
  Tmux tmux(exe);
  const std::string command = "'" + std::string(FASIM_BINARY) + "' lesson 1 --lessons '" + kData +
                              "'; echo \"fasim exited $?\"; sleep 60";
  const ProcessResult started =
      tmux.run({"new-session", "-d", "-s", "lesson", "-x", "80", "-y", "40", command});
  INFO(started.describe());
  REQUIRE(started.exit_code == 0);

  REQUIRE(tmux.wait_for("A tiny lesson"));
  tmux.key("n");  // the section, with the scenario's command
  REQUIRE(tmux.wait_for("scenario 1 (tiny)"));
  tmux.key("n");  // its first step (of 4 blocks x 24 and the kernel's writeback step)
  REQUIRE(tmux.wait_for("step 1 of 97"));
  std::string s = tmux.screen();
  INFO(s);
  CHECK_THAT(s, Contains("Q blocks i down, K/V blocks j across"));
  CHECK_THAT(s, Contains(">    0  [=] [=] [=] [=]"));  // load Q_0: the whole row is this step's
  CHECK_THAT(s, Contains("Enter/n next"));

  tmux.key("n");
  REQUIRE(tmux.wait_for("step 2 of 97"));
  tmux.key("Enter");
  REQUIRE(tmux.wait_for("step 3 of 97"));
  tmux.key("b");
  REQUIRE(tmux.wait_for([](const std::string& x) { return x.find("step 2 of 97") != std::string::npos; }));
  s = tmux.screen();
  CHECK_THAT(s, Contains(">    1  [=] [=] [=] [=]"));
  CHECK_THAT(s, !Contains("step 3 of 97"));

  // Forward past the Q loads to a tile: K_0 of block 0 is step 5.
  for (int i = 0; i < 3; ++i) tmux.key("n");
  REQUIRE(tmux.wait_for("step 5 of 97"));
  s = tmux.screen();
  CHECK_THAT(s, Contains("0  [#] [ ] [ ] [ ]"));
  CHECK_THAT(s, Contains("load K rows 0-3"));

  tmux.key("q");
  REQUIRE(tmux.wait_for("fasim exited 0"));
}
