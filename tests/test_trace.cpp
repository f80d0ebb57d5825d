// Trace sinks: every format round-trips every field, and the chrome trace
// has what Perfetto needs (process/thread names, slices, counters).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/trace.hpp"
#include "fasim/trace_reader.hpp"
#include "trace_samples.hpp"

using fasim::Step;
using fasim::StepKind;
using fasim::TraceFormat;
using namespace fasim::test;

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
  std::vector<nlohmann::json> hbm, dram;
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
    if (ph == "C" && e["name"] == "DRAM bytes") dram.push_back({{"after", slices.size() - 1}, {"args", e["args"]}});
  }
  CHECK(process_names[1] == "kernel 0: S = QK^T, P = softmax(S)");
  CHECK(process_names[2] == "kernel 1: O = P V");

  REQUIRE(slices.size() == steps.size());
  std::int64_t cum_r = 0, cum_w = 0, dram_r = 0, dram_w = 0;
  std::size_t next_counter = 0, next_dram = 0;
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
        : s.what.empty() ? std::string(fasim::name(s.kind))
                         : std::string(s.what);
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

    // A counter event follows each step that moves bytes, with the totals so far.
    auto expect_counter = [i](const std::vector<nlohmann::json>& events, std::size_t& next, std::int64_t read,
                              std::int64_t write, std::int64_t& total_r, std::int64_t& total_w) {
      total_r += read;
      total_w += write;
      if (read == 0 && write == 0) return;
      REQUIRE(next < events.size());
      const auto& c = events[next++];
      CHECK(c["after"] == i);
      CHECK(c["args"]["read"] == total_r);
      CHECK(c["args"]["write"] == total_w);
    };
    expect_counter(hbm, next_counter, s.hbm_read_bytes, s.hbm_write_bytes, cum_r, cum_w);
    expect_counter(dram, next_dram, s.dram_read_bytes, s.dram_write_bytes, dram_r, dram_w);
  }
  CHECK(next_counter == hbm.size());
  CHECK(next_dram == dram.size());
  CHECK(dram_r > 0);
  CHECK(dram_w > 0);
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
        "flops_matmul,flops_other,exps,sram_bytes,register_bytes,row0,col0,l2_read_bytes,"
        "l2_write_bytes,l2_hit_bytes,dram_read_bytes,dram_write_bytes,l2_fabric_bytes,sm,has_row,row_m,row_l,"
        "cum_hbm_read_bytes,cum_hbm_write_bytes,ts_us,dur_us");
  CHECK(csv[1] == "0,0,0,load,Q,\"load Q_i\",0,0,-1,64,32,8192,0,0,0,0,4096,0,0,0,8192,0,4096,4096,0,2048,3,0,,,8192,0,0,1");
}

TEST_CASE("trace: an empty run is a valid trace in every format", "[trace]") {
  ScratchDir d;
  for (TraceFormat f : {TraceFormat::chrome, TraceFormat::jsonl, TraceFormat::csv}) {
    const std::string path = d.file("empty." + std::string(fasim::name(f)));
    write_trace(f, path, {});
    CHECK(fasim::read_trace(path).empty());
  }
}
