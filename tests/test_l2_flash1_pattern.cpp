// The flash1-pattern probe (docs/results/flash1-pattern-2026-11-30.md)
// played through the L2 model. flash1's loop order with no arithmetic reads
// on the GPU what flash1 reads, over the same spread of placements; the
// model reads about what the luckiest placement reads. What it gets right
// and must keep: far from the L2's edge (N = 384) everything fits. What it
// misses, held by a ratchet: with the GPU full, near the edge a read-once
// stream pushes re-read data out more on the GPU (F1-ro below every
// placement), more so when that data is dirty, and the GPU's edge comes
// earlier; with 16 heads, 12 of them next to one L2 half, the GPU's edge
// comes later than the model's; and which heads sit next to which half
// changes the GPU's reads by up to 2x at the same balance, which the
// model, with no addresses, cannot see.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/l2_flash1_pattern.hpp"
#include "fasim/l2_probes.hpp"
#include "fasim/median.hpp"

using namespace fasim;
using Catch::Matchers::Contains;

namespace {

const std::filesystem::path kResults = std::filesystem::path(FASIM_SOURCE_DIR) / "docs" / "results";

// The SMs the rmw probe's 132 blocks ran on (the same grid and shared
// memory as the pattern probe's, one block an SM).
std::vector<std::int64_t> blocks_of_132() {
  for (const ReadersSequence& s : read_readers_probe((kResults / "h200-2026-11-30-rmw-probe.csv").string()))
    if (s.name.rfind("R132", 0) == 0) return s.sm_of_block;
  return {};
}

}  // namespace

TEST_CASE("L2 flash1 pattern: the model on flash1's own access pattern, against the GPU's placements",
          "[l2][probes]") {
  const DeviceSpec dev = load_device("h200");
  const SmLayout layout = read_sm_layout((kResults / "h200-2026-11-30-sm-map.txt").string());
  const std::vector<std::int64_t> sms = blocks_of_132();
  REQUIRE(sms.size() == 132);
  double error = 0;  // summed |model - GPU median| / GPU median, over the sequences
  int sequences = 0;
  // The split, many and bits calls each measured their own SM map (the
  // split call's halves differ from the rmw call's at 36 SMs, not at the
  // grid's); the others take the rmw call's. FASIM_PATTERN_TABLE=1 prints
  // each sequence's GPU and model figures (the write-ups' tables).
  for (const std::string file : {"2026-11-30-flash1-pattern", "2026-11-30-flash1-pattern-variants",
                                 "2026-11-30-flash1-pattern-edge", "2026-11-30-flash1-pattern-grid",
                                 "2026-11-30-flash1-pattern-split", "2026-11-30-flash1-pattern-many",
                                 "2026-11-30-flash1-pattern-bits", "2026-11-30-flash1-pattern-layout",
                                 "2026-11-30-flash1-pattern-parts", "2026-11-30-flash1-pattern-lm",
                                 "2026-12-01-flash1-pattern-grain"}) {
    const bool own_map = file.ends_with("-split") || file.ends_with("-many") || file.ends_with("-bits");
    const SmLayout halves = own_map ? read_sm_layout((kResults / ("h200-" + file + "-sm-map.txt")).string()) : layout;
    double f1_mid = 0;  // this call's plain F1 (the grain call: 132 heads, N = 512)
    std::vector<std::pair<std::string, double>> grains;  // F1-e2, -e4, -e2o, -e2in: GPU medians
    for (const Flash1Pattern& p : read_flash1_pattern((kResults / ("h200-" + file + ".csv")).string())) {
      REQUIRE(p.gpu_mb.size() >= 4);
      const std::vector<std::int64_t>& on = p.sm_of_block.empty() ? sms : p.sm_of_block;
      const auto passes = replay_flash1_pattern(p, dev, halves, on);
      REQUIRE(static_cast<std::int64_t>(passes.size()) == (p.n + p.bc - 1) / p.bc);
      double model = 0;
      for (const PatternPass& pass : passes) model += pass.read_mb;
      const auto [least, most] = std::minmax_element(p.gpu_mb.begin(), p.gpu_mb.end());
      const double mid = median(p.gpu_mb);
      INFO(file << " " << p.name << ": GPU " << *least << " / " << mid << " / " << *most << " MB, model " << model);
      if (std::getenv("FASIM_PATTERN_TABLE"))
        std::printf("%-40s GPU %7.1f %7.1f %7.1f model %7.1f %+6.1f%%\n", p.name.c_str(), *least, mid, *most, model,
                    100 * (model - mid) / mid);
      // The first pass reads all of Q and the K and V it has never seen.
      const double heads = static_cast<double>(p.heads > 0 ? p.heads : static_cast<std::int64_t>(on.size()));
      const double q_mb = heads * static_cast<double>(p.n * p.d * 2) / 1e6;
      const double streams = p.read_v ? 2.0 : 1.0;  // K_j and V_j, or K_j alone
      const double first = q_mb * (p.kv ? 1 + streams * static_cast<double>(std::min(p.bc, p.n)) / p.n : 1);
      CHECK(passes[0].read_mb >= first - 1e-6);
      // Far from the edge (132 heads at N = 384, 16 at N = 3072) every line
      // fits, on the GPU and in the model.
      if (p.n == 384 || (p.heads == 16 && p.n == 3072)) CHECK(std::abs(model - mid) / mid < 0.03);
      // 16 heads split 8 and 8 over the halves by hand, heads 0 to 7 next to
      // one: the model within the bar's 10% (+4.2% and +6.8% in two calls).
      if (p.name.rfind("F1-a8/", 0) == 0 && p.bc == 64) CHECK(std::abs(model - mid) / mid < 0.10);
      if (p.name.rfind("F1/", 0) == 0) f1_mid = mid;
      if (p.name.rfind("F1-e", 0) == 0) grains.emplace_back(p.name, mid);
      error += std::abs(model - mid) / mid;
      ++sequences;
    }
    // The model counts lines, not instructions: the grain tags give the
    // same steps. The GPU agrees: 2 or 4 bytes a thread at a time instead
    // of 16 moves the median read by 4.1% at most (F1-e2, 78.8 MB against
    // 75.7 in the same call).
    for (const auto& [name, mid] : grains) {
      INFO(file << " " << name << ": GPU median " << mid << " MB, F1 " << f1_mid);
      CHECK(std::abs(mid - f1_mid) / f1_mid < 0.05);
    }
    if (file.ends_with("-grain")) CHECK(grains.size() == 4);
  }
  CHECK(sequences == 83);
  // Ratchet, 2026-11-30 (64-way sets): 11.655 summed over the 78 sequences
  // (4.453 over the first 31, 6.696 with the split call's 8, 9.671 with the
  // many and bits calls' 20, 10.061 with the layout call's 6, 11.019 with
  // the parts call's 8); 12.453 over 83 with the grain call's 5 (2026-12-01:
  // F1 and its four grains, -14.4% to -17.7%). With 132
  // heads the model reads too little (F1 at N = 512 -8% to -21%; at N = 576
  // F1-nokv -38%, F1-ro -36%; F1-ro at 640 -42%), with 16 heads (12 next to
  // one L2 half) too much (F1 at N = 4096 +48%, F1-ro at 4608 +47%); 16
  // heads split by hand: 8 and 8 within 7%, all 16 next to one half +72% at
  // N = 3584, 12 and 4 +57% at 4096. The bits call shows why no setting of
  // the model can fit them all: the same 8 and 8 split reads 50.9 MB with
  // heads 0 to 7 next to one half and 83.5 or 102.6 MB with the even or odd
  // heads (or pairs) there; the model, with no addresses, predicts 55.3 for
  // each. Lower it when the model learns which lines a half holds copies of.
  INFO("summed relative error " << error);
  CHECK(error <= 12.46);
}

TEST_CASE("L2 flash1 pattern: a pattern file that is not one is one clear line", "[l2][probes]") {
  const test::ScratchDir dir;
  CHECK_THROWS_WITH(read_flash1_pattern("/nonexistent/pattern.csv"),
                    Contains("cannot read flash1-pattern probe CSV '/nonexistent/pattern.csv'"));
  const std::string header = "sequence,placement,style,spin,pass,dram_read_bytes,dram_write_bytes,sms,skew_us\n";
  const auto bad = [&](const std::string& name, const std::string& text, const std::string& message) {
    INFO(name);
    test::write_text(dir.path() / name, text);
    CHECK_THROWS_WITH(read_flash1_pattern(dir.file(name)), Contains(message));
  };
  bad("header.csv", "a,b\n", "its first line must be sequence,placement");
  bad("none.csv", header + "F1/N512/d128/br64/bc64,0,loop,spin0,all,1,1,,1:0.2/24.6\n",
      "holds no launch-style run with no spin");
  bad("name.csv", header + "F2/N512/d128/br64/bc64,0,launch,spin0,1,1,1,,1:0.2/24.6\n",
      "name.csv:2: sequence 'F2/N512/d128/br64/bc64' is not F1 with tags -nokv, -ro, -together, -kvj, -nolm, -lmro, "
      "-lmpad, -konly, -e2, -e4, -e2o, -e2in, -aK, -bK, -qK or -wK");
  bad("tag.csv", header + "F1-x2/N512/d128/br64/bc64,0,launch,spin0,1,1,1,,1:0.2/24.6\n", "'F1-x2/N512/d128/br64/bc64' is not");
  bad("dash.csv", header + "F1-/N512/d128/br64/bc64,0,launch,spin0,1,1,1,,1:0.2/24.6\n", "'F1-/N512/d128/br64/bc64' is not");
  bad("q0.csv", header + "F1-q0/N512/d128/br64/bc64/h2,0,launch,spin0,1,1,1,,-\n", "'F1-q0/N512/d128/br64/bc64/h2' is not");
  // Slices and workers name their heads: the blocks are not one a head.
  bad("noheads.csv", header + "F1-w4/N512/d128/br64/bc64,0,launch,spin0,1,1,1,,-\n", "'F1-w4/N512/d128/br64/bc64' is not");
  bad("slices.csv", header + "F1-q2/N512/d128/br64/bc64/h2,0,launch,spin0,1,1,1,0 2 4,-\n",
      "slices.csv:2: sms lists 3 SMs; F1-q2/N512/d128/br64/bc64/h2 runs 4 blocks");
  bad("zero.csv", header + "F1/N0/d128/br64/bc64,0,launch,spin0,1,1,1,,1:0.2/24.6\n", "is not F1 with tags");
  bad("bytes.csv", header + "F1/N512/d128/br64/bc64,0,launch,spin0,1,-5,1,,1:0.2/24.6\n",
      "bytes.csv:2: dram_read_bytes '-5' is not a whole number");
  bad("short.csv", header + "F1/N512/d128/br64/bc64,0,launch\n", "short.csv:2: expected 9 fields, found 3");
  bad("sms.csv", header + "F1/N512/d128/br64/bc64/h16,0,launch,spin0,1,1,1,0 2 4,-\n",
      "sms.csv:2: sms lists 3 SMs; F1/N512/d128/br64/bc64/h16 runs 16 blocks");
  const std::string ro = "F1-ro/N512/d128/br64/bc64/h2,";
  test::write_text(dir.path() / "ok.csv", header + ro + "0,launch,spin0,1,2000000,0,3 5,1:0.2/24.6\n" + ro +
                                              "0,launch,spin0,2,1000000,0,3 5,1:0.2/24.6\n" + ro +
                                              "1,launch,spin0,1,5000000,0,7 9,1:0.2/24.6\n");
  const auto ok = read_flash1_pattern(dir.file("ok.csv"));
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].n == 512);
  CHECK(ok[0].d == 128);
  CHECK(ok[0].br == 64);
  CHECK(ok[0].bc == 64);
  CHECK(ok[0].kv);
  CHECK_FALSE(ok[0].write);
  CHECK(ok[0].heads == 2);
  CHECK(ok[0].gpu_mb == std::vector<double>{3.0, 5.0});
  CHECK(ok[0].sm_of_block == std::vector<std::int64_t>{3, 5});  // placement 0's
  // Replayed on a device it was not measured on: one line naming both.
  const SmLayout layout = read_sm_layout((kResults / "h200-2026-11-30-sm-map.txt").string());
  CHECK_THROWS_WITH(replay_flash1_pattern(ok[0], load_device("a100"), layout, ok[0].sm_of_block),
                    Contains("the SM layout measured 132 SMs next to 2 L2 halves; device a100 has 108 SMs"));
  CHECK_THROWS_WITH(replay_flash1_pattern(ok[0], load_device("h200"), layout, {3, 5, 7}),
                    Contains("F1-ro/N512/d128/br64/bc64/h2 runs 2 blocks; 3 SMs given"));
}

TEST_CASE("L2 flash1 pattern: slices and workers share out one head's reads, each line read once when all fits",
          "[l2][probes]") {
  const test::ScratchDir dir;
  const std::string header = "sequence,placement,style,spin,pass,dram_read_bytes,dram_write_bytes,sms,skew_us\n";
  // 4 heads of 256 rows, d = 64: 4 x 32 KiB each of Q, K, V and O, far below the L2.
  test::write_text(dir.path() / "share.csv",
                   header + "F1-q2/N256/d64/br64/bc64/h4,0,launch,spin0,1,1,1,0 1 2 3 66 67 68 69,-\n" +
                       "F1-w3/N256/d64/br64/bc64/h4,0,launch,spin0,1,1,1,0 66 1,-\n" +
                       "F1-nokv-w2/N256/d64/br64/bc64/h4,0,launch,spin0,1,1,1,0 66,-\n" +
                       "F1-a1/N256/d64/br64/bc64/h4,0,launch,spin0,1,1,1,0 66 67 68,-\n");
  const auto seqs = read_flash1_pattern(dir.file("share.csv"));
  REQUIRE(seqs.size() == 4);
  CHECK_FALSE(seqs[2].kv);
  CHECK(seqs[2].workers == 2);
  CHECK(seqs[0].slices == 2);
  CHECK(seqs[0].workers == 0);
  CHECK(seqs[1].workers == 3);
  CHECK(seqs[1].slices == 1);
  CHECK(seqs[3].slices == 1);
  CHECK(seqs[3].workers == 0);
  CHECK(pattern_blocks(seqs[0], 4) == 8);
  CHECK(pattern_blocks(seqs[1], 4) == 3);
  const DeviceSpec dev = load_device("h200");
  const SmLayout layout = read_sm_layout((kResults / "h200-2026-11-30-sm-map.txt").string());
  const double qkv_mb = 3.0 * 4 * 256 * 64 * 2 / 1e6;  // Q, K and V once; O, l and m only ever hit
  for (const Flash1Pattern& p : seqs) {
    INFO(p.name);
    double total = 0;
    for (const PatternPass& pass : replay_flash1_pattern(p, dev, layout, p.sm_of_block)) total += pass.read_mb;
    CHECK(total == Approx(p.kv ? qkv_mb : qkv_mb / 3).epsilon(1e-12));
  }
}
