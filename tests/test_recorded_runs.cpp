// Recorded GPU runs (docs/results/*-sweep.csv) predicted again with the
// current simulator: HBM requests must stay exact, and every other metric must
// meet its bar (DRAM and L2 bytes 10%, time 25%) or be a known miss listed in
// *-misses.csv with an error no larger than listed. A model change that makes
// any point worse, or fixes one without taking it off the list, fails here.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/recorded_fit.hpp"

using namespace fasim;

namespace {

const std::filesystem::path kResults = std::filesystem::path(FASIM_SOURCE_DIR) / "docs" / "results";

std::string tmp_file(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::getenv("FASIM_TMP") ? std::getenv("FASIM_TMP") : "/tmp";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

const char* kHeader = "device,driver,date,algo,dtype,batch,heads,N,d,br,bc,l2_mode,metric,predicted,measured\n";

}  // namespace

TEST_CASE("recorded runs: every point re-predicted within its bar or no worse than its known miss",
          "[fidelity][slow]") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kResults)) {
    const std::string csv = entry.path().string();
    if (csv.size() < 10 || csv.substr(csv.size() - 10) != "-sweep.csv") continue;
    ++files;
    const std::string stem = csv.substr(0, csv.size() - 10);
    INFO(csv);
    REQUIRE(std::filesystem::exists(stem + "-measured.toml"));
    REQUIRE(std::filesystem::exists(stem + "-misses.csv"));
    const std::vector<RecordedPoint> points = read_recorded_csv(csv);
    CHECK(points.size() >= 40);
    const std::vector<Reprediction> reps = repredict(points, load_device(stem + "-measured.toml"));
    // Every point recorded every metric: a sweep without counters is not a
    // record. Sweeps before 2026-11-30 did not measure drained writes; a
    // sweep that does has them at every point.
    const auto drained = static_cast<std::size_t>(Metric::dram_write_drained_bytes);
    const bool with_drain = reps.front().point->measured[drained].has_value();
    for (const Reprediction& r : reps)
      for (std::size_t m = 0; m < kMetricCount; ++m)
        CHECK(r.point->measured[m].has_value() == (m != drained || with_drain));
    // h100-2026-11-22-misses.csv: flash1 fp16 16 heads N 4096 d 128's DRAM
    // writes went +28.47% -> +28.52% (+167 KB of 409 MB) on 2026-11-30, when
    // data written again while in L2 took the dirty lines' own curve
    // (kL2DirtyCurveShare, l2_sets.hpp): its O, rewritten each pass, sits at
    // about 0.6 of the curve's room in each half and goes back on the curve's
    // tail. The known miss was raised to that: the rule, not a defect (the
    // rmw probe at that footprint, M10 and M16 at F = 20: the model 0.01 to
    // 0.02 MiB a pass, the GPU 0.00).
    const std::vector<std::string> problems = ratchet_problems(find_misses(reps), read_misses(stem + "-misses.csv"));
    for (const std::string& p : problems) UNSCOPED_INFO(p);
    CHECK(problems.empty());
  }
  CHECK(files >= 1);
}

TEST_CASE("recorded runs: scripts/recorded-sets.sh lists every set whose misses the ratchet holds", "[fidelity]") {
  // scripts/refresh-misses.sh rewrites the sets this script lists; a set the
  // script missed would keep a stale misses file. The L2 fabric's misses
  // (-fabric-) belong to test_recorded_fabric.cpp and are kept by hand.
  const std::filesystem::path root = FASIM_SOURCE_DIR;
  const test::ProcessResult r = test::ChildProcess("/bin/bash", {(root / "scripts" / "recorded-sets.sh").string()}).wait();
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  std::set<std::string> listed;
  for (const std::string& line : test::split_lines(r.out)) {
    std::istringstream words(line);
    std::string csv, toml, misses, extra;
    REQUIRE(static_cast<bool>(words >> csv >> toml >> misses));
    CHECK_FALSE(static_cast<bool>(words >> extra));
    for (const std::string& f : {csv, toml, misses}) {
      INFO(f);
      CHECK(std::filesystem::exists(root / f));
    }
    CHECK(listed.insert(std::filesystem::path(misses).filename().string()).second);
  }
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(kResults)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with("-misses.csv") && name.find("-fabric-") == std::string::npos) on_disk.insert(name);
  }
  CHECK(listed == on_disk);
  CHECK(listed.size() >= 27);
}

namespace {

// A recording that is not a sweep: its device profile, its misses file and
// how many points it holds. The same ratchet as the sweeps.
struct RecordedSet {
  const char* csv;
  const char* device;
  const char* misses;
  std::size_t points;
};

void check_ratchet(const RecordedSet& set) {
  INFO(set.csv);
  const std::vector<RecordedPoint> points = read_recorded_csv((kResults / set.csv).string());
  CHECK(points.size() == set.points);
  const std::vector<Reprediction> reps = repredict(points, load_device((kResults / set.device).string()));
  const std::vector<std::string> problems =
      ratchet_problems(find_misses(reps), read_misses((kResults / set.misses).string()));
  for (const std::string& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
}

}  // namespace

TEST_CASE("recorded runs: the held-out points, which no model constant was chosen on",
          "[fidelity]") {
  // Shapes the sweeps do not have (scripts/gpu-holdout.sh), measured on an
  // H200 and an H100 and predicted with each sweep's device profile. The
  // constants were chosen on the H200 sweeps alone (kL2CleanShare on
  // h200-2026-11-22-sweep.csv, kL2Ways on the one before it).
  // The third set (scripts/gpu-holdout-time.sh) tests the time model: it was
  // recorded after the warp latencies were fitted, at tilings and head counts
  // the sweep never ran. (The per-step cost, fitted later, was chosen without it.)
  // The fourth (scripts/gpu-holdout-steps.sh) tests that per-step cost with
  // tilings and algorithms its probe did not vary. The H100 set also chose its
  // form (see docs/timing-model.md); the H200 set was recorded after.
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-22-holdout-3.csv", "h200-2026-11-21-measured.toml",
                    "h200-2026-11-22-holdout-misses.csv", 12},
        RecordedSet{"h100-2026-11-22-holdout-2.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-22-holdout-misses.csv", 12},
        RecordedSet{"h200-2026-11-22-holdout-time.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-22-holdout-time-misses.csv", 10},
        RecordedSet{"h100-2026-11-22-holdout-time.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-22-holdout-time-misses.csv", 10},
        RecordedSet{"h200-2026-11-23-holdout-steps.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-23-holdout-steps-misses.csv", 10},
        RecordedSet{"h100-2026-11-23-holdout-steps.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-23-holdout-steps-misses.csv", 10}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: the probes the cuda-simt time constants were fitted on", "[fidelity]") {
  // Flash2 fp32 at N = 1024 with Br and Bc from 16 to 128 (simt_step_cycles),
  // and the fp32 kernels at one to four blocks per SM (cuda_occupancy.hpp).
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-22-tile-steps.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-22-tile-steps-misses.csv", 18},
        RecordedSet{"h200-2026-11-22-fp32-occupancy.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-22-fp32-occupancy-misses.csv", 15}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: flash2 fp32 held to one and two blocks per SM, on an H200 and an H100", "[fidelity]") {
  // heads x N = 32768 at d = 128 with 64 x 64 tiles, 4 to 128 heads, each
  // with --blocks-per-sm 1 and 2 (docs/results/occupancy-sweep-2026-11-24.sh,
  // H200): the GPU writes back less with two blocks per SM and fewer readers
  // of each K/V tile; the model follows only part of that (the misses).
  // The same on an H100.
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-24-occupancy.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-24-occupancy-misses.csv", 12},
        RecordedSet{"h100-2026-11-24-occupancy.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-24-occupancy-misses.csv", 12}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: the tensor-core kernel at tilings that hold two to four blocks per SM", "[fidelity]") {
  // flash2 fp16 (version 4, cuda-mma) with Br or Bc = 64, which the sweeps
  // (Br = Bc = 128, one block per SM) never ran: each tiling as it fits and
  // held to one block per SM (docs/results/mma-occupancy-2026-11-24.sh, H200).
  // Time within 25% at all 20 since the per-step cost (mma_step_cycles, chosen
  // here); without it the points as they fit ran 33% to 55% too fast. DRAM
  // writes are the misses: most are under 0.2 MiB.
  // The H100 set is held out: bf16, 32 heads at N = 2048 and 8 at N = 8192,
  // recorded after mma_step_cycles was chosen (time 20 of 20 within 25%).
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-24-mma-occupancy.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-24-mma-occupancy-misses.csv", 20},
        RecordedSet{"h100-2026-11-24-mma-occupancy-holdout.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-24-mma-occupancy-holdout-misses.csv", 20},
        // fp16, d = 128, 64 x 64, heads x N = 65536 (16 MiB a tensor), 1 to
        // 3 blocks per SM (mma-readers-2026-11-24.sh): writes fall with more
        // blocks per SM and the model follows (7 of 9 in bar).
        RecordedSet{"h200-2026-11-24-mma-readers.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-24-mma-readers-misses.csv", 9}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: shapes where placement matters, held out from the runs-of-SMs experiment", "[fidelity]") {
  // flash1 with 8 to 24 heads near the L2's size, flash2 fp32 at d = 64 with
  // 8 to 128 heads at one and two blocks per SM, version 4 at 32 and 128
  // heads (docs/results/sm-runs-holdout-2026-11-24.sh, H200 and H100),
  // recorded to test a placement rule fasim did not keep
  // (docs/results/sm-runs-2026-11-24.md); no constant was chosen on them.
  // flash1 with 12 heads writes back a sixth (H200) to a third (H100) of
  // what the GPUs did.
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-24-sm-runs-holdout.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-24-sm-runs-holdout-misses.csv", 15},
        RecordedSet{"h100-2026-11-24-sm-runs-holdout.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-24-sm-runs-holdout-misses.csv", 15}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: shapes held out from the GPU-placement experiment", "[fidelity]") {
  // flash2 fp32 at d = 128 with 12 and 20 MiB tensors (4 and 16 readers a
  // K/V tile) at one and two blocks per SM, fp32 at d = 64 with 96 heads,
  // flash1 with 10 and 14 heads, version 4 at 96 and 48 heads, naive fp32
  // (docs/results/placement-holdout-2026-11-25.sh, H200 and H100), recorded
  // to test a placement rule fasim has not taken
  // (docs/results/gpu-placement-2026-11-25.md); no constant was chosen on
  // them. Dealt in turn, fasim wrote back too much for flash2 fp32 with few
  // readers (up to +174% at one block per SM on the H200); since it takes the
  // GPU's first-wave runs for those grids (block_placement.hpp) writes in bar
  // are 9 (H200) and 10 (H100) of 14. On the H100, flash1 with 14 heads (a small
  // grid, still dealt in turn) writes back far too little (-74%).
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-25-placement-holdout.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-25-placement-holdout-misses.csv", 14},
        RecordedSet{"h100-2026-11-25-placement-holdout.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-25-placement-holdout-misses.csv", 14}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: shapes held out from the block-placement rule fasim took", "[fidelity]") {
  // 13 points recorded on an H200 on 2026-11-28 before fasim took the GPU's
  // first-wave runs for the fp32 kernels' large grids
  // (docs/results/placement-rule-2026-11-28.md): flash2 fp32 with 4 to 24
  // readers a K/V tile, and flash1, naive and tensor-core controls. Writes in
  // bar 7 of 13 dealt in turn, 9 with the runs (48 heads, N = 512, d = 128:
  // +117% to +5%). Recorded again after the change the same day (the GPU
  // repeated its writes of 1 MiB or more within 4.7%): 8 of 13.
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-28-placement-rule-holdout.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-28-placement-rule-holdout-misses.csv", 13},
        RecordedSet{"h200-2026-11-28-placement-rule-holdout-again.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-28-placement-rule-holdout-again-misses.csv", 13}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: flash1 shapes held out from the early cleaning of rewritten lines", "[fidelity]") {
  // 12 flash1 points recorded on an H200 on 2026-11-28 before fasim cleaned
  // data written again while in L2 early (kL2RewrittenCleanShare,
  // docs/results/lopsided-split-2026-11-28.md), chosen where the rule and the
  // model before it predicted DRAM writes 1.5 to 4 times apart; the buffers
  // in 4 placements a point (docs/results/rewrite-clean-holdout-2026-11-28.sh).
  // DRAM writes in bar: 1 of 12 before the rule (mean error 50%), 6 with it
  // (19%). The GPU's own spread over the placements is over 10% at all 12.
  // Recorded again the same day after the rule (not yet in the carried
  // binary): the GPU moved by -36% to +24% a point; 0 and 1 of 12 in bar,
  // mean error 46% before the rule and 29% with it.
  // On 2026-11-30 data written again while in L2 took the dirty lines' own
  // curve (kL2DirtyCurveShare, l2_sets.hpp): flash1 fp32 16 heads N 5120 d 64
  // rewrites its O at about 0.65 of the curve's room in each half and sends
  // the curve's tail back between rewrites, DRAM writes +14.97% -> +15.05%
  // (+177 KB of 263 MB); its known miss was raised to that, the rule and not
  // a defect (the rmw probe at that footprint, M10 and M16 at F = 20: the
  // model 0.01 to 0.02 MiB a pass, the GPU 0.00).
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-28-rewrite-clean-holdout.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-28-rewrite-clean-holdout-misses.csv", 12},
        RecordedSet{"h200-2026-11-28-rewrite-clean-holdout-again.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-28-rewrite-clean-holdout-again-misses.csv", 12}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: shapes held out from the GPUs' small-grid halves and 64-way sets", "[fidelity]") {
  // 27 points recorded on an H200 on 2026-11-28 to test a candidate model
  // fixed before the run: small grids placed as the GPUs place them, 64-way
  // sets, rewritten data cleaned in the last 0.05
  // (docs/results/small-grid-placement-2026-11-28.md). 18 flash1 shapes with
  // 8 to 24 heads, chosen where it and fasim predicted DRAM bytes 1.2 to 6
  // times apart, and controls (flash1 with more blocks than SMs, flash2,
  // naive); 4 placements a point. DRAM in bar, reads / writes: fasim 14 / 11
  // of 27, the candidate 15 / 12. Not kept then: 64-way sets break the L2
  // microbenchmarks (test_l2_probes.cpp). Taken on 2026-11-29 with every
  // grid size's measured order (the next test): 15 / 11. On 2026-11-30 data
  // written again while in L2 took the dirty lines' own curve
  // (kL2DirtyCurveShare, l2_sets.hpp): flash1 fp32 16 heads N 2560 d 128
  // rewrites its O at about 0.65 of the curve's room in each half and sends
  // the curve's tail back between rewrites, DRAM writes +12.88% -> +12.94%
  // (+207 KB of 376 MB); its known miss was raised to that, the rule and not
  // a defect (as the rewrite-clean hold-out's N 5120 d 64 above).
  check_ratchet({"h200-2026-11-28-small-grid-holdout.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-28-small-grid-holdout-misses.csv", 27});
}

TEST_CASE("recorded runs: flash1 shapes held out from the small-grid order fasim took", "[fidelity]") {
  // 18 flash1 points recorded on an H200 on 2026-11-29, after fasim took the
  // GPUs' small-grid order and 64-way sets and before anything was chosen on
  // them (docs/results/small-grid-placement-2026-11-28.md, its last
  // section): 10 to 28 heads near the L2's size, grids that sit 9 + 1 to
  // 17 + 11 next to the two halves; 4 placements a point. DRAM in bar,
  // reads / writes: fasim before the change 0 / 1 of 18 (mean error 42%,
  // 46%), after 8 / 10 (20%, 17%).
  check_ratchet({"h200-2026-11-29-small-grid-fill-holdout.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-29-small-grid-fill-holdout-misses.csv", 18});
}

TEST_CASE("recorded runs: the issue-4 sweep recorded again two days later on both GPUs", "[fidelity][slow]") {
  // The sweep's 60 points on 2026-11-24 (gpu-check.sh's compare stage,
  // predicted with the 2026-11-22 profiles), after every model constant was
  // chosen: a check that the recorded sweeps were not a lucky day. H100:
  // DRAM reads 57/60, writes 42/60, time 60/60 (58, 44, 60 on 2026-11-22).
  // H200: 57, 44, 60 (57, 38, 60); its flash1 points at the L2's edge came
  // out within 0.1% of the earlier recording. The same classes miss
  // (flash1 at the L2's edge, sub-MiB writes).
  for (const RecordedSet& set :
       {RecordedSet{"h100-2026-11-24-sweep-again.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-24-sweep-again-misses.csv", 60},
        RecordedSet{"h200-2026-11-24-sweep-again.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-24-sweep-again-misses.csv", 60}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: the code-fetch hold-out, recorded after the code joined the predicted reads", "[fidelity]") {
  // docs/results/code-fetch-2026-11-29.md, last section: 11 shapes that fit
  // in L2, each kernel family, recorded after fasim compare began adding the
  // kernels' code to a cold run's DRAM reads. Reads: mean error 2.9%
  // without the code, 0.3% with it (largest 1.6%).
  check_ratchet({"h200-2026-11-29-code-fetch-holdout.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-29-code-fetch-holdout-misses.csv", 11});
}

TEST_CASE("recorded runs: the kernels' code as calibrate measured it holds out on 12 new cold shapes", "[fidelity]") {
  // docs/results/code-fetch-2026-11-29.md, "Measured by calibrate": 12 cold
  // shapes that fit in L2, recorded the same day as the calibration
  // (h200-2026-11-29-calibrated.toml) and after it. Predicted with the
  // recorded medians of [code_fetch] (the ratchet, as every set), and with
  // the calibrated figures in their place: the reads stay within their bar
  // and, on the mean, as close or closer.
  const RecordedSet set{"h200-2026-11-29-code-fetch-calibrate-holdout.csv", "h200-2026-11-22-measured.toml",
                        "h200-2026-11-29-code-fetch-calibrate-holdout-misses.csv", 12};
  check_ratchet(set);
  const std::vector<RecordedPoint> points = read_recorded_csv((kResults / set.csv).string());
  const DeviceSpec medians = load_device((kResults / set.device).string());
  DeviceSpec calibrated = medians;
  calibrated.code_fetch = load_device((kResults / "h200-2026-11-29-calibrated.toml").string()).code_fetch;
  REQUIRE(calibrated.code_fetch.flash1 != medians.code_fetch.flash1);  // a different figure, measured
  const auto read = static_cast<std::size_t>(Metric::dram_read_bytes);
  auto mean_read_error = [&](const DeviceSpec& d) {
    double sum = 0;
    for (const Reprediction& r : repredict(points, d)) {
      const double m = *r.point->measured[read];
      const double err = std::abs(r.predicted[read] - m) / m * 100;
      INFO(describe(*r.point) << " on " << d.name);
      CHECK(err < bar_pct(Metric::dram_read_bytes));
      sum += err;
    }
    return sum / static_cast<double>(points.size());
  };
  const double with_medians = mean_read_error(medians), with_calibrated = mean_read_error(calibrated);
  CHECK(with_calibrated <= with_medians);
}

TEST_CASE("recorded runs: the oldest-first hold-out, recorded after the oldest block on an SM went first",
          "[fidelity]") {
  // docs/results/block-times-2026-11-29.md: 12 flash2 fp32 shapes at two
  // blocks per SM over 6 to 12 waves, recorded after fasim began serving the
  // oldest block first. With it: every point in bar, reads mean error 1.6%
  // (largest 5.3%); served in turn, 11 of 12 (5.0%, largest 13.3%).
  check_ratchet({"h200-2026-11-29-oldest-first-holdout.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-29-oldest-first-holdout-misses.csv", 12});
}

TEST_CASE("recorded runs: the H200 sweep on 2026-11-28 and twice on 2026-11-29", "[fidelity][slow]") {
  // The same 60 points on three more days (gpu-check.sh's compare stage, 1
  // placement, 5 counter ranges), predicted with the 2026-11-22 profile.
  // 2026-11-28 (session 40) was recorded before the small-grid order and the
  // 64-way sets; 2026-11-29 (session 46) after them; 2026-11-29 again
  // (session 47) after the oldest block on an SM went first. So nothing was
  // chosen on the last. With today's model: DRAM reads 59, 59 and 59 of 60,
  // writes 46, 48 and 41 (the last day's flash1 points near the L2's size
  // read and wrote up to 25% more than the days before, the model the same).
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-28-sweep-s40.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-28-sweep-s40-misses.csv", 60},
        RecordedSet{"h200-2026-11-29-sweep-s46.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-29-sweep-s46-misses.csv", 60},
        RecordedSet{"h200-2026-11-29-sweep-s47.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-29-sweep-s47-misses.csv", 60}})
    check_ratchet(set);
}

TEST_CASE("recorded runs: drained DRAM writes on two H200 sweeps and flash1 in 8 placements, three times", "[fidelity][slow]") {
  // Recorded on 2026-11-29 (session 51) with a second counter range after the
  // kernel's that drains L2 (hw_counters.hpp), so every point also has
  // dram_write_drained_bytes: what the kernel's stores put in DRAM in the end
  // (docs/results/drained-writes-2026-11-29.md). The sweep twice (1
  // placement, 5 ranges) and its 12 flash1 points three times in 8
  // placements (2 ranges each; the third on another machine, by
  // gpu-check.sh's placements stage, since folded into its compare stage).
  // Drained writes in bar: 57, 57, 12, 12 and 11 (10 before the drained
  // count took the background's expected value, 2026-11-30); the GPU's own
  // ranges spread over 10% at 1 point of each sweep, against 17 and 18 for
  // the writes counted while the kernel runs. The sweeps' drained misses are
  // the three flash1 points near the L2's size, whose DRAM bytes follow the
  // buffers' pages (the first sweep read 54 to 71 MB there, the second 120
  // to 310 MB).
  const auto drained = static_cast<std::size_t>(Metric::dram_write_drained_bytes);
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-29-sweep-s51.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-29-sweep-s51-misses.csv", 60},
        RecordedSet{"h200-2026-11-29-sweep-s51b.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-29-sweep-s51b-misses.csv", 60},
        RecordedSet{"h200-2026-11-29-flash1-placements8-s51.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-29-flash1-placements8-s51-misses.csv", 12},
        RecordedSet{"h200-2026-11-29-flash1-placements8-s51b.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-29-flash1-placements8-s51b-misses.csv", 12},
        RecordedSet{"h200-2026-11-29-flash1-placements8-s51c.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-29-flash1-placements8-s51c-misses.csv", 12}}) {
    check_ratchet(set);
    for (const RecordedPoint& p : read_recorded_csv((kResults / set.csv).string())) {
      INFO(set.csv << ": " << describe(p));
      CHECK(p.measured[drained].has_value());
      CHECK(p.measured_min[drained].has_value());
    }
  }
}

TEST_CASE("recorded runs: the whole issue-4 sweep, 64 points, flash1's in 8 or 32 placements", "[fidelity][slow]") {
  // gpu-check.sh's compare stage on 2026-11-30 (session 52), the first with
  // flash1 fp16 at d = 64 (skipped before: the paper's fp16 tiles do not fit
  // the kernel's shared memory) and with flash1's points as the median of 8
  // placements x 2 ranges (docs/results/sweep-2026-11-30.md). Predicted with
  // the 2026-11-22 profile: DRAM reads 63 of 64 (flash1 fp32 N = 4096 d = 64
  // reads 13.8% less than the model), drained writes 64 of 64. Recorded again
  // on a fresh machine after the drained count took the expected background
  // (s52b, held out): reads 63, drained writes 63 (flash1 fp16 N = 4096
  // d = 128, at the L2's edge, -11.4%). Those two ran flash1 with 16 heads,
  // 16 of 132 SMs. s53 (session 53) runs it as the issue asks, the GPU full:
  // 132 heads, one block per SM (docs/results/flash1-full-grid-2026-11-30.md).
  // Reads 62 and drained writes 62 of 64 there: two flash1 points near the
  // L2's size, where the GPU reads and writes back more than the model.
  // s55 (session 55): the rest of the grid from gpu-check.sh's compare
  // stage, flash1's cells in 32 placements of 1 range, each on pages no
  // other had (docs/results/placement-reuse-2026-11-30.md): the same two
  // misses, larger (reads -26.2% and -14.9%).
  const auto cell_of = [](Algo algo, DType dtype, std::int64_t d) {
    return std::string(name(algo)) + " " + std::string(name(dtype)) + " d=" + std::to_string(d);
  };
  // The GPU full means one flash1 block per SM: the profile's SM count.
  const std::int64_t sms = load_device((kResults / "h200-2026-11-22-measured.toml").string()).sm_count;
  struct Sweep {
    RecordedSet set;
    std::int64_t flash1_heads;  // batch x heads of every flash1 point
  };
  for (const Sweep& sweep : {Sweep{{"h200-2026-11-30-sweep-s52.csv", "h200-2026-11-22-measured.toml",
                                    "h200-2026-11-30-sweep-s52-misses.csv", 64},
                                   16},
                             Sweep{{"h200-2026-11-30-sweep-s52b.csv", "h200-2026-11-22-measured.toml",
                                    "h200-2026-11-30-sweep-s52b-misses.csv", 64},
                                   16},
                             Sweep{{"h200-2026-11-30-sweep-s53.csv", "h200-2026-11-22-measured.toml",
                                    "h200-2026-11-30-sweep-s53-misses.csv", 64},
                                   sms},
                             Sweep{{"h200-2026-11-30-sweep-s55.csv", "h200-2026-11-22-measured.toml",
                                    "h200-2026-11-30-sweep-s55-misses.csv", 64},
                                   sms}}) {
    const RecordedSet& set = sweep.set;
    check_ratchet(set);
    // The grid, every cell: naive, flash1 and flash2; fp32 and fp16;
    // d = 64 and 128; N = 512 to 16384 (flash1 to 4096: one block per head).
    std::map<std::string, std::set<std::int64_t>> lengths;
    for (const RecordedPoint& p : read_recorded_csv((kResults / set.csv).string())) {
      lengths[cell_of(p.mapping.algo, p.workload.dtype, p.workload.d)].insert(p.workload.N);
      if (p.mapping.algo != Algo::flash1) continue;
      INFO(set.csv << ": " << describe(p));
      CHECK(p.workload.batch * p.workload.heads == sweep.flash1_heads);
    }
    for (const Algo algo : {Algo::naive, Algo::flash1, Algo::flash2})
      for (const DType dtype : {DType::fp32, DType::fp16})
        for (const std::int64_t d : {64, 128}) {
          const std::string cell = cell_of(algo, dtype, d);
          const std::set<std::int64_t> want = algo == Algo::flash1
                                                  ? std::set<std::int64_t>{512, 1024, 2048, 4096}
                                                  : std::set<std::int64_t>{512, 1024, 2048, 4096, 8192, 16384};
          INFO(set.csv << ": " << cell);
          CHECK(lengths[cell] == want);
        }
    CHECK(lengths.size() == 12);
  }
}

TEST_CASE("recorded runs: flash1 with the GPU full, and its 16-head edge by heads", "[fidelity][slow]") {
  // Session 53, two calls on fresh H200s (docs/results/flash1-full-grid-2026-11-30.sh):
  // flash1's 16 sweep points with 132 heads (the GPU full), 8 placements x 2
  // ranges, recorded once before the sweep s53 took them again; and
  // flash1 fp32 N = 4096 d = 64 (Bc 227) at 13 to 20 heads, around the 16
  // heads of the older sweeps, where the L2 runs out. The full-grid misses
  // repeat s53's within 3% (reads 73.0 / 72.4 MB and 97.5 / 95.3 MB, model
  // 62.8 and 84.6).
  check_ratchet({"h200-2026-11-30-flash1-full-grid.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-30-flash1-full-grid-misses.csv", 16});
  check_ratchet({"h200-2026-11-30-flash1-edge-heads.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-30-flash1-edge-heads-misses.csv", 6});
  // Then the GPU full near the L2's size, by length (N 384 to 640), key
  // block (Bc 16 to 128) and heads (66, 100): reads in bar at 4 of 10,
  // drained writes at 3. The GPU starts missing at a lower load than the
  // model and misses more until far past it.
  check_ratchet({"h200-2026-11-30-flash1-balanced-edge.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-30-flash1-balanced-edge-misses.csv", 10});
  // Session 54 (flash1-placements32-2026-11-30.sh): four of those points in
  // 32 placements, one range each. Their placements from 30 MiB of pad on
  // often got placement 0's pages again (placement-reuse-2026-11-30.md), so
  // these medians lean toward placement 0's count; kept as recorded.
  check_ratchet({"h200-2026-11-30-flash1-placements32.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-30-flash1-placements32-misses.csv", 4});
  // And eight more of them the same way (flash1-placements32-more-2026-11-30.sh).
  check_ratchet({"h200-2026-11-30-flash1-placements32-more.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-30-flash1-placements32-more-misses.csv", 8});
  // The twelve again, each placement on pages no other had (the earlier
  // placements' buffers held; placement-reuse-2026-11-30.sh): with the GPU
  // full the model reads 10.5% to 25.8% too little at all six points.
  check_ratchet({"h200-2026-11-30-flash1-placements32-held.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-30-flash1-placements32-held-misses.csv", 12});
  // The sweep's 16 flash1 cells the same way (sweep-flash1-held-2026-11-30.sh):
  // the same two misses as s53 (fp16 N = 512 d = 128, N = 1024 d = 64), larger.
  check_ratchet({"h200-2026-11-30-sweep-flash1-held.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-30-sweep-flash1-held-misses.csv", 16});
}

TEST_CASE("recorded runs: shapes held out from the line-level L2", "[fidelity]") {
  // Session 60 (l2-lines-holdout-2026-12-01.sh): eleven shapes no earlier set
  // has, 66 heads or more, fitting the sampled window, so fasim predicts them
  // with the line-level L2 (l2_lines.hpp), recorded after it was written; 32
  // placements each. Reads in bar at 9 of 11 (the count model: 8), drained
  // writes at 9 (the count model: 4). The misses: flash1 at 52 to 63 MB of
  // tensors, just past the L2, where the line-level L2 reads 15% and 18% too
  // much. (Its median of 21 layouts was chosen after this set was seen.
  // Since the layouts follow the allocation order, 32 of them, and each
  // metric is their median (l2-layouts-2026-12-01.md): reads 10 of 11.)
  check_ratchet({"h200-2026-12-01-l2-lines-holdout.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-12-01-l2-lines-holdout-misses.csv", 11});
}

TEST_CASE("recorded runs: the sweep again with the counters in 8 placements of the buffers", "[fidelity][slow]") {
  // The same 60 points as h200-2026-11-22-sweep.csv, each counted in 8
  // placements (fasim compare --placements 8; placements8-2026-11-23.sh).
  // measured is the median over the placements: near the L2's size one
  // placement's DRAM count can sit anywhere in a range 27% to 81% of that
  // median wide (h200-2026-11-23-flash1-placement.md), so the median is the
  // fairer thing to hold the model to.
  check_ratchet({"h200-2026-11-23-placements8.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-11-23-placements8-misses.csv", 60});
}

TEST_CASE("recorded runs: the H100 sweep again with the counters in 8 placements", "[fidelity][slow]") {
  // The same 60 points on an H100 (placements8-2026-11-23.sh with
  // DEVICE_TOML=h100-2026-11-22-measured.toml, 2026-11-23), medians of 8
  // placements each, predicted with the H100's profile.
  check_ratchet({"h100-2026-11-23-placements8.csv", "h100-2026-11-22-measured.toml",
                 "h100-2026-11-23-placements8-misses.csv", 60});
}

TEST_CASE("fidelity: error is relative to the measurement, with zero handled", "[fidelity]") {
  CHECK(error_pct(110, 100) == Approx(10));
  CHECK(error_pct(75, 100) == Approx(-25));
  CHECK(error_pct(0, 0) == 0);
  CHECK(std::isinf(error_pct(1, 0)));
  CHECK(bar_pct(Metric::hbm_read_bytes) == 0);
  CHECK(bar_pct(Metric::dram_write_bytes) == 10);
  CHECK(bar_pct(Metric::l2_read_bytes) == 10);
  CHECK(bar_pct(Metric::time_s) == 25);
}

TEST_CASE("fidelity: a recorded point is predicted as fasim run predicts it", "[fidelity]") {
  const std::string row = "NVIDIA H200,580,2026-11-21,flash2,fp16,1,2,256,64,64,64,cold,";
  std::string text = kHeader;
  for (const char* m : {"hbm_read_bytes", "hbm_write_bytes", "l2_read_bytes", "l2_write_bytes", "dram_read_bytes",
                        "dram_write_bytes", "dram_write_drained_bytes", "time_s"})
    text += row + m + ",1,2\n";
  const std::vector<RecordedPoint> points = read_recorded_csv(tmp_file("rec.csv", text));
  REQUIRE(points.size() == 1);
  const RecordedPoint& p = points[0];
  CHECK(p.workload.heads == 2);
  CHECK(p.mapping.algo == Algo::flash2);
  CHECK(p.mapping.bc == 64);
  CHECK(*p.measured[static_cast<std::size_t>(Metric::time_s)] == 2);
  const DeviceSpec h200 = load_device("h200");
  const std::vector<Reprediction> reps = repredict(points, h200);
  // The point runs as the CUDA kernel that produced it (here tensor cores): the same compute model.
  Simulation sim(h200, p.workload, p.mapping,
                 {.numerics = false, .compute = cuda_compute_model(p.workload, p.mapping)});
  sim.run();
  CHECK(reps[0].predicted == predicted_metrics(sim));
  // flash2 reads Q once and K, V once per query block: 2 heads x (Q + 4 x (K + V)).
  CHECK(reps[0].predicted[0] == 2.0 * (256 * 64 * 2 + 4 * 2 * 256 * 64 * 2));
  // Recorded as measured: 2 bytes and 2 s. All eight metrics miss, HBM included.
  CHECK(find_misses(reps).size() == kMetricCount);
}

TEST_CASE("fidelity: drained DRAM writes are the writes plus every dirty byte left in L2", "[fidelity]") {
  // The drain after the kernel evicts everything, so each byte the kernel
  // stored reaches DRAM at least once. flash2 stores O and each row's
  // logsumexp once: drained = background + the L2 write bytes, whether O fits in L2
  // (N = 1024: written back only by the drain) or not (N = 16384, 64 heads).
  // flash1 writes O, l and m back once per key block: while they stay in L2
  // the drain writes them once; when they do not, more than once.
  // The background the drained count carries is the expected one (rate x
  // time, fractions kept); dram_write_bytes carries it in whole pieces.
  const DeviceSpec d = load_device("h200");
  const auto drained_from_parts = [](const Simulation& sim) {
    return static_cast<double>(sim.ledger().cache_total().dram_write_bytes) +
           static_cast<double>(sim.l2_dirty_bytes()) + background_write_expected_bytes(sim);
  };
  const auto drained = static_cast<std::size_t>(Metric::dram_write_drained_bytes);
  const auto l2w = static_cast<std::size_t>(Metric::l2_write_bytes);
  for (const std::int64_t heads : {4, 64}) {
    for (const std::int64_t N : {1024, 16384}) {
      const Workload w{.batch = 1, .heads = heads, .N = N, .d = 64, .dtype = DType::fp16};
      const Mapping m{.algo = Algo::flash2, .br = 128, .bc = 128};
      Simulation sim(d, w, m, {.numerics = false, .compute = cuda_compute_model(w, m)});
      sim.run();
      const MetricValues p = predicted_metrics(sim);
      INFO("heads " << heads << ", N " << N);
      CHECK(p[drained] == drained_from_parts(sim));
      const double expected = background_write_expected_bytes(sim);
      CHECK(expected == d.dram_background_write_rate * sim.time().seconds);
      CHECK(std::abs(expected - background_write_bytes(sim)) <= kBackgroundPieceBytes / 2);
      // The set model's write-backs are expected values, rounded to whole
      // bytes step by step: the sum may be a few bytes off (2 in 138 MB here).
      CHECK(std::abs(p[drained] - (p[l2w] + expected)) <= 16);
      // O: heads x N x d x 2 bytes; the row's logsumexp: heads x N x 4 bytes.
      CHECK(p[l2w] == static_cast<double>(heads * N * (64 * 2 + 4)));
    }
  }
  const Workload w{.batch = 1, .heads = 16, .N = 4096, .d = 64, .dtype = DType::fp32};
  const Mapping m{.algo = Algo::flash1, .br = 64, .bc = 64};
  Simulation sim(d, w, m, {.numerics = false, .compute = cuda_compute_model(w, m)});
  sim.run();
  const MetricValues p = predicted_metrics(sim);
  CHECK(p[drained] == drained_from_parts(sim));
  const double o_l_m = 16.0 * 4096 * (64 * 4 + 2 * 4);
  CHECK(p[drained] > o_l_m);    // written back more than once ...
  CHECK(p[drained] < p[l2w]);   // ... but not once per store: some stores met a dirty line
}

TEST_CASE("fidelity: predicted DRAM reads of a cold CUDA run add the kernels' code, fetched once", "[fidelity]") {
  // docs/results/code-fetch-2026-11-29.md: the medians of what the recorded
  // cold runs that fit in L2 read beyond their data, by kernel family.
  const DeviceSpec d = load_device("h200");
  const Workload w{.batch = 1, .heads = 4, .N = 1024, .d = 64, .dtype = DType::fp32};
  const auto dram_read = static_cast<std::size_t>(Metric::dram_read_bytes);
  auto sim = [&](Algo algo, DType dtype, ComputeModel compute, L2Start l2) {
    Workload x = w;
    x.dtype = dtype;
    auto s = std::make_unique<Simulation>(d, x, Mapping{.algo = algo, .br = 64, .bc = 64},
                                          SimOptions{.numerics = false, .l2 = l2, .compute = compute});
    s->run();
    return s;
  };
  struct Case {
    Algo algo;
    DType dtype;
    ComputeModel compute;
    double kib;
  };
  for (const Case& c : {Case{Algo::flash2, DType::fp32, ComputeModel::cuda_simt, 280},
                        Case{Algo::flash1, DType::fp32, ComputeModel::cuda_simt, 220},
                        Case{Algo::naive, DType::fp32, ComputeModel::cuda_simt, 240},
                        Case{Algo::flash2, DType::fp16, ComputeModel::cuda_mma, 72}}) {
    INFO(name(c.algo) << " " << name(c.dtype));
    const auto cold = sim(c.algo, c.dtype, c.compute, L2Start::cold);
    CHECK(code_fetch_bytes(*cold) == c.kib * 1024);
    const MetricValues p = predicted_metrics(*cold);
    const double misses = static_cast<double>(cold->ledger().cache_total().dram_read_bytes);
    CHECK(p[dram_read] == misses + c.kib * 1024);
    // The ledger is the algorithm's traffic: the code is only in the predicted
    // DRAM reads, and the L2 reads (what the SMs ask for) leave it out.
    CHECK(p[static_cast<std::size_t>(Metric::l2_read_bytes)] ==
          static_cast<double>(cold->ledger().cache_total().l2_read_bytes));
    CHECK(p[static_cast<std::size_t>(Metric::dram_write_bytes)] ==
          static_cast<double>(cold->ledger().cache_total().dram_write_bytes) + background_write_bytes(*cold));
    // A warm run's warm-up launch left the code in L2.
    const auto warm = sim(c.algo, c.dtype, c.compute, L2Start::warm);
    CHECK(code_fetch_bytes(*warm) == 0);
    CHECK(predicted_metrics(*warm)[dram_read] == static_cast<double>(warm->ledger().cache_total().dram_read_bytes));
  }
  // The ideal compute model runs no CUDA kernel.
  CHECK(code_fetch_bytes(*sim(Algo::flash2, DType::fp16, ComputeModel::ideal, L2Start::cold)) == 0);
}

TEST_CASE("fidelity: the code a cold run fetches is the device's figure, as calibrate measures it", "[fidelity]") {
  // A device TOML from `fasim gpu calibrate` carries its build's [code_fetch].
  DeviceSpec d = load_device("h200");
  d.code_fetch = {.naive = 1000, .flash1 = 2000, .flash2 = 3000, .flash2_mma = 4000};
  auto cold = [&](Algo algo, DType dtype, ComputeModel compute) {
    Simulation s(d, Workload{.batch = 1, .heads = 2, .N = 256, .d = 64, .dtype = dtype},
                 Mapping{.algo = algo, .br = 64, .bc = 64},
                 SimOptions{.numerics = false, .l2 = L2Start::cold, .compute = compute});
    s.run();
    return code_fetch_bytes(s);
  };
  CHECK(cold(Algo::naive, DType::fp32, ComputeModel::cuda_simt) == 1000);
  CHECK(cold(Algo::flash1, DType::fp32, ComputeModel::cuda_simt) == 2000);
  CHECK(cold(Algo::flash2, DType::fp32, ComputeModel::cuda_simt) == 3000);
  CHECK(cold(Algo::flash2, DType::fp16, ComputeModel::cuda_mma) == 4000);
}

TEST_CASE("fidelity: predicted DRAM writes are the kernel's plus the GPU's background over the predicted time",
          "[fidelity]") {
  DeviceSpec d = load_device("h200");
  d.dram_background_write_rate = 0;
  const Workload w{.batch = 1, .heads = 4, .N = 1024, .d = 64, .dtype = DType::fp32};
  const Mapping m{.algo = Algo::flash2, .br = 64, .bc = 64};
  Simulation quiet(d, w, m, {.numerics = false});
  quiet.run();
  d.dram_background_write_rate = 17.5 * 1024 * 1024;  // what an H200 writes on its own
  Simulation busy(d, w, m, {.numerics = false});
  busy.run();
  const auto dram_write = static_cast<std::size_t>(Metric::dram_write_bytes);
  const double kernel = static_cast<double>(busy.ledger().cache_total().dram_write_bytes);
  CHECK(predicted_metrics(quiet)[dram_write] == kernel);
  CHECK(background_write_bytes(quiet) == 0);
  REQUIRE(busy.time().seconds > 0);
  // Whole 256 KiB pieces: the nearest count to rate x time.
  const double pieces = 17.5 * 1024 * 1024 * busy.time().seconds / (256 * 1024);
  CHECK(background_write_bytes(busy) == std::round(pieces) * 256 * 1024);
  // A GPU that writes faster on its own: more pieces, in proportion, within half a piece.
  d.dram_background_write_rate = 64.0 * 1024 * 1024 * 1024;
  Simulation fast(d, w, m, {.numerics = false});
  fast.run();
  const double rate_t = 64.0 * 1024 * 1024 * 1024 * fast.time().seconds;
  REQUIRE(rate_t > 4 * 256 * 1024);
  CHECK(background_write_bytes(fast) == std::round(rate_t / (256 * 1024)) * 256 * 1024);
  CHECK(std::abs(background_write_bytes(fast) - rate_t) <= 128 * 1024);
  CHECK(predicted_metrics(busy)[dram_write] == Approx(kernel + background_write_bytes(busy)));
  // The drained writes take the expected value, rate x time, fractions kept.
  const auto drained = static_cast<std::size_t>(Metric::dram_write_drained_bytes);
  CHECK(background_write_expected_bytes(quiet) == 0);
  CHECK(background_write_expected_bytes(busy) == 17.5 * 1024 * 1024 * busy.time().seconds);
  CHECK(predicted_metrics(busy)[drained] ==
        Approx(predicted_metrics(quiet)[drained] + background_write_expected_bytes(busy)));
  // Nothing else moves: the background is not the kernel's traffic.
  for (std::size_t i = 0; i < kMetricCount; ++i)
    if (i != dram_write && i != drained) CHECK(predicted_metrics(busy)[i] == predicted_metrics(quiet)[i]);
}

TEST_CASE("fidelity: bad recorded files are one clear error", "[fidelity]") {
  CHECK_THROWS_WITH(read_recorded_csv(tmp_file("bad1.csv", "a,b\n")), Catch::Contains("header must be"));
  CHECK_THROWS_WITH(read_recorded_csv(tmp_file("bad2.csv", std::string(kHeader) + "x,y,z,flash2,fp16,1,1,256\n")),
                    Catch::Contains(":2: expected 15 fields"));
  CHECK_THROWS_WITH(
      read_recorded_csv(tmp_file("bad3.csv", std::string(kHeader) + "x,y,z,flash9,fp16,1,1,256,64,64,64,cold,time_s,1,1\n")),
      Catch::Contains("unknown algorithm 'flash9'"));
  CHECK_THROWS_WITH(
      read_recorded_csv(tmp_file("bad4.csv", std::string(kHeader) + "x,y,z,flash2,fp16,1,1,-5,64,64,64,cold,time_s,1,1\n")),
      Catch::Contains("N '-5' is not a positive whole number"));
  CHECK_THROWS_WITH(read_recorded_csv(tmp_file("bad5.csv", std::string(kHeader) +
                                                                "x,y,z,flash2,fp16,1,1,256,64,64,64,cold,time_s,1,1\n"
                                                                "x,y,z,flash2,fp16,1,1,256,64,64,64,cold,time_s,1,1\n")),
                    Catch::Contains("appears twice"));
  CHECK_THROWS_WITH(read_recorded_csv(tmp_file("bad6.csv", std::string(kHeader))), Catch::Contains("no rows"));
  CHECK_THROWS_AS(read_recorded_csv("/nonexistent/x.csv"), UserError);
}

TEST_CASE("fidelity: the ratchet catches new misses, grown errors, fixed misses and inexact HBM", "[fidelity]") {
  const std::vector<Miss> known = {{"p1", Metric::time_s, -40}, {"p2", Metric::dram_read_bytes, 20}};
  CHECK(ratchet_problems({{"p1", Metric::time_s, -40}, {"p2", Metric::dram_read_bytes, -19}}, known).empty());
  // p1 got worse.
  auto p = ratchet_problems({{"p1", Metric::time_s, -41}, {"p2", Metric::dram_read_bytes, 20}}, known);
  REQUIRE(p.size() == 1);
  CHECK(p[0].find("grew from -40.00% to -41.00%") != std::string::npos);
  // p2 is fixed but still listed.
  p = ratchet_problems({{"p1", Metric::time_s, -40}}, known);
  REQUIRE(p.size() == 1);
  CHECK(p[0].find("now meets its bar") != std::string::npos);
  // A new miss.
  p = ratchet_problems({{"p1", Metric::time_s, -40}, {"p2", Metric::dram_read_bytes, 20}, {"p3", Metric::l2_read_bytes, 11}},
                       known);
  REQUIRE(p.size() == 1);
  CHECK(p[0].find("outside the 10% bar") != std::string::npos);
  // HBM may never miss, listed or not.
  p = ratchet_problems({{"p4", Metric::hbm_read_bytes, 0.01}}, {{"p4", Metric::hbm_read_bytes, 0.01}});
  REQUIRE(p.size() == 1);
  CHECK(p[0].find("not exact") != std::string::npos);
  // The list survives a write and a read.
  const std::string path = tmp_file("misses.csv", "");
  write_misses(path, known);
  const std::vector<Miss> back = read_misses(path);
  REQUIRE(back.size() == 2);
  CHECK(back[1].point == "p2");
  CHECK(back[1].metric == Metric::dram_read_bytes);
  CHECK(back[1].error_pct == 20);
}

TEST_CASE("fidelity: a run measured several times keeps its least and most, and the fit counts the GPU's spread",
          "[fidelity]") {
  const std::string header = std::string(kHeader).substr(0, std::string(kHeader).size() - 1) +
                             ",measured_min,measured_max\n";
  const std::string row = "NVIDIA H200,580,2026-11-21,flash2,fp16,1,2,256,64,64,64,cold,";
  // The rows are built around the simulator's own prediction of the point.
  std::string probe = kHeader;
  for (std::size_t m = 0; m < kMetricCount; ++m) probe += row + name(static_cast<Metric>(m)) + ",1,1\n";
  const MetricValues p = repredict(read_recorded_csv(tmp_file("spread0.csv", probe)), load_device("h200"))[0].predicted;
  const auto dw = static_cast<std::size_t>(Metric::dram_write_bytes);
  const auto dr = static_cast<std::size_t>(Metric::dram_read_bytes);
  const auto l2 = static_cast<std::size_t>(Metric::l2_read_bytes);
  REQUIRE(p[dr] > 0);  // Q, K and V come from DRAM once
  // DRAM writes: median = prediction + 5% + 1000 B, least = the prediction, most = twice the median
  // (spread over 100% > 10%, prediction inside; DRAM writes may be predicted 0).
  // DRAM reads: median = prediction x 2, range 1.9..2.1 x (spread 10%: not over the bar; prediction outside).
  // L2 reads: no range (one run), all others exact.
  std::string text = header;
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    const double v = p[m];
    std::string vals;
    char buf[160];
    if (m == dw) {
      const double med = v * 1.05 + 1000;
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g", v, med, v, 2 * med);
    } else if (m == dr) {
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g", v, 2 * v, 1.95 * v, 2.145 * v);
    } else if (m == l2) {
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,,", v, v);
    } else {
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g", v, v, v, v);
    }
    text += row + name(static_cast<Metric>(m)) + "," + buf + "\n";
  }
  const std::vector<RecordedPoint> points = read_recorded_csv(tmp_file("spread.csv", text));
  REQUIRE(points.size() == 1);
  CHECK(points[0].measured_min[dw].has_value());
  CHECK_FALSE(points[0].measured_min[l2].has_value());
  CHECK(*points[0].measured_max[dr] == Approx(2.145 * p[dr]));
  const std::vector<Reprediction> reps = repredict(points, load_device("h200"));
  const MetricFit w = fit_of(reps, Metric::dram_write_bytes), r = fit_of(reps, Metric::dram_read_bytes),
                  c = fit_of(reps, Metric::l2_read_bytes);
  CHECK(w.repeated == 1);
  CHECK(w.spread_over_bar == 1);  // over 100% of the median > 10%
  CHECK(w.in_range == 1);
  CHECK(r.repeated == 1);
  CHECK(r.spread_over_bar == 0);  // 9.75% of the median
  CHECK(r.in_range == 0);         // the prediction is half of the least
  CHECK(c.repeated == 0);
  CHECK(fit_of(reps, Metric::time_s).spread_over_bar == 0);  // min = max

  // `fasim compare --sweep` writes this header and one more column, blocks_per_sm.
  CHECK(header.substr(0, header.size() - 1) + ",blocks_per_sm" == recorded_csv_header());

  // Around a median of 0 any spread is over the bar: writes of 0 in most ranges, 256 KiB in one.
  std::string zero = header;
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    char buf[160];
    if (m == dw)
      std::snprintf(buf, sizeof buf, "%.17g,0,0,262144", p[m]);
    else
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g", p[m], p[m], p[m], p[m]);
    zero += row + name(static_cast<Metric>(m)) + "," + buf + "\n";
  }
  const std::vector<RecordedPoint> zero_points = read_recorded_csv(tmp_file("spread-zero.csv", zero));
  const auto z = repredict(zero_points, load_device("h200"));  // points to zero_points
  CHECK(fit_of(z, Metric::dram_write_bytes).spread_over_bar == 1);
  CHECK(fit_of(z, Metric::dram_read_bytes).spread_over_bar == 0);

  // A spread header needs 17 fields on every row.
  CHECK_THROWS_WITH(read_recorded_csv(tmp_file("spread-bad.csv", header + row + "time_s,1,1\n")),
                    Catch::Contains(":2: expected 17 fields, found 15"));
}

TEST_CASE("recorded runs: DRAM bytes as the heads grow at four shapes", "[fidelity]") {
  // flash2 fp32 (Br = Bc = 64 and 32), flash2 fp16 and naive fp16 at 4 to 64
  // heads on an H200 and an H100 (write-curves-2026-11-23.sh, 2026-11-23),
  // recorded after every model constant was chosen: where along each curve
  // the model starts to write back or re-read (write-curves-2026-11-23.md).
  for (const RecordedSet& set :
       {RecordedSet{"h200-2026-11-23-write-curves.csv", "h200-2026-11-22-measured.toml",
                    "h200-2026-11-23-write-curves-misses.csv", 31},
        RecordedSet{"h100-2026-11-23-write-curves.csv", "h100-2026-11-22-measured.toml",
                    "h100-2026-11-23-write-curves-misses.csv", 31}})
    check_ratchet(set);
}

TEST_CASE("fidelity: a point held to fewer blocks per SM is its own point, predicted at that occupancy",
          "[fidelity]") {
  // The same shape twice, once as it fits (empty cell) and once at one block
  // per SM; rows of the two are interleaved.
  const std::string key = "NVIDIA H200,580,2026-11-24,flash2,fp32,1,16,2048,128,64,64,cold,";
  std::string text = recorded_csv_header() + "\n";
  for (const char* cap : {"", "1"})
    for (const char* metric : {"dram_write_bytes", "time_s"})
      text += key + metric + ",1,1,1,1," + cap + "\n";
  const std::vector<RecordedPoint> points = read_recorded_csv(tmp_file("occupancy.csv", text));
  REQUIRE(points.size() == 2);
  CHECK(points[0].mapping.blocks_per_sm == 0);
  CHECK(points[1].mapping.blocks_per_sm == 1);
  CHECK(describe(points[1]) == describe(points[0]) + " at most 1 per SM");
  const std::vector<Reprediction> reps = repredict(points, load_device("h200"));
  const auto t = static_cast<std::size_t>(Metric::time_s), dw = static_cast<std::size_t>(Metric::dram_write_bytes);
  CHECK(reps[1].predicted[t] > 1.4 * reps[0].predicted[t]);  // 4 waves of one block per SM, not 2 of two
  CHECK(reps[1].predicted[dw] > reps[0].predicted[dw]);
  // Written again, each point keeps its cell.
  std::ostringstream again;
  write_repredicted_csv(again, reps);
  const std::vector<RecordedPoint> back = read_recorded_csv(tmp_file("occupancy-again.csv", again.str()));
  REQUIRE(back.size() == 2);
  CHECK(back[0].mapping.blocks_per_sm == 0);
  CHECK(back[1].mapping.blocks_per_sm == 1);
  CHECK(recorded_axis_value(back[1], "--blocks-per-sm") == "1");
  // A cell that is not a positive whole number is named.
  CHECK_THROWS_WITH(read_recorded_csv(tmp_file("occupancy-bad.csv",
                                               recorded_csv_header() + "\n" + key + "time_s,1,1,1,1,0\n")),
                    Catch::Contains(":2: blocks_per_sm '0' is not a positive whole number"));
}

TEST_CASE("recorded runs: shapes held out from the line-level L2's layouts", "[fidelity]") {
  // Session 63 (l2-layouts-holdout-2026-12-01.sh): ten shapes no earlier set
  // has, on the line-level L2, chosen after the layouts changed to the
  // allocation order (l2-layouts-2026-12-01.md) and recorded after; 32
  // placements each. Reads in bar at 8 of 10 (the 21 random orders: 8),
  // drained writes at 9 (8), writes during the run at 8 (5).
  check_ratchet({"h200-2026-12-01-l2-layouts-holdout.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-12-01-l2-layouts-holdout-misses.csv", 10});
}

TEST_CASE("recorded runs: shapes held out from the load-timing blend", "[fidelity]") {
  // load-timing-blend-holdout-2026-12-01.sh: ten shapes no earlier set has,
  // predicted at own-lines weights 1 and 0.3 before the run
  // (load-timing-blend-holdout-predictions-2026-12-01.csv); 32 placements
  // each. Weight 0.3 (fasim now) against 1: reads in bar at 8 of 10 (8),
  // drained writes at 9 (8), writes during the run at 8 (6), time 10 (10).
  check_ratchet({"h200-2026-12-01-blend-holdout.csv", "h200-2026-11-22-measured.toml",
                 "h200-2026-12-01-blend-holdout-misses.csv", 10});
}
