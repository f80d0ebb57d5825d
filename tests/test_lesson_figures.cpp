// Device figures and profiler figures in lessons: `fasim run --json` carries
// the device's figures (device_spec), a lesson's marks read them and read
// recorded ncu CSVs, and no lesson types a built-in device's figure by hand.
// Tag [lesson].
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"
#include "fasim/report.hpp"

using Catch::Contains;
using namespace fasim;
namespace fs = std::filesystem;

namespace {

const std::string kSource = FASIM_SOURCE_DIR;

// flash2 on a small shape; only --device is read from the flags.
std::unique_ptr<Simulation> small_run(const std::vector<std::string>& args, bool numerics) {
  std::string device = "toy";
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--device") device = args[i + 1];
  Workload w;
  w.N = 16;
  w.d = 4;
  SimOptions o;
  o.numerics = numerics;
  return std::make_unique<Simulation>(load_device(device), w, Mapping{parse_algo("flash2").value(), 4, 4}, o);
}

nlohmann::json report_of(const std::string& device) {
  const std::unique_ptr<Simulation> sim = small_run({"--device", device}, false);
  sim->run();
  return report_json(*sim, std::nullopt);
}

// A number as a lesson would type it: 132, 989.4, 3350 (and 3,350).
std::vector<std::string> typed(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  std::vector<std::string> out = {buf};
  if (x == std::round(x) && x >= 1000) out.push_back(with_commas(static_cast<std::int64_t>(x)));
  return out;
}

// A lesson's text with its checked numbers ({{ }}) and its ```fasim and
// ```recorded blocks (flags, not figures) left out.
std::string prose_of(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string out;
  bool skip = false;
  std::istringstream lines(ss.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```fasim", 0) == 0 || line.rfind("```recorded", 0) == 0) skip = true;
    if (!skip) out += line + "\n";
    if (line == "```") skip = false;
  }
  out = std::regex_replace(out, std::regex(R"(\{\{[^}]*\}\})"), "#");
  return std::regex_replace(out, std::regex(R"(\s+)"), " ");  // a figure may wrap
}

}  // namespace

TEST_CASE("report: device_spec holds the device's figures and device stays its name", "[lesson]") {
  for (const std::string name : {"h100", "a100", "toy"}) {
    INFO(name);
    const DeviceSpec d = load_device(name);
    const nlohmann::json r = report_of(name);
    CHECK(r.at("device") == name);  // a string, as scripts and the viewer read it
    const nlohmann::json& s = r.at("device_spec");
    CHECK(s.at("name") == d.name);
    CHECK(s.at("sm_count") == d.sm_count);
    CHECK(s.at("clock_hz") == d.clock_hz);
    CHECK(s.at("sram_bytes_per_sm") == d.sram_bytes_per_sm);
    CHECK(s.at("sram_bytes_per_block") == d.sram_bytes_per_block);
    CHECK(s.at("l2_bytes") == d.l2_bytes);
    CHECK(s.at("l2_partitions") == d.l2_partitions);
    CHECK(s.at("l2_sector_bytes") == d.l2_sector_bytes);
    CHECK(s.at("hbm_bandwidth") == d.hbm_bandwidth);
    CHECK(s.at("matmul_flops").at("fp16") == d.matmul_flops_fp16);
    CHECK(s.at("matmul_flops").at("fp32") == d.matmul_flops_fp32);
    CHECK(s.at("exp_rate") == d.exp_rate);
    CHECK(s.at("balance_point").at("fp16").get<double>() == d.matmul_flops_fp16 / d.hbm_bandwidth);
  }
  // The figures follow the device: two devices, two sets.
  CHECK(report_of("h100")["device_spec"]["sm_count"] != report_of("a100")["device_spec"]["sm_count"]);
}

TEST_CASE("lesson: a mark reads a device figure of the run it names", "[lesson]") {
  ScenarioReports reports(small_run);
  const Lesson L = parse_lesson("# T\n\nIntro.\n", "lessons/00-t.md");
  LessonNumbers numbers(L, reports);
  const DeviceSpec h100 = load_device("h100");
  CHECK(numbers.expand("{{ device_spec.sm_count of --device h100 }} SMs", 1) == std::to_string(h100.sm_count) + " SMs");
  CHECK(numbers.value("device_spec.l2_bytes of --device h100", 1) == h100.l2_bytes);
  CHECK(numbers.value("calc: [device_spec.matmul_flops.fp16 of --device h100] / [device_spec.hbm_bandwidth of "
                      "--device h100]",
                      1)
            .get<double>() == Approx(h100.matmul_flops_fp16 / h100.hbm_bandwidth).epsilon(1e-12));
  CHECK(numbers.value("device_spec.sm_count of --device toy", 1) == load_device("toy").sm_count);
  CHECK_THROWS_WITH(numbers.expand("{{ device_spec.sms of --device h100 }}", 3),
                    Contains("lessons/00-t.md:3: unknown key 'device_spec.sms'") && Contains("sm_count"));
}

TEST_CASE("lesson: a mark reads a recorded ncu metric, its path beside the lesson, and may wrap", "[lesson]") {
  ScenarioReports reports(small_run);
  const Lesson L = parse_lesson("# T\n\nIntro.\n", kSource + "/lessons/08-t.md");
  LessonNumbers numbers(L, reports);
  const std::string flags = "--ncu ../docs/results/h200-2026-11-21-ncu.csv --algo flash2 --dtype fp32 --N 2048";
  RecordedProfiles direct;
  const nlohmann::json& part = direct.get({kSource + "/docs/results/h200-2026-11-21-ncu.csv",
                                           {{"--algo", "flash2"}, {"--dtype", "fp32"}, {"--N", "2048"}}});
  const double busy = part["metrics"]["compute_workload_analysis"]["issue_slots_busy"].get<double>();
  CHECK(numbers.value("metrics.compute_workload_analysis.issue_slots_busy of " + flags, 1).get<double>() == busy);
  CHECK(numbers.value("launches of " + flags, 1) == part["launches"]);
  // A mark in a paragraph may break across lines.
  CHECK(numbers.expand("{{ metrics.compute_workload_analysis.issue_slots_busy\n  of " + flags + " | .2 }}", 1) ==
        format_value(busy, ".2"));
  CHECK_THROWS_WITH(numbers.expand("{{ metrics.nope of " + flags + " }}", 5),
                    Contains("08-t.md:5: unknown key 'metrics.nope'") && Contains("dram__bytes_read"));
  CHECK_THROWS_WITH(numbers.expand("{{ launches of --ncu ../docs/results/h200-2026-11-21-ncu.csv --algo flash2 }}", 6),
                    Contains("08-t.md:6:") && Contains("add flags that keep one"));
}

// Device figures come from device_spec marks: a lesson that types "132 SMs"
// or "3350 GB/s" by hand would go stale when a profile changes.
TEST_CASE("lessons type no built-in device's figure by hand", "[lesson]") {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(kSource + "/lessons")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".md" || name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    ++seen;
    const std::string prose = prose_of(e.path().string());
    for (const DeviceSpec& d : builtin_devices()) {
      std::vector<std::string> figures;
      for (const auto& n : typed(static_cast<double>(d.sm_count))) figures.push_back(n + " SMs");
      for (const auto& n : typed(d.matmul_flops_fp16 / 1e12)) figures.push_back(n + " TFLOP/s");
      for (const auto& n : typed(d.hbm_bandwidth / 1e9)) figures.push_back(n + " GB/s");
      for (const auto& n : typed(d.clock_hz / 1e9)) figures.push_back(n + " GHz");
      for (const auto& n : typed(static_cast<double>(d.l2_bytes) / (1 << 20))) figures.push_back(n + " MiB of L2");
      for (const auto& n : typed(static_cast<double>(d.l2_bytes) / (1 << 20))) figures.push_back(n + " MiB L2");
      for (const std::string& f : figures) {
        INFO(name << " types the " << d.name << " figure '" << f << "'; write {{ device_spec.KEY of ... }}");
        CHECK(prose.find(f) == std::string::npos);
      }
    }
  }
  CHECK(seen >= 10);
}

// Lesson 06 counts the extra loads of a paged KV cache by hand and shows
// fasim's count beside it: the two must agree.
TEST_CASE("lesson 06's claim holds: paged K/V adds one step per extra page a tile touches", "[lesson]") {
  auto steps = [](std::int64_t page) {
    Workload w;
    w.N = 1;
    w.N_kv = 4096;
    w.d = 128;
    w.heads = 32;
    w.kv_heads = 8;
    w.page_size = page;
    Mapping m{parse_algo("decode").value(), 4, 64};
    m.splits = 4;
    SimOptions o;
    o.numerics = false;
    Simulation sim(load_device("h100"), w, m, o);
    sim.run();
    return sim.ledger().steps();
  };
  const std::int64_t contiguous = steps(0);
  for (const std::int64_t page : {128, 96, 32, 16}) {
    INFO("page size " << page);
    std::int64_t extra = 0;  // pages a 64-row tile touches, less one, over the tiles of K and V of 8 heads
    for (std::int64_t lo = 0; lo < 4096; lo += 64) extra += (lo + 63) / page - lo / page;
    extra *= 2 * 8;
    CHECK(steps(page) - contiguous == extra);
  }
  // The lesson's closed forms.
  CHECK(steps(96) - contiguous == (4095 / 96 + 1) / 2 * 2 * 8);
  CHECK(steps(16) - contiguous == 4096 / 64 * 3 * 2 * 8);
}
