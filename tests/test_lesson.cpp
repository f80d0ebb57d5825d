// The lesson format as a library: parsing, checked numbers (equal to what a
// Simulation computes directly), calc expressions, formats and grading.
// Tag [lesson]. The `fasim lesson` program is tested in test_lesson_cli.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/lesson.hpp"
#include "fasim/lesson_calc.hpp"
#include "fasim/lesson_exercise.hpp"
#include "fasim/lesson_numbers.hpp"

using Catch::Contains;
using Catch::StartsWith;
using namespace fasim;

namespace {

// A few `fasim run` flags, enough for these tests (the CLI uses its real parser).
std::unique_ptr<Simulation> make_sim(const std::vector<std::string>& args, bool numerics) {
  std::map<std::string, std::string> f;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) f[args[i]] = args[i + 1];
  if (args.size() % 2) throw UserError("odd flags");
  auto num = [&](const char* k, std::int64_t d) { return f.count(k) ? std::stoll(f[k]) : d; };
  Workload w;
  w.N = num("--N", 16);
  w.d = num("--d", 4);
  Mapping m{parse_algo(f.count("--algo") ? f["--algo"] : "flash2").value(), num("--br", 4), num("--bc", 4)};
  SimOptions o;
  o.numerics = numerics;
  o.watch.row = num("--row", 0);
  return std::make_unique<Simulation>(load_device(f.count("--device") ? f["--device"] : "toy"), w, m, o);
}

const std::string kFlags = "--algo flash2 --N 16 --d 4 --br 4 --bc 4 --device toy --row 1";

Lesson tiny() {
  return parse_lesson("# Tiny\n\nIntro {{ calc: 1 + 1 }}.\n\n## Run\n\n```fasim t\n" + kFlags +
                          "\n```\n\nText.\n\n## Exercises\n\n```exercise\nquestion: Bytes?\nanswer: {{ hbm.read_bytes of t }}\n"
                          "tolerance: 0\nhint: Count.\n```\n",
                      "07-tiny.md");
}

}  // namespace

TEST_CASE("lesson: sections, blocks, scenarios and exercises are parsed with their lines", "[lesson]") {
  const Lesson L = parse_lesson(
      "# The title\n\nFirst paragraph\ngoes on.\n\nSecond.\n\n## One\n\n- item a\n  continued\n- item b\n\n"
      "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n### Sub\n\n```text\ncode {{ calc: 1 }}\n```\n\n"
      "```fasim big summary\n# a comment\nfasim run --algo naive\n  --N 64\n```\n\n## Exercises\n\n"
      "```exercise\nquestion: How\n  many?\nanswer: calc: 2 * 3\ntolerance: 1%\nhint: Multiply.\nunit: B\n```\n",
      "lessons/03-io.md");
  CHECK(L.number == 3);
  CHECK(L.title == "The title");
  CHECK(L.summary() == "First paragraph goes on.");
  REQUIRE(L.intro.size() == 2);
  REQUIRE(L.sections.size() == 2);
  const auto& b = L.sections[0].blocks;
  REQUIRE(b.size() == 7);
  CHECK(b[0].kind == LessonBlockKind::list_item);
  CHECK(b[0].text == "- item a\n  continued");
  CHECK(b[1].kind == LessonBlockKind::list_item);
  CHECK(b[2].kind == LessonBlockKind::table);
  CHECK(b[2].line == 14);
  CHECK(b[3].kind == LessonBlockKind::quote);
  CHECK(b[4].kind == LessonBlockKind::heading);
  CHECK(b[5].kind == LessonBlockKind::code);
  CHECK(b[5].lang == "text");
  CHECK(b[6].kind == LessonBlockKind::scenario);
  REQUIRE(L.scenarios.size() == 1);
  CHECK(L.scenarios[0].name == "big");
  CHECK(L.scenarios[0].summary_only);
  CHECK(L.scenarios[0].args == std::vector<std::string>{"--algo", "naive", "--N", "64"});
  CHECK(L.scenario_named("big") == &L.scenarios[0]);
  REQUIRE(L.exercises.size() == 1);
  const LessonExercise& ex = L.exercises[0];
  CHECK(ex.question == "How many?");
  CHECK(ex.answer == "calc: 2 * 3");
  CHECK(ex.tolerance == "1%");
  CHECK(ex.hint == "Multiply.");
  CHECK(ex.unit == "B");
  CHECK(ex.answer_line == ex.line + 3);
}

TEST_CASE("lesson: malformed lessons are one-line errors naming file, line and fix", "[lesson]") {
  auto err = [](const std::string& md) {
    try {
      parse_lesson(md, "x.md");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(err("no title\n"), StartsWith("x.md:1: a lesson starts with its title"));
  CHECK_THAT(err("# T\n\n## A\n\n```text\nopen\n"), StartsWith("x.md:5: this ``` block is never closed"));
  CHECK_THAT(err("# T\n\n```fasim\n```\n"), StartsWith("x.md:3: this ```fasim block is empty"));
  CHECK_THAT(err("# T\n\n```fasim\nalgo flash2\n```\n"), Contains("'algo' is not a flag"));
  CHECK_THAT(err("# T\n\n```fasim a\n--N 1\n```\n```fasim a\n--N 2\n```\n"),
             StartsWith("x.md:6: a scenario named 'a' already exists"));
  CHECK_THAT(err("# T\n\n```fasim Bad!\n--N 1\n```\n"), Contains("bad ```fasim option 'Bad!'"));
  CHECK_THAT(err("# T\n\n## Exercises\n\n```exercise\nquestion: q\nanswr: 1\n```\n"),
             StartsWith("x.md:7: unknown exercise field 'answr'"));
  CHECK_THAT(err("# T\n\n## Exercises\n\n```exercise\nquestion: q\nanswer: 1\ntolerance: 0\n```\n"),
             StartsWith("x.md:5: this exercise has no 'hint:'"));
  CHECK_THAT(err("# T\n\n## A\n\n```exercise\nquestion: q\nanswer: 1\ntolerance: 0\nhint: h\n```\n"),
             StartsWith("x.md:5: exercise blocks belong in the last section"));
  CHECK_THAT(err("# T\n\n## Exercises\n\n```exercise\nquestion: q\nanswer: 1\ntolerance: 0\nhint: h\n```\n\n## Later\n"),
             StartsWith("x.md:12: '## Exercises' must be the last section"));
  CHECK_THAT(err("# T\n\n## A\n\nline one\nline {{ two\n"), StartsWith("x.md:6: this {{ is never closed"));
  CHECK_THAT(err("# T\n\n## A\n\n{{ a {{ b }}\n"), Contains("a {{ inside {{ }}"));
  CHECK_THAT(err("# T\n\n## A\n\n# Again\n"), StartsWith("x.md:5: a lesson has one '# title'; start a section with '## '"));
  CHECK_THAT(err("# T\n\n## Exercises\n\nNone.\n"),
             StartsWith("x.md:3: '## Exercises' holds no ```exercise block; add at least one"));
  CHECK_THAT(err("# T\n\n```fasim\n--N {{ 4 }}\n```\n"),
             StartsWith("x.md:3: a ```fasim block holds plain flags; remove the {{ }} from it"));
  CHECK_THAT(err("# T\n\n## Exercises\n\n```exercise\nquestion: q\nquestion: r\nanswer: 1\ntolerance: 0\nhint: h\n```\n"),
             StartsWith("x.md:7: 'question:' appears twice in this exercise; keep one"));
  CHECK_THAT(err("# T\n\n```fasim\n--device \"h100\n```\n"), Contains("unclosed \" quote; close it or remove it"));
}

TEST_CASE("lesson: placeholders split from text, with escapes and line offsets", "[lesson]") {
  const auto p = split_placeholders("a \\{{ b\nc {{ hbm.read_bytes of x | bytes }} d");
  REQUIRE(p.size() == 3);
  CHECK(p[0].text == "a {{ b\nc ");
  CHECK(p[1].placeholder);
  CHECK(p[1].text == "hbm.read_bytes of x | bytes");
  CHECK(p[1].line_offset == 1);
  CHECK(p[2].text == " d");
}

TEST_CASE("lesson calc: precedence, associativity, functions, numbers", "[lesson]") {
  CHECK(eval_calc("2 + 3 * 4") == 14);
  CHECK(eval_calc("(2 + 3) * 4") == 20);
  CHECK(eval_calc("2 ^ 3 ^ 2") == 512);
  CHECK(eval_calc("-2 ^ 2") == -4);
  CHECK(eval_calc("2 * -3") == -6);
  CHECK(eval_calc("10 / 4 - 1") == 1.5);
  CHECK(eval_calc("8 / 2 / 2") == 2);
  CHECK(eval_calc("2 ^ -1") == 0.5);
  CHECK(eval_calc("ceil(16 / 5) + floor(2.9) + round(2.5)") == 4 + 2 + 3);
  CHECK(eval_calc("log2(1024) + log10(1000) + sqrt(81) + abs(-1)") == 10 + 3 + 9 + 1);
  CHECK(eval_calc("min(3, 1, 2) + max(4, 7)") == 8);
  CHECK(eval_calc("exp(log(5))") == Approx(5));
  CHECK(eval_calc(".5 + 1e3 + 2.5e-1 + 65_536") == 0.5 + 1000 + 0.25 + 65536);
  CHECK(eval_calc("[a] * 2", [](std::string_view r) { return r == "a" ? 21.0 : 0.0; }) == 42);
}

TEST_CASE("lesson calc: errors say what was expected and where", "[lesson]") {
  auto err = [](const std::string& e) -> std::pair<std::string, int> {
    try {
      eval_calc(e);
    } catch (const CalcError& x) {
      return {x.what(), x.column()};
    }
    return {"no error", 0};
  };
  CHECK(err("2 + * 3").second == 5);
  CHECK_THAT(err("2 + * 3").first, Contains("expected a number"));
  CHECK_THAT(err("(1 + 2").first, Contains("never closed"));
  CHECK_THAT(err("2 +").first, Contains("ends too early"));
  CHECK_THAT(err("2 3").first, Contains("unexpected '3'"));
  CHECK_THAT(err("foo(2)").first, Contains("unknown function 'foo'"));
  CHECK_THAT(err("ceil(1, 2)").first, Contains("takes one argument"));
  CHECK_THAT(err("1 / (2 - 2)").first, Contains("division by zero"));
  CHECK_THAT(err("log2(0)").first, Contains("undefined"));
  CHECK_THAT(err("[x]").first, Contains("needs a scenario"));
  CHECK_THAT(err("").first, Contains("empty"));
  CHECK_THAT(err("10 ^ 400").first, Contains("not a finite number"));
}

TEST_CASE("lesson formats", "[lesson]") {
  using nlohmann::json;
  CHECK(format_value(json(1152), "") == "1,152");
  CHECK(format_value(json(0.049787068), "") == "0.04979");
  CHECK(format_value(json(1.0497870), "") == "1.05");
  CHECK(format_value(json(1234.5678), "") == "1,235");
  CHECK(format_value(json(1.5823e-7), "") == "1.582e-07");
  CHECK(format_value(json(1151.7), "int") == "1,152");
  CHECK(format_value(json(1.18512), ".2") == "1.19");
  CHECK(format_value(json(-0.001), ".2") == "0.00");
  CHECK(format_value(json(1234567.891), ".1") == "1,234,567.9");
  CHECK(format_value(json(1152), "bytes") == "1.12 KiB");
  CHECK(format_value(json(3.1358e-6), "us") == "3.136 us");
  CHECK(format_value(json(0.106), "%") == "10.6%");
  CHECK(format_value(json(1.5823e-7), "sci") == "1.58e-07");
  CHECK(format_value(json(268435456), "si") == "268.44 M");
  CHECK(format_value(json("latency"), "") == "latency");
  CHECK_THROWS_WITH(format_value(json("latency"), "us"), Contains("takes no format"));
  CHECK_THROWS_WITH(format_value(json(1), "kb"), Contains("unknown format 'kb'; formats: int"));
}

TEST_CASE("lesson: json keys by dotted path, with the keys that exist on a miss", "[lesson]") {
  const nlohmann::json r = {{"hbm", {{"read_bytes", 7}, {"write_bytes", 8}}}, {"k", {{{"n", 1}}, {{"n", 2}}}}};
  CHECK(json_at(r, "hbm.read_bytes") == 7);
  CHECK(json_at(r, "k.1.n") == 2);
  CHECK_THROWS_WITH(json_at(r, "hbm.read"), "unknown key 'hbm.read': 'hbm' has read_bytes, write_bytes");
  CHECK_THROWS_WITH(json_at(r, "k.5"), Contains("indices 0 to 1"));
  CHECK_THROWS_WITH(json_at(r, "hbm"), Contains("names a group"));
}

TEST_CASE("lesson: a checked number equals what the Simulation computes directly", "[lesson]") {
  int made = 0;
  ScenarioReports reports([&](const std::vector<std::string>& a, bool n) {
    ++made;
    return make_sim(a, n);
  });
  const Lesson L = tiny();
  LessonNumbers numbers(L, reports);

  auto direct = make_sim(split_words(kFlags), true);
  std::vector<float> m, l;
  while (direct->next()) {
    const Step& s = direct->step();
    if (s.has_row && s.kb >= 0) {
      m.resize(static_cast<std::size_t>(s.kb) + 1);
      l.resize(m.size());
      m[static_cast<std::size_t>(s.kb)] = s.row_m;
      l[static_cast<std::size_t>(s.kb)] = s.row_l;
    }
  }
  const Traffic t = direct->ledger().hbm_total();
  CHECK(numbers.expand("{{ hbm.read_bytes of t }}", 1) == with_commas(t.read_bytes));
  CHECK(numbers.expand("{{ hbm.write_bytes of " + kFlags + " }}", 1) == with_commas(t.write_bytes));
  CHECK(numbers.expand("{{ hbm.by_tensor.K.read_bytes of t }}", 1) ==
        with_commas(direct->ledger().hbm(TensorId::K).read_bytes));
  CHECK(numbers.value("flops.matmul of t", 1) == direct->ledger().flops().matmul);
  CHECK(numbers.value("time.seconds of t", 1).get<double>() == direct->time().seconds);
  CHECK(numbers.value("calc: [hbm.read_bytes of t] / 2", 1).get<double>() == t.read_bytes / 2.0);
  REQUIRE(m.size() == 4);
  CHECK(numbers.value("row.m.3 of t", 1).get<float>() == m[3]);
  CHECK(numbers.value("row.l.2 of t", 1).get<float>() == l[2]);
  CHECK(numbers.value("numerics.max_abs_error of t", 1).get<double>() == direct->numerics().max_abs_error);
  CHECK(made == 2);  // counting (named and by flags share one run), then values
  CHECK(numbers.expand("{{ hbm.read_bytes of t }} again", 1) == with_commas(t.read_bytes) + " again");
  CHECK(made == 2);
  CHECK(numbers.answer(L.exercises[0]) == static_cast<double>(t.read_bytes));
  CHECK(numbers.expand("{{ calc: 16 / 4 | .1 }} and \\{{ x }}", 1) == "4.0 and {{ x }}");
}

TEST_CASE("lesson: number errors name the file and line", "[lesson]") {
  ScenarioReports reports(make_sim);
  const Lesson L = tiny();
  LessonNumbers numbers(L, reports);
  CHECK_THROWS_WITH(numbers.expand("a\nb {{ hbm.read of t }}", 10), StartsWith("07-tiny.md:11: unknown key 'hbm.read'"));
  CHECK_THROWS_WITH(numbers.expand("{{ hbm.read_bytes of nope }}", 4),
                    StartsWith("07-tiny.md:4: no scenario named 'nope'; named scenarios here: t"));
  CHECK_THROWS_WITH(numbers.expand("{{ calc: 1 + }}", 5), StartsWith("07-tiny.md:5: bad expression '1 +' at column 4"));
  CHECK_THROWS_WITH(numbers.expand("{{ hbm.read_bytes }}", 6), Contains("is not KEY of FLAGS"));
  CHECK_THROWS_WITH(numbers.expand("{{ hbm.read_bytes of t | kb }}", 7), StartsWith("07-tiny.md:7: unknown format"));
  CHECK_THROWS_WITH(numbers.expand("{{ hbm.read_bytes of --N 16 odd }}", 8),
                    StartsWith("07-tiny.md:8: the scenario of {{ hbm.read_bytes of --N 16 odd }} does not run"));
}

TEST_CASE("lesson exercises: tolerances, answers and grades", "[lesson]") {
  CHECK(parse_tolerance("1%").relative);
  CHECK(parse_tolerance("1%").value == Approx(0.01));
  CHECK_FALSE(parse_tolerance("0.5").relative);
  CHECK(parse_tolerance("0").value == 0);
  CHECK_THROWS_WITH(parse_tolerance("about 1"), Contains("is not a number"));
  CHECK_THROWS(parse_tolerance("-1%"));

  CHECK(parse_answer("1024") == 1024);
  CHECK(parse_answer(" 1,024 ") == 1024);
  CHECK(parse_answer("-12,345.5") == -12345.5);
  CHECK(parse_answer("1,234,567") == 1234567);
  CHECK_FALSE(parse_answer("1,2345"));
  CHECK(parse_answer("2.5e6") == 2.5e6);
  CHECK(parse_answer("4 * 16 * 2") == 128);
  CHECK(parse_answer("1152 B", "B") == 1152);
  CHECK(parse_answer("max(1,2)") == 2);
  CHECK_FALSE(parse_answer("abc"));
  CHECK_FALSE(parse_answer(""));
  CHECK_FALSE(parse_answer("1,02"));

  const Tolerance one_percent = parse_tolerance("1%");
  CHECK(grade(100, 100, one_percent).right);
  CHECK(grade(101, 100, one_percent).right);  // the boundary is right
  CHECK(grade(99, 100, one_percent).right);
  CHECK_FALSE(grade(101.01, 100, one_percent).right);
  CHECK(grade(0.1 + 0.2, 0.3, parse_tolerance("0")).right);  // rounding is not a wrong answer
  CHECK_FALSE(grade(3, 4, parse_tolerance("0.5")).right);
  CHECK(grade(3.5, 4, parse_tolerance("0.5")).right);
  CHECK(grade(3, 4, parse_tolerance("0.5")).error == 1);
}

TEST_CASE("lesson 01's claim holds: in scenario `late` the row's maximum arrives in the last tile", "[lesson]") {
  // The text says so in words, which {{ }} cannot check; this test does.
  const Lesson L = load_lesson(std::string(FASIM_SOURCE_DIR) + "/lessons/01-online-softmax.md");
  const LessonScenario* late = L.scenario_named("late");
  REQUIRE(late);
  ScenarioReports reports(make_sim);
  const nlohmann::json m = reports.get(late->args, true)["row"]["m"];
  REQUIRE(m.size() == 4);
  CHECK(m[3].get<double>() > m[2].get<double>());
  CHECK(m[2].get<double>() == m[0].get<double>());  // and it sat still before
}
