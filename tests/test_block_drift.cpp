// How far apart flash1's blocks drift, against the GPU's own clocks.
// flash1 runs one block a head; every block walks the same key blocks. On
// the H200 the blocks start their last key block 40 to 130 us apart
// (docs/results/h200-2026-12-01-flash1-drift.txt: %globaltimer at each
// block's K_j load, 5 runs a shape). fasim's blocks must keep about as
// close: with each load timed by its own few sampled L2 lines alone they
// drifted 3 to 4 times as far, and the order in which the blocks reach the
// L2 moves flash1's DRAM bytes near the L2's edge
// (docs/results/flash1-drift-2026-12-01.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/median.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

const std::filesystem::path kResults = std::filesystem::path(FASIM_SOURCE_DIR) / "docs" / "results";

struct DriftShape {
  std::string dtype;
  std::int64_t N = 0, d = 0, heads = 0, br = 0, bc = 0;
  std::map<int, std::vector<double>> last_spread_us;  // run -> spread at each key block
};

// The probe's SHAPE and PASS lines: "SHAPE fp16 n=512 d=128 heads=132 br=64 bc=64 passes=8",
// "PASS rep=0 j=7 spread_us=42.2 ...".
std::vector<DriftShape> read_drift(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  std::vector<DriftShape> shapes;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SHAPE ", 0) == 0) {
      DriftShape s;
      char dtype[16] = {};
      long long N, d, heads, br, bc;
      REQUIRE(std::sscanf(line.c_str(), "SHAPE %15s n=%lld d=%lld heads=%lld br=%lld bc=%lld", dtype, &N, &d, &heads,
                          &br, &bc) == 6);
      s.dtype = dtype;
      s.N = N, s.d = d, s.heads = heads, s.br = br, s.bc = bc;
      shapes.push_back(s);
    } else if (line.rfind("PASS ", 0) == 0) {
      int rep, j;
      double spread;
      REQUIRE(std::sscanf(line.c_str(), "PASS rep=%d j=%d spread_us=%lf", &rep, &j, &spread) == 3);
      REQUIRE(!shapes.empty());
      auto& runs = shapes.back().last_spread_us[rep];
      REQUIRE(static_cast<int>(runs.size()) == j);
      runs.push_back(spread);
    }
  }
  return shapes;
}

// How far apart fasim's blocks start the last key block (their K_j loads), us.
double fasim_last_spread_us(const DeviceSpec& device, const Workload& w, const Mapping& m) {
  Simulation sim(device, w, m, {.numerics = false, .l2 = L2Start::cold, .compute = cuda_compute_model(w, m)});
  REQUIRE(sim.line_l2());
  std::int64_t last = -1;
  double first_s = 0, last_s = 0;
  while (sim.next()) {
    const Step& s = sim.step();
    if (s.kind != StepKind::load || s.tensor != TensorId::K) continue;
    if (s.kb > last) last = s.kb, first_s = last_s = s.start_s;
    else if (s.kb == last) first_s = std::min(first_s, s.start_s), last_s = std::max(last_s, s.start_s);
  }
  return (last_s - first_s) * 1e6;
}

}  // namespace

TEST_CASE("Block drift: flash1's blocks start the last key block about as far apart as the GPU's", "[timing][fidelity]") {
  const DeviceSpec device = load_device((kResults / "h200-2026-11-22-measured.toml").string());
  int checked = 0;
  for (const DriftShape& g : read_drift(kResults / "h200-2026-12-01-flash1-drift.txt")) {
    if (g.dtype != "fp16") continue;  // fp32 at these shapes runs the count model, which keeps blocks within 3 us
    Workload w;
    w.dtype = parse_dtype(g.dtype).value();
    w.heads = g.heads, w.N = g.N, w.d = g.d;
    Mapping m;
    m.algo = Algo::flash1;
    m.br = g.br, m.bc = g.bc;
    std::vector<double> gpu;
    for (const auto& [rep, spreads] : g.last_spread_us) gpu.push_back(spreads.back());
    REQUIRE(gpu.size() >= 3);
    const double measured = median(gpu);
    const double predicted = fasim_last_spread_us(device, w, m);
    INFO(g.dtype << " " << g.heads << " heads, N " << g.N << ", d " << g.d << ", Bc " << g.bc << ": fasim "
                 << predicted << " us, GPU median " << measured << " us over " << gpu.size() << " runs");
    // fasim gives 48, 49 and 122 us against the GPU's 43, 64 and 129; with each
    // load timed by its own sampled lines alone it gave 177, 189 and 640.
    CHECK(std::abs(predicted - measured) <= 0.3 * measured);
    ++checked;
  }
  CHECK(checked == 3);
}
