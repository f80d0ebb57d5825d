// `fasim lesson N --markdown`: the lesson as a docs page (what the docs target
// renders), every number computed, answers folded away; and its flag errors.
#include <catch2/catch.hpp>
#include <string>

#include "cli_support.hpp"

using namespace fasim::test;
using Catch::Matchers::Contains;

TEST_CASE("fasim lesson --markdown: a docs page with every number computed", "[lesson][docs]") {
  const ProcessResult r = run_fasim({"lesson", "1", "--markdown"});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  const std::string& md = r.out;
  CHECK(md.rfind("# Lesson 1: The online softmax {#lesson-01}\n", 0) == 0);
  CHECK(md.find("{{") == std::string::npos);  // every checked number expanded
  CHECK_THAT(md, Contains("fp16 holds numbers up to (2 − 2^-10) × 2^15 = 65,504,\nso exp(x) overflows once x passes 11.09."));
  // A scenario: its command, then the summary of its run.
  CHECK_THAT(md, Contains("```sh\nfasim run --algo flash2 --N 16 --d 4 --br 4 --bc 4 --device toy --row 1\n```"));
  // 4 query blocks of (load Q, 4 x (K, V, S, softmax, PV), rescale, store O, store L) = 96 steps, and the
  // kernel's writeback step: 97.
  CHECK_THAT(md, Contains("> flash2 on toy: N 16, d 4, fp16, Br 4, Bc 4; 97 steps; HBM read 1,152 B, written 192 B"));
  CHECK_THAT(md, Contains("`fasim trace --html scenario.html --algo flash2 --N 16"));
  // Exercises: the question, then the answer inside a folded <details>.
  CHECK_THAT(md, Contains("**Exercise 4.** In the scenario `late`, how many bytes of K does the whole run read from HBM? (answer in B)"));
  CHECK_THAT(md, Contains("\\htmlonly[block]<details><summary>Answer</summary>\\endhtmlonly\n\n512 B (exact)."));
}

TEST_CASE("fasim lesson --markdown --out writes the page, flags that do not go with it are errors", "[lesson][docs]") {
  ScratchDir d;
  const ProcessResult ok = run_fasim({"lesson", "1", "--markdown", "--out", d.file("01.md")});
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.out.empty());
  CHECK(read_text(d.file("01.md")) == run_fasim({"lesson", "1", "--markdown"}).out);
  for (const auto& [args, said] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"lesson", "1", "--out", d.file("x.md")}, "--out goes with --markdown"},
           {{"lesson", "1", "--markdown", "--check"}, "leave out --check and --auto"},
           {{"lesson", "--markdown"}, "which lesson?"},
           {{"lesson", "1", "--markdown", "--out", d.file("no/such/dir.md")}, "no/such/dir.md"}}) {
    const ProcessResult r = run_fasim(args);
    INFO(r.describe());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains(said));
  }
  CHECK(d.entries() == std::vector<std::string>{"01.md"});
}
