// Trace sinks and reader: every format round-trips every field; the chrome
// trace has what Perfetto needs; malformed files give one located line.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/ledger.hpp"
#include "fasim/step.hpp"
#include "fasim/trace.hpp"
#include "fasim/trace_reader.hpp"

namespace fs = std::filesystem;
using fasim::Step;
using fasim::StepKind;
using fasim::TensorId;
using fasim::TraceFormat;
using fasim::TraceRecord;

namespace Catch {
template <>
struct StringMaker<TraceRecord> {
  static std::string convert(const TraceRecord& r) {
    std::ostringstream s;
    s << "{index " << r.index << " kernel " << r.kernel << " block " << r.block << ' ' << r.kind
      << ' ' << r.tensor << " '" << r.what << "' bh " << r.bh << " qb " << r.qb << " kb " << r.kb
      << " " << r.rows << "x" << r.cols << " hbm " << r.hbm_read_bytes << "/" << r.hbm_write_bytes
      << " flops " << r.flops_matmul << "/" << r.flops_other << "/" << r.exps << " on-chip "
      << r.sram_bytes << "/" << r.register_bytes << " row " << r.has_row << ' ' << r.row_m << ' '
      << r.row_l << " cum " << r.cum_hbm_read_bytes << "/" << r.cum_hbm_write_bytes << " t "
      << r.ts_us << "+" << r.dur_us << '}';
    return s.str();
  }
};
}  // namespace Catch

namespace {

struct ScratchDir {
  fs::path dir;
  ScratchDir() {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("fasim-trace-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

Step make(StepKind kind, TensorId t, std::int32_t kernel, std::int64_t block, std::int64_t read,
          std::int64_t write, std::string_view what = {}) {
  Step s;
  s.kind = kind;
  s.tensor = t;
  s.kernel = kernel;
  s.block = block;
  s.what = what;
  s.bh = block / 2;
  s.qb = block % 2;
  s.kb = kind == StepKind::load && t != TensorId::Q ? 1 : -1;
  s.rows = 64;
  s.cols = 32 + block;
  s.hbm_read_bytes = read;
  s.hbm_write_bytes = write;
  s.sram_bytes = 4096 * (block + 1);
  s.register_bytes = 1024 * kernel;
  return s;
}

// Two kernels, several blocks, labels with commas, quotes and a newline, and
// a watched row whose running max starts at -inf.
std::vector<Step> sample_steps() {
  std::vector<Step> v;
  v.push_back(make(StepKind::load, TensorId::Q, 0, 0, 8192, 0, "load Q_i"));
  v.push_back(make(StepKind::load, TensorId::K, 0, 0, 8192, 0));
  Step mm = make(StepKind::matmul, TensorId::S, 0, 0, 0, 0, "S = scale * Q K^T, \"tile\"");
  mm.flops_matmul = 2 * 64 * 64 * 32;
  v.push_back(mm);
  Step sm = make(StepKind::softmax, TensorId::P, 0, 1, 0, 0, "online softmax\nrow max");
  sm.flops_other = 5 * 64 * 64;
  sm.exps = 64 * 64;
  sm.has_row = true;
  sm.row_m = -std::numeric_limits<float>::infinity();
  sm.row_l = 0.0f;
  v.push_back(sm);
  Step rs = make(StepKind::rescale, TensorId::O, 0, 1, 0, 0, "O *= exp(m_old - m_new)");
  rs.flops_other = 123;
  rs.has_row = true;
  rs.row_m = 3.1415927f;
  rs.row_l = 17.25f;
  v.push_back(rs);
  v.push_back(make(StepKind::store, TensorId::O, 0, 1, 0, 4096));
  v.push_back(make(StepKind::load, TensorId::S, 1, 0, 16384, 0));
  v.push_back(make(StepKind::store, TensorId::P, 1, 3, 0, 16384, ""));
  v.push_back(make(StepKind::softmax, TensorId::P, 1, 3, 0, 0, ""));
  return v;
}

fasim::TraceMeta sample_meta() {
  fasim::TraceMeta m;
  m.device = "h100";
  m.workload.N = 256;
  m.workload.d = 32;
  m.mapping.algo = fasim::Algo::naive;
  m.kernel_names = {"S = QK^T, P = softmax(S)", "O = P V"};
  return m;
}

// Writes the steps through an AtomicFile, as the CLI will.
void write_trace(TraceFormat format, const std::string& path, const std::vector<Step>& steps) {
  fasim::AtomicFile file(path);
  const auto sink = fasim::make_trace_sink(format, file.stream());
  sink->begin(sample_meta());
  fasim::Ledger ledger;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ledger.record(steps[i]);
    sink->step(steps[i], static_cast<std::int64_t>(i), ledger);
  }
  sink->end();
  file.commit();
}

std::vector<TraceRecord> expected_records(const std::vector<Step>& steps) {
  std::vector<TraceRecord> out;
  std::int64_t cum_r = 0, cum_w = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    TraceRecord r;
    r.index = static_cast<std::int64_t>(i);
    r.kernel = s.kernel;
    r.block = s.block;
    r.kind = std::string(fasim::name(s.kind));
    r.tensor = std::string(fasim::name(s.tensor));
    r.what = std::string(s.what);
    r.bh = s.bh;
    r.qb = s.qb;
    r.kb = s.kb;
    r.rows = s.rows;
    r.cols = s.cols;
    r.hbm_read_bytes = s.hbm_read_bytes;
    r.hbm_write_bytes = s.hbm_write_bytes;
    r.flops_matmul = s.flops_matmul;
    r.flops_other = s.flops_other;
    r.exps = s.exps;
    r.sram_bytes = s.sram_bytes;
    r.register_bytes = s.register_bytes;
    r.has_row = s.has_row;
    r.row_m = s.has_row ? s.row_m : 0.0;
    r.row_l = s.has_row ? s.row_l : 0.0;
    r.cum_hbm_read_bytes = cum_r += s.hbm_read_bytes;
    r.cum_hbm_write_bytes = cum_w += s.hbm_write_bytes;
    r.ts_us = static_cast<double>(i);
    r.dur_us = 1.0;
    out.push_back(r);
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const auto& l : lines) out << l << '\n';
}

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

TEST_CASE("trace formats: names parse back", "[trace]") {
  for (TraceFormat f : {TraceFormat::chrome, TraceFormat::jsonl, TraceFormat::csv}) {
    CHECK(fasim::parse_trace_format(fasim::name(f)) == f);
  }
  CHECK_FALSE(fasim::parse_trace_format("json").has_value());
  CHECK(fasim::name(StepKind::softmax) == "softmax");
}

TEST_CASE("trace: every format reads back every field", "[trace]") {
  ScratchDir d;
  const auto steps = sample_steps();
  const auto expected = expected_records(steps);
  for (TraceFormat f : {TraceFormat::chrome, TraceFormat::jsonl, TraceFormat::csv}) {
    INFO("format " << fasim::name(f));
    const std::string path = d.file(std::string("t.") + std::string(fasim::name(f)));
    write_trace(f, path, steps);
    const auto got = fasim::read_trace(path);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == expected[i]);
  }
}

TEST_CASE("trace: chrome output is a Trace Event document Perfetto can open", "[trace]") {
  ScratchDir d;
  const std::string path = d.file("t.json");
  const auto steps = sample_steps();
  write_trace(TraceFormat::chrome, path, steps);
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);

  CHECK(doc["displayTimeUnit"] == "ns");
  const auto& other = doc["otherData"];
  CHECK(other["device"] == "h100");
  CHECK(other["workload"]["N"] == 256);
  CHECK(other["mapping"]["algo"] == "naive");
  CHECK(other["time_unit_note"].get<std::string>().find("no timing model") != std::string::npos);

  std::map<int, std::string> process_names;
  std::map<int, std::string> thread_names;  // by tid
  std::map<std::pair<int, std::int64_t>, int> tid_of_block;
  std::vector<nlohmann::json> slices;
  std::vector<nlohmann::json> hbm;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name") {
      CHECK(thread_names.count(e["tid"].get<int>()) == 0);  // named once
      thread_names[e["tid"]] = e["args"]["name"];
    }
    if (ph == "X") {
      // the thread is named before its first slice
      REQUIRE(thread_names.count(e["tid"].get<int>()) == 1);
      slices.push_back(e);
    }
    if (ph == "C" && e["name"] == "HBM bytes") {
      REQUIRE(!slices.empty());
      hbm.push_back({{"after", slices.size() - 1}, {"args", e["args"]}, {"ts", e["ts"]}});
    }
  }
  CHECK(process_names[1] == "kernel 0: S = QK^T, P = softmax(S)");
  CHECK(process_names[2] == "kernel 1: O = P V");

  REQUIRE(slices.size() == steps.size());
  std::int64_t cum_r = 0, cum_w = 0;
  std::size_t next_counter = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    const auto& e = slices[i];
    INFO("step " << i);
    CHECK(e["pid"] == s.kernel + 1);
    CHECK(e["ts"] == static_cast<double>(i));
    CHECK(e["dur"] == 1.0);
    CHECK(e["cat"] == std::string(fasim::name(s.kind)));
    const std::string expected_name =
        s.kind == StepKind::load || s.kind == StepKind::store
            ? std::string(fasim::name(s.kind)) + " " + std::string(fasim::name(s.tensor))
            : s.what.empty() ? std::string(fasim::name(s.kind)) : std::string(s.what);
    CHECK(e["name"] == expected_name);
    // one tid per (kernel, block), named "block N"
    const int tid = e["tid"];
    const auto [it, fresh] = tid_of_block.try_emplace({s.kernel, s.block}, tid);
    CHECK(it->second == tid);
    CHECK(thread_names[tid] == "block " + std::to_string(s.block));
    const auto& a = e["args"];
    CHECK(a["kind"] == std::string(fasim::name(s.kind)));
    CHECK(a["tensor"] == std::string(fasim::name(s.tensor)));
    CHECK(a["bh"] == s.bh);
    CHECK(a["qb"] == s.qb);
    CHECK(a["kb"] == s.kb);
    CHECK(a["rows"] == s.rows);
    CHECK(a["cols"] == s.cols);
    CHECK(a["hbm_read_bytes"] == s.hbm_read_bytes);
    CHECK(a["hbm_write_bytes"] == s.hbm_write_bytes);
    CHECK(a["flops_matmul"] == s.flops_matmul);
    CHECK(a["flops_other"] == s.flops_other);
    CHECK(a["sram_bytes"] == s.sram_bytes);
    CHECK(a["register_bytes"] == s.register_bytes);
    CHECK(a.contains("row_m") == s.has_row);
    CHECK(a.contains("row_l") == s.has_row);

    cum_r += s.hbm_read_bytes;
    cum_w += s.hbm_write_bytes;
    if (s.hbm_read_bytes != 0 || s.hbm_write_bytes != 0) {
      REQUIRE(next_counter < hbm.size());
      const auto& c = hbm[next_counter++];
      CHECK(c["after"] == i);
      CHECK(c["args"]["read"] == cum_r);
      CHECK(c["args"]["write"] == cum_w);
    }
  }
  CHECK(next_counter == hbm.size());
  // tids are distinct across kernels (Perfetto keys threads by tid)
  std::set<int> tids;
  for (const auto& [key, tid] : tid_of_block) tids.insert(tid);
  CHECK(tids.size() == tid_of_block.size());
  CHECK(tids.count(0) == 0);
}

TEST_CASE("trace: jsonl starts with a meta header, csv with the column names", "[trace]") {
  ScratchDir d;
  const auto steps = sample_steps();
  write_trace(TraceFormat::jsonl, d.file("t.jsonl"), steps);
  const auto jl = lines_of(d.file("t.jsonl"));
  REQUIRE(jl.size() == steps.size() + 1);
  const auto meta = nlohmann::json::parse(jl[0]);
  CHECK(meta["type"] == "meta");
  CHECK(meta["kernels"].size() == 2);
  CHECK(meta["workload"]["dtype"] == "fp16");
  CHECK(meta["time_unit_note"] == std::string(fasim::kStepIndexTimeNote));

  write_trace(TraceFormat::csv, d.file("t.csv"), steps);
  const auto csv = lines_of(d.file("t.csv"));
  CHECK(csv[0] ==
        "index,kernel,block,kind,tensor,what,bh,qb,kb,rows,cols,hbm_read_bytes,hbm_write_bytes,"
        "flops_matmul,flops_other,exps,sram_bytes,register_bytes,has_row,row_m,row_l,"
        "cum_hbm_read_bytes,cum_hbm_write_bytes,ts_us,dur_us");
  CHECK(csv[1] == "0,0,0,load,Q,\"load Q_i\",0,0,-1,64,32,8192,0,0,0,0,4096,0,0,,,8192,0,0,1");
}

TEST_CASE("trace: an empty run is a valid trace in every format", "[trace]") {
  ScratchDir d;
  for (TraceFormat f : {TraceFormat::chrome, TraceFormat::jsonl, TraceFormat::csv}) {
    const std::string path = d.file("empty." + std::string(fasim::name(f)));
    write_trace(f, path, {});
    CHECK(fasim::read_trace(path).empty());
  }
}

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
    lines.back().resize(lines.back().size() / 2);
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
    CHECK_THAT(read_error(path), Contains("(line 4)") && Contains("field 'cols' is not an integer"));
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
    bad[2] = "1,0,0,load,K,\"\",0,0,1,64,x32,8192,0,0,0,0,4096,0,0,,,16384,0,1,1";
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 3, column 26)") &&
                                     Contains("column 'cols' is not an integer: 'x32'"));
    bad = lines;
    bad[2] = "1,0,0,load,K";
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("(line 3)") && Contains("expected 25 fields, found 5"));
    bad = lines;
    bad.back() = "9,1,3,softmax,P,\"never closed";
    write_lines(path, bad);
    CHECK_THAT(read_error(path), Contains("column 17)") && Contains("never closed"));
  }
  SECTION("garbage never crashes") {
    const std::string path = d.file("g");
    for (const std::string& junk :
         {std::string("\x00\x01\xff\xfe", 4), std::string("[1,2,3]"), std::string("{\"traceEvents\":5}"),
          std::string("{\"traceEvents\":[1]}"), std::string("{\"traceEvents\":[{\"ph\":\"X\"}]}"),
          std::string(10000, '['), std::string("{\"type\":\"meta\"}\n[]\n"), std::string("index,\n"),
          std::string("{\"a\":\"\xc3\x28\"}")}) {
      std::ofstream(path, std::ios::binary) << junk;
      const std::string msg = read_error(path);
      INFO(msg);
      CHECK_THAT(msg, Contains("cannot read trace '" + path + "'"));
      CHECK(msg.find('\n') == std::string::npos);
    }
  }
}
