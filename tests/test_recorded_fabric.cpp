// The L2 fabric (bytes between the two L2 halves) that `fasim compare`
// measured on an H100 and an H200 at ten shapes
// (docs/results/fabric-compare-2026-11-24.md), predicted again with the
// current simulator. It holds the copy rule the way test_recorded_runs.cpp
// holds DRAM bytes: within 10%, or a known miss below that gets no worse.
// The CSV metrics do not include the fabric, so it has its own file
// and its own short list of known misses here.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "fasim/device_spec.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

const std::filesystem::path kResults = std::filesystem::path(FASIM_SOURCE_DIR) / "docs" / "results";

struct Recording {
  const char* jsonl;   // one `fasim compare --json` object a line
  const char* device;  // the profile it was predicted on
  // Points outside the 10% bar when recorded, with their error then (%).
  std::map<std::string, double> known_misses;
};

// Many blocks read each K/V tile in fasim, which deals blocks to the L2
// halves in turn; with 4 readers a tile (128 heads at N = 512) the GPUs put
// more of a head's blocks next to one half and copy less. At flash1's edge
// the H200's loaded half thrashes, and fasim's halves, dealt 8 and 8, do not.
const Recording kRecordings[] = {
    {"h100-2026-11-24-fabric-compare.jsonl",
     "h100-2026-11-22-measured.toml",
     {{"flash2 fp16 B=1 H=128 N=512 d=64 Br=128 Bc=128 L2 cold", 23.15},
      {"flash2 fp16 B=1 H=128 N=512 d=128 Br=128 Bc=128 L2 cold", 25.83}}},
    {"h200-2026-11-24-fabric-compare.jsonl",
     "h200-2026-11-22-measured.toml",
     {{"flash2 fp16 B=1 H=128 N=512 d=64 Br=128 Bc=128 L2 cold", 18.09},
      {"flash2 fp16 B=1 H=128 N=512 d=128 Br=128 Bc=128 L2 cold", 26.21},
      {"flash1 fp32 B=1 H=16 N=4096 d=64 Br=64 Bc=227 L2 cold", -27.75},
      {"flash1 fp32 B=1 H=16 N=2048 d=128 Br=64 Bc=64 L2 cold", -29.11},
      {"flash1 fp16 B=1 H=16 N=4096 d=128 Br=64 Bc=64 L2 cold", -29.60}}},
};

Workload workload_of(const nlohmann::json& j) {
  Workload w;
  w.batch = j["batch"];
  w.heads = j["heads"];
  w.N = j["N"];
  w.d = j["d"];
  w.dtype = parse_dtype(j["dtype"].get<std::string>()).value();
  w.causal = j["causal"];
  return w;
}

Mapping mapping_of(const nlohmann::json& j) {
  Mapping m;
  m.algo = parse_algo(j["algo"].get<std::string>()).value();
  m.br = j["br"];
  m.bc = j["bc"];
  m.blocks_per_sm = j["blocks_per_sm"];
  return m;
}

}  // namespace

TEST_CASE("recorded L2 fabric: every point predicted again within 10% or no worse than its known miss",
          "[fidelity][fabric]") {
  for (const Recording& r : kRecordings) {
    INFO(r.jsonl);
    const DeviceSpec device = load_device((kResults / r.device).string());
    std::ifstream in(kResults / r.jsonl);
    REQUIRE(in);
    int points = 0, misses = 0;
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json j = nlohmann::json::parse(line);
      const Workload w = workload_of(j["workload"]);
      const Mapping m = mapping_of(j["mapping"]);
      const std::string point = describe(w, m, L2Start::cold);
      INFO(point);
      REQUIRE(j["l2_mode"] == "cold");
      const nlohmann::json& l2 = j["measurement"]["counters"]["l2"];
      // The row is reads plus writes, 32 B a sector, as CUPTI gave them.
      const double measured = (l2["fabric_read_sectors"].get<double>() + l2["fabric_write_sectors"].get<double>()) * 32;
      REQUIRE(measured > 0);

      Simulation sim(device, w, m, {.numerics = false, .l2 = L2Start::cold, .compute = cuda_compute_model(w, m)});
      sim.run();
      const CacheTraffic c = sim.ledger().cache_total();
      const double err = error_pct(static_cast<double>(c.l2_fabric_bytes), measured);
      CAPTURE(c.l2_fabric_bytes, measured, err);
      // Stores go home: half of the model's L2 writes cross, and the GPU's
      // far writes are that half (0.5% on both GPUs at every shape).
      CHECK(l2["fabric_write_sectors"].get<double>() * 32 == Approx(static_cast<double>(c.l2_write_bytes) / 2).epsilon(0.01));
      const auto known = r.known_misses.find(point);
      if (known == r.known_misses.end()) {
        CHECK(std::abs(err) <= 10);
      } else {
        ++misses;
        CHECK(std::abs(err) > 10);  // it meets the bar now: take it off the list
        CHECK(std::abs(err) <= std::abs(known->second) + 0.05);
      }
      ++points;
    }
    CHECK(points == 10);
    CHECK(misses == static_cast<int>(r.known_misses.size()));
  }
}
