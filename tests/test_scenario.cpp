// Scenario files: every key read back, relative device paths, every error path.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/scenario.hpp"
#include "test_data.hpp"

using Catch::Contains;
using fasim::UserError;

namespace {

fasim::Scenario parse(const std::string& text) { return fasim::parse_scenario(text, "s.toml", ""); }

}  // namespace

TEST_CASE("a full scenario file reads back every key", "[scenario]") {
  const auto s = fasim::load_scenario(data_dir() + "/scenarios/full.toml");
  CHECK(s.title == "Every key");
  REQUIRE(s.device);
  // Resolved against the scenario's directory, so load_device finds it from anywhere.
  CHECK(std::filesystem::path(*s.device) ==
        (std::filesystem::path(data_dir()) / "devices/mydev.toml").lexically_normal());
  CHECK(fasim::load_device(*s.device).name == "mydev");
  CHECK(s.batch == 2);
  CHECK(s.heads == 3);
  CHECK(s.N == 256);
  CHECK(s.d == 32);
  CHECK(s.dtype == fasim::DType::bf16);
  CHECK(s.algo == fasim::Algo::naive);
  CHECK(s.br == 16);
  CHECK(s.bc == 32);
  CHECK(s.blocks_per_sm == 1);
  CHECK(s.seed == 42u);
  CHECK(s.numerics == false);
  CHECK(s.row == 7);
}

TEST_CASE("the quickstart scenario is valid", "[scenario]") {
  const auto path = std::filesystem::path(data_dir()) / "../../configs/scenarios/quickstart.toml";
  const auto s = fasim::load_scenario(path.lexically_normal().string());
  CHECK(s.device == "h100");
  CHECK(s.algo == fasim::Algo::flash2);
  CHECK(s.N == 1024);
  CHECK(s.d == 64);
  CHECK(s.dtype == fasim::DType::fp16);
  CHECK(s.br == 64);
  CHECK(s.bc == 64);
}

TEST_CASE("an empty scenario sets nothing", "[scenario]") {
  const auto s = parse("");
  CHECK(s.title.empty());
  CHECK_FALSE(s.device);
  CHECK_FALSE(s.batch);
  CHECK_FALSE(s.N);
  CHECK_FALSE(s.dtype);
  CHECK_FALSE(s.algo);
  CHECK_FALSE(s.seed);
  CHECK_FALSE(s.numerics);
  CHECK_FALSE(s.row);
}

TEST_CASE("device names and paths", "[scenario]") {
  CHECK(parse("device = \"H100\"").device == "H100");  // load_device is case-insensitive
  CHECK(fasim::parse_scenario("device = \"my.toml\"", "s.toml", "lessons").device == "lessons/my.toml");
  CHECK(fasim::parse_scenario("device = \"/abs/my.toml\"", "s.toml", "lessons").device == "/abs/my.toml");
  CHECK(parse("device = \"my.toml\"").device == "my.toml");
  REQUIRE_THROWS_WITH(parse("\ndevice = \"h900\""),
                      "s.toml:2:1: unknown device 'h900'; known: a100, h100, h200, toy, or pass a path to a .toml file");
  REQUIRE_THROWS_WITH(parse("device = \"\""), Contains("s.toml:1:1: device must not be empty"));
  REQUIRE_THROWS_WITH(parse("device = 100"), "s.toml:1:1: device must be a string, got 100");
}

TEST_CASE("an unreadable scenario file names the path and the reason", "[scenario]") {
  REQUIRE_THROWS_AS(fasim::load_scenario("no/such.toml"), UserError);
  REQUIRE_THROWS_WITH(fasim::load_scenario("no/such.toml"),
                      "cannot read scenario file 'no/such.toml': No such file or directory; check the path");
}

TEST_CASE("scenario syntax errors report file:line:col", "[scenario]") {
  REQUIRE_THROWS_WITH(parse("[workload]\nN = 1024\nd = \n"), Contains("s.toml:3:"));
  REQUIRE_THROWS_WITH(parse("[workload]\nN = 1024\nd = \n"), Contains(": syntax error: "));
  REQUIRE_THROWS_WITH(parse("[workload]\nN = 1024\nd = \n"), Contains("; fix the TOML syntax there"));
}

TEST_CASE("unknown scenario keys and tables are errors", "[scenario]") {
  REQUIRE_THROWS_WITH(parse("[workload]\nn = 1024"),
                      "s.toml:2:1: unknown key [workload] n; known keys: batch, heads, N, d, dtype, kv_heads, N_kv, causal, window, page_size");
  REQUIRE_THROWS_WITH(parse("[mapping]\nBr = 64"), Contains("unknown key [mapping] Br; known keys: algo, br, bc"));
  REQUIRE_THROWS_WITH(parse("[run]\nwatch = 1"), Contains("unknown key [run] watch; known keys: seed, numerics, row"));
  REQUIRE_THROWS_WITH(parse("[wrkload]\nN = 1"),
                      "s.toml:1:2: unknown key wrkload; known top-level keys: title, device, workload, mapping, run");
  REQUIRE_THROWS_WITH(parse("workload = 3"),
                      "s.toml:1:1: workload must be a table, got 3; write it as a [workload] section");
}

TEST_CASE("scenario values of the wrong type or range", "[scenario]") {
  REQUIRE_THROWS_WITH(parse("[workload]\nN = -3"),
                      "s.toml:2:1: [workload] N must be a positive integer, got -3; write a whole number, e.g. N = 1024");
  REQUIRE_THROWS_WITH(parse("[run]\nrow = -1"),
                      "s.toml:2:1: [run] row must be a non-negative integer, got -1; write a whole number, e.g. row = 0");
  REQUIRE_THROWS_WITH(parse("[mapping]\nbr = 0"), Contains("; write a whole number, e.g. br = 64"));
  REQUIRE_THROWS_WITH(parse("[workload]\nbatch = 0"), Contains("[workload] batch must be a positive integer, got 0"));
  REQUIRE_THROWS_WITH(parse("[workload]\nheads = 1.5"), Contains("[workload] heads must be a positive integer"));
  REQUIRE_THROWS_WITH(parse("[workload]\nd = \"64\""), Contains("[workload] d must be a positive integer, got \"64\""));
  REQUIRE_THROWS_WITH(parse("[mapping]\nbr = 0"), Contains("[mapping] br must be a positive integer"));
  REQUIRE_THROWS_WITH(parse("[mapping]\nbc = -64"), Contains("[mapping] bc must be a positive integer"));
  REQUIRE_THROWS_WITH(parse("[run]\nseed = -1"), Contains("[run] seed must be a non-negative integer, got -1"));
  REQUIRE_THROWS_WITH(parse("[run]\nrow = -1"), Contains("[run] row must be a non-negative integer, got -1"));
  REQUIRE_THROWS_WITH(parse("[mapping]\nblocks_per_sm = -1"),
                      Contains("[mapping] blocks_per_sm must be a non-negative integer, got -1"));
  REQUIRE_THROWS_WITH(parse("[run]\nnumerics = 1"), Contains("[run] numerics must be true or false, got 1"));
  REQUIRE_THROWS_WITH(parse("title = 3"), Contains("title must be a string, got 3"));
  CHECK(parse("[run]\nseed = 0\nrow = 0").seed == 0u);
}

TEST_CASE("unknown dtype and algorithm list the valid ones", "[scenario]") {
  REQUIRE_THROWS_WITH(parse("[workload]\ndtype = \"fp8\""),
                      "s.toml:2:1: [workload] dtype must be one of fp32, fp16, bf16, got \"fp8\"");
  REQUIRE_THROWS_WITH(parse("[workload]\ndtype = 16"), Contains("[workload] dtype must be a string, got 16"));
  const std::string path = data_dir() + "/scenarios/bad_algo.toml";
  REQUIRE_THROWS_WITH(fasim::load_scenario(path),
                      path + ":5:1: [mapping] algo must be one of naive, flash1, flash2, decode, got \"flash3\"");
}
