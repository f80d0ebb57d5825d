// read_trace on malformed input: one line naming the file, the line (and
// column where known) and the problem; never a crash.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/trace.hpp"
#include "fasim/trace_reader.hpp"
#include "trace_samples.hpp"

using fasim::TraceFormat;
using namespace fasim::test;

namespace {

// Replaces the JSON value of "key" (a number or a short string) in one line;
// with an empty value the member is removed along with its leading comma.
std::string set_member(std::string line, const std::string& key, const std::string& value) {
  const std::string tag = "\"" + key + "\":";
  const auto at = line.find(tag);
  REQUIRE(at != std::string::npos);
  const auto end = line.find_first_of(",}", at + tag.size());
  if (value.empty()) return line.erase(at - 1, end - at + 1);
  return line.replace(at + tag.size(), end - at - tag.size(), value);
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string read_error(const std::string& path) {
  try {
    fasim::read_trace(path);
  } catch (const fasim::UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("read_trace: malformed files give one line naming file and line", "[trace]") {
  ScratchDir d;
  const auto steps = sample_steps();
  using Catch::Contains;

  SECTION("missing file and empty file") {
    CHECK_THAT(read_error(d.file("nope.json")), Contains("No such file or directory"));
    write_lines(d.file("empty"), {});
    CHECK_THAT(read_error(d.file("empty")), Contains("line 1") && Contains("empty"));
  }
  SECTION("truncated chrome JSON") {
    const std::string path = d.file("t.json");
    write_trace(TraceFormat::chrome, path, steps);
    auto lines = lines_of(path);
    lines.resize(lines.size() / 2);
    lines.back().resize(lines.back().find(',') + 1);  // cut between two fields
    write_lines(path, lines);
    const std::string msg = read_error(path);
    CHECK_THAT(msg, Contains("cannot read trace '" + path + "' (line " +
                             std::to_string(lines.size() + 1) + ", column 1)"));
    CHECK(msg.find('\n') == std::string::npos);
  }
  SECTION("chrome event with a non-numeric field names the event's line") {
    const std::string path = d.file("t.json");
    write_trace(TraceFormat::chrome, path, steps);
    auto lines = lines_of(path);
    std::size_t x_seen = 0, target = 0;
    for (std::size_t i = 0; i < lines.size() && target == 0; ++i) {
      if (lines[i].find("\"ph\":\"X\"") != std::string::npos && ++x_seen == 3) target = i;
    }
    REQUIRE(target != 0);
    lines[target] = set_member(lines[target], "rows", "\"abc\"");
    write_lines(path, lines);
    const std::string msg = read_error(path);
    CHECK_THAT(msg, Contains("(line " + std::to_string(target + 1) + ")") &&
                        Contains("field 'rows' is not an integer: '\"abc\"'"));
  }
  SECTION("jsonl: non-numeric and missing fields, bad header") {
    const std::string path = d.file("t.jsonl");
    write_trace(TraceFormat::jsonl, path, steps);
    auto lines = lines_of(path);
    auto bad = lines;
    bad[3] = set_member(bad[3], "cols", "1.5");
    write_lines(path, bad);
    CHECK_THAT(read_error(path),
               Contains("(line 4)") && Contains("field 'cols' is not an integer"));
    bad = lines;
    bad[2] = set_member(bad[2], "kb", "");
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 3)") && Contains("field 'kb' is missing"));
    bad = lines;
    bad[5] = bad[5].substr(0, 20);
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 6, column 2"));
    bad = lines;
    bad[1] = set_member(bad[1], "kind", "\"fly\"");
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 2)") && Contains("unknown step kind 'fly'"));
  }
  SECTION("csv: wrong header, non-numeric field, wrong field count, open quote") {
    const std::string path = d.file("t.csv");
    write_trace(TraceFormat::csv, path, steps);
    const auto lines = lines_of(path);
    auto bad = lines;
    bad[0] = replace_once(bad[0], ",rows,", ",rowz,");
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 1, column ") &&
                                     Contains("CSV header column 10 is 'rowz', expected 'rows'"));
    bad = lines;
    bad[2] = "1,0,0,load,K,\"\",0,0,1,64,x32,8192,0,0,0,0,4096,0,0,0,0,0,0,0,0,0,0,0,,,16384,0,1,1";
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 3, column 26)") &&
                                     Contains("column 'cols' is not an integer: 'x32'"));
    bad = lines;
    bad[2] = "1,0,0,load,K";
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 3)") && Contains("expected 34 fields, found 5"));
    bad = lines;
    bad.back() = "9,1,3,softmax,P,\"never closed";
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("column 17)") && Contains("never closed"));
  }
  SECTION("a trace from before L2 fabric bytes says so, in every format") {
    const std::string older = "an older fasim, which did not record L2 fabric bytes: write it again";
    const std::string csv = d.file("t.csv");
    write_trace(TraceFormat::csv, csv, steps);
    auto lines = lines_of(csv);
    lines[0] = replace_once(lines[0], ",l2_fabric_bytes,", ",");
    write_lines(csv, lines);
    CHECK_THAT(read_error(csv), Contains("(line 1, column ") &&
                                    Contains("CSV header column 26 is 'sm', expected 'l2_fabric_bytes'") &&
                                    Contains(older));
    for (TraceFormat f : {TraceFormat::jsonl, TraceFormat::chrome}) {
      const std::string path = d.file(std::string("t.") + std::string(fasim::name(f)));
      write_trace(f, path, steps);
      lines = lines_of(path);
      std::size_t at = 0;
      while (at < lines.size() && lines[at].find("\"l2_fabric_bytes\"") == std::string::npos) ++at;
      REQUIRE(at < lines.size());
      lines[at] = set_member(lines[at], "l2_fabric_bytes", "");
      write_lines(path, lines);
      CHECK_THAT(read_error(path), Contains("(line " + std::to_string(at + 1)) &&
                                       Contains("field 'l2_fabric_bytes' is missing") && Contains(older));
    }
  }
  SECTION("a trace from a newer fasim is refused, naming its version (jsonl and chrome have a header)") {
    for (TraceFormat f : {TraceFormat::jsonl, TraceFormat::chrome}) {
      const std::string path = d.file(std::string("t.") + std::string(fasim::name(f)));
      write_trace(f, path, steps);
      auto lines = lines_of(path);
      REQUIRE(lines[0].find("\"trace_version\":3,") != std::string::npos);
      lines[0] = replace_once(lines[0], "\"trace_version\":3,", "\"trace_version\":4,");
      write_lines(path, lines);
      CHECK_THAT(read_error(path), Contains("(line 1") &&
                                       Contains("trace_version 4 is newer than this fasim reads (up to 3)") &&
                                       Contains("read it with the fasim that wrote it"));
    }
  }
  SECTION("a version above 2^63 is newer too, and one that is not a whole number is refused") {
    for (TraceFormat f : {TraceFormat::jsonl, TraceFormat::chrome}) {
      const std::string path = d.file(std::string("v.") + std::string(fasim::name(f)));
      write_trace(f, path, steps);
      const auto lines = lines_of(path);
      // 2^64 - 1 read as a signed number is -1: it must not pass as older.
      for (const auto& [version, says] :
           {std::pair<std::string, std::string>{"18446744073709551615", "trace_version 18446744073709551615 is newer"},
            {"-1", "trace_version '-1' is not a version number"},
            {"0", "trace_version '0' is not a version number"},
            {"3.5", "trace_version '3.5' is not a version number"},
            {"\"3\"", "trace_version '\"3\"' is not a version number"}}) {
        auto changed = lines;
        changed[0] = replace_once(changed[0], "\"trace_version\":3,", "\"trace_version\":" + version + ",");
        write_lines(path, changed);
        CHECK_THAT(read_error(path), Contains(says));
      }
    }
  }
  SECTION("garbage never crashes") {
    const std::string path = d.file("g");
    for (const std::string& junk :
         {std::string("\x00\x01\xff\xfe", 4), std::string("[1,2,3]"),
          std::string("{\"traceEvents\":5}"), std::string("{\"traceEvents\":[1]}"),
          std::string("{\"traceEvents\":[{\"ph\":\"X\"}]}"), std::string(10000, '['),
          std::string("{\"type\":\"meta\"}\n[]\n"), std::string("index,\n"),
          std::string("{\"a\":\"\xc3\x28\"}")}) {
      std::ofstream(path, std::ios::binary) << junk;
      const std::string msg = read_error(path);
      INFO(msg);
      CHECK_THAT(msg, Contains("cannot read trace '" + path + "'"));
      CHECK(msg.find('\n') == std::string::npos);
    }
  }
}
