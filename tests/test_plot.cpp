// Plots: scales and tick labels, the SVG writer, the three figures built from
// sweep files, and `fasim plot` end to end. Tag [plot].
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/figures.hpp"
#include "user_error_text.hpp"

using namespace fasim;
using fasim::test::read_text;
using fasim::test::run_fasim;
using fasim::test::ScratchDir;
using Catch::Matchers::Contains;

using fasim::test::error_of;

namespace {

const std::string kSweeps = std::string(FASIM_TEST_DATA) + "/sweeps/";

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

/// Well-formed enough: one root, every element closed, no raw '&'.
void require_svg(const std::string& svg) {
  INFO(svg.substr(0, 600));
  REQUIRE(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK_THAT(svg, Contains("viewBox=\"0 0 800 500\""));
  CHECK(svg.find("</svg>") == svg.size() - 7);
  CHECK(count(svg, "<g") == count(svg, "</g>"));
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK_FALSE(std::regex_search(svg, std::regex("&(?!(amp|lt|gt|quot|apos);)")));
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("href") == std::string::npos);  // nothing from outside
}

}  // namespace

TEST_CASE("tick labels read as people write sizes and rates", "[plot]") {
  CHECK(tick_label(1024, TickStyle::bytes) == "1 KiB");
  CHECK(tick_label(1048576, TickStyle::bytes) == "1 MiB");
  CHECK(tick_label(256.0 * 1048576, TickStyle::bytes) == "256 MiB");
  CHECK(tick_label(1.5 * 1073741824, TickStyle::bytes) == "1.5 GiB");
  CHECK(tick_label(512, TickStyle::bytes) == "512 B");
  CHECK(tick_label(1e15, TickStyle::si) == "1 P");
  CHECK(tick_label(100e12, TickStyle::si) == "100 T");
  CHECK(tick_label(1000, TickStyle::number) == "1000");
  CHECK(tick_label(512, TickStyle::number) == "512");
  CHECK(tick_label(8192, TickStyle::number) == "8K");
  CHECK(tick_label(16384, TickStyle::number) == "16K");
  CHECK(tick_label(32768, TickStyle::number) == "32K");
  CHECK(tick_label(1048576, TickStyle::number) == "1M");
  CHECK(tick_label(1e6, TickStyle::number) == "10⁶");
  CHECK(tick_label(0.1, TickStyle::number) == "0.1");
}

TEST_CASE("scales: ticks increase, sit inside the axis and map monotonically", "[plot]") {
  struct Case {
    Axis axis;
    double lo, hi;
  };
  for (const Case& c : {Case{{"x", true, 10}, 3, 4e6}, Case{{"x", true, 2, TickStyle::bytes}, 3e5, 7e10},
                        Case{{"x", true, 2}, 512, 16384}, Case{{"x", true, 10}, 20, 70},
                        Case{{"x", false, 10, TickStyle::bytes, true}, 2e7, 4.3e8}, Case{{"x", false}, -3, 17},
                        Case{{"x", true, 10}, 5, 5}}) {
    const Scale s = make_scale(c.axis, c.lo, c.hi);
    INFO("log " << c.axis.log << " base " << c.axis.log_base << " [" << c.lo << ", " << c.hi << "]");
    REQUIRE(s.ticks.size() >= 2);
    CHECK(s.ticks.size() <= 12);
    CHECK(s.fraction(c.lo) >= -1e-9);
    CHECK(s.fraction(c.hi) <= 1 + 1e-9);
    for (std::size_t i = 0; i < s.ticks.size(); ++i) {
      CHECK(s.fraction(s.ticks[i].value) >= -1e-9);
      CHECK(s.fraction(s.ticks[i].value) <= 1 + 1e-9);
      CHECK_FALSE(s.ticks[i].label.empty());
      if (i > 0) CHECK(s.fraction(s.ticks[i].value) > s.fraction(s.ticks[i - 1].value));
    }
  }
  // Log decades: 10, 100, 1000, ... exactly.
  const Scale d = make_scale({"x", true, 10}, 10, 1e4);
  CHECK(d.ticks.front().value == Approx(10));
  CHECK(d.ticks[1].value == Approx(100));
}

TEST_CASE("render_svg: escaped text, one polyline per line series, legend entries", "[plot]") {
  Chart c;
  c.title = "A <title> & more";
  c.x = {"N (sequence length)", true, 2};
  c.y = {"HBM traffic (bytes)", true, 2, TickStyle::bytes};
  c.series.push_back({.name = "naive", .color = "#d62728", .points = {{512, 1e6}, {1024, 4e6}}});
  // -1 cannot be drawn on a log axis: left out.
  c.series.push_back({.name = "flash2", .color = "#1f77b4", .points = {{512, 5e5}, {1024, 1e6}, {2048, -1}}});
  c.series.push_back({.name = "dots", .color = "#000", .points = {{600, 2e6}}, .line = false});
  const std::string svg = render_svg(c);
  require_svg(svg);
  CHECK_THAT(svg, Contains("A &lt;title&gt; &amp; more"));
  CHECK(count(svg, "<polyline") == 2);
  CHECK_THAT(svg, Contains(">N (sequence length)</text>"));
  CHECK_THAT(svg, Contains(">HBM traffic (bytes)</text>"));
  for (const char* name : {">naive</text>", ">flash2</text>", ">dots</text>"}) CHECK_THAT(svg, Contains(name));
}

TEST_CASE("bytes-vs-n: one line per algorithm, log-log, from a counting-only sweep", "[plot]") {
  const SweepTable rows = read_table(kSweeps + "bytes_vs_n.csv");
  const Chart c = make_figure(Figure::bytes_vs_n, rows, "bytes_vs_n.csv");
  REQUIRE(c.series.size() == 3);
  CHECK(c.series[0].name == "naive");
  CHECK(c.series[1].name == "flash1");
  CHECK(c.series[2].name == "flash2");
  CHECK(c.series[0].points.size() == 4);
  CHECK((c.x.log && c.y.log));
  CHECK_THAT(c.title, Contains("h100, d=64, fp16"));
  CHECK_THAT(c.subtitle, Contains("Held fixed: batch=1, heads=1"));
  // naive moves N^2 terms: more bytes than flash2 at every N.
  for (std::size_t i = 0; i < 4; ++i) CHECK(c.series[0].points[i].second > c.series[2].points[i].second);
  const std::string svg = render_svg(c);
  require_svg(svg);
  CHECK(count(svg, "<polyline") == 3);
  CHECK_THAT(svg, Contains("HBM traffic (bytes)"));
  CHECK_THAT(svg, Contains("N (sequence length)"));
}

TEST_CASE("block-size: bytes against Bc, time on a second axis only when the sweep has it", "[plot]") {
  const SweepTable rows = read_table(kSweeps + "block_size.csv");
  const Chart c = make_figure(Figure::block_size, rows, "block_size.csv");
  REQUIRE(c.series.size() == 2);
  CHECK_FALSE(c.y2.has_value());
  CHECK_THAT(c.subtitle, Contains("time: not in this sweep"));
  CHECK_THAT(c.x.title, Contains("Bc"));
  // flash1 re-reads Q and O once per key block: fewer bytes as Bc grows.
  const auto& f1 = c.series[0].points;
  for (std::size_t i = 1; i < f1.size(); ++i) CHECK(f1[i].second < f1[i - 1].second);

  SweepTable timed;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    FlatRow row;
    for (const std::string& col : rows.columns())
      if (!rows.at(r, col).is_null()) row.set(col, rows.at(r, col));
    row.set("time.seconds", 1e-5 * static_cast<double>(r + 1));
    timed.add(row);
  }
  const Chart t = make_figure(Figure::block_size, timed, "timed.csv");
  REQUIRE(t.series.size() == 4);
  REQUIRE(t.y2.has_value());
  CHECK(t.series[2].right_axis);
  const std::string svg = render_svg(t);
  require_svg(svg);
  CHECK_THAT(svg, Contains("predicted time (µs)"));

  CHECK_THAT(error_of([&] { make_figure(Figure::block_size, read_table(kSweeps + "bytes_vs_n.csv"), "n.csv"); }),
             Contains("n.csv: Br and Bc do not vary within any algorithm"));
}

TEST_CASE("roofline: the device's roof, its ridge, each run on the roof without time", "[plot]") {
  const SweepTable rows = read_table(kSweeps + "bytes_vs_n.csv");
  const Chart c = make_figure(Figure::roofline, rows, "bytes_vs_n.csv");
  const DeviceSpec h100 = load_device("h100");
  const double ridge = h100.matmul_flops(DType::fp16) / h100.hbm_bandwidth;
  REQUIRE(c.labels.size() == 1);
  CHECK(c.labels[0].x == Approx(ridge));
  CHECK_THAT(c.labels[0].text, Contains("ridge: 295 FLOP/B"));
  CHECK_THAT(c.subtitle, Contains("no time.seconds"));
  REQUIRE(c.series.size() == 4);  // the roof and naive, flash1, flash2
  for (std::size_t s = 1; s < 4; ++s)
    for (auto [x, y] : c.series[s].points) CHECK(y == Approx(std::min(h100.matmul_flops(DType::fp16), x * h100.hbm_bandwidth)));
  require_svg(render_svg(c));

  const Chart a = make_figure(Figure::roofline, rows, "bytes_vs_n.csv", "a100");
  const DeviceSpec a100 = load_device("a100");
  CHECK(a.labels[0].x == Approx(a100.matmul_flops(DType::fp16) / a100.hbm_bandwidth));
}

TEST_CASE("fasim plot: sweep, then plot, bad input is one error line", "[plot][cli]") {
  ScratchDir dir;
  const std::string csv = dir.file("x.csv"), jsonl = dir.file("x.jsonl"), svg = dir.file("x.svg");
  REQUIRE(run_fasim({"sweep", "--N", "256:1024:x2", "--algo", "naive,flash2", "--out", csv}).exit_code == 0);
  auto r = run_fasim({"plot", csv, "--figure", "bytes-vs-n", "--out", svg});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const std::string text = read_text(svg);
  require_svg(text);
  CHECK(count(text, "<polyline") == 2);

  REQUIRE(run_fasim({"sweep", "--N", "512", "--br", "16:64:x2", "--algo", "flash1", "--out", jsonl}).exit_code == 0);
  r = run_fasim({"plot", jsonl, "--figure", "block-size"});  // SVG on stdout
  REQUIRE(r.exit_code == 0);
  require_svg(r.out);
  REQUIRE(run_fasim({"plot", jsonl, "--figure", "roofline", "--device", "h200", "--out", svg}).exit_code == 0);

  auto error = [](const fasim::test::ProcessResult& p, const std::string& part) {
    INFO(p.describe());
    CHECK(p.exit_code == 2);
    CHECK(p.out.empty());
    CHECK(p.err.rfind("fasim: error: ", 0) == 0);
    CHECK(std::count(p.err.begin(), p.err.end(), '\n') == 1);
    CHECK_THAT(p.err, Contains(part));
  };
  error(run_fasim({"plot", csv, "--figure", "pie", "--out", svg}), "unknown figure 'pie'");
  error(run_fasim({"plot", dir.file("none.csv"), "--figure", "roofline"}),
        "cannot read sweep file '" + dir.file("none.csv") + "': No such file or directory");
  error(run_fasim({"plot", kSweeps + "bad_row.csv", "--figure", "bytes-vs-n", "--out", dir.file("b.svg")}),
        "bad_row.csv:3:");
  error(run_fasim({"plot", csv, "--figure", "roofline", "--device", "nosuch"}), "nosuch");
  CHECK(dir.entries() == std::vector<std::string>{"x.csv", "x.jsonl", "x.svg"});
}

TEST_CASE("predicted-vs-measured: a panel of bytes and one of time, y = x and bands", "[plot]") {
  const std::string dir = std::string(FASIM_TEST_DATA) + "/compare/";
  SweepTable rows = read_table(dir + "bytes.csv");
  const SweepTable time = read_table(dir + "time.csv");
  for (std::size_t r = 0; r < time.size(); ++r) {
    FlatRow row;
    for (const std::string& c : time.columns()) row.set(c, time.at(r, c));
    rows.add(row);
  }
  const std::vector<Chart> panels = make_figure_panels(Figure::predicted_vs_measured, rows, "compare");
  REQUIRE(panels.size() == 2);
  const Chart& bytes = panels[0];
  CHECK_THAT(bytes.title, Contains("Predicted vs measured bytes: NVIDIA H200"));
  {  // Runs of two GPUs: the title counts them, the subtitle names them.
    SweepTable two = rows;
    FlatRow other;
    for (const std::string& c : rows.columns()) other.set(c, rows.at(0, c));
    other.set("device", "NVIDIA H100 80GB HBM3");
    two.add(other);
    const Chart both = make_figure_panels(Figure::predicted_vs_measured, two, "compare")[0];
    CHECK(both.title == "Predicted vs measured bytes: 2 GPUs");
    CHECK_THAT(both.subtitle, Contains("on NVIDIA H100 80GB HBM3, NVIDIA H200"));
  }
  CHECK((bytes.x.log && bytes.y.log && bytes.same_scale));
  CHECK(bytes.x.title == "measured (bytes)");
  REQUIRE(bytes.bands.size() == 2);
  CHECK(bytes.bands[1].factor == Approx(1.1));
  // y = x first, then the counters in level order, whatever the file order.
  std::vector<std::string> names;
  for (const Series& s : bytes.series) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"y = x: prediction exact", "HBM read", "HBM written", "L2 read",
                                          "DRAM read", "DRAM written"});
  CHECK(bytes.series[1].points == std::vector<std::pair<double, double>>{{4325376, 4325376}});  // (measured, predicted)
  CHECK(bytes.series[4].points == std::vector<std::pair<double, double>>{{600000, 393216}});
  CHECK(bytes.series[5].points.empty());  // predicted 0: not on a log axis, and said so
  CHECK_THAT(bytes.subtitle, Contains("1 point with a 0 (DRAM written) left out"));
  CHECK_THAT(bytes.subtitle, Contains("4 recorded runs (2026-11-21, 2026-11-22)"));

  const Chart& t = panels[1];
  CHECK_THAT(t.title, Contains("Predicted vs measured time"));
  CHECK(t.x.title == "measured time (µs)");
  REQUIRE(t.series.size() == 3);
  CHECK(t.series[1].name == "naive fp32");  // naive first, whatever the file order
  CHECK(t.series[1].marker == Marker::circle);  // fp32
  CHECK(t.series[2].name == "flash2 fp16");
  CHECK(t.series[2].marker == Marker::triangle);
  CHECK(t.series[2].points[0].first == Approx(38));  // µs
  CHECK(t.series[2].points[0].second == Approx(19));

  const std::string svg = render_svg(panels);
  INFO(svg.substr(0, 400));
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"1000\" viewBox=\"0 0 800 1000\"", 0) == 0);
  CHECK(count(svg, "<g transform=\"translate(0 500)\">") == 1);
  CHECK(count(svg, "<clipPath id=\"plot-area-1\">") == 1);
  CHECK(count(svg, "<clipPath id=\"plot-area-2\">") == 1);
  CHECK(count(svg, "<polygon fill=\"#2b8a3e\"") == 5);  // 2 + 3 bands
  CHECK_THAT(svg, Contains(">within 10%</text>"));
  CHECK(count(svg, "<g") == count(svg, "</g>"));
  CHECK(count(svg, "<text") == count(svg, "</text>"));

  CHECK_THAT(error_of([&] { predicted_vs_measured(read_table(kSweeps + "bytes_vs_n.csv"), "n.csv"); }),
             Contains("n.csv: no rows with metric, predicted and measured; this figure reads the long-form CSV"));
}

TEST_CASE("fasim plot: several files make one figure", "[plot][cli]") {
  ScratchDir dir;
  const std::string data = std::string(FASIM_TEST_DATA) + "/compare/", svg = dir.file("pvm.svg");
  const auto r = run_fasim({"plot", data + "bytes.csv", data + "time.csv", "--figure", "predicted-vs-measured", "--out", svg});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("bytes.csv and 1 more -> " + svg));
  const std::string text = read_text(svg);
  CHECK_THAT(text, Contains("Predicted vs measured bytes"));
  CHECK_THAT(text, Contains("Predicted vs measured time"));
  const auto bad = run_fasim({"plot", data + "bytes.csv", kSweeps + "bytes_vs_n.csv", "--figure", "predicted-vs-measured"});
  CHECK(bad.exit_code == 0);  // the sweep's rows have no metric: ignored, the compare rows draw
  const auto none = run_fasim({"plot", kSweeps + "bytes_vs_n.csv", "--figure", "predicted-vs-measured", "--out", svg + "2"});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Contains("no rows with metric, predicted and measured"));
  CHECK(dir.entries() == std::vector<std::string>{"pvm.svg"});
}

TEST_CASE("gpu-bench: TFLOP/s against N, a panel per d and mask, fasim solid and PyTorch dashed", "[plot]") {
  const std::string file = std::string(FASIM_TEST_DATA) + "/gpu-bench/small.csv";
  const std::vector<Chart> panels = make_figure_panels(Figure::gpu_bench, read_table(file), "bench.csv");
  // d = 64 non-causal, d = 64 causal; the d = 128 row has tflops 0: no panel.
  REQUIRE(panels.size() == 2);
  const Chart& plain = panels[0];
  CHECK_THAT(plain.title, Contains("d = 64, non-causal (NVIDIA H200)"));
  CHECK_THAT(panels[1].title, Contains("d = 64, causal"));
  CHECK_THAT(panels[1].subtitle, Contains("4 batch heads N^2 d / 2 / time"));
  CHECK((plain.x.log && plain.x.log_base == 2 && !plain.y.log && plain.y.from_zero));
  CHECK(plain.y.title == "speed (TFLOP/s)");
  // Legend order is fixed (fasim v6 first, PyTorch next), not the file's order.
  REQUIRE(plain.series.size() == 3);
  CHECK(plain.series[0].name == "fasim v6 flash2-fast");
  CHECK(plain.series[0].dash.empty());
  CHECK(plain.series[0].points == std::vector<std::pair<double, double>>{{512, 68.7195}, {1024, 137.439}});
  CHECK(plain.series[1].name == "PyTorch SDPA FlashAttention-2");
  CHECK(plain.series[1].dash == "6 4");
  CHECK(plain.series[2].name == "fasim v1 naive (fp32 math)");
  CHECK_FALSE(plain.series[2].line);  // one point: a marker, no line
  CHECK_THAT(plain.subtitle, Contains("Left out (unknown implementation): torch-flash3."));

  CHECK_THAT(error_of([&] { gpu_bench_panels(read_table(kSweeps + "bytes_vs_n.csv"), "n.csv"); }),
             Contains("n.csv has no 'impl' column; gpu-bench needs the CSV scripts/gpu-bench.sh writes"));
  ScratchDir dir;
  const auto r = run_fasim({"plot", file, "--figure", "gpu-bench", "--out", dir.file("b.svg")});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(count(read_text(dir.file("b.svg")), "<g transform=\"translate(0 500)\">") == 1);
}

TEST_CASE("sweep files: a corrupt number is refused with file:line, column and fix", "[plot]") {
  const std::string head = "device,mapping.algo,workload.N,hbm.read_bytes\nh100,naive,512,100\n";
  auto csv_error = [&](const std::string& row) { return error_of([&] { parse_csv(head + row + "\n", "s.csv"); }); };
  // 1e308 for N drew -nan coordinates; nan and abc silently dropped the row.
  CHECK(csv_error("h100,naive,1e308,100") ==
        "s.csv:3: column 'workload.N' value '1e308' is not an integer in 1..16777216; fix the row or sweep again");
  for (const char* n : {"nan", "inf", "abc", "512.5", "0", "-512", "16777217"})
    CHECK_THAT(csv_error(std::string("h100,naive,") + n + ",100"),
               Contains(std::string("column 'workload.N' value '") + n + "' is not an integer"));
  for (const char* b : {"-5", "inf", "nan", "1e308", "lots"})
    CHECK(csv_error(std::string("h100,naive,512,") + b) == std::string("s.csv:3: column 'hbm.read_bytes' value '") + b +
                                                               "' is not a number in 0..1e18; fix the row or sweep again");
  // Rows that record an error carry no results and are skipped by every reader: kept as they are.
  CHECK(parse_csv("workload.N,error\nabc,\"N too large\"\n", "s.csv").size() == 1);
  CHECK(parse_csv(head, "s.csv").size() == 1);
  // JSON lines: the same checks, the value as JSON writes it.
  CHECK(error_of([] { parse_jsonl("{\"workload\": {\"N\": 1e308}}\n", "s.jsonl"); }) ==
        "s.jsonl:1: column 'workload.N' value '1e+308' is not an integer in 1..16777216; fix the row or sweep again");
  CHECK_THAT(error_of([] { parse_jsonl("{\"workload\": {\"N\": 512}}\n{\"hbm\": {\"read_bytes\": -5}}\n", "s.jsonl"); }),
             Contains("s.jsonl:2: column 'hbm.read_bytes' value '-5' is not a number in 0..1e18"));
  CHECK(parse_jsonl("{\"workload\": {\"N\": 512.0}}\n", "s.jsonl").size() == 1);
}

TEST_CASE("gpu-bench and compare CSVs: d = 1e300 or predicted = 1e308 are refused, not drawn", "[plot]") {
  // d = 1e300 was cast to int: "d = -2147483648" (undefined behaviour).
  CHECK(error_of([] { parse_csv("impl,causal,N,d,tflops\nfasim-v6-flash2-fast,0,512,1e300,5\n", "b.csv"); }) ==
        "b.csv:2: column 'd' value '1e300' is not an integer in 1..16777216; fix the row or write the file again");
  CHECK_THAT(error_of([] { parse_csv("impl,causal,N,d,tflops\nx,2,512,64,5\n", "b.csv"); }),
             Contains("b.csv:2: column 'causal' value '2' is not 0 or 1"));
  CHECK_THAT(error_of([] { parse_csv("impl,causal,N,d,tflops\nx,0,512,64,inf\n", "b.csv"); }),
             Contains("column 'tflops' value 'inf' is not a number in 0..1e18"));
  CHECK_THAT(error_of([] { parse_csv("metric,predicted,measured\nhbm_read_bytes,1e308,75497472\n", "c.csv"); }),
             Contains("c.csv:2: column 'predicted' value '1e308' is not a number in 0..1e18"));
  // A table built by hand still never reaches the cast.
  SweepTable t;
  FlatRow row;
  row.cells = {{"impl", "fasim-v6-flash2-fast"}, {"causal", 0}, {"N", 512}, {"d", 1e300}, {"tflops", 5}};
  t.add(row);
  CHECK_THAT(error_of([&] { gpu_bench_panels(t, "b.csv"); }), Contains("d must be an integer in 1..16777216"));
  // No recorded CSV in docs/results trips these checks (some are not tables at all: probe logs).
  std::size_t tables = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(FASIM_SOURCE_DIR) + "/docs/results"))
    if (e.path().extension() == ".csv") {
      const std::string why = error_of([&] { read_table(e.path().string()); });
      INFO(why);
      CHECK(why.find("column '") == std::string::npos);
      tables += why == "(no error)" ? 1 : 0;
    }
  CHECK(tables > 20);
}

TEST_CASE("fasim plot: a corrupt sweep file is one error line and no SVG", "[plot][cli]") {
  ScratchDir dir;
  const std::string csv = dir.file("x.csv"), svg = dir.file("x.svg");
  REQUIRE(run_fasim({"sweep", "--N", "256:1024:x2", "--algo", "naive,flash2", "--out", csv}).exit_code == 0);
  std::string text = read_text(csv);
  const auto at = text.find(",256,");  // the first row's N
  REQUIRE(at != std::string::npos);
  text.replace(at, 5, ",1e308,");
  fasim::test::write_text(csv, text);
  const auto r = run_fasim({"plot", csv, "--figure", "bytes-vs-n", "--out", svg});
  INFO(r.describe());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "fasim: error: " + csv +
                     ":2: column 'workload.N' value '1e308' is not an integer in 1..16777216; fix the row or sweep again\n");
  CHECK(dir.entries() == std::vector<std::string>{"x.csv"});
}
