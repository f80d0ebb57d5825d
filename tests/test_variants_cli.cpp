// The variants from the command line and scenario files: flags, [workload]
// and [mapping] keys, --json keys, and one-line errors for bad combinations.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/scenario.hpp"
#include "fasim/simulation.hpp"

using Catch::Contains;
using nlohmann::json;
using fasim::test::run_fasim;

namespace {

json run_json(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.push_back("--json");
  const auto r = run_fasim(args);
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Exit code 2, nothing on stdout, exactly the line "fasim: error: <message>".
void require_error(const std::vector<std::string>& args, const std::string& message) {
  const auto r = run_fasim(args);
  INFO(r.describe());
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "fasim: error: " + message + "\n");
}

}  // namespace

TEST_CASE("fasim run --json reports the variant keys", "[cli][variants]") {
  const json plain = run_json({"--N", "64", "--d", "16"});
  CHECK(plain["workload"]["kv_heads"] == 1);
  CHECK(plain["workload"]["N_kv"] == 64);
  CHECK(plain["workload"]["causal"] == false);
  CHECK(plain["workload"]["window"] == 0);
  CHECK(plain["workload"]["page_size"] == 0);
  CHECK(plain["mapping"]["splits"] == 0);

  // Causal flash2, N = 128, Br = Bc = 64 (T = 2): K = N d b (T + 1) / 2.
  const json causal = run_json({"--N", "128", "--d", "16", "--br", "64", "--causal"});
  CHECK(causal["workload"]["causal"] == true);
  CHECK(causal["hbm"]["by_tensor"]["K"]["read_bytes"] == 128 * 16 * 2 * 3 / 2);

  const json dec = run_json({"--algo", "decode", "--N", "1", "--N-kv", "1000", "--heads", "8", "--kv-heads", "2",
                             "--d", "32", "--bc", "64", "--br", "16", "--splits", "4", "--page-size", "16",
                             "--window", "300"});
  CHECK(dec["workload"]["kv_heads"] == 2);
  CHECK(dec["workload"]["N_kv"] == 1000);
  CHECK(dec["workload"]["window"] == 300);
  CHECK(dec["workload"]["causal"] == true);  // a window implies causal
  CHECK(dec["workload"]["page_size"] == 16);
  CHECK(dec["mapping"]["splits"] == 4);
  CHECK(dec["hbm"]["by_tensor"].contains("Opart"));
  CHECK(dec["numerics"]["max_rel_error"].get<double>() < 1e-2);
  // Keys 700..999 -> tiles 10..15 (640..999): 360 rows per K/V head, 2 K/V heads.
  CHECK(dec["hbm"]["by_tensor"]["K"]["read_bytes"] == 2 * 360 * 32 * 2);

  // --splits left out: the default fills the SMs (h100: 132 / 2 K/V heads = 66),
  // capped by the 16 key tiles.
  const json auto_splits = run_json({"--algo", "decode", "--N", "1", "--N-kv", "1000", "--heads", "8",
                                     "--kv-heads", "2", "--d", "32", "--bc", "64", "--no-numerics"});
  CHECK(auto_splits["mapping"]["splits"] == 16);
}

TEST_CASE("bad variant flags give one line naming the fix", "[cli][variants]") {
  require_error({"run", "--heads", "8", "--kv-heads", "3"},
                "--heads 8 is not a multiple of --kv-heads 3; use a divisor of 8, e.g. --kv-heads 2");
  require_error({"run", "--heads", "8", "--kv-heads", "16"},
                "--kv-heads 16 is more than --heads 8; query heads share K/V heads, so use a divisor of 8, e.g. "
                "--kv-heads 8");
  require_error({"run", "--kv-heads", "0"},
                "--kv-heads must be a positive integer, got 0; pass e.g. --kv-heads 1, or leave it out for as many as "
                "--heads");
  require_error({"run", "--window", "-3"},
                "window (sliding window; 0 means none) must be a non-negative integer, got -3; pass e.g. --window 256");
  require_error({"run", "--splits", "4"},
                "--splits 4 applies only to --algo decode, not flash2; drop --splits or use --algo decode");
  require_error({"run", "--algo", "decode", "--N", "1", "--N-kv", "1000", "--bc", "64", "--splits", "40"},
                "--splits 40 is more than the 16 key tiles (N_kv=1000, Bc=64); use --splits 16 or fewer, or a "
                "smaller --bc");
  require_error({"run", "--algo", "decode", "--N", "1", "--N-kv", "64", "--bc", "64", "--splits", "2"},
                "--splits 2 is more than the 1 key tile (N_kv=64, Bc=64); use --splits 1 or fewer, or a smaller --bc");
}

TEST_CASE("scenario files carry the variant keys", "[scenario][variants]") {
  const fasim::Scenario s = fasim::parse_scenario(
      "[workload]\nheads = 8\nkv_heads = 2\nN = 1\nN_kv = 4096\ncausal = true\nwindow = 512\npage_size = 16\n"
      "[mapping]\nalgo = \"decode\"\nsplits = 8\n",
      "s.toml", "");
  CHECK(s.kv_heads == 2);
  CHECK(s.N_kv == 4096);
  CHECK(s.causal == true);
  CHECK(s.window == 512);
  CHECK(s.page_size == 16);
  CHECK(s.splits == 8);
  CHECK(s.algo == fasim::Algo::decode);
  REQUIRE_THROWS_WITH(fasim::parse_scenario("[workload]\nkv_heads = 0\n", "s.toml", ""),
                      "s.toml:2:1: [workload] kv_heads must be a positive integer, got 0; write a whole number, e.g. "
                      "kv_heads = 1");
  REQUIRE_THROWS_WITH(fasim::parse_scenario("[workload]\ncausal = 1\n", "s.toml", ""),
                      "s.toml:2:1: [workload] causal must be true or false, got 1");
  REQUIRE_THROWS_WITH(fasim::parse_scenario("[mapping]\nsplits = -1\n", "s.toml", ""),
                      Contains("[mapping] splits must be a non-negative integer, got -1"));
}

TEST_CASE("set_input takes K and V in logical order, paged or not", "[variants][paged]") {
  // K/V of batch * kv_heads heads, N_kv rows each; a wrong size names the shape.
  fasim::Workload w{1, 4, 3, 2, fasim::DType::fp32};
  w.kv_heads = 1;
  w.N_kv = 5;
  w.page_size = 2;
  fasim::Simulation sim(fasim::load_device("h100"), w, fasim::Mapping{fasim::Algo::flash2, 4, 2});
  std::vector<float> k(10);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(i);
  sim.set_input(fasim::TensorId::K, k);
  REQUIRE_THROWS_WITH(sim.set_input(fasim::TensorId::V, std::vector<float>(24)),
                      "V needs 10 values (batch*kv_heads x N_kv x d), got 24");
  sim.run();
  CHECK(sim.numerics().max_rel_error < 1e-5);
}
