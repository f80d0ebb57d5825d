// Trace sinks: every format round-trips every field, and the chrome trace
// has what Perfetto needs (process/thread names, slices, counters).
#include <catch2/catch.hpp>
#include <fstream>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli_support.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/simulation.hpp"
#include "fasim/tiling.hpp"
#include "fasim/trace.hpp"
#include "fasim/trace_reader.hpp"
#include "fasim/trace_writer.hpp"
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

  CHECK_FALSE(doc.contains("displayTimeUnit"));  // ts and dur are microseconds, the format's own unit
  const auto& other = doc["otherData"];
  CHECK(other["device"] == "h100");
  CHECK(other["workload"]["N"] == 256);
  CHECK(other["mapping"]["algo"] == "naive");
  CHECK(other["time_unit_note"].get<std::string>().find("no timing model") != std::string::npos);

  std::map<int, std::string> process_names;
  std::map<int, std::string> thread_names;  // by tid
  std::map<std::tuple<int, std::int64_t, bool>, int> tid_of_block;  // by kernel, block, is a store
  std::vector<nlohmann::json> slices;
  // Cumulative counter samples by (name, pid, ts).
  std::map<std::tuple<std::string, int, double>, nlohmann::json> samples;
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
    if (ph == "C" && (e["name"] == "HBM bytes" || e["name"] == "DRAM bytes")) {
      const auto [it, fresh] = samples.try_emplace({e["name"], e["pid"], e["ts"]}, e["args"]);
      CHECK(fresh);  // one sample per counter and time
    }
  }
  CHECK(process_names[1] == "kernel 0: S = QK^T, P = softmax(S)");
  CHECK(process_names[2] == "kernel 1: O = P V");

  REQUIRE(slices.size() == steps.size());
  std::int64_t cum_r = 0, cum_w = 0, dram_r = 0, dram_w = 0;
  std::size_t counted = 0;
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
    // one tid per (kernel, block), named "block N", and one for its stores,
    // "block N stores" (these stores never overlap, so one is enough)
    const int tid = e["tid"];
    const bool store = s.kind == StepKind::store;
    const auto [it, fresh] = tid_of_block.try_emplace({s.kernel, s.block, store}, tid);
    CHECK(it->second == tid);
    CHECK(thread_names[tid] == "block " + std::to_string(s.block) + (store ? " stores" : ""));
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

    // Each kernel's counters start at 0 when its first step starts, and
    // take a sample with the kernel's totals so far at the end of each step
    // that moved bytes.
    auto expect_counter = [&](const std::string& label, std::int64_t read, std::int64_t write,
                              std::int64_t& total_r, std::int64_t& total_w) {
      if (i == 0 || steps[i - 1].kernel != s.kernel) {
        total_r = total_w = 0;
        const auto zero = samples.find({label, s.kernel + 1, static_cast<double>(i)});
        REQUIRE(zero != samples.end());
        CHECK(zero->second == nlohmann::json{{"read", 0}, {"write", 0}});
        ++counted;
      }
      total_r += read;
      total_w += write;
      if (read == 0 && write == 0) return;
      const auto c = samples.find({label, s.kernel + 1, static_cast<double>(i + 1)});
      REQUIRE(c != samples.end());
      CHECK(c->second["read"] == total_r);
      CHECK(c->second["write"] == total_w);
      ++counted;
    };
    expect_counter("HBM bytes", s.hbm_read_bytes, s.hbm_write_bytes, cum_r, cum_w);
    expect_counter("DRAM bytes", s.dram_read_bytes, s.dram_write_bytes, dram_r, dram_w);
  }
  CHECK(counted == samples.size());  // no other samples
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

TEST_CASE("trace: over several waves, slices nest on every thread and cumulative counters never fall", "[trace]") {
  // naive issues stores of P back to back; flash2 stores O, then L while O
  // is still in flight. Both run more blocks than the GPU holds at once.
  const auto algo = GENERATE(fasim::Algo::flash2, fasim::Algo::naive);
  CAPTURE(fasim::name(algo));
  const fasim::DeviceSpec dev = fasim::load_device("h200");
  const fasim::Workload w{1, algo == fasim::Algo::naive ? 80 : 140, 512, 64, fasim::DType::fp16};
  fasim::Simulation sim(dev, w, fasim::default_tiles(algo, w, dev), {.numerics = false});
  ScratchDir d;
  const std::string path = d.file("waves.json");
  fasim::TraceWriter writer(path, "chrome", sim);
  std::int64_t blocks = 0;
  while (sim.next()) {
    writer.step(sim);
    blocks = std::max(blocks, sim.step().block + 1);
  }
  writer.commit();
  CHECK(blocks > dev.sm_count * sim.blocks_per_sm());  // more than one wave

  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);  // throws if not valid JSON
  // Slices by thread; per kernel, the bytes its slices moved; cumulative
  // counter samples by (kernel, name).
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> threads;
  std::map<int, std::int64_t> hbm_read, dram_write;
  std::map<std::pair<int, std::string>, std::vector<nlohmann::json>> counters;
  // Slices of each block by (pid, block), to find stores still in flight.
  std::map<std::pair<int, std::int64_t>, std::vector<nlohmann::json>> blocks_of;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") {
      const int pid = e["pid"], tid = e["tid"];
      threads[{pid, tid}].emplace_back(e["ts"].get<double>(), e["dur"].get<double>());
      hbm_read[pid] += e["args"]["hbm_read_bytes"].get<std::int64_t>();
      dram_write[pid] += e["args"]["dram_write_bytes"].get<std::int64_t>();
      blocks_of[{pid, e["args"]["block"].get<std::int64_t>()}].push_back(e);
    }
    if (e["ph"] == "C" && (e["name"] == "HBM bytes" || e["name"] == "DRAM bytes"))
      counters[{e["pid"].get<int>(), e["name"].get<std::string>()}].push_back(e);
  }

  // The case this test is about must occur: a store that ends after the
  // block's next step has started.
  std::int64_t in_flight = 0;
  for (const auto& [key, slices] : blocks_of)
    for (std::size_t i = 0; i + 1 < slices.size(); ++i)
      if (slices[i]["cat"] == "store" &&
          slices[i]["ts"].get<double>() + slices[i]["dur"].get<double>() > slices[i + 1]["ts"].get<double>() + 1e-6)
        ++in_flight;
  CHECK(in_flight > 0);

  // Complete events on one thread must nest: each slice ends by the time the
  // one it starts inside ends. ts + dur rounds in doubles, so a slice may end
  // a hair (far below a nanosecond) after the next starts: kSlack allows it.
  constexpr double kSlack = 1e-9;  // us
  std::int64_t crossing = 0, negative = 0;
  for (auto& [key, slices] : threads) {
    std::stable_sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (a.first == b.first && a.second > b.second);  // outer first
    });
    std::vector<double> open_ends;  // ends of the slices that contain the current time
    for (const auto& [ts, dur] : slices) {
      if (dur < 0) ++negative;
      while (!open_ends.empty() && open_ends.back() <= ts + kSlack) open_ends.pop_back();
      if (!open_ends.empty() && ts + dur > open_ends.back() + kSlack) {
        if (crossing++ == 0) UNSCOPED_INFO("first crossing: pid " << key.first << " tid " << key.second << " at " << ts);
      }
      open_ends.push_back(ts + dur);
    }
  }
  CHECK(crossing == 0);
  CHECK(negative == 0);

  // Sorted by time, each cumulative counter only grows, from 0 at its
  // kernel's start to the bytes of that kernel's slices.
  REQUIRE(counters.count({1, "HBM bytes"}) == 1);
  std::int64_t falls = 0;
  for (auto& [key, samples] : counters) {
    std::stable_sort(samples.begin(), samples.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return a["ts"].get<double>() < b["ts"].get<double>();
    });
    for (std::size_t i = 1; i < samples.size(); ++i)
      for (const auto& [arg, value] : samples[i]["args"].items())
        if (value.get<std::int64_t>() < samples[i - 1]["args"][arg].get<std::int64_t>()) ++falls;
    INFO(key.second << " of pid " << key.first);
    CHECK(samples.front()["args"]["read"] == 0);
    CHECK(samples.front()["args"]["write"] == 0);
    if (key.second == "HBM bytes") CHECK(samples.back()["args"]["read"] == hbm_read[key.first]);
    else CHECK(samples.back()["args"]["write"] == dram_write[key.first]);
  }
  CHECK(falls == 0);
}

TEST_CASE("trace: chrome keeps a writeback step that wrote nothing back", "[trace]") {
  // Kernel 0's L2 wrote nothing back, kernel 1's wrote 512 B. Both steps
  // stay, so the trace viewer numbers the steps as the other formats do.
  std::vector<Step> steps;
  steps.push_back(sample_step(StepKind::load, fasim::TensorId::Q, 0, 0, 8192, 0));
  Step wb = sample_step(StepKind::writeback, fasim::TensorId::S, 0, -1, 0, 0, "L2 write-backs not yet counted");
  wb.sram_bytes = wb.register_bytes = wb.l2_fabric_bytes = wb.dram_read_bytes = wb.dram_write_bytes = 0;
  steps.push_back(wb);
  steps.push_back(sample_step(StepKind::load, fasim::TensorId::K, 1, 0, 8192, 0));
  wb.kernel = 1;
  wb.dram_write_bytes = 512;
  steps.push_back(wb);
  ScratchDir d;
  const std::string path = d.file("t.json");
  write_trace(TraceFormat::chrome, path, steps);
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  std::vector<int> slice_indices, l2_track_pids;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") slice_indices.push_back(e["args"]["index"]);
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "L2 write-backs")
      l2_track_pids.push_back(e["pid"]);
  }
  CHECK(slice_indices == std::vector<int>{0, 1, 2, 3});
  CHECK(l2_track_pids == std::vector<int>{1, 2});
}
