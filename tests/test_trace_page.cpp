// The trace viewer page: the sink that embeds a trace in it, the page's
// self-containment, the header fields the viewer reads, and `fasim trace
// --html` (its output, and its errors: exit 2, one line, no file).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/trace_page.hpp"
#include "trace_samples.hpp"

using namespace fasim::test;

namespace {

constexpr std::string_view kSlot = "<script type=\"application/x-ndjson\" id=\"fasim-trace\">";

std::string write_page(const std::vector<fasim::Step>& steps, const fasim::TraceMeta& meta) {
  std::ostringstream out;
  const auto sink = fasim::make_trace_page_sink(out);
  sink->begin(meta);
  fasim::Ledger ledger;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ledger.record(steps[i]);
    sink->step(steps[i], static_cast<std::int64_t>(i), ledger);
  }
  sink->end();
  return out.str();
}

// The JSON lines between the slot's tags.
std::vector<std::string> embedded_lines(const std::string& page) {
  const auto at = page.find(kSlot);
  REQUIRE(at != std::string::npos);
  const auto from = at + kSlot.size();
  const auto to = page.find("</script>", from);
  REQUIRE(to != std::string::npos);
  std::vector<std::string> lines;
  for (const std::string& l : split_lines(page.substr(from, to - from)))
    if (!l.empty()) lines.push_back(l);
  return lines;
}

}  // namespace

TEST_CASE("trace page: the page holds its scripts and styles and fetches nothing", "[trace_page]") {
  const std::string page(fasim::trace_viewer_page());
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(page.find(std::string(kSlot) + "</script>") != std::string::npos);  // empty slot
  CHECK(page.find("<script src=") == std::string::npos);
  CHECK(page.find("<link rel=\"stylesheet\"") == std::string::npos);
  CHECK(page.find("http://") == std::string::npos);
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find("function parseTrace") != std::string::npos);  // trace_model.js, inlined
  CHECK(page.find("requestAnimationFrame") != std::string::npos);  // viewer.js, inlined
}

TEST_CASE("trace page: the embedded trace is the jsonl trace, with '<' escaped", "[trace_page]") {
  auto steps = sample_steps();
  steps[2].what = "S = Q K^T </script><script>alert(1)</script>";
  const std::string page = write_page(steps, sample_meta());

  std::ostringstream jsonl;
  const auto sink = fasim::make_trace_sink(fasim::TraceFormat::jsonl, jsonl);
  sink->begin(sample_meta());
  fasim::Ledger ledger;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ledger.record(steps[i]);
    sink->step(steps[i], static_cast<std::int64_t>(i), ledger);
  }
  sink->end();
  const auto expected = split_lines(jsonl.str());

  const auto lines = embedded_lines(page);
  REQUIRE(lines.size() == steps.size() + 1);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i].find('<') == std::string::npos);
    CHECK(nlohmann::json::parse(lines[i]) == nlohmann::json::parse(expected[i]));
  }
  CHECK(nlohmann::json::parse(lines[3])["what"] == "S = Q K^T </script><script>alert(1)</script>");
  // The page around the trace is the page itself.
  const std::string empty(fasim::trace_viewer_page());
  CHECK(page.substr(0, page.find(kSlot)) == empty.substr(0, empty.find(kSlot)));
  CHECK(page.ends_with("</html>\n"));
}

TEST_CASE("trace header: watched row, capacity and the full shape, for the viewer", "[trace_page]") {
  fasim::TraceMeta meta = sample_meta();
  meta.workload.causal = true;
  meta.workload.N_kv = 512;
  meta.watched_row = 37;
  meta.watched_bh = 1;
  meta.numerics = true;
  meta.sram_bytes_per_block = 232448;
  meta.register_bytes_per_block = 262144;
  const auto head = nlohmann::json::parse(embedded_lines(write_page({}, meta)).at(0));
  CHECK(head["type"] == "meta");
  CHECK(head["trace_version"] == 3);
  CHECK(head["watched_row"] == 37);
  CHECK(head["watched_bh"] == 1);
  CHECK(head["numerics"] == true);
  CHECK(head["capacity"]["sram_bytes_per_block"] == 232448);
  CHECK(head["capacity"]["register_bytes_per_block"] == 262144);
  CHECK(head["workload"]["N_kv"] == 512);
  CHECK(head["workload"]["causal"] == true);
  CHECK(head["workload"]["kv_heads"] == 1);
  // Unset, they are left out rather than written as made-up values.
  const auto plain = nlohmann::json::parse(embedded_lines(write_page({}, sample_meta())).at(0));
  CHECK_FALSE(plain.contains("watched_row"));
  CHECK_FALSE(plain.contains("capacity"));
}

TEST_CASE("fasim trace --html: the page holds every step of the run", "[trace_page][cli]") {
  ScratchDir d;
  const std::vector<std::string> flags = {"--algo", "flash2", "--N", "64", "--d", "16", "--br", "16", "--bc", "16", "--row", "21"};
  std::vector<std::string> args = {"trace", "--html", d.file("page.html")};
  args.insert(args.end(), flags.begin(), flags.end());
  const ProcessResult r = run_fasim(args);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("steps of flash2 (N 64, d 16, Br 16, Bc 16) -> " + d.file("page.html")) != std::string::npos);

  std::vector<std::string> run = {"run", "--json"};
  run.insert(run.end(), flags.begin(), flags.end());
  const auto report = nlohmann::json::parse(run_fasim(run).out);
  const auto lines = embedded_lines(read_text(d.file("page.html")));
  REQUIRE(static_cast<std::int64_t>(lines.size()) == report["steps"].get<std::int64_t>() + 1);
  CHECK(r.out.find(with_commas(report["steps"].get<long long>()) + " steps") != std::string::npos);
  const auto head = nlohmann::json::parse(lines[0]);
  CHECK(head["watched_row"] == 21);
  CHECK(head["numerics"] == true);
  CHECK(head["capacity"]["sram_bytes_per_block"] == 232448);  // h100
  std::int64_t read = 0, rows = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto s = nlohmann::json::parse(lines[i]);
    read += s["hbm_read_bytes"].get<std::int64_t>();
    rows += s["has_row"].get<bool>() ? 1 : 0;
  }
  CHECK(read == report["hbm"]["read_bytes"].get<std::int64_t>());
  CHECK(rows > 0);
  CHECK(d.entries() == std::vector<std::string>{"page.html"});
}

TEST_CASE("fasim trace: bad input is one line, exit 2, and no page", "[trace_page][cli]") {
  ScratchDir d;
  const std::string page = d.file("page.html");
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> said;
  };
  const std::vector<Case> cases = {
      {{"trace", "--N", "64"}, {"fasim trace needs --html", "add it"}},
      {{"trace", "--html", page, "--N", "0"}, {"N"}},
      {{"trace", "--html", page, "--algo", "flash9"}, {"flash9", "--algo"}},
      {{"trace", "--html", page, "--N", "256", "--br", "16", "--bc", "16", "--max-steps", "100"},
       {"more than 100 steps", "--max-steps"}},
      {{"trace", "--html", page, "--max-steps", "0"}, {"--max-steps must be positive"}},
      {{"trace", "--html", d.file("missing/page.html"), "--N", "64"}, {"missing/page.html"}},
  };
  for (const Case& c : cases) {
    INFO(c.args.back());
    const ProcessResult r = run_fasim(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(split_lines(r.err).size() == 1);
    for (const std::string& s : c.said) CHECK(r.err.find(s) != std::string::npos);
    CHECK(d.entries().empty());  // no page, no temporary
  }
}
