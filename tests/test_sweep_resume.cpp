// Nothing lost: Ctrl-C during `fasim sweep` writes the points finished so far
// (whole, no temporary left) and exits 130; `--resume` runs the rest and
// writes the same file an uninterrupted sweep writes, byte for byte. Also
// the matching of a file's rows to the grid, and resume's one-line errors.
// Tag [sweep][resume].
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/sweep.hpp"
#include "fasim/sweep_resume.hpp"
#include "user_error_text.hpp"

using namespace fasim;
using fasim::test::ChildProcess;
using fasim::test::ProcessResult;
using fasim::test::read_text;
using fasim::test::run_fasim;
using fasim::test::ScratchDir;
using Catch::Matchers::Contains;

using fasim::test::error_of;

namespace {

SweepSpec small_spec() {
  SweepSpec s;
  s.devices = {load_device("h100")};
  s.algos = {Algo::naive, Algo::flash2};
  s.N = {128, 256, 512};
  return s;
}

void require_user_error(const ProcessResult& r, const std::string& part) {
  INFO(r.describe());
  REQUIRE(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("fasim: error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Contains(part));
}

// A sweep of 25 similar points, long enough to interrupt in the middle.
std::vector<std::string> long_sweep(const std::string& out) {
  std::vector<std::string> args = {"sweep", "--N", "16384", "--heads", "4", "--d", "32:128:+4"};
  if (!out.empty()) args.insert(args.end(), {"--out", out});
  return args;
}

// Starts `args`, sends SIGINT after `delay`, waits.
ProcessResult interrupted(const std::vector<std::string>& args, std::chrono::milliseconds delay) {
  ChildProcess child(FASIM_BINARY, args);
  std::this_thread::sleep_for(delay);
  child.signal(SIGINT);
  return child.wait(std::chrono::seconds(60));
}

}  // namespace

TEST_CASE("resume: a file's rows go to the points they hold, in any order", "[sweep][resume]") {
  const SweepSpec s = small_spec();
  const std::vector<SweepPoint> points = sweep_points(s);
  const SweepTable all = run_sweep(s);
  // Rows 4, 1 and 0, out of order: they land at their points.
  SweepTable some;
  for (std::size_t r : {4, 1, 0}) some.add(row_of(all, r));
  const auto rows = match_done_rows(s, points, some, "s.csv");
  REQUIRE(rows.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(rows[i].has_value() == (i == 0 || i == 1 || i == 4));
  CHECK(*rows[4]->find("workload.N") == 256);
  CHECK(*rows[4]->find("mapping.algo") == "flash2");
  // All of them, put back in order: the table of the full sweep.
  const auto full = match_done_rows(s, points, all, "s.csv");
  const SweepTable again = table_of(full);
  REQUIRE(again.size() == all.size());
  CHECK(again.columns() == all.columns());
  for (std::size_t r = 0; r < all.size(); ++r)
    for (const std::string& c : all.columns()) CHECK(again.at(r, c) == all.at(r, c));
}

TEST_CASE("resume: points that differ only in blocks per SM each get their own row", "[sweep][resume]") {
  SweepSpec s;
  s.devices = {load_device("h200")};
  s.dtypes = {DType::fp32};
  s.d = {128};
  s.heads = {16};
  s.N = {1024, 2048};  // 256 and 512 blocks: more than the SMs hold at once
  s.br = {64};
  s.blocks_per_sm = {1, 2};
  const std::vector<SweepPoint> points = sweep_points(s);
  REQUIRE(points.size() == 4);  // blocks per SM outside N
  CHECK(points[0].blocks_per_sm == 1);
  CHECK(points[2].blocks_per_sm == 2);
  CHECK(describe(s, points[2]) == "N=1024 per-SM=2");
  const SweepTable all = run_sweep(s);
  CHECK(*row_of(all, 0).find("blocks_per_sm") == 1);
  CHECK(*row_of(all, 2).find("blocks_per_sm") == 2);
  CHECK(*row_of(all, 0).find("time.seconds") > *row_of(all, 2).find("time.seconds"));
  // Rows 2 and 1 only: each lands at its own point, not at the other cap's.
  SweepTable some;
  for (std::size_t r : {2, 1}) some.add(row_of(all, r));
  const auto rows = match_done_rows(s, points, some, "s.csv");
  REQUIRE(rows.size() == 4);
  CHECK_FALSE(rows[0].has_value());
  REQUIRE(rows[1].has_value());
  CHECK(*rows[1]->find("mapping.blocks_per_sm") == 1);
  REQUIRE(rows[2].has_value());
  CHECK(*rows[2]->find("mapping.blocks_per_sm") == 2);
  CHECK_FALSE(rows[3].has_value());
}

TEST_CASE("resume: a file from another sweep is one error naming the fix", "[sweep][resume]") {
  const SweepSpec s = small_spec();
  const std::vector<SweepPoint> points = sweep_points(s);
  const SweepTable all = run_sweep(s);

  SweepSpec other = s;
  other.N = {128, 256};  // N = 512 rows are not points of this grid
  CHECK(error_of([&] { match_done_rows(other, sweep_points(other), all, "s.csv"); }) ==
        "--resume: 's.csv' holds a point this sweep does not have (N=512 d=64 batch=1 heads=1 naive fp16 h100); "
        "run the same `fasim sweep` command that wrote it, or drop --resume to start over");

  SweepTable twice = all;
  twice.add(row_of(all, 2));
  CHECK_THAT(error_of([&] { match_done_rows(s, points, twice, "s.csv"); }),
             Contains("holds the point N=512 d=64 batch=1 heads=1 naive fp16 h100 twice; run the same"));

  SweepTable foreign;
  FlatRow r;
  r.set("x", 1);
  foreign.add(r);
  CHECK_THAT(error_of([&] { match_done_rows(s, points, foreign, "x.csv"); }),
             Contains("'x.csv' is not a file of this sweep: its header has no column 'device'; "));

  SweepSpec numerics = s;
  numerics.options.numerics = true;
  CHECK(error_of([&] { match_done_rows(numerics, points, all, "s.csv"); }) ==
        "--resume: 's.csv' was written without --numerics; resume without --numerics, as the interrupted sweep ran");

  // A point whose output overflowed has max_abs_error Inf, written as null:
  // it still ran with numerics, and the resume check must say so.
  const SweepTable with_numerics = run_sweep(numerics);
  SweepTable overflowed;
  for (std::size_t i = 0; i < with_numerics.size(); ++i) {
    FlatRow row = row_of(with_numerics, i);
    row.set("numerics.max_abs_error", nullptr);
    overflowed.add(row);
  }
  CHECK_NOTHROW(match_done_rows(numerics, points, overflowed, "s.csv"));
  CHECK_THAT(error_of([&] { match_done_rows(s, points, overflowed, "s.csv"); }),
             Contains("was written with --numerics; resume with --numerics"));

  SweepSpec tiles = s;
  tiles.br = {32};  // tiles given: rows must match Br and Bc too (the file's are 128 x 128 defaults)
  CHECK_THAT(error_of([&] { match_done_rows(tiles, sweep_points(tiles), all, "s.csv"); }),
             Contains("holds a point this sweep does not have"));
}

TEST_CASE("fasim sweep: Ctrl-C keeps the finished points, --resume finishes the same file", "[sweep][resume][cli]") {
  ScratchDir dir;
  const std::string ref = dir.file("ref.csv"), part = dir.file("part.csv");

  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_fasim(long_sweep(ref));
  const auto full_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  const std::string want = read_text(ref);
  REQUIRE(read_table(ref).size() == 25);

  // Interrupt about a third of the way in; adapt if that caught no point or all.
  double fraction = 0.35;
  std::size_t kept = 0;
  for (int attempt = 0; attempt < 6 && (kept == 0 || kept == 25); ++attempt) {
    std::filesystem::remove(part);
    r = interrupted(long_sweep(part), std::chrono::milliseconds(static_cast<long>(fraction * full_ms.count())));
    INFO(r.describe());
    REQUIRE_FALSE(r.timed_out);
    if (r.exit_code == 0) {  // finished before the signal: interrupt sooner
      fraction /= 2;
      continue;
    }
    REQUIRE(r.exit_code == 130);
    CHECK(dir.entries().size() <= 2);  // ref.csv and maybe part.csv: never a temporary
    if (!std::filesystem::exists(part)) {  // no point had finished (or the sweep had not started): later
      CHECK((r.err.empty() || r.err == "fasim: sweep interrupted before the first point finished; nothing written\n"));
      fraction *= 1.6;
      continue;
    }
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    kept = read_table(part).size();
    CHECK_THAT(r.err, Contains("sweep interrupted: " + std::to_string(kept) + " of 25 points written to " + part +
                               "; run the same command with --resume to finish"));
  }
  REQUIRE(kept > 0);
  REQUIRE(kept < 25);
  // Whole rows only, each as the full sweep has it, in grid order (with
  // several jobs the finished points need not be the first ones), and no temporary.
  CHECK(dir.entries() == std::vector<std::string>{"part.csv", "ref.csv"});
  const std::string got = read_text(part);
  CHECK(got.back() == '\n');
  const SweepTable p = read_table(part), f = read_table(ref);
  std::size_t in_full = 0;  // the row of the full sweep with this row's point (only d varies)
  for (std::size_t row = 0; row < kept; ++row, ++in_full) {
    while (in_full < f.size() && f.at(in_full, "workload.d") != p.at(row, "workload.d")) ++in_full;
    REQUIRE(in_full < f.size());
    for (const std::string& c : p.columns()) CHECK(p.at(row, c) == f.at(in_full, c));
  }

  // A different sweep cannot resume it, and leaves it as it was.
  require_user_error(run_fasim({"sweep", "--N", "8192", "--out", part, "--resume"}),
                     "holds a point this sweep does not have");
  CHECK(read_text(part) == got);

  std::vector<std::string> resume = long_sweep(part);
  resume.push_back("--resume");
  r = run_fasim(resume);
  INFO(r.describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "sweep: 25 points (" + std::to_string(kept) + " already in " + part + ") -> " + part + "\n");
  CHECK(read_text(part) == want);  // byte for byte what the uninterrupted sweep wrote
  CHECK(dir.entries() == std::vector<std::string>{"part.csv", "ref.csv"});

  // Resuming a finished file runs nothing and changes nothing.
  r = run_fasim(resume);
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(part) == want);
}

TEST_CASE("fasim sweep: Ctrl-C with rows on stdout prints the finished rows", "[sweep][resume][cli]") {
  ProcessResult r;
  double delay_ms = 300;
  for (int attempt = 0; attempt < 6; ++attempt) {
    r = interrupted(long_sweep(""), std::chrono::milliseconds(static_cast<long>(delay_ms)));
    if (r.exit_code == 130 && !r.out.empty()) break;
    delay_ms = r.exit_code == 0 ? delay_ms / 2 : delay_ms * 1.6;
  }
  INFO(r.describe());
  REQUIRE(r.exit_code == 130);
  const SweepTable t = parse_csv(r.out, "stdout");
  CHECK(t.size() > 0);
  CHECK(t.size() < 25);
  CHECK_THAT(r.err, Contains("points written to stdout; add --out FILE"));
}

TEST_CASE("fasim sweep --resume: one-line errors, nothing written", "[sweep][resume][cli]") {
  ScratchDir dir;
  require_user_error(run_fasim({"sweep", "--resume"}), "--resume needs --out FILE");
  const std::string other = dir.file("other.csv");
  fasim::test::write_text(other, "a,b\n1,2\n");
  require_user_error(run_fasim({"sweep", "--out", other, "--resume"}),
                     "is not a file of this sweep: its header has no column 'device'");
  CHECK(read_text(other) == "a,b\n1,2\n");
  const std::string plain = dir.file("plain.csv");
  REQUIRE(run_fasim({"sweep", "--N", "64,128", "--out", plain}).exit_code == 0);
  require_user_error(run_fasim({"sweep", "--N", "64,128", "--out", plain, "--resume", "--numerics"}),
                     "was written without --numerics; resume without --numerics");
  // No file yet: --resume simply runs the whole sweep.
  const ProcessResult r = run_fasim({"sweep", "--N", "64,128", "--out", dir.file("new.csv"), "--resume"});
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(dir.file("new.csv")) == read_text(plain));
  CHECK(dir.entries() == std::vector<std::string>{"new.csv", "other.csv", "plain.csv"});
}
