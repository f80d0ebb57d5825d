// The L2 churn probes (docs/results/h200-2026-11-22-churn-probe.md) played
// through the L2 model. What the probes show and the model must keep:
// W-way sets with copies next to the reader, and no early write-back, give
// the dirty data the GPUs wrote back, sequence by sequence; and neither the
// GPUs nor the model write back more once the re-reads have settled.
// The reuse probe (reuse-2026-11-24.md): read data leaves as the GPUs'
// does; written data outstays it, in the model half way to the GPUs.
// The shared-read probes (h200-2026-11-22-sm-partition-probe.md): with the
// blocks dealt to SMs and halves as the GPU was measured to, the model gives
// the read misses of data every SM re-reads, and most of the write-back.
// The readers probe (readers-2026-11-29.md): each SM re-reading its own rows
// meets a sharper edge than chunks dealt in turn, which the model cannot
// tell apart; a ratchet holds it to the first.
//
// Known misses. The churn, reuse and shared-read probes deal 4 KiB chunks
// to the SMs in turn. On the GPU that pattern meets an earlier, softer edge
// than each SM re-reading its own rows (the readers probe), and fasim has
// one edge for both. Since 2026-11-29 its sets (64 ways) are fitted to own
// rows, the pattern of the attention kernels
// (docs/results/small-grid-placement-2026-11-28.md, the section of
// 2026-11-29). The dealt sequences that then leave their bars are listed
// in each test with the error they have now: a bound they must not pass,
// and each must still be out of its bar (take it off the list when it is
// not).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/l2_probes.hpp"
#include "cli_support.hpp"

using namespace fasim;
using Catch::Matchers::Contains;

namespace {

const std::filesystem::path kResults = std::filesystem::path(FASIM_SOURCE_DIR) / "docs" / "results";

// A file of `text` in `dir`, its path.
std::string scratch_file(const test::ScratchDir& dir, const std::string& name, const std::string& text) {
  test::write_text(dir.path() / name, text);
  return dir.file(name);
}

// Each file (name, text) written to `dir` and handed to `read` must throw a
// message containing the expected words.
struct BadFile {
  std::string name, text, message;
};
template <class Read>
void check_rejects(const test::ScratchDir& dir, Read read, const std::vector<BadFile>& files) {
  for (const BadFile& b : files) {
    INFO(b.name);
    CHECK_THROWS_WITH(read(scratch_file(dir, b.name, b.text)), Contains(b.message));
  }
}

// Known misses (see the top of this file): name -> the largest error it may
// have. `seen` collects the names met, so a test can check that every entry
// still names a recorded sequence.
struct KnownMisses {
  std::map<std::string, double> worst;
  std::set<std::string> seen;
  bool has(const std::string& name) const { return worst.count(name) > 0; }
  // The sequence named is still out of its bar and its error within bound.
  void check(const std::string& name, bool in_bar, double error) {
    INFO(name << " is a known miss, error " << error << " MiB, at most " << worst.at(name));
    CHECK_FALSE(in_bar);
    CHECK(error <= worst.at(name));
    seen.insert(name);
  }
  bool all_seen() const { return seen.size() == worst.size(); }
};

double written(const std::vector<ProbeBytes>& k, std::size_t from = 0) {
  double sum = 0;
  for (std::size_t i = from; i < k.size(); ++i) sum += k[i].written;
  return sum;
}

}  // namespace

TEST_CASE("L2 probes: sets and copies, no early write-back, write back what the GPUs did", "[l2][probes]") {
  // Within 1.5 MiB or 20% of the GPU's total, each C1 and C3 sequence. The
  // known misses: the H100 wrote back 3.1 MiB of X = 8 while reading R = 16
  // (more than at R = 20, 0.6 MiB), where the model writes none; and with
  // 64-way sets the H200's C3 at X = 16, R = 20 writes back 3.6 MiB, not 5.3.
  KnownMisses known{{{"h100 C1 X=8 R=16", 3.2}, {"h200 C3 X=16 R=20", 1.75}}, {}};
  for (const std::string gpu : {"h200", "h100"}) {
    const DeviceSpec dev = load_device(gpu);
    const auto probes = read_churn_probes((kResults / (gpu + "-2026-11-22-churn-probe.csv")).string());
    int checked = 0;
    for (const ProbeSequence& s : probes) {
      if (s.x_mib == 0) continue;  // C2, C4: reads only
      const auto model = replay_churn_probe(s, dev, 0.0);
      REQUIRE(model.size() == s.gpu.size());
      const double want = written(s.gpu), got = written(model);
      INFO(gpu << " " << s.name << ": GPU " << want << " MiB, model " << got << " MiB");
      const bool in_bar = std::abs(got - want) <= std::max(1.5, 0.2 * want);
      if (known.has(gpu + " " + s.name)) {
        known.check(gpu + " " + s.name, in_bar, std::abs(got - want));
        continue;
      }
      CHECK(in_bar);
      // The dirty data left by then stays: the last 4 of C1's 12 passes and
      // the last 2 of C3's 8 write back at most 0.35 MiB on the GPUs.
      const std::size_t settled = s.gpu.size() - (s.shifted ? 2 : 4);
      CHECK(written(s.gpu, settled) <= 0.5);
      CHECK(written(model, settled) <= 0.5);
      ++checked;
    }
    CHECK(checked == 23);  // 24 sequences a GPU, one of them a known miss
  }
  CHECK(known.all_seen());
}

TEST_CASE("L2 probes: data one SM re-reads misses from about 0.8 of the L2, as on the GPUs", "[l2][probes]") {
  // C2: R MiB read 4 times, each line by the same SM. The home of a line
  // whose copy keeps hitting is not read and ages out, so re-read data takes
  // about its own size, not 1.5 times. Every sequence within 15% of the GPU's
  // total reads (measured 2026-11-23: 12.8% at worst, H200 R = 48; a model
  // that keeps the whole home tile recent was 48% to 82% over at R = 32 to
  // 40 on both GPUs). Known miss since 2026-11-29, with 64-way sets: the
  // H100 at R = 40, 144.0 MiB where the GPU read 122.8.
  KnownMisses known{{{"h100 C2 R=40", 21.5}}, {}};
  for (const std::string gpu : {"h200", "h100"}) {
    const DeviceSpec dev = load_device(gpu);
    const auto probes = read_churn_probes((kResults / (gpu + "-2026-11-22-churn-probe.csv")).string());
    int checked = 0;
    for (const ProbeSequence& s : probes) {
      if (s.x_mib != 0 || s.shifted) continue;  // C2 only
      double want = 0, got = 0;
      for (const ProbeBytes& k : s.gpu) want += k.read;
      for (const ProbeBytes& k : replay_churn_probe(s, dev, 0.0)) got += k.read;
      INFO(gpu << " " << s.name << ": GPU " << want << " MiB, model " << got << " MiB");
      const bool in_bar = std::abs(got - want) <= 0.15 * want;
      if (known.has(gpu + " " + s.name))
        known.check(gpu + " " + s.name, in_bar, std::abs(got - want));
      else
        CHECK(in_bar);
      ++checked;
    }
    CHECK(checked == 11);
  }
  CHECK(known.all_seen());
}

TEST_CASE("L2 probes: the reuse probe: read data leaves as on the GPUs and written data stays longer", "[l2][probes]") {
  // docs/results/reuse-2026-11-24.md. A (16 MiB) read or written, B MiB
  // read, A read again; the DRAM MiB of that last read.
  //  - Read data (U1, U2): within 2 MiB of the GPU at every B (measured
  //    2026-11-24: 1.34 MiB at worst on the H200, 1.49 on the H100).
  //  - Written data (U3, U4): the model lets it outstay an LRU, half way to
  //    what the GPUs keep. A ratchet on the summed error over the 26
  //    sequences: 64.0 MiB (H200) and 86.9 (H100) on 2026-11-24, where the
  //    LRU of fasim before gave 82.5 and 104.4; 72.6 and 95.6 with the
  //    64-way sets of 2026-11-29. Lower it when it improves.
  //  - Known miss since 2026-11-29: the H100's U1 at B = 20, 9.26 MiB
  //    where the GPU read 7.22.
  const std::map<std::string, double> ratchet = {{"h200", 73.0}, {"h100", 96.0}};
  KnownMisses known{{{"h100 U1 B=20", 2.1}}, {}};
  for (const std::string gpu : {"h200", "h100"}) {
    const DeviceSpec dev = load_device(gpu);
    const auto probes = read_reuse_probes((kResults / (gpu + "-2026-11-24-reuse-probe.csv")).string());
    CHECK(probes.size() == 52);
    double written_error = 0;
    int read_seqs = 0, written_seqs = 0;
    for (const ReuseSequence& s : probes) {
      const ProbeBytes model = replay_reuse_probe(s, dev);
      INFO(gpu << " " << s.name << ": GPU " << s.last_read << " MiB, model " << model.read << " MiB");
      if (s.written) {
        written_error += std::abs(model.read - s.last_read);
        ++written_seqs;
      } else {
        const double error = std::abs(model.read - s.last_read);
        if (known.has(gpu + " " + s.name))
          known.check(gpu + " " + s.name, error <= 2.0, error);
        else
          CHECK(error <= 2.0);
        ++read_seqs;
      }
    }
    INFO(gpu << ": summed error of the written sequences " << written_error << " MiB");
    CHECK(written_error <= ratchet.at(gpu));
    CHECK(read_seqs == 26);
    CHECK(written_seqs == 26);
  }
  CHECK(known.all_seen());
}

TEST_CASE("L2 probes: a reuse-probe file that is not one is one clear line", "[l2][probes]") {
  const test::ScratchDir dir;
  auto tmp_file = [&](const std::string& name, const std::string& text) { return scratch_file(dir, name, text); };
  CHECK_THROWS_WITH(read_reuse_probes("/nonexistent/reuse.csv"),
                    Contains("cannot read reuse-probe CSV '/nonexistent/reuse.csv'"));
  const std::string header = "sequence,b_mib,rep,kernel,dram_read_bytes,dram_write_bytes\n";
  check_rejects(dir, read_reuse_probes,
                {{"reuse-bad-header.csv", "a,b\n", "its first line must be sequence,b_mib"},
                 {"reuse-empty.csv", header, "holds no sequence of rep 1"},
                 {"reuse-seq.csv", header + "U7,8,1,A,0,0\n", "reuse-seq.csv:2: sequence 'U7' is none of U1 to U4"},
                 {"reuse-kernel.csv", header + "U1,8,1,C,0,0\n", "kernel 'C' is none of A1, A2, B, A"},
                 {"reuse-short.csv", header + "U1,8,1,A\n", "reuse-short.csv:2: expected 6 fields, found 4"},
                 {"reuse-neg.csv", header + "U1,8,1,A,-1,0\n", "dram_read_bytes '-1' is not a whole number"}});
  // The first rep only; the last read of A and the writes of B and A.
  const auto r = read_reuse_probes(tmp_file("reuse-ok.csv", header + "U3,8,1,A1,0,0\nU3,8,1,B,8388608,1048576\n"
                                                                     "U3,8,1,A,2097152,3145728\nU3,8,2,A,0,0\n"));
  REQUIRE(r.size() == 1);
  CHECK(r[0].name == "U3 B=8");
  CHECK(r[0].written);
  CHECK_FALSE(r[0].twice);
  CHECK(r[0].b_mib == 8);
  CHECK(r[0].last_read == 2.0);
  CHECK(r[0].written_mib == 4.0);
}

TEST_CASE("L2 probes: a file that is not a probe recording is one clear line", "[l2][probes]") {
  const test::ScratchDir dir;
  auto tmp_file = [&](const std::string& name, const std::string& text) { return scratch_file(dir, name, text); };
  CHECK_THROWS_WITH(read_churn_probes("/nonexistent/probe.csv"),
                    Contains("cannot read churn-probe CSV '/nonexistent/probe.csv'"));
  const std::string header = "probe,sequence,x_mib,r_mib,kernel,dram_read_bytes,dram_write_bytes\n";
  check_rejects(dir, read_churn_probes,
                {{"probe-bad-header.csv", "a,b\n", "its first line must be probe,sequence"},
                 {"probe-short.csv", header + "0,C1,8,16,write\n", "probe-short.csv:2: expected 7 fields, found 5"},
                 {"probe-seq.csv", header + "0,C9,8,16,write,0,0\n", "sequence 'C9' is none of C1 to C6"},
                 {"probe-neg.csv", header + "0,C1,8,16,write,-5,0\n", "dram_read_bytes '-5' is not a whole number"},
                 {"probe-x.csv", header + "0,C1,8.5,16,write,0,0\n", "x_mib '8.5' is not a whole number from 0 to 4096"}});
  // Blank lines and Windows line ends are read past.
  const auto crlf = read_churn_probes(tmp_file("probe-crlf.csv", "probe,sequence,x_mib,r_mib,kernel,dram_read_bytes,"
                                                                 "dram_write_bytes\r\n0,C2,0,20,read pass 1,20971520,"
                                                                 "1048576\r\n\n"));
  REQUIRE(crlf.size() == 1);
  CHECK(crlf[0].name == "C2 R=20");
  CHECK(crlf[0].gpu.size() == 1);
  CHECK(crlf[0].gpu[0].read == 20.0);
  CHECK(crlf[0].gpu[0].written == 1.0);
}

namespace {
double total(const std::vector<ProbeBytes>& k, bool writes) {
  double sum = 0;
  for (const ProbeBytes& b : k) sum += writes ? b.written : b.read;
  return sum;
}
}  // namespace

TEST_CASE("L2 probes: data every SM re-reads, replayed with the SM layout measured on the GPUs", "[l2][probes]") {
  // Known misses since 2026-11-29, with 64-way sets: C6 past the cliff
  // (H200 R = 32: 100.5 MiB where the GPU read 86.9; H100 R = 28: 97.9
  // against 83.7), and the write-back of C5 (H200 X = 16, R = 16: 0.90 MiB
  // against 2.22; H100 X = 8, R = 16: 0.33 against 1.50), as the shortfall.
  KnownMisses known{
      {{"h200 C6 R=32", 13.8}, {"h100 C6 R=28", 14.5}, {"h200 C5 X=16 R=16", 1.35}, {"h100 C5 X=8 R=16", 1.2}}, {}};
  for (const std::string gpu : {"h200", "h100"}) {
    const DeviceSpec dev = load_device(gpu);
    const SmLayout layout = read_sm_layout((kResults / (gpu + "-2026-11-22-sm-partition-probe.txt")).string());
    REQUIRE(layout.half_of_sm.size() == static_cast<std::size_t>(dev.sm_count));
    // Measured: each half is next to 66 of the 132 SMs, two SMs of a TPC alike.
    CHECK(std::count(layout.half_of_sm.begin(), layout.half_of_sm.end(), 1) == 66);
    for (std::size_t s = 0; s + 1 < layout.half_of_sm.size(); s += 2)
      CHECK(layout.half_of_sm[s] == layout.half_of_sm[s + 1]);
    const auto probes = read_churn_probes((kResults / (gpu + "-2026-11-22-shared-read-probe.csv")).string());
    int thrashing = 0, writing = 0;
    for (const ProbeSequence& s : probes) {
      REQUIRE(s.shared);
      const bool writes = s.x_mib > 0;
      const double want = total(s.gpu, writes);
      const double got = total(replay_churn_probe(s, dev, 0.0, &layout), writes);
      INFO(gpu << " " << s.name << ": GPU " << want << " MiB, model " << got << " MiB");
      if (!writes && s.gpu.back().read > 0.5 * static_cast<double>(s.r_mib)) {
        // Past the cliff (every line in both halves: 2 R > the L2): within
        // 15% with the measured layout. fasim's dealing in turn puts each
        // slice's readers in one half, so fewer copies, and misses less.
        const bool in_bar = std::abs(got - want) <= 0.15 * want;
        if (known.has(gpu + " " + s.name))
          known.check(gpu + " " + s.name, in_bar, std::abs(got - want));
        else
          CHECK(in_bar);
        CHECK(std::abs(got - want) < std::abs(total(replay_churn_probe(s, dev, 0.0), false) - want));
        ++thrashing;
      }
      if (writes && want > 1.5) {
        // Dirty data pushed out by the copies: the model writes back 0.53 to
        // 0.91 of what the GPUs did (measured 2026-11-22); a ratchet.
        if (known.has(gpu + " " + s.name))
          known.check(gpu + " " + s.name, got >= 0.5 * want, want - got);
        else
          CHECK(got >= 0.5 * want);
        CHECK(got <= want + 0.5);
        ++writing;
      }
    }
    CHECK(thrashing == (gpu == "h100" ? 4 : 3));
    CHECK(writing == (gpu == "h100" ? 10 : 8));
  }
  CHECK(known.all_seen());
}

TEST_CASE("L2 probes: an SM layout file that is not what the SM-partition probe prints is one clear line", "[l2][probes]") {
  const test::ScratchDir dir;
  auto tmp_file = [&](const std::string& name, const std::string& text) { return scratch_file(dir, name, text); };
  CHECK_THROWS_WITH(read_sm_layout("/nonexistent/smmap.txt"),
                    Contains("cannot read SM-partition probe output '/nonexistent/smmap.txt'"));
  CHECK_THROWS_WITH(read_sm_layout(tmp_file("sm-empty.txt", "SMS 2 L2 100\n")),
                    Contains("needs SM and BLOCKS lines"));
  const std::string two = "SM rep=0 smid=0 mean_cycles=300 slow_share=0.000\n"
                          "SM rep=0 smid=1 mean_cycles=400 slow_share=0.500\n";
  const SmLayout ok = read_sm_layout(tmp_file("sm-ok.txt", two + "BLOCKS 2: 1 0\r\nBLOCKS 4: 1 0 0 1\n"));
  CHECK(ok.half_of_sm == std::vector<std::int64_t>{0, 1});
  CHECK(ok.sm_of_block == std::vector<std::int64_t>{1, 0, 0, 1});  // the largest grid
  CHECK_THROWS_WITH(read_sm_layout(tmp_file("sm-gap.txt", "SM rep=0 smid=1 slow_share=0\nBLOCKS 1: 1\n")),
                    Contains("no SM line for SM 0"));
  CHECK_THROWS_WITH(read_sm_layout(tmp_file("sm-unclear.txt", "SM rep=0 smid=0 slow_share=0.2\nBLOCKS 1: 0\n")),
                    Contains("neither about 0 nor about 0.5"));
  CHECK_THROWS_WITH(read_sm_layout(tmp_file("sm-far.txt", two + "BLOCKS 1: 7\n")),
                    Contains("a block ran on SM 7, which has no SM line"));
  CHECK_THROWS_WITH(read_sm_layout(tmp_file("sm-word.txt", two + "BLOCKS 1: x\n")),
                    Contains("smid 'x' is not a whole number"));
  CHECK_THROWS_WITH(read_sm_layout(tmp_file("sm-share.txt", "SM rep=0 smid=0 slow_share=abc\nBLOCKS 1: 0\n")),
                    Contains("slow_share 'abc' is not a number from 0 to 1"));
  // A layout of 2 SMs does not fit a device of 132.
  const ProbeSequence c6{"C6 R=16", 0, 16, false, true, {{16.0, 0.0}}};
  CHECK_THROWS_WITH(replay_churn_probe(c6, load_device("h200"), 0.0, &ok),
                    Contains("give the device it was measured on"));
  // Every SM, but fewer blocks than the probes' grid of 8 per SM.
  const SmLayout short_grid{std::vector<std::int64_t>(132, 0), std::vector<std::int64_t>(10, 0)};
  CHECK_THROWS_WITH(replay_churn_probe(c6, load_device("h200"), 0.0, &short_grid),
                    Contains("largest grid has 10 blocks; the probes run 8 per SM"));
}

TEST_CASE("L2 probes: the readers probe: own rows meet a cliff, and chunks dealt in turn look the same to the model",
          "[l2][probes]") {
  // docs/results/readers-2026-11-29.md. F MiB read again and again on an
  // H200, one block an SM: L16 (16 blocks where flash1's go), A132 (every SM
  // its own rows), I132 (4 KiB chunks dealt in turn, the churn probe's way).
  // The DRAM MiB of a pass, the mean of passes 4 to 6.
  const DeviceSpec dev = load_device("h200");
  const SmLayout layout = read_sm_layout((kResults / "h200-2026-11-29-sm-map.txt").string());
  const auto probes = read_readers_probe((kResults / "h200-2026-11-29-readers-probe.csv").string());
  REQUIRE(probes.size() == 24);
  std::map<std::string, std::pair<double, double>> level;  // name -> (GPU, model)
  for (const ReadersSequence& s : probes) {
    REQUIRE(s.gpu.size() == 6);
    const auto model = replay_readers_probe(s, dev, layout);
    REQUIRE(model.size() == s.gpu.size());
    double want = 0, got = 0;
    for (std::size_t p = 3; p < 6; ++p) {
      want += s.gpu[p].read / 3;
      got += model[p].read / 3;
    }
    level[s.name] = {want, got};
  }
  // The model cannot tell dealt chunks from own rows: at every F both read
  // the same within 1.2 MiB (the GPU's differ by up to 7.4 MiB, at 44). When
  // a model tells them apart, this check goes and a bar on I132 comes in.
  for (const int f : {32, 36, 40, 44, 48, 52, 56, 64}) {
    const std::string at = " F=" + std::to_string(f);
    INFO("F = " << f << ": A132 " << level.at("A132" + at).second << " MiB, I132 " << level.at("I132" + at).second);
    CHECK(std::abs(level.at("A132" + at).second - level.at("I132" + at).second) <= 1.2);
  }
  // The pattern attention kernels share (own rows): a ratchet on the summed
  // error over L16 and A132: 44.9 MiB with fasim's 32-way sets on
  // 2026-11-29, 27.9 with the 64-way sets it took that day (19.7 at 128
  // ways, readers-replay-2026-11-29.cpp); lower the ratchet when the model
  // comes closer.
  double own_rows_error = 0;
  for (const auto& [name, v] : level)
    if (name.rfind("I132", 0) != 0) own_rows_error += std::abs(v.second - v.first);
  INFO("summed error over L16 and A132: " << own_rows_error << " MiB");
  CHECK(own_rows_error <= 28.5);
}

TEST_CASE("L2 probes: the read-modify-write probe: written lines, the edge and the write-back", "[l2][probes]") {
  // docs/results/rmw-2026-11-30.md. As the readers probe, with writes: each
  // block re-reads its own rows (R), reads and writes them back (M), does
  // that to every other chunk (H), or only writes (W); 132, 16 and 10
  // blocks. On the GPU writes bring the edge about 4 MiB earlier, the edge
  // is a cliff, and dirty lines go back from about 26 MiB on; fasim's edge
  // is a ramp, and its lines written again go back on their own soft curve
  // (kL2DirtyCurveShare, l2_sets.hpp). The MiB of a pass, the mean of
  // passes 4 to 6.
  const DeviceSpec dev = load_device("h200");
  const SmLayout layout = read_sm_layout((kResults / "h200-2026-11-30-sm-map.txt").string());
  const auto probes = read_readers_probe((kResults / "h200-2026-11-30-rmw-probe.csv").string());
  REQUIRE(probes.size() == 53);
  double read_error = 0, write_error = 0;
  int writers = 0;
  for (const ReadersSequence& s : probes) {
    REQUIRE(s.gpu.size() == 6);
    const auto model = replay_readers_probe(s, dev, layout);
    REQUIRE(model.size() == s.gpu.size());
    double gpu_read = 0, gpu_written = 0, read = 0, written = 0;
    for (std::size_t p = 3; p < 6; ++p) {
      gpu_read += s.gpu[p].read / 3;
      gpu_written += s.gpu[p].written / 3;
      read += model[p].read / 3;
      written += model[p].written / 3;
    }
    INFO(s.name << ": GPU read " << gpu_read << ", model " << read << "; GPU wrote " << gpu_written << ", model "
                << written);
    read_error += std::abs(read - gpu_read);
    if (s.mode != 'R') {
      ++writers;
      write_error += std::abs(written - gpu_written);
    }
  }
  CHECK(writers == 36);
  // Ratchets on the summed error, 2026-11-30 with 64-way sets: reads 93.6
  // MiB over the 53 sequences; write-backs 96.4 MiB over the 36 that write
  // under the hard dirty limit, 47.2 with the dirty curve for lines written
  // again. Lower them when the model comes closer.
  INFO("summed error: reads " << read_error << " MiB, write-backs " << write_error << " MiB");
  CHECK(read_error <= 94.0);
  CHECK(write_error <= 47.5);
}

TEST_CASE("L2 probes: a readers-probe file that is not one is one clear line", "[l2][probes]") {
  const test::ScratchDir dir;
  CHECK_THROWS_WITH(read_readers_probe("/nonexistent/readers.csv"),
                    Contains("cannot read readers-probe CSV '/nonexistent/readers.csv'"));
  const std::string header = "sequence,f_mib,pass,dram_read_bytes,dram_write_bytes,sms\n";
  const std::string l16 = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15";
  check_rejects(dir, read_readers_probe,
                {{"readers-header.csv", "a,b\n", "its first line must be sequence,f_mib"},
                 {"readers-empty.csv", header, "holds no pass"},
                 {"readers-seq.csv", header + "C2,40,1,0,0,1 2\n",
                  "readers-seq.csv:2: sequence 'C2' is none of L16, A132, I132, or R, M, H or W"},
                 {"readers-sms.csv", header + "L16,40,1,0,0,1 2 3\n", "sms lists 3 SMs; L16 runs 16 blocks"},
                 {"readers-sm.csv", header + "L16,40,1,0,0,x" + l16.substr(1) + "\n", "an SM in sms 'x' is not a whole number"},
                 {"readers-pass.csv", header + "L16,40,2,0,0," + l16 + "\n", "pass 2 of L16 F=40 should be pass 1"},
                 {"readers-short.csv", header + "L16,40,1,0\n", "readers-short.csv:2: expected 6 fields, found 4"}});
  const auto r = read_readers_probe(scratch_file(dir, "readers-ok.csv", header + "L16,40,1,41943040,1048576," + l16 +
                                                                       "\nL16,40,2,3145728,0," + l16 + "\n"));
  REQUIRE(r.size() == 1);
  CHECK(r[0].name == "L16 F=40");
  CHECK_FALSE(r[0].dealt);
  CHECK(r[0].f_mib == 40);
  CHECK(r[0].sm_of_block.size() == 16);
  REQUIRE(r[0].gpu.size() == 2);
  CHECK(r[0].gpu[0].read == 40.0);
  CHECK(r[0].gpu[0].written == 1.0);
  CHECK(r[0].gpu[1].read == 3.0);
  // Replayed on a device it was not measured on: one line naming both.
  const SmLayout layout = read_sm_layout((kResults / "h200-2026-11-29-sm-map.txt").string());
  CHECK_THROWS_WITH(replay_readers_probe(r[0], load_device("a100"), layout),
                    Contains("the SM layout measured 132 SMs next to 2 L2 halves; device a100 has 108 SMs"));
}
