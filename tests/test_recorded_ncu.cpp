// Recorded ncu CSVs read back (recorded_ncu.hpp): parts split at their
// comment lines, medians over launches, section metrics' keys, one-line
// errors, and the recorded H200 file that lessons 07 and 08 quote.
// Tags [ncu][lesson].
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fasim/error.hpp"
#include "fasim/recorded_ncu.hpp"

using Catch::Contains;
using namespace fasim;

namespace {

const std::string kNcu = std::string(FASIM_SOURCE_DIR) + "/docs/results/h200-2026-11-21-ncu.csv";

const std::string kHeader =
    "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\"\n";

std::string row(int id, const std::string& kernel, const std::string& section, const std::string& name,
                const std::string& value) {
  return "\"" + std::to_string(id) + "\",\"" + kernel + "\",\"" + section + "\",\"" + name + "\",\"\",\"" + value +
         "\",\"\"\n";
}

// Two parts: three launches of k<1, 2> (values 5, 1, 3), then one launch of k2.
std::string two_parts() {
  std::string t = "# --algo flash2 --N 64\n" + kHeader;
  const char* reads[] = {"5", "1", "3"};
  for (int id = 0; id < 3; ++id) {
    t += row(id, "k<1, 2>", "Command line profiler metrics", "dram__bytes_read.sum", reads[id]);
    t += row(id, "k<1, 2>", "Launch Statistics", "Block Size", std::to_string(128 * (id + 1)));
    t += row(id, "k<1, 2>", "Occupancy", "Block Limit Shared Mem", "2");
    t += row(id, "k<1, 2>", "Launch Statistics", "Function Cache Configuration", "CachePreferNone");
    t += row(id, "k<1, 2>", "SpeedOfLight", "", "");  // a rule's advice: no metric
  }
  t += "# --algo flash1 --N 64\n" + kHeader;
  t += row(0, "k2", "Memory Workload Analysis", "L1/TEX Hit Rate", "12.5");
  t += row(0, "k2", "Memory Workload Analysis", "Memory Throughput", "7");
  t += row(0, "k2", "GPU Speed Of Light Throughput", "Memory Throughput", "9");
  return t;
}

}  // namespace

TEST_CASE("recorded ncu: a section's metric names become lower-case keys", "[ncu][lesson]") {
  CHECK(ncu_key("Issue Slots Busy") == "issue_slots_busy");
  CHECK(ncu_key("L1/TEX Hit Rate") == "l1_tex_hit_rate");
  CHECK(ncu_key("# SMs") == "sms");
  CHECK(ncu_key("Compute (SM) Throughput") == "compute_sm_throughput");
}

TEST_CASE("recorded ncu: parts split at comment lines, numbers are the median over launches", "[ncu][lesson]") {
  const std::vector<nlohmann::json> parts = parse_ncu_csv(two_parts(), "t.csv");
  REQUIRE(parts.size() == 2);
  const nlohmann::json& a = parts[0];
  CHECK(a["run"] == "--algo flash2 --N 64");
  CHECK(a["kernel"] == "k<1, 2>");  // a quoted comma stays in its cell
  CHECK(a["launches"] == 3);
  CHECK(a["metrics"]["dram__bytes_read"]["sum"] == 3.0);           // median of 5, 1, 3
  CHECK(a["metrics"]["launch_statistics"]["block_size"] == 256.0);  // median of 128, 256, 384
  CHECK(a["metrics"]["occupancy"]["block_limit_shared_mem"] == 2.0);
  CHECK(a["metrics"]["launch_statistics"]["function_cache_configuration"] == "CachePreferNone");
  CHECK_FALSE(a["metrics"].contains("speedoflight"));
  const nlohmann::json& b = parts[1];
  CHECK(b["launches"] == 1);
  CHECK(b["metrics"]["memory_workload_analysis"]["l1_tex_hit_rate"] == 12.5);
  // The same metric name in two sections stays two keys.
  CHECK(b["metrics"]["memory_workload_analysis"]["memory_throughput"] == 7.0);
  CHECK(b["metrics"]["gpu_speed_of_light_throughput"]["memory_throughput"] == 9.0);
}

TEST_CASE("recorded ncu: an even number of launches takes the mean of the middle two", "[ncu][lesson]") {
  std::string t = "# --N 8\n" + kHeader;
  const char* v[] = {"10", "40", "20", "30"};
  for (int id = 0; id < 4; ++id) t += row(id, "k", "Command line profiler metrics", "x__y.sum", v[id]);
  CHECK(parse_ncu_csv(t, "t.csv").at(0)["metrics"]["x__y"]["sum"] == 25.0);
}

TEST_CASE("recorded ncu: malformed files are one-line errors naming file and line", "[ncu][lesson]") {
  CHECK_THROWS_WITH(parse_ncu_csv(kHeader, "t.csv"), Contains("t.csv:1:") && Contains("comment line"));
  CHECK_THROWS_WITH(parse_ncu_csv("# --N 8\n\"ID\",\"Metric Name\"\n", "t.csv"),
                    Contains("t.csv:2:") && Contains("no column 'Kernel Name'"));
  CHECK_THROWS_WITH(parse_ncu_csv("# --N 8\n" + kHeader + "\"0\",\"k\"\n", "t.csv"),
                    Contains("t.csv:3:") && Contains("2 cells") && Contains("7"));
  CHECK_THROWS_WITH(parse_ncu_csv("# --N 8\n" + kHeader + "\"0\",\"k\n", "t.csv"),
                    Contains("t.csv:3:") && Contains("quote"));
}

TEST_CASE("recorded ncu: flags pick one part, with the parts named when they do not", "[ncu][lesson]") {
  const std::string dir =
      std::getenv("FASIM_TMP") ? std::getenv("FASIM_TMP") : std::filesystem::temp_directory_path().string();
  const std::string file = dir + "/two-parts-ncu.csv";
  std::filesystem::create_directories(dir);
  std::ofstream(file) << two_parts() << "# --algo naive --N 64\n";
  RecordedProfiles profiles;
  CHECK(profiles.get({file, {{"--algo", "flash1"}}})["kernel"] == "k2");
  CHECK(profiles.get({file, {{"--algo", "flash2"}, {"--N", "64"}}})["kernel"] == "k<1, 2>");
  CHECK_THROWS_WITH(profiles.get({file, {{"--N", "64"}}}), Contains("keep 3 profiled parts"));
  CHECK_THROWS_WITH(profiles.get({file, {{"--algo", "flash3"}}}),
                    Contains("'--algo flash2 --N 64', '--algo flash1 --N 64'"));
  CHECK_THROWS_WITH(profiles.get({file, {{"--algo", "naive"}}}), Contains("holds no ncu rows"));
  CHECK_THROWS_WITH(profiles.get({dir + "/missing.csv", {}}), Contains("cannot read"));
}

TEST_CASE("recorded ncu: selections parse like fasim compare's filters", "[ncu][lesson]") {
  const NcuSelection s = parse_ncu_selection({"--ncu", "a.csv", "--algo", "flash2", "--N", "2048"});
  CHECK(s.csv == "a.csv");
  CHECK(s.filters == std::vector<std::pair<std::string, std::string>>{{"--algo", "flash2"}, {"--N", "2048"}});
  CHECK_THROWS_WITH(parse_ncu_selection({"--algo", "flash2"}), Contains("add --ncu"));
  CHECK_THROWS_WITH(parse_ncu_selection({"--ncu", "a.csv", "--N"}), Contains("--N needs a value"));
  CHECK_THROWS_WITH(parse_ncu_selection({"--ncu", "a.csv", "--N", "1", "--N", "2"}), Contains("twice"));
}

// The file the lessons quote: a metric read through RecordedProfiles equals
// the median of the rows of that metric in the file, found here by plain
// text search.
TEST_CASE("recorded ncu: the recorded H200 file gives each metric's median over its launches", "[ncu][lesson]") {
  std::ifstream in(kNcu);
  REQUIRE(in);
  std::vector<double> values;
  bool in_part = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) in_part = line.find("--algo flash2 --dtype fp32 --N 2048") != std::string::npos;
    const std::string name = "\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\",\"\",\"";
    const std::size_t at = line.find(name);
    if (in_part && at != std::string::npos)
      values.push_back(std::stod(line.substr(at + name.size(), line.find('"', at + name.size()) - at - name.size())));
  }
  REQUIRE(values.size() >= 1);
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;

  RecordedProfiles profiles;
  const nlohmann::json& part = profiles.get({kNcu, {{"--algo", "flash2"}, {"--dtype", "fp32"}, {"--N", "2048"}}});
  CHECK(part["launches"] == n);
  CHECK(part["metrics"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld"]["sum"] == median);
  CHECK_THAT(part["kernel"].get<std::string>(), Contains("flash2_kernel<float>"));
  // The part that gpu-check names but could not profile holds no rows.
  CHECK_THROWS_WITH(profiles.get({kNcu, {{"--algo", "naive"}}}), Contains("holds no ncu rows"));
}
