// The fit of the model to a recorded GPU run as numbers (recorded_fit.hpp):
// picking points, counting them within their bars, the JSON that
// `fasim compare --recorded --json` prints, and the ```recorded blocks of a
// lesson that read it. Tag [fidelity][lesson].
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/lesson.hpp"
#include "fasim/lesson_numbers.hpp"
#include "fasim/recorded_fit.hpp"

using Catch::Contains;
using Catch::StartsWith;
using namespace fasim;
using fasim::test::run_fasim;

namespace {

const std::string kSweep = std::string(FASIM_SOURCE_DIR) + "/docs/results/h200-2026-11-22-sweep.csv";
const char* kHeader = "device,driver,date,algo,dtype,batch,heads,N,d,br,bc,l2_mode,metric,predicted,measured\n";

std::string write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

// Measured = predicted x this factor, per metric: HBM exact, L2 reads 5% over
// (in the 10% bar), L2 writes exact, DRAM reads 50% over, DRAM writes half,
// drained DRAM writes 8% under (in the bar), time 4x (the other three outside their bars).
constexpr double kFactor[kMetricCount] = {1, 1, 1.05, 1, 1.5, 0.5, 0.92, 4};
constexpr std::size_t kTime = static_cast<std::size_t>(Metric::time_s);
static_assert(kTime == kMetricCount - 1);

// Two flash2 points on the h200 profile, their "measurements" made from the
// simulator's own predictions by kFactor, so every error is known exactly.
struct Synthetic {
  test::ScratchDir dir;
  std::string csv;
  std::vector<MetricValues> predicted;
  Synthetic() {
    const std::string rows[] = {"NVIDIA H200,580,2026-11-21,flash2,fp16,1,2,256,64,64,64,cold,",
                                "NVIDIA H200,580,2026-11-21,flash2,fp16,1,2,512,64,64,64,cold,"};
    std::string probe = kHeader;  // first pass: the predictions
    for (const auto& row : rows)
      for (std::size_t m = 0; m < kMetricCount; ++m) probe += row + name(static_cast<Metric>(m)) + ",1,1\n";
    const auto points = read_recorded_csv(write(dir.path() / "probe.csv", probe));
    for (const Reprediction& r : repredict(points, load_device("h200"))) predicted.push_back(r.predicted);
    std::string text = kHeader;
    for (std::size_t p = 0; p < 2; ++p)
      for (std::size_t m = 0; m < kMetricCount; ++m) {
        char measured[64];
        std::snprintf(measured, sizeof measured, "%.17g", predicted[p][m] * kFactor[m]);
        text += rows[p] + name(static_cast<Metric>(m)) + ",0," + measured + "\n";
      }
    csv = write(dir.path() / "run-sweep.csv", text);
  }
};

// Lessons here never run a scenario.
std::unique_ptr<Simulation> no_runs(const std::vector<std::string>&, bool) {
  throw UserError("this test runs no scenarios");
}

}  // namespace

TEST_CASE("recorded selection: --recorded FILE, --device and one-value filters", "[fidelity]") {
  const RecordedSelection s =
      parse_recorded_selection({"fasim", "compare", "--recorded", "x-sweep.csv", "--algo", "flash2", "--N", "4096"});
  CHECK(s.csv == "x-sweep.csv");
  CHECK(s.device.empty());
  REQUIRE(s.filters.size() == 2);
  CHECK(s.filters[1] == std::make_pair(std::string("--N"), std::string("4096")));
  CHECK(parse_recorded_selection({"--device", "h200", "--recorded", "y.csv"}).device == "h200");

  CHECK_THROWS_WITH(parse_recorded_selection({"--algo", "flash2"}), StartsWith("no recorded run named; add --recorded"));
  CHECK_THROWS_WITH(parse_recorded_selection({"--recorded", "x.csv", "--window", "8"}),
                    StartsWith("unknown flag '--window' for recorded points"));
  CHECK_THROWS_WITH(parse_recorded_selection({"--recorded"}), StartsWith("--recorded needs a value"));
  CHECK_THROWS_WITH(parse_recorded_selection({"--recorded", "x.csv", "--N", "--d", "64"}), StartsWith("--N needs a value"));
  CHECK_THROWS_WITH(parse_recorded_selection({"--recorded", "x.csv", "--N", "1", "--N", "2"}),
                    StartsWith("--N is given twice"));
}

TEST_CASE("recorded fit: points in bar, mean and largest error follow from predicted and measured", "[fidelity]") {
  Synthetic run;
  const auto points = read_recorded_csv(run.csv);
  const auto reps = repredict(points, load_device("h200"));
  REQUIRE(reps.size() == 2);
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    const auto metric = static_cast<Metric>(m);
    INFO(name(metric));
    const MetricFit f = fit_of(reps, metric);
    // |p - f p| / (f p), and 0 where nothing was predicted (nor measured).
    double sum = 0, max = 0;
    int in_bar = 0;
    for (const MetricValues& p : run.predicted) {
      const double error = p[m] == 0 ? 0 : std::abs((1 - kFactor[m]) / kFactor[m] * 100);
      sum += error;
      max = std::max(max, error);
      in_bar += bar_pct(metric) == 0 ? kFactor[m] == 1 || p[m] == 0 : error <= bar_pct(metric);
    }
    CHECK(f.points == 2);
    CHECK(f.mean_abs_error_pct == Approx(sum / 2).margin(1e-9));
    CHECK(f.max_abs_error_pct == Approx(max).margin(1e-9));
    CHECK(f.in_bar == in_bar);
  }
  // The factors put time outside its bar at both points.
  CHECK(fit_of(reps, Metric::time_s).in_bar == 0);

  const nlohmann::json all = recorded_fit_json(reps, load_device("h200"), {run.csv, "h200", {}});
  CHECK(all["points"] == 2);
  CHECK(all["gpu"] == "NVIDIA H200");
  CHECK(all["fit"]["time_s"]["bar_pct"] == bar_pct(Metric::time_s));
  CHECK(all["spec"]["l2_bytes"] == load_device("h200").l2_bytes);
  CHECK(all["spec"]["fp32_flops"] == load_device("h200").fp32_flops);
  CHECK(all["misses"] == find_misses(reps).size());
  CHECK_FALSE(all.contains("measured"));  // per-point keys only for one point

  const auto one = select_recorded(reps, {{"--N", "512"}});
  REQUIRE(one.size() == 1);
  const nlohmann::json j = recorded_fit_json(one, load_device("h200"), {run.csv, "h200", {{"--N", "512"}}});
  CHECK(j["point"] == describe(*one[0].point));
  CHECK(j["filters"]["N"] == "512");
  CHECK(j["predicted"]["time_s"].get<double>() == run.predicted[1][kTime]);
  CHECK(j["measured"]["time_s"].get<double>() == Approx(run.predicted[1][kTime] * kFactor[kTime]));
  CHECK(j["error_pct"]["time_s"].get<double>() == Approx(error_pct(run.predicted[1][kTime], run.predicted[1][kTime] * 4)));
  CHECK(j["bound"] == one[0].bound);
  // This CSV gives no ranges: the least and most are there, empty.
  CHECK(j["measured_min"].empty());
  CHECK(j["measured_max"].empty());
}

TEST_CASE("recorded fit: one point's least and most are the CSV's own cells", "[fidelity][slow]") {
  // The H200 sweep counted in 8 placements: flash1 fp16 N=4096 d=128's DRAM
  // reads, found in the file by hand (no fasim code reads this row).
  const std::string csv = std::string(FASIM_SOURCE_DIR) + "/docs/results/h200-2026-11-23-placements8.csv";
  std::ifstream in(csv);
  std::string line, row;
  while (std::getline(in, line))
    if (line.find(",flash1,fp16,1,16,4096,128,64,64,cold,dram_read_bytes,") != std::string::npos) row = line;
  REQUIRE_FALSE(row.empty());
  std::vector<std::string> cells;
  for (std::size_t at = 0;;) {
    const std::size_t comma = row.find(',', at);
    cells.push_back(row.substr(at, comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  REQUIRE(cells.size() == 17);
  RecordedFits fits;
  int notes = 0;
  std::size_t noted_points = 0;
  fits.on_predict = [&](const std::string& file, std::size_t points) {
    ++notes;
    noted_points = points;
    CHECK(file == csv);
  };
  RecordedSelection one;
  one.csv = csv;
  one.device = std::string(FASIM_SOURCE_DIR) + "/docs/results/h200-2026-11-22-measured.toml";
  one.filters = {{"--algo", "flash1"}, {"--dtype", "fp16"}, {"--N", "4096"}, {"--d", "128"}};
  const nlohmann::json& j = fits.get(one);
  REQUIRE(j["points"] == 1);
  CHECK(j["measured"]["dram_read_bytes"].get<double>() == std::stod(cells[14]));
  CHECK(j["measured_min"]["dram_read_bytes"].get<double>() == std::stod(cells[15]));
  CHECK(j["measured_max"]["dram_read_bytes"].get<double>() == std::stod(cells[16]));
  CHECK(j["measured_min"]["dram_read_bytes"].get<double>() < j["measured_max"]["dram_read_bytes"].get<double>());

  // The file was predicted once, and the note named all its points: one
  // time_s row per point. A second selection of the same file predicts nothing.
  std::ifstream again(csv);
  std::size_t time_rows = 0;
  while (std::getline(again, line)) time_rows += line.find(",time_s,") != std::string::npos;
  CHECK(notes == 1);
  CHECK(noted_points == time_rows);
  one.filters = {{"--algo", "flash2"}};
  (void)fits.get(one);
  CHECK(notes == 1);
}

TEST_CASE("recorded fit: a filter that keeps nothing names the values there are", "[fidelity]") {
  Synthetic run;
  const auto points = read_recorded_csv(run.csv);
  const auto reps = repredict(points, load_device("h200"));
  CHECK(select_recorded(reps, {{"--algo", "flash2"}, {"--l2", "cold"}}).size() == 2);
  CHECK_THROWS_WITH(select_recorded(reps, {{"--N", "1024"}}),
                    "no recorded point has --N 1024; the points there have --N 256, 512");
  CHECK_THROWS_WITH(select_recorded(reps, {{"--N", "256"}, {"--d", "128"}}),
                    StartsWith("no recorded point has --d 128 (with the filters before it); the points there have --d 64"));
  // Points not yet predicted are picked the same way.
  const auto kept = select_recorded(points, {{"--N", "512"}});
  REQUIRE(kept.size() == 1);
  CHECK(describe(kept[0]) == describe(*select_recorded(reps, {{"--N", "512"}})[0].point));
  CHECK_THROWS_WITH(select_recorded(points, {{"--algo", "naive"}}),
                    "no recorded point has --algo naive; the points there have --algo flash2");
}

TEST_CASE("recorded fit: the H200 sweep is read once and keeps HBM exact at every point", "[fidelity][slow]") {
  RecordedFits fits;
  RecordedSelection all;
  all.csv = kSweep;
  const nlohmann::json& j = fits.get(all);
  const auto points = read_recorded_csv(kSweep);
  CHECK(j["points"] == points.size());
  CHECK(j["device"] == load_device(recorded_device_path(kSweep)).name);
  for (const char* m : {"hbm_read_bytes", "hbm_write_bytes"}) CHECK(j["fit"][m]["in_bar"] == points.size());
  RecordedSelection one = all;
  one.filters = {{"--algo", "flash2"}, {"--dtype", "fp16"}, {"--N", "4096"}, {"--d", "64"}};
  const nlohmann::json& p = fits.get(one);
  REQUIRE(p["points"] == 1);
  // HBM requests are the kernel's own counters: the simulator's count exactly.
  CHECK(p["predicted"]["hbm_read_bytes"] == p["measured"]["hbm_read_bytes"]);
  CHECK(&fits.get(one) == &p);  // cached
}

TEST_CASE("lesson: a recorded block's numbers are those of its fit", "[lesson][fidelity]") {
  Synthetic run;
  const std::string md = "# T\n\nIntro.\n\n## A\n\n```recorded all\n--recorded run-sweep.csv --device h200\n```\n\n"
                         "```recorded small\nfasim compare --recorded run-sweep.csv --device h200 --N 256\n```\n\n"
                         "In bar: {{ fit.time_s.in_bar of all }}. Measured: {{ measured.time_s of small | raw }}.\n"
                         "Ratio: {{ calc: [measured.dram_read_bytes of small] / [predicted.dram_read_bytes of small] }}.\n"
                         "Inline: {{ points of --recorded run-sweep.csv --device h200 --d 64 }}.\n";
  const std::string origin = (run.dir.path() / "08-x.md").string();  // paths are relative to the lesson
  const Lesson L = parse_lesson(md, origin);
  REQUIRE(L.recorded.size() == 2);
  CHECK(L.recorded_named("small")->args.front() == "--recorded");  // "fasim compare" dropped
  CHECK(L.sections[0].blocks[0].kind == LessonBlockKind::recorded);

  ScenarioReports reports(no_runs);
  LessonNumbers numbers(L, reports);
  const std::string text = numbers.expand(L.sections[0].blocks[2].text, L.sections[0].blocks[2].line);
  CHECK_THAT(text, Contains("In bar: 0."));  // time is 4x at both points
  char measured[64];
  std::snprintf(measured, sizeof measured, "%.17g", run.predicted[0][kTime] * kFactor[kTime]);
  CHECK(numbers.value("measured.time_s of small", 1).get<double>() == Approx(std::stod(measured)));
  CHECK(numbers.value("calc: [measured.dram_read_bytes of small] / [predicted.dram_read_bytes of small]", 1).get<double>() ==
        Approx(kFactor[4]));
  CHECK_THAT(text, Contains("Inline: 2."));
  CHECK(numbers.recorded_report(L.recorded[0])["points"] == 2);
  CHECK(numbers.recorded_selection(L.recorded[0]).csv == run.csv);

  // A key of one point on a block of two: the fix is a filter.
  CHECK_THROWS_WITH(numbers.value("measured.time_s of all", 5),
                    Contains(":5: 'measured.time_s' is a key of one point, but 'all' keeps 2 recorded points; add filters"));
  CHECK_THROWS_WITH(numbers.value("fit.time.in_bar of all", 6), Contains("unknown key 'fit.time.in_bar'"));
}

TEST_CASE("lesson: a bad recorded block is one error naming its line", "[lesson][fidelity]") {
  auto parse = [](const std::string& block) {
    return parse_lesson("# T\n\n## A\n\n" + block + "\n", "x.md");
  };
  CHECK_THROWS_WITH(parse("```recorded\n--recorded a.csv\n```"), StartsWith("x.md:5: a ```recorded block takes one name"));
  CHECK_THROWS_WITH(parse("```recorded r\n--recorded a.csv --frob 1\n```"),
                    StartsWith("x.md:5: unknown flag '--frob' for recorded points"));
  CHECK_THROWS_WITH(parse("```recorded r\n--algo flash2\n```"), StartsWith("x.md:5: no recorded run named"));
  CHECK_THROWS_WITH(parse("```fasim r\n--N 16\n```\n\n```recorded r\n--recorded a.csv\n```"),
                    StartsWith("x.md:9: a scenario named 'r' already exists"));

  const Lesson L = parse("```recorded r\n--recorded missing-sweep.csv --device h200\n```\n\n{{ points of r }}");
  ScenarioReports reports(no_runs);
  LessonNumbers numbers(L, reports);
  CHECK_THROWS_WITH(numbers.recorded_report(L.recorded[0]), StartsWith("x.md:5: this recorded run does not load: "));
  CHECK_THROWS_WITH(numbers.value("points of r", 9), StartsWith("x.md:9: the recorded run of 'r' does not load: "));
}

TEST_CASE("compare --recorded: filters, one point's table and --json, no GPU needed", "[fidelity][cli][slow]") {
  const auto json = run_fasim({"compare", "--recorded", kSweep, "--json"}, std::nullopt, fasim::test::kWholeSweepsTimeout);
  INFO(json.describe());
  REQUIRE(json.exit_code == 0);
  RecordedFits fits;
  RecordedSelection all;
  all.csv = kSweep;
  CHECK(nlohmann::json::parse(json.out) == fits.get(all));

  const auto one = run_fasim({"compare", "--recorded", kSweep, "--algo", "flash2", "--dtype", "fp16", "--N", "4096",
                              "--d", "64"},
                             std::nullopt, fasim::test::kWholeSweepsTimeout);
  INFO(one.describe());
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Contains("1 of " + std::to_string(read_recorded_csv(kSweep).size()) +
                               " points: --algo flash2 --dtype fp16 --N 4096 --d 64"));
  CHECK_THAT(one.out, Contains("quantity"));
  for (const char* label : {"HBM read bytes (requests)", "HBM write bytes (requests)"}) {
    const auto at = one.out.find(label);
    REQUIRE(at != std::string::npos);
    CHECK(one.out.substr(at, one.out.find('\n', at) - at).ends_with("exact"));
  }
  // The sweep kept each counter's least and most: the row ends with them.
  const auto kept = select_recorded(read_recorded_csv(kSweep),
                                    {{"--algo", "flash2"}, {"--dtype", "fp16"}, {"--N", "4096"}, {"--d", "64"}});
  REQUIRE(kept.size() == 1);
  const auto dram = static_cast<std::size_t>(Metric::dram_read_bytes);
  REQUIRE(kept[0].measured_min[dram]);
  CHECK_THAT(one.out, Contains("GPU range (least - most)"));
  const auto at = one.out.find("DRAM read bytes");
  REQUIRE(at != std::string::npos);
  CHECK(one.out.substr(at, one.out.find('\n', at) - at)
            .ends_with(with_commas(std::llround(*kept[0].measured_min[dram])) + " - " +
                       with_commas(std::llround(*kept[0].measured_max[dram]))));
  // What of the predicted DRAM bytes is not the kernel's data: the tensor-core
  // kernel's code (72 KiB, code_fetch_bytes) and the GPU's background writes.
  CHECK_THAT(one.out, Contains("predicted DRAM reads include 73,728 B of the kernels' code"));
  const auto reps =
      repredict(kept, load_device(std::string(FASIM_SOURCE_DIR) + "/docs/results/h200-2026-11-22-measured.toml"));
  REQUIRE(reps.size() == 1);
  CHECK(reps[0].code_fetch_bytes == 72 * 1024);
  CHECK_THAT(one.out, Contains("and DRAM writes " + with_commas(std::llround(reps[0].background_write_bytes)) +
                               " B of the GPU's background writes"));

  const auto none = run_fasim({"compare", "--recorded", kSweep, "--algo", "decode"});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, StartsWith("fasim: error: no recorded point has --algo decode; the points there have --algo "));
}

TEST_CASE("lesson 08: recorded blocks show their command, summary and one point's table", "[lesson][fidelity][cli][slow]") {
  const std::string lesson = std::string(FASIM_SOURCE_DIR) + "/lessons/08-sim-vs-gpu.md";
  const auto page = run_fasim({"lesson", lesson, "--markdown"}, std::nullopt, fasim::test::kWholeSweepsTimeout);
  INFO(page.describe());
  REQUIRE(page.exit_code == 0);
  CHECK_THAT(page.out, Contains("**Recorded run** (`one`):"));
  CHECK_THAT(page.out, Contains("docs/results/h200-2026-11-22-sweep.csv --algo flash2 --dtype fp16 --N 4096 --d 64"));
  CHECK_THAT(page.out, Contains("| quantity | predicted | measured | error |"));
  CHECK_THAT(page.out, Contains("| HBM read bytes (requests) |"));
  CHECK_THAT(page.out, !Contains("{{"));

  // The closed form of the lesson's HBM section is the recorded count.
  RecordedFits fits;
  RecordedSelection one;
  one.csv = kSweep;
  one.filters = {{"--algo", "flash2"}, {"--dtype", "fp16"}, {"--N", "4096"}, {"--d", "64"}};
  const nlohmann::json& p = fits.get(one);
  CHECK(p["measured"]["hbm_read_bytes"].get<double>() == 16.0 * 4096 * 64 * 2 * (1 + 2 * 32));
  CHECK_THAT(page.out, Contains("| measured | " + test::with_commas(p["measured"]["hbm_read_bytes"].get<long long>()) + " |"));
}

TEST_CASE("compare --recorded and a lesson's recorded block: one point and one miss in the singular", "[fidelity][cli]") {
  Synthetic s;
  // Time only: 4x at N 256 (outside its bar), as predicted at N 512.
  const std::string rows[] = {"NVIDIA H200,580,2026-11-21,flash2,fp16,1,2,256,64,64,64,cold,time_s,0,",
                              "NVIDIA H200,580,2026-11-21,flash2,fp16,1,2,512,64,64,64,cold,time_s,0,"};
  std::string text = kHeader;
  for (std::size_t p = 0; p < 2; ++p) {
    char measured[64];
    std::snprintf(measured, sizeof measured, "%.17g", s.predicted[p][kTime] * (p == 0 ? 4 : 1));
    text += rows[p] + measured + "\n";
  }
  const std::string csv = write(s.dir.path() / "time-sweep.csv", text);
  const auto both = run_fasim({"compare", "--recorded", csv, "--device", "h200"});
  INFO(both.describe());
  REQUIRE(both.exit_code == 0);
  CHECK_THAT(both.out, Contains(" (2 points, NVIDIA H200,"));
  CHECK_THAT(both.out, Contains("; 1 (point, metric) pair is outside its bar.\n"));
  const auto one = run_fasim({"compare", "--recorded", csv, "--device", "h200", "--N", "512"});
  INFO(one.describe());
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Contains(" (1 of 2 points: --N 512, NVIDIA H200,"));
  CHECK_THAT(one.out, Contains("; 0 (point, metric) pairs are outside their bars.\n"));
  const std::string lesson = write(s.dir.path() / "08-one.md",
                                   "# T\n\nIntro.\n\n## A\n\n```recorded all\n--recorded time-sweep.csv --device h200\n```\n");
  const auto page = run_fasim({"lesson", lesson, "--auto"});
  INFO(page.describe());
  REQUIRE(page.exit_code == 0);
  CHECK_THAT(page.out, Contains("1 (point, metric) pair outside its bar"));
}

TEST_CASE("compare --recorded --out: the points again, today's predictions, measurements as recorded",
          "[fidelity][cli]") {
  Synthetic s;
  const std::string out = (s.dir.path() / "again.csv").string();
  const auto r = run_fasim({"compare", "--recorded", s.csv, "--device", "h200", "--out", out});
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("wrote the points with today's predictions to " + out));
  const auto before = read_recorded_csv(s.csv);
  const auto after = read_recorded_csv(out);
  REQUIRE(after.size() == before.size());
  for (std::size_t p = 0; p < after.size(); ++p) {
    CHECK(after[p].workload.N == before[p].workload.N);
    for (std::size_t m = 0; m < kMetricCount; ++m) {
      INFO("point " << p << ", " << name(static_cast<Metric>(m)));
      REQUIRE(after[p].predicted[m].has_value());
      // Recorded as 0 in the input; now the simulator's number, to the 6 digits the CSV keeps.
      CHECK(*after[p].predicted[m] == Approx(s.predicted[p][m]).epsilon(1e-5));
      CHECK(*after[p].measured[m] == Approx(*before[p].measured[m]).epsilon(1e-5));
    }
  }
  // Read back, it fits as the original does (to the 6 digits the CSV keeps).
  RecordedFits fits;
  RecordedSelection a, b;
  a.csv = s.csv;
  b.csv = out;
  a.device = b.device = "h200";
  const nlohmann::json fa = fits.get(a)["fit"], fb = fits.get(b)["fit"];
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    const char* metric = name(static_cast<Metric>(m));
    INFO(metric);
    CHECK(fb[metric]["in_bar"] == fa[metric]["in_bar"]);
    CHECK(fb[metric]["mean_abs_error_pct"].get<double>() ==
          Approx(fa[metric]["mean_abs_error_pct"].get<double>()).margin(1e-3));
  }
}

TEST_CASE("repredict: any number of jobs gives the same numbers in the same order, and the first failing point's error",
          "[fidelity]") {
  test::ScratchDir dir;
  auto rows = [](const std::vector<std::string>& shapes) {  // "N,d,br,bc" each, one metric row per point
    std::string text = kHeader;
    for (const std::string& s : shapes) text += "NVIDIA H200,580,2026-11-21,flash2,fp16,1,4," + s + ",cold,time_s,1,1\n";
    return text;
  };
  const std::vector<std::string> good = {"256,64,64,64",   "512,64,64,64",  "1024,64,128,64", "384,128,64,64",
                                         "640,64,64,128", "2048,64,128,128", "100,64,64,64"};
  const auto points = read_recorded_csv(write(dir.path() / "good.csv", rows(good)));
  const auto one = repredict(points, load_device("h200"), 1);
  REQUIRE(one.size() == good.size());
  for (const unsigned jobs : {2u, 3u, 16u}) {
    const auto many = repredict(points, load_device("h200"), jobs);
    REQUIRE(many.size() == one.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      CHECK(many[i].point == &points[i]);
      CHECK(many[i].bound == one[i].bound);
      for (std::size_t m = 0; m < kMetricCount; ++m) CHECK(many[i].predicted[m] == one[i].predicted[m]);
    }
  }
  // Points 2 and 4 (of 0..5) cannot run: Br = Bc = 512 and 1024 at d = 256 fp16 overflow the SRAM.
  auto bad = good;
  bad[2] = "1024,256,512,512";
  bad[4] = "2048,256,1024,1024";
  bad.resize(6);
  const auto bad_points = read_recorded_csv(write(dir.path() / "bad.csv", rows(bad)));
  for (const unsigned jobs : {1u, 2u, 6u})
    CHECK_THROWS_WITH(repredict(bad_points, load_device("h200"), jobs), Contains("Br=512, Bc=512"));
}
