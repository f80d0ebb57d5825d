// Sweeps: range parsing, the order of the grid, rows equal to separate runs,
// error rows, CSV / JSON lines round trips, and `fasim sweep` end to end.
// Tag [sweep].
#include <catch2/catch.hpp>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/report.hpp"
#include "fasim/sweep.hpp"
#include "fasim/tiling.hpp"
#include "user_error_text.hpp"

using namespace fasim;
using fasim::test::run_fasim;
using fasim::test::ScratchDir;
using Catch::Matchers::Contains;
using V = std::vector<std::int64_t>;

using fasim::test::error_of;

namespace {

SweepSpec small_spec() {
  SweepSpec s;
  s.devices = {load_device("h100")};
  s.algos = {Algo::naive, Algo::flash2};
  s.d = {32, 64};
  s.N = {256, 512, 1024};
  return s;
}

/// One-line fasim error: exit 2, nothing on stdout, one "fasim: error:" line.
void require_user_error(const fasim::test::ProcessResult& r, const std::string& part) {
  INFO(r.describe());
  REQUIRE(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("fasim: error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Contains(part));
}

}  // namespace

TEST_CASE("integer axes: values, lists and ranges", "[sweep]") {
  CHECK(parse_int_axis("--N", "1024") == V{1024});
  CHECK(parse_int_axis("--N", "512,1024, 4096") == V{512, 1024, 4096});
  CHECK(parse_int_axis("--N", "512:16384:x2") == V{512, 1024, 2048, 4096, 8192, 16384});
  CHECK(parse_int_axis("--N", "512:10000:x2") == V{512, 1024, 2048, 4096, 8192});  // stops at the last <= END
  CHECK(parse_int_axis("--br", "16:128:+16") == V{16, 32, 48, 64, 80, 96, 112, 128});
  CHECK(parse_int_axis("--br", "16:20:+16") == V{16});
  CHECK(parse_int_axis("--d", "32,64:256:x2") == V{32, 64, 128, 256});
  CHECK(parse_int_axis("--N", "7:7:x3") == V{7});
  // Near the top of int64, no overflow: 2^0 .. 2^62.
  CHECK(parse_int_axis("--N", "1:9223372036854775807:x2").size() == 63);
}

TEST_CASE("integer axes: each mistake is one line naming the flag, the text and the syntax", "[sweep]") {
  CHECK(error_of([] { parse_int_axis("--N", "512:100:x2"); }) ==
        "--N '512:100:x2': the range end is below its start; write START:END:xFACTOR or START:END:+STEP");
  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b : {Bad{"", "no values"}, Bad{"abc", "not a positive whole number"},
                       Bad{"0", "not a positive whole number"}, Bad{"-5", "not a positive whole number"},
                       Bad{"512,,1024", "an empty item"}, Bad{"99999999999999999999", "not a positive whole number"},
                       Bad{"512:1024", "three parts"}, Bad{"512:1024:x1", "factor must be a whole number >= 2"},
                       Bad{"512:1024:x", "factor"}, Bad{"16:128:+0", "step must be a positive whole number"},
                       Bad{"16:128:16", "must start with x"}, Bad{"a:128:+16", "the start 'a'"},
                       Bad{"16:b:+16", "the end 'b'"}, Bad{"1:1000000:+1", "more than 100,000"}}) {
    const std::string msg = error_of([&] { parse_int_axis("--br", b.text); });
    INFO(b.text << " -> " << msg);
    CHECK_THAT(msg, Contains("--br '"));
    CHECK_THAT(msg, Contains(b.says));
    CHECK_THAT(msg, Contains("; "));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("name axes: algorithms and dtypes", "[sweep]") {
  CHECK(parse_algo_axis("--algo", "naive,flash1,flash2") == std::vector{Algo::naive, Algo::flash1, Algo::flash2});
  CHECK(parse_dtype_axis("--dtype", "fp32, bf16") == std::vector{DType::fp32, DType::bf16});
  CHECK_THAT(error_of([] { parse_algo_axis("--algo", "naive,flash3"); }),
             Contains("--algo 'flash3': unknown algorithm; use one or more of naive, flash1, flash2"));
  CHECK_THAT(error_of([] { parse_dtype_axis("--dtype", "fp8"); }), Contains("--dtype 'fp8': unknown dtype"));
  CHECK_THAT(error_of([] { parse_name_list("--device", "h100,"); }), Contains("an empty item"));
}

TEST_CASE("the grid: count and a fixed order, N fastest", "[sweep]") {
  const SweepSpec s = small_spec();
  REQUIRE(sweep_size(s) == 12);
  const std::vector<SweepPoint> p = sweep_points(s);
  REQUIRE(p.size() == 12);
  CHECK((p[0].algo == Algo::naive && p[0].workload.d == 32 && p[0].workload.N == 256));
  CHECK((p[1].algo == Algo::naive && p[1].workload.d == 32 && p[1].workload.N == 512));
  CHECK((p[3].algo == Algo::naive && p[3].workload.d == 64 && p[3].workload.N == 256));
  CHECK((p[6].algo == Algo::flash2 && p[6].workload.d == 32 && p[6].workload.N == 256));
  CHECK((p[11].algo == Algo::flash2 && p[11].workload.d == 64 && p[11].workload.N == 1024));
  for (const SweepPoint& x : p) CHECK_FALSE(x.br.has_value());  // default tiles
  CHECK(describe(s, p[6]) == "N=256 d=32 flash2");

  SweepSpec t = small_spec();
  t.br = {32, 64};  // Br alone: square tiles, as `fasim run --br`
  const std::vector<SweepPoint> q = sweep_points(t);
  REQUIRE(q.size() == 24);
  CHECK((q[0].br == 32 && q[0].bc == 32 && q[3].br == 64 && q[3].bc == 64));

  SweepSpec big = small_spec();
  big.N = parse_int_axis("--N", "1:100000:+1");
  CHECK_THAT(error_of([&] { sweep_points(big); }), Contains("more than 100,000"));
}

TEST_CASE("each row holds exactly what a separate run reports", "[sweep]") {
  const SweepSpec s = small_spec();
  const SweepTable t = run_sweep(s);
  const std::vector<SweepPoint> points = sweep_points(s);
  REQUIRE(t.size() == points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    Simulation sim(s.devices[0], p.workload, default_tiles(p.algo, p.workload, s.devices[0]), s.options);
    sim.run();
    FlatRow expected;
    flatten_into(expected, report_json(sim, std::nullopt));
    INFO("point " << i << ": " << describe(s, p));
    CHECK(t.at(i, "hbm.read_bytes") == sim.ledger().hbm_total().read_bytes);
    CHECK(t.at(i, "workload.N") == p.workload.N);
    CHECK(t.at(i, "error").is_null());
    for (const auto& [key, value] : expected.cells) {
      INFO(key);
      // The device's figures are the same in every row: the sweep leaves
      // them out (the "device" column names the profile).
      if (key.rfind("device_spec.", 0) == 0) CHECK_FALSE(t.has(key));
      else CHECK(t.at(i, key) == value);
    }
  }
  // naive writes S and P, flash2 does not: the cell is absent, not zero.
  CHECK(t.at(0, "hbm.by_tensor.S.write_bytes").is_number());
  CHECK(t.at(6, "hbm.by_tensor.S.write_bytes").is_null());
  CHECK_FALSE(t.has("kernels"));  // arrays are left out
}

TEST_CASE("a point whose tiles do not fit gives an error row, the sweep goes on", "[sweep]") {
  SweepSpec s;
  s.devices = {load_device("h100")};
  s.d = {128};
  s.N = {1024};
  s.br = {64, 256};
  s.bc = {256};
  const SweepTable t = run_sweep(s);
  REQUIRE(t.size() == 2);
  CHECK(t.at(0, "error").is_null());
  CHECK(t.at(0, "hbm.read_bytes").is_number());
  CHECK_THAT(t.text(1, "error"), Contains("do not fit h100"));
  CHECK(t.at(1, "mapping.br") == 256);
  CHECK(t.at(1, "workload.d") == 128);
  CHECK(t.at(1, "device") == "h100");
  CHECK(t.at(1, "hbm.read_bytes").is_null());
  CHECK(t.columns()[9] == "error");  // after the nine settings
}

TEST_CASE("CSV and JSON lines round trip: types, quoting, absent cells", "[sweep]") {
  SweepTable t;
  FlatRow a, b;
  a.set("device", "h100");
  a.set("workload.N", 4096);
  a.set("zeta", 1.0 / 3.0);
  a.set("big", 1e300);
  a.set("whole_double", 2.0);
  a.set("text", "has, a comma and \"quotes\"");
  a.set("looks_numeric", "123");
  a.set("empty_text", "");
  a.set("flag", true);
  b.set("device", "a100");
  b.set("error", "tiles do not fit; use --br 64");
  t.add(a);
  t.add(b);
  CHECK(t.columns() == std::vector<std::string>{"device", "workload.N", "error", "big", "empty_text", "flag",
                                                "looks_numeric", "text", "whole_double", "zeta"});
  for (TableFormat f : {TableFormat::csv, TableFormat::jsonl}) {
    std::ostringstream out;
    write_table(out, t, f);
    const SweepTable back = f == TableFormat::csv ? parse_csv(out.str(), "t.csv") : parse_jsonl(out.str(), "t.jsonl");
    INFO(out.str());
    REQUIRE(back.size() == 2);
    CHECK(back.columns() == t.columns());
    for (std::size_t r = 0; r < 2; ++r)
      for (const std::string& c : t.columns()) {
        INFO("row " << r << " column " << c);
        CHECK(back.at(r, c) == t.at(r, c));
        CHECK(back.at(r, c).type() == t.at(r, c).type());
      }
  }
}

TEST_CASE("reading a bad sweep file names the file and the line", "[sweep]") {
  const std::string data = std::string(FASIM_TEST_DATA) + "/sweeps/";
  CHECK_THAT(error_of([&] { read_table(data + "bad_row.csv"); }), Contains("bad_row.csv:3: 4 cells, but the header has 5"));
  CHECK_THAT(error_of([&] { read_table(data + "bad_line.jsonl"); }), Contains("bad_line.jsonl:2: not valid JSON"));
  CHECK_THAT(error_of([&] { read_table(data + "missing.csv"); }),
             Contains("cannot read sweep file '" + data + "missing.csv': No such file or directory"));
  CHECK_THAT(error_of([] { parse_csv("a,b\n1,\"2\n", "q.csv"); }), Contains("q.csv:2: a quoted cell is never closed"));
  CHECK_THAT(error_of([] { parse_csv("a,a\n1,2\n", "d.csv"); }), Contains("d.csv:1: column 'a' appears twice"));
  CHECK_THAT(error_of([] { parse_csv("\n", "e.csv"); }), Contains("e.csv:1: the file is empty"));
  CHECK_THAT(error_of([] { parse_jsonl("[1,2]\n", "l.jsonl"); }), Contains("l.jsonl:1: expected one JSON object"));
  // CRLF line ends and nested JSON are fine.
  CHECK(parse_csv("a,b\r\n1,x\r\n", "c.csv").at(0, "b") == "x");
  CHECK(parse_jsonl("{\"hbm\":{\"read_bytes\":5}}\n", "n.jsonl").at(0, "hbm.read_bytes") == 5);
}

TEST_CASE("fasim sweep: CSV to a file or stdout, JSON lines, one-line errors", "[sweep][cli]") {
  ScratchDir dir;
  const std::string csv = dir.file("s.csv");
  auto r = run_fasim({"sweep", "--N", "256,512", "--algo", "naive,flash2", "--out", csv});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());  // stderr is not a terminal: no progress bar
  CHECK(r.out == "sweep: 4 points -> " + csv + "\n");
  const SweepTable t = read_table(csv);
  REQUIRE(t.size() == 4);
  CHECK(t.at(1, "workload.N") == 512);
  CHECK(t.at(2, "mapping.algo") == "flash2");
  CHECK(dir.entries() == std::vector<std::string>{"s.csv"});

  r = run_fasim({"sweep", "--N", "256", "--d", "32,64"});
  REQUIRE(r.exit_code == 0);
  CHECK(fasim::test::split_lines(r.out).size() == 3);
  CHECK(r.out.rfind("device,mapping.algo,workload.dtype,", 0) == 0);

  r = run_fasim({"sweep", "--N", "256", "--format", "jsonl", "--br", "64,512", "--d", "128"});
  REQUIRE(r.exit_code == 0);
  const auto lines = fasim::test::split_lines(r.out);
  REQUIRE(lines.size() == 2);
  CHECK(nlohmann::json::parse(lines[0]).at("hbm.read_bytes").is_number_integer());
  CHECK(nlohmann::json::parse(lines[1]).at("error").is_string());  // 512x512 tiles do not fit

  // A scenario fixes the other settings (its tiles, 64 x 64); counting only unless --numerics.
  const std::string scenario = std::string(FASIM_SOURCE_DIR) + "/configs/scenarios/quickstart.toml";
  r = run_fasim({"sweep", "--scenario", scenario, "--N", "128,256", "--numerics", "--out", dir.file("q.jsonl")});
  REQUIRE(r.exit_code == 0);
  const SweepTable q = read_table(dir.file("q.jsonl"));
  REQUIRE(q.size() == 2);
  CHECK((q.at(0, "mapping.br") == 64 && q.at(1, "mapping.bc") == 64 && q.at(1, "workload.N") == 256));
  CHECK(q.at(0, "numerics.max_abs_error").is_number());
  r = run_fasim({"sweep", "--scenario", scenario});
  CHECK_FALSE(r.out.find("numerics.") != std::string::npos);
  std::filesystem::remove(dir.file("q.jsonl"));

  require_user_error(run_fasim({"sweep", "--N", "512:100:x2", "--out", dir.file("x.csv")}),
                     "--N '512:100:x2': the range end is below its start; write START:END:xFACTOR or START:END:+STEP");
  require_user_error(run_fasim({"sweep", "--algo", "flash9"}), "--algo 'flash9': unknown algorithm");
  require_user_error(run_fasim({"sweep", "--format", "xml"}), "unknown format 'xml'");
  require_user_error(run_fasim({"sweep", "--out", dir.file("no/such/dir/x.csv")}), "cannot write");
  require_user_error(run_fasim({"sweep", "--N", "1:400:+1", "--d", "1:400:+1"}), "more than 100,000");
  CHECK(dir.entries() == std::vector<std::string>{"s.csv"});  // no partial or temporary files
}

TEST_CASE("fasim sweep --scenario keeps every setting of the scenario: a point equals the run", "[sweep][cli]") {
  ScratchDir dir;
  const std::string scenario = dir.file("window.toml");
  fasim::test::write_text(scenario,
                          "[workload]\nheads = 4\nkv_heads = 1\nN = 256\ncausal = true\nwindow = 32\n"
                          "[mapping]\nbr = 128\ndouble_buffer = true\n");
  auto r = run_fasim({"sweep", "--scenario", scenario, "--N", "256,512", "--out", dir.file("s.csv")});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  const SweepTable t = read_table(dir.file("s.csv"));
  REQUIRE(t.size() == 2);
  // The sweep dropped all but batch, heads, N, d and dtype: causal=false,
  // kv_heads=4 and 655,360 bytes read at N=256.
  CHECK(t.at(0, "workload.causal") == true);
  CHECK(t.at(0, "workload.window") == 32);
  CHECK(t.at(0, "workload.kv_heads") == 1);
  CHECK(t.at(0, "mapping.double_buffer") == true);
  // N=256, 128 x 128 tiles, 4 heads, d=64 fp16: Q is 4*256*64*2 = 131,072 B;
  // query block 0 sees key tile 0, block 1 (rows 128..255, keys 97..255)
  // tiles 0 and 1: 3 K and 3 V tiles of 16,384 B per head, 393,216 B.
  CHECK(t.at(0, "hbm.read_bytes") == 131072 + 393216);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string N = i == 0 ? "256" : "512";
    r = run_fasim({"run", "--scenario", scenario, "--N", N, "--no-numerics", "--json"});
    REQUIRE(r.exit_code == 0);
    const nlohmann::json run = nlohmann::json::parse(r.out);
    CHECK(t.at(i, "hbm.read_bytes") == run["hbm"]["read_bytes"].get<std::int64_t>());
    CHECK(t.at(i, "hbm.write_bytes") == run["hbm"]["write_bytes"].get<std::int64_t>());
    CHECK(t.at(i, "time.seconds") == run["time"]["seconds"].get<double>());
  }
}

TEST_CASE("fasim sweep --jobs: the same bytes whatever the number of jobs", "[sweep][cli]") {
  ScratchDir dir;
  // Points of unequal cost (naive is the slowest; 512 x 512 tiles fail at once),
  // so parallel jobs finish out of grid order; the rows must not.
  const std::vector<std::string> grid = {"sweep", "--N", "1024,256,512", "--algo", "naive,flash1,flash2",
                                         "--d", "64,128", "--br", "64,512"};
  auto sweep = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = grid;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_fasim(args);
  };
  const auto serial = sweep({"--jobs", "1"});
  INFO(serial.describe());
  REQUIRE(serial.exit_code == 0);
  REQUIRE(fasim::test::split_lines(serial.out).size() == 1 + 36);
  for (const char* jobs : {"2", "7"}) {
    const auto parallel = sweep({"--jobs", jobs});
    INFO(parallel.describe());
    REQUIRE(parallel.exit_code == 0);
    CHECK(parallel.out == serial.out);
  }
  CHECK(sweep({}).out == serial.out);  // the default: one job per core

  const std::string one = dir.file("one.jsonl"), many = dir.file("many.jsonl");
  REQUIRE(sweep({"--jobs", "1", "--out", one}).exit_code == 0);
  REQUIRE(sweep({"--jobs", "3", "--out", many}).exit_code == 0);
  CHECK(fasim::test::read_text(many) == fasim::test::read_text(one));

  for (const char* bad : {"0", "-1", "two", "2.5", "5000"})
    require_user_error(run_fasim({"sweep", "--jobs", bad}),
                       "--jobs '" + std::string(bad) + "' is not a whole number from 1 to 1024; write e.g. --jobs 2");
}
