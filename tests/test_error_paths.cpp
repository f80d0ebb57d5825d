// Error paths that no other test reaches, one row each: the command line
// exits 2 with one line that names the problem and the fix, and writes
// nothing; library errors are one line naming both. Together with the
// tables in test_cli.cpp, test_sweep.cpp, test_variants_cli.cpp,
// test_device_spec.cpp, test_scenario.cpp, test_trace_reader.cpp and
// test_lesson*.cpp, every UserError fasim throws on bad input is exercised
// (a coverage build lists the rest; see the report of issue 8).
// Tag [errors].
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/figures.hpp"
#include "fasim/lesson.hpp"
#include "fasim/simulation.hpp"
#include "fasim/sweep_table.hpp"
#include "fasim/trace_reader.hpp"
#include "user_error_text.hpp"

using namespace fasim;
using fasim::test::ProcessResult;
using fasim::test::run_fasim;
using fasim::test::ScratchDir;
using fasim::test::write_text;
using Catch::Matchers::Contains;

using fasim::test::error_of;

namespace {

// A recorded run (what `fasim compare --sweep --out` writes) of one point and
// metric; field k of the row replaced by `value` when k >= 0.
const std::string kRecordedHeader =
    "device,driver,date,algo,dtype,batch,heads,N,d,br,bc,l2_mode,metric,predicted,measured\n";
std::string recorded(int k = -1, const std::string& value = "") {
  std::vector<std::string> f = {"x", "y", "z", "flash2", "fp16", "1", "1", "256", "64", "64", "64", "cold",
                                "time_s", "1", "1"};
  if (k >= 0) f[static_cast<std::size_t>(k)] = value;
  std::string row;
  for (const std::string& x : f) row += (row.empty() ? "" : ",") + x;
  return kRecordedHeader + row + "\n";
}

struct CliCase {
  const char* what;
  std::vector<std::string> args;
  std::string problem;  // a part of the line that names the problem
  std::string fix;      // a part that names the fix
};

void require_one_line_error(const ProcessResult& r, const CliCase& c) {
  INFO(c.what << "\n" << r.describe());
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("fasim: error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Contains(c.problem));
  CHECK_THAT(r.err, Contains(c.fix));
}

}  // namespace

TEST_CASE("every command-line error path: exit 2, one line, the problem and the fix", "[errors][cli]") {
  ScratchDir dir;
  // A sweep file whose every row failed, one with a single block size, one with two devices.
  write_text(dir.file("failed.csv"), "device,mapping.algo,workload.N,error\nh100,flash2,64,tiles do not fit; use --br 16\n");
  write_text(dir.file("one_tile.csv"),
             "device,mapping.algo,workload.N,mapping.br,mapping.bc,hbm.read_bytes,hbm.write_bytes\n"
             "h100,flash1,1024,64,64,100,10\nh100,flash1,2048,64,64,200,20\n");
  write_text(dir.file("two_devices.csv"),
             "device,mapping.algo,workload.N,arithmetic_intensity,flops.matmul,flops.other,hbm.read_bytes,"
             "hbm.write_bytes\nh100,flash2,1024,10,100,1,10,0\na100,flash2,1024,10,100,1,10,0\n");
  // Lessons whose numbers cannot be computed, and two lessons with one number.
  auto lesson = [&](const std::string& name, const std::string& text) {
    write_text(dir.file(name), "# T\n\nIntro.\n\n## A\n\n" + text + "\n");
    return dir.file(name);
  };
  const std::string not_a_key = lesson("not_a_key.md", "{{ a b of --N 16 --d 4 }}");
  const std::string a_value = lesson("a_value.md", "{{ hbm.read_bytes.x of --N 16 --d 4 }}");
  const std::string counts_only = lesson("counts_only.md", "{{ numerics.max_abs_error of --N 16 --d 4 --no-numerics }}");
  const std::string unreached = lesson("unreached.md", "{{ row.m.0 of --N 16 --d 4 --br 4 --bc 4 --window 4 --row 15 }}");
  // Recorded runs for `fasim compare --recorded`, and a comparison with no byte or time metric.
  write_text(dir.file("rec_header.csv"), "a,b\n");
  write_text(dir.file("rec_short.csv"), kRecordedHeader + "x,y,z,flash2,fp16,1,1,256\n");
  write_text(dir.file("rec_metric.csv"), recorded(12, "tflops"));
  write_text(dir.file("rec_ok.csv"), recorded());
  write_text(dir.file("pvm.csv"), "algo,metric,predicted,measured\nflash2,tflops,1,2\n");
  std::filesystem::create_directory(dir.path() / "twins");
  write_text(dir.path() / "twins" / "01-a.md", "# A\n\nOne.\n");
  write_text(dir.path() / "twins" / "01-b.md", "# B\n\nTwo.\n");
  const std::vector<std::string> before = dir.entries();

  const std::vector<CliCase> cases = {
      // run and step: flags the shape checks do not see
      {"--N-kv negative", {"run", "--N-kv", "-3"}, "--N-kv must be a positive integer, got -3", "--N-kv 4096"},
      {"--l2 unknown", {"run", "--l2", "hot"}, "unknown L2 start 'hot'", "use --l2 cold or --l2 warm"},
      {"N above 2^24", {"run", "--N", "16777217", "--N-kv", "16", "--no-numerics"}, "N=16777217 is too large",
       "up to 16,777,216"},
      {"N_kv above 2^24", {"run", "--N-kv", "16777217", "--no-numerics"}, "N_kv=16777217 is too large",
       "up to 16,777,216"},
      {"batch*heads above 2^20", {"run", "--N", "8", "--d", "4", "--heads", "1048577"},
       "batch*heads=1048577 is too large", "use at most 1,048,576"},
      {"FLOPs past 2^62", {"run", "--N", "16777216", "--d", "65536", "--no-numerics"},
       "more than fasim's 64-bit counters hold", "use a smaller N"},
      {"too many K/V pages", {"run", "--N", "16777216", "--batch", "2", "--page-size", "1", "--no-numerics"},
       "K/V pages", "use a larger --page-size"},
      {"d above 65536", {"run", "--N", "8", "--d", "65537", "--no-numerics"}, "d=65537 is too large",
       "use d <= 65536"},
      {"no tile fits at all", {"run", "--N", "8", "--d", "65536", "--dtype", "fp32"},
       "does not fit h100 even with Br=Bc=1", "use a smaller --d"},
      {"tensors larger than HBM, naive", {"run", "--algo", "naive", "--N", "262144", "--heads", "2", "--no-numerics"},
       "S and P of N x N_kv per head), more than h100 has", "use --algo flash2, which never stores S and P"},
      // sweep
      {"a list of more than 100,000 values", {"sweep", "--N", "1:100000:+1,100001"}, "more than 100,000 values",
       "use fewer or larger steps"},
      {"--resume without --out", {"sweep", "--resume"}, "--resume needs --out FILE", "add --out"},
      // plot
      {"unknown figure", {"plot", dir.file("failed.csv"), "--figure", "pie"}, "unknown figure 'pie'",
       "use --figure with one of"},
      {"a sweep whose every row failed", {"plot", dir.file("failed.csv"), "--figure", "bytes-vs-n"}, "no rows with",
       "make one with `fasim sweep"},
      {"block-size without a block size that varies", {"plot", dir.file("one_tile.csv"), "--figure", "block-size"},
       "Br and Bc do not vary within any algorithm", "sweep a block size"},
      {"roofline of rows from two devices", {"plot", dir.file("two_devices.csv"), "--figure", "roofline"},
       "the rows name several devices", "--device NAME"},
      // lesson
      {"--markdown with --check", {"lesson", "1", "--markdown", "--check"}, "--markdown prints the lesson",
       "leave out --check and --auto"},
      {"--check without a lesson", {"lesson", "--check"}, "which lesson?", "give its number"},
      {"a lesson number that is not a key", {"lesson", not_a_key, "--auto"}, "not_a_key.md:7: 'a b' is not a key",
       "keys are dotted names such as hbm.read_bytes"},
      {"a lesson number below a value", {"lesson", a_value, "--auto"}, "'hbm.read_bytes' is a value, not an object",
       "end the key at 'hbm.read_bytes'"},
      {"a lesson number that needs values from a counting run", {"lesson", counts_only, "--auto"},
       "needs a run with values", "remove --no-numerics"},
      {"a lesson number the watched row never reached", {"lesson", unreached, "--auto"},
       "has no value in this run", "pick a key block the row sees"},
      {"two lessons with one number", {"lesson", "--lessons", (dir.path() / "twins").string()},
       "two lessons share the number 1", "renumber one"},
      // compare: flag mistakes are named before any GPU is needed
      {"compare: a list without --sweep", {"compare", "--N", "512,1024"}, "--N has 2 values", "add --sweep"},
      {"compare: unknown L2 start", {"compare", "--l2", "hot"}, "unknown L2 start 'hot'", "use --l2 cold or --l2 warm"},
      {"compare: --misses without --recorded", {"compare", "--misses", dir.file("m.csv")}, "--misses goes with",
       "--recorded FILE.csv"},
      {"compare: --json with --sweep", {"compare", "--json", "--sweep"}, "--json and --sweep do not go together",
       "--sweep writes CSV"},
      {"compare: --recorded with --sweep", {"compare", "--recorded", dir.file("r-sweep.csv"), "--sweep"},
       "--recorded predicts a recorded run again", "leave out --sweep"},
      {"compare: no counter ranges", {"compare", "--counter-runs", "0"}, "--counter-runs: Value 0 not in range 1 to 100",
       "fasim compare --help"},
      {"compare: no buffer placement", {"compare", "--placements", "0"}, "--placements: Value 0 not in range 1 to 64",
       "fasim compare --help"},
      {"compare: --out without --sweep", {"compare", "--out", dir.file("c.csv")}, "--out goes with --sweep",
       "the table goes to stdout"},
      {"compare: --causal with --recorded", {"compare", "--recorded", dir.file("rec_ok.csv"), "--causal"},
       "--causal does not go with --recorded", "drop --causal"},
      {"compare: --causal with --sweep", {"compare", "--sweep", "--causal"}, "--causal does not go with --sweep",
       "compare causal points one at a time"},
      {"compare --recorded: a list where a filter takes one value",
       {"compare", "--recorded", dir.file("rec_ok.csv"), "--device", "h200", "--N", "256,512"},
       "--N 256,512 is several values, but with --recorded each flag picks points by one value",
       "give one (e.g. --N 256), or leave --N out for all points"},
      {"compare --recorded: a range where a filter takes one value",
       {"compare", "--recorded", dir.file("rec_ok.csv"), "--device", "h200", "--d", "32:128:x2"},
       "--d 32:128:x2 is several values", "give one (e.g. --d 32)"},
      // compare --recorded: the recorded file (fidelity.cpp) and the device profile (compare_recorded.cpp)
      {"compare --recorded: no such file", {"compare", "--recorded", dir.file("none.csv")},
       "cannot read recorded run '" + dir.file("none.csv") + "'", "check the path"},
      // A folder where a file belongs: every input file is read by read_input_file (input_file.cpp).
      {"compare --recorded: a folder", {"compare", "--recorded", dir.path().string()},
       "cannot read recorded run '" + dir.path().string() + "': it is a directory", "check the path"},
      {"run --device: a folder", {"run", "--device", dir.path().string() + "/"},
       "cannot read device file '" + dir.path().string() + "/': it is a directory", "check the path"},
      {"run --scenario: a folder", {"run", "--scenario", dir.path().string()},
       "cannot read scenario file '" + dir.path().string() + "': it is a directory", "check the path"},
      {"lesson: a folder", {"lesson", dir.path().string()},
       "cannot read lesson '" + dir.path().string() + "': it is a directory", "check the path"},
      {"plot: a folder", {"plot", dir.path().string(), "--figure", "bytes-vs-n"},
       "cannot read sweep file '" + dir.path().string() + "': it is a directory",
       "give a file written by `fasim sweep --out FILE.csv`"},
      {"compare --recorded: not a recorded run", {"compare", "--recorded", dir.file("rec_header.csv")},
       "rec_header.csv:1: not a recorded run", "give the CSV that `fasim compare --sweep --out FILE.csv` writes"},
      {"compare --recorded: a short row", {"compare", "--recorded", dir.file("rec_short.csv")},
       "rec_short.csv:2: expected 15 fields, found 8", "fix the row"},
      {"compare --recorded: an unknown metric", {"compare", "--recorded", dir.file("rec_metric.csv")},
       "rec_metric.csv:2: unknown metric 'tflops'", "use one of hbm_read_bytes, hbm_write_bytes"},
      {"compare --recorded: no device profile", {"compare", "--recorded", dir.file("rec_ok.csv")},
       "no device profile for '" + dir.file("rec_ok.csv") + "'", "name one with --device"},
      // Output files are opened before any work: one line, no table printed first.
      {"compare --recorded: --out into a missing folder",
       {"compare", "--recorded", dir.file("rec_ok.csv"), "--device", "h200", "--out", dir.file("none/again.csv")},
       "cannot write '" + dir.file("none/again.csv") + "'", "check that the directory exists"},
      {"compare --recorded: --misses into a missing folder",
       {"compare", "--recorded", dir.file("rec_ok.csv"), "--device", "h200", "--misses", dir.file("none/m.csv")},
       "cannot write '" + dir.file("none/m.csv") + "'", "check that the directory exists"},
      // plot predicted-vs-measured (predicted_vs_measured.cpp)
      {"plot predicted-vs-measured: no metric rows", {"plot", dir.file("failed.csv"), "--figure", "predicted-vs-measured"},
       "no rows with metric, predicted and measured", "`fasim compare --sweep ... --out FILE.csv` writes"},
      {"plot predicted-vs-measured: no byte or time metric", {"plot", dir.file("pvm.csv"), "--figure", "predicted-vs-measured"},
       "pvm.csv: no metric ends in _bytes or is time_s", "plot the long-form CSV that `fasim compare --sweep"},
      // run: the scale of the random inputs
      {"--input-scale of two values", {"run", "--input-scale", "1,2"}, "--input-scale takes one positive number or three",
       "--input-scale 300"},
      {"--input-scale of zero", {"run", "--input-scale", "0"}, "--input-scale takes one positive number or three",
       "--input-scale 1,1,1e30"},
      // A file flag given an empty name: never read as "no file" (issue: a lost trace, a table on stdout).
      {"run: --trace with an empty name", {"run", "--N", "64", "--trace", ""}, "--trace was given an empty file name",
       "give one, e.g. --trace run.json"},
      {"sweep: --out with an empty name", {"sweep", "--N", "64", "--out", ""}, "--out was given an empty file name",
       "give one, e.g. --out sweep.csv"},
      {"plot: --out with an empty name", {"plot", dir.file("one_tile.csv"), "--figure", "roofline", "--out", ""},
       "--out was given an empty file name", "give one, e.g. --out figure.svg"},
      {"lesson: --out with an empty name", {"lesson", "1", "--markdown", "--out", ""},
       "--out was given an empty file name", "give one, e.g. --out lesson.md"},
      {"compare: --recorded with an empty name", {"compare", "--recorded", ""},
       "--recorded was given an empty file name", "give one, e.g. --recorded"},
      {"compare --recorded: --out with an empty name",
       {"compare", "--recorded", dir.file("rec_ok.csv"), "--device", "h200", "--out", ""},
       "--out was given an empty file name", "give one, e.g. --out"},
      {"compare --recorded: --misses with an empty name",
       {"compare", "--recorded", dir.file("rec_ok.csv"), "--device", "h200", "--misses", ""},
       "--misses was given an empty file name", "give one, e.g. --misses"},
      {"compare --sweep: --out with an empty name", {"compare", "--sweep", "--out", ""},
       "--out was given an empty file name", "give one, e.g. --out"},
      // A flag that only means something beside another.
      {"run: --trace-format without --trace", {"run", "--N", "64", "--trace-format", "csv"},
       "--trace-format goes with --trace FILE", "add --trace"},
      // compare --recorded: flags of a GPU run or a mapping the recorded file fixes
      {"compare --recorded: --double-buffer", {"compare", "--recorded", dir.file("rec_ok.csv"), "--double-buffer"},
       "--double-buffer does not go with --recorded (the recorded file fixes the run)", "drop it"},
      {"compare --recorded: --scenario",
       {"compare", "--recorded", dir.file("rec_ok.csv"), "--scenario", dir.file("rec_ok.csv")},
       "--scenario does not go with --recorded", "drop it"},
      {"compare --recorded: --seed", {"compare", "--recorded", dir.file("rec_ok.csv"), "--seed", "7"},
       "--seed does not go with --recorded", "drop it"},
      {"compare --recorded: --no-numerics", {"compare", "--recorded", dir.file("rec_ok.csv"), "--no-numerics"},
       "--no-numerics does not go with --recorded", "drop it"},
      {"compare --recorded: --runs", {"compare", "--recorded", dir.file("rec_ok.csv"), "--runs", "50"},
       "--runs does not go with --recorded", "drop it"},
      {"compare --recorded: --counter-runs", {"compare", "--recorded", dir.file("rec_ok.csv"), "--counter-runs", "3"},
       "--counter-runs does not go with --recorded", "drop it"},
      {"compare --recorded: --placements", {"compare", "--recorded", dir.file("rec_ok.csv"), "--placements", "8"},
       "--placements does not go with --recorded", "drop it"},
      // sweep: no point ran, so there is no table to write
      {"sweep: its one point's tiles do not fit", {"sweep", "--br", "4096"},
       "the sweep's one point failed: flash2 tiles Br=4096, Bc=4096", "largest that fit"},
      {"sweep: its one point is too large", {"sweep", "--N", "16777217", "--out", dir.file("big.csv")},
       "the sweep's one point failed: N=16777217 is too large", "up to 16,777,216"},
      {"sweep: every point fails", {"sweep", "--br", "4096,8192", "--out", dir.file("none.jsonl")},
       "all 2 points of the sweep failed; the first: flash2 tiles Br=4096", "largest that fit"},
      // lesson numbers no lesson has, and the examples of a list with an empty item
      {"lesson: a number past the last", {"lesson", "9999"}, "there is no lesson 9999; the lessons are 0 to",
       "run 'fasim lesson' to list them"},
      {"lesson: a negative number", {"lesson", "-1"}, "there is no lesson -1; the lessons are 0 to",
       "run 'fasim lesson' to list them"},
      {"sweep: an empty device name", {"sweep", "--device", ","}, "--device ',': an empty item in the list",
       "e.g. h100,a100"},
      {"sweep: an empty algorithm name", {"sweep", "--algo", "flash2,"}, "--algo 'flash2,': an empty item in the list",
       "e.g. naive,flash2"},
      {"compare: more than 100,000 points",
       {"compare", "--sweep", "--N", "1:100000:+1", "--algo", "naive,flash2"}, "more than 100000 points",
       "use fewer values"},
  };
  for (const CliCase& c : cases) {
    DYNAMIC_SECTION(c.what) { require_one_line_error(run_fasim(c.args), c); }
  }
  CHECK(dir.entries() == before);  // nothing written by any of them
}

TEST_CASE("output that cannot be written: exit 2, one line naming standard output", "[errors][cli]") {
  if (!std::filesystem::exists("/dev/full")) {
    WARN("skipped: /dev/full does not exist here, so a full standard output cannot be made");
    return;
  }
  ScratchDir dir;
  const ProcessResult made = run_fasim({"sweep", "--N", "256,512", "--out", dir.file("s.csv")});
  REQUIRE(made.exit_code == 0);
  const std::vector<std::vector<std::string>> commands = {
      {"run", "--N", "64"},
      {"run", "--N", "64", "--json"},
      {"sweep", "--N", "64"},
      {"devices"},
      {"step", "--all", "--N", "64"},
      {"step", "--all", "--N", "2048"},  // more than a buffer: the write fails mid-run
      {"lesson"},
      {"plot", dir.file("s.csv"), "--figure", "bytes-vs-n"},
      {"--help"},
  };
  for (const auto& args : commands) {
    std::string what;  // without the scratch directory, whose name changes at each pass of the test case
    for (const std::string& a : args)
      what += (what.empty() ? "" : " ") + (a.find('/') == std::string::npos ? a : std::string("FILE"));
    DYNAMIC_SECTION(what) {
      const ProcessResult r = fasim::test::run_fasim_stdout_to("/dev/full", args);
      INFO(r.describe());
      REQUIRE_FALSE(r.timed_out);
      CHECK(r.exit_code == 2);
      CHECK(r.err == "fasim: error: cannot write to standard output: No space left on device; check the disk or "
                     "file it is redirected to\n");
    }
  }
}

TEST_CASE("a sweep in which some points fail keeps the rest and says how many failed", "[errors][cli]") {
  ScratchDir dir;
  ProcessResult r = run_fasim({"sweep", "--N", "256", "--br", "64,4096"});
  INFO(r.describe());
  CHECK(r.exit_code == 0);
  CHECK(fasim::test::split_lines(r.out).size() == 3);  // the header and both rows, one with an error cell
  CHECK(r.err == "fasim: warning: 1 of 2 points failed; their rows hold an 'error' cell saying why and what to change\n");
  r = run_fasim({"sweep", "--N", "256", "--br", "64,4096", "--out", dir.file("s.csv")});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "sweep: 2 points (1 with an error; see the 'error' column) -> " + dir.file("s.csv") + "\n");
  CHECK_THAT(r.err, Contains("1 of 2 points failed"));
  CHECK(read_table(dir.file("s.csv")).size() == 2);
}

TEST_CASE("compare --recorded: a row the device profile cannot run names FILE:LINE and a fix for the file", "[errors][cli]") {
  ScratchDir dir;
  // Line 2 runs on h100; line 3's tiles (Br = Bc = 256, d = 128, fp32) need more SRAM than h100 has.
  write_text(dir.file("tiles.csv"), recorded() + "x,y,z,flash2,fp32,1,1,1024,128,256,256,cold,time_s,1,1\n");
  const ProcessResult r = run_fasim({"compare", "--recorded", dir.file("tiles.csv"), "--device", "h100"});
  require_one_line_error(r, {"a recorded row whose tiles do not fit", {},
                             dir.file("tiles.csv") + ":3: flash2 tiles Br=256, Bc=256 (d=128, fp32) do not fit h100",
                             "this row cannot be predicted on the device profile h100; predict it with the profile "
                             "of the GPU it was recorded on (--device), or fix the row"});
  // A recorded file has no --br to change: the fix is not a flag of the run.
  CHECK_THAT(r.err, !Contains("--br") && !Contains("--bc"));
  // The library says the same (repredict, fidelity.cpp).
  const std::string msg = error_of([&] { repredict(read_recorded_csv(dir.file("tiles.csv")), load_device("h100"), 1); });
  CHECK_THAT(msg, Contains(dir.file("tiles.csv") + ":3: flash2 tiles Br=256"));
  CHECK_THAT(msg, Contains("this row cannot be predicted on the device profile h100"));
}

TEST_CASE("a bad value from a scenario file is named as its key, a bad flag as the flag", "[errors][cli]") {
  ScratchDir dir;
  write_text(dir.file("row.toml"), "[run]\nrow = 99999\n");
  write_text(dir.file("kv.toml"), "[workload]\nheads = 2\nkv_heads = 3\n");
  write_text(dir.file("splits.toml"), "[mapping]\nsplits = 4\n");
  const std::vector<CliCase> cases = {
      {"row from the file", {"run", "--scenario", dir.file("row.toml")},
       dir.file("row.toml") + ": [run] row = 99999 is outside 0..1023", "pick a row of the sequence"},
      {"row from the flag", {"run", "--row", "99999"}, "fasim: error: --row 99999 is outside 0..1023",
       "pick a row of the sequence"},
      {"row from the flag over the file", {"run", "--scenario", dir.file("row.toml"), "--row", "5000"},
       "fasim: error: --row 5000 is outside 0..1023", "pick a row of the sequence"},
      {"row from the file, N from the flag", {"run", "--scenario", dir.file("row.toml"), "--N", "64"},
       dir.file("row.toml") + ": [run] row = 99999 is outside 0..63", "pick a row of the sequence"},
      {"K/V heads and heads from the file", {"run", "--scenario", dir.file("kv.toml")},
       dir.file("kv.toml") + ": [workload] kv_heads = 3 is more than [workload] heads = 2",
       "use a divisor of 2, e.g. [workload] kv_heads = 2"},
      {"K/V heads from the file, heads from the flag", {"run", "--scenario", dir.file("kv.toml"), "--heads", "2"},
       dir.file("kv.toml") + ": [workload] kv_heads = 3 is more than --heads 2",
       "use a divisor of 2, e.g. [workload] kv_heads = 2"},
      {"K/V heads from the flag", {"run", "--kv-heads", "3", "--heads", "2"},
       "fasim: error: --kv-heads 3 is more than --heads 2", "use a divisor of 2"},
      {"splits from the file", {"run", "--scenario", dir.file("splits.toml")},
       dir.file("splits.toml") + ": [mapping] splits = 4 applies only to --algo decode",
       "drop [mapping] splits or use --algo decode"},
      {"splits from the flag", {"run", "--splits", "4"}, "fasim: error: --splits 4 applies only to --algo decode",
       "drop --splits"},
  };
  for (const CliCase& c : cases) {
    DYNAMIC_SECTION(c.what) {
      const ProcessResult r = run_fasim(c.args);
      require_one_line_error(r, c);
      if (c.what == std::string("row from the file")) CHECK_THAT(r.err, !Contains("--row"));
    }
  }
}

TEST_CASE("CLI11's parse errors in fasim's words: exit 2, one line, the problem and the fix", "[errors][cli]") {
  const std::vector<CliCase> cases = {
      {"a flag given twice", {"run", "--N", "1024", "--N", "2048"}, "--N was given 2 times; give it once",
       "`fasim sweep --N 512,1024` runs each"},
      {"a flag given twice to step", {"step", "--d", "64", "--d", "128"}, "--d was given 2 times",
       "`fasim sweep --d 64,128` runs each"},
      {"a flag given twice to sweep", {"sweep", "--N", "512", "--N", "1024"}, "--N was given 2 times",
       "with every value in one list: --N 512,1024"},
      {"a flag given twice to compare", {"compare", "--heads", "16", "--heads", "132"}, "--heads was given 2 times",
       "add --sweep and give one list: --heads 16,132 --sweep"},
      {"a flag that is no axis given twice", {"run", "--seed", "1", "--seed", "2"}, "--seed was given 2 times",
       "give it once"},
      {"a flag without its value", {"run", "--N"}, "--N needs a value after it", "e.g. --N 512"},
      {"no command", {}, "fasim needs a command: one of run, step, devices", "see 'fasim --help'"},
      {"gpu without its command", {"gpu"}, "fasim gpu needs a command: one of run, calibrate", "`fasim gpu run`"},
      {"an unknown gpu command", {"gpu", "bogus"}, "unknown command 'bogus' for fasim gpu",
       "use one of run, calibrate"},
      {"an unknown flag", {"run", "--bogus"}, "unknown flag '--bogus' for fasim run", "'fasim run --help'"},
      {"a flag in the wrong case", {"run", "--n", "1024"}, "unknown flag '--n'", "did you mean --N?"},
      {"a value without its flag", {"run", "1024"}, "unexpected '1024'", "put the flag it is the value of before it"},
      {"a missing required flag", {"trace"}, "fasim trace needs --html", "add it"},
  };
  for (const CliCase& c : cases) {
    DYNAMIC_SECTION(c.what) { require_one_line_error(run_fasim(c.args), c); }
  }
}

TEST_CASE("fasim gpu without a usable GPU: exit 2, one line saying why", "[errors][cli]") {
  // A CPU-only build says how to rebuild; a CUDA build on a machine without
  // a GPU or driver says which is missing. Either way: exit 2, one line.
  const ProcessResult r = run_fasim({"gpu", "run", "--N", "64"});
  INFO(r.describe());
  if (r.exit_code == 0) SUCCEED("a GPU is here; nothing to check");
  else {
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    const bool cpu_only = r.err.find("built without CUDA") != std::string::npos;
    if (cpu_only) CHECK_THAT(r.err, Contains("rebuild with the cuda preset"));
    else CHECK_THAT(r.err, Contains("driver") || Contains("GPU"));
    // The fix: where the driver is missing, install it; otherwise another
    // machine (or a build for this GPU); and that `fasim run` needs no GPU.
    if (r.err.find("no NVIDIA driver") != std::string::npos)
      CHECK_THAT(r.err, Contains("; install or update the NVIDIA driver, or run on a machine with an NVIDIA GPU"));
    if (!cpu_only)
      CHECK_THAT(r.err, Contains("(`fasim run` simulates without one)") || Contains("; rebuild with -DCMAKE_CUDA_ARCHITECTURES="));
  }
  // An unknown kernel version is named before any GPU is asked for.
  const ProcessResult k = run_fasim({"gpu", "run", "--kernel", "9"});
  INFO(k.describe());
  CHECK(k.exit_code == 2);
  CHECK(std::count(k.err.begin(), k.err.end(), '\n') == 1);
  CHECK_THAT(k.err, Contains("unknown kernel '9'; use --kernel auto, 1 to") || Contains("built without CUDA"));
  // --input-scale changes the simulator's inputs only: the GPU run refuses it
  // before it asks for a GPU (or says the build has no CUDA).
  const ProcessResult s = run_fasim({"gpu", "run", "--N", "64", "--input-scale", "300"});
  INFO(s.describe());
  CHECK(s.exit_code == 2);
  CHECK(std::count(s.err.begin(), s.err.end(), '\n') == 1);
  CHECK_THAT(s.err, Contains("--input-scale is for the simulator; the GPU run draws N(0, 1) inputs: leave it out") ||
                        Contains("built without CUDA"));
}

TEST_CASE("library error paths name the problem and the fix in one line", "[errors]") {
  ScratchDir dir;
  struct Case {
    const char* what;
    std::function<void()> act;
    std::string problem, fix;
  };
  auto trace = [&](const std::string& name, const std::string& text) {
    return [&dir, name, text] {
      write_text(dir.file(name), text);
      read_trace(dir.file(name));
    };
  };
  // A valid CSV trace header and one row, to break one field at a time.
  const std::string header =
      "index,kernel,block,kind,tensor,what,bh,qb,kb,rows,cols,hbm_read_bytes,hbm_write_bytes,flops_matmul,"
      "flops_other,exps,sram_bytes,register_bytes,row0,col0,l2_read_bytes,l2_write_bytes,l2_hit_bytes,"
      "dram_read_bytes,dram_write_bytes,l2_fabric_bytes,sm,has_row,row_m,row_l,cum_hbm_read_bytes,cum_hbm_write_bytes,ts_us,"
      "dur_us";
  const std::string fields = "0,0,0,load,K,\"\",0,0,0,64,32,4096,0,0,0,0,4096,0,0,0,0,0,0,0,0,0,0";  // index .. sm
  const std::string row = fields + ",0,,,4096,0,0,1";  // has_row 0, no row_m and row_l
  const std::string meta = "{\"type\":\"meta\"}\n";
  auto step = [](const std::string& field, const std::string& value) {
    std::string s =
        "{\"type\":\"step\",\"index\":0,\"kernel\":0,\"block\":0,\"kind\":\"load\",\"tensor\":\"K\",\"what\":\"\","
        "\"bh\":0,\"qb\":0,\"kb\":0,\"rows\":1,\"cols\":1,\"hbm_read_bytes\":2,\"hbm_write_bytes\":0,"
        "\"flops_matmul\":0,\"flops_other\":0,\"exps\":0,\"sram_bytes\":0,\"register_bytes\":0,\"row0\":0,"
        "\"col0\":0,\"l2_read_bytes\":0,\"l2_write_bytes\":0,\"l2_hit_bytes\":0,\"dram_read_bytes\":0,"
        "\"dram_write_bytes\":0,\"l2_fabric_bytes\":0,\"sm\":0,\"has_row\":false,\"cum_hbm_read_bytes\":2,"
        "\"cum_hbm_write_bytes\":0,"
        "\"ts_us\":0,\"dur_us\":1}";
    const std::string key = "\"" + field + "\":";
    const std::size_t at = s.find(key) + key.size();
    return s.substr(0, at) + value + s.substr(s.find_first_of(",}", at)) + "\n";
  };
  auto recorded_file = [&](const std::string& name, const std::string& text) {
    return [&dir, name, text] {
      write_text(dir.file(name), text);
      read_recorded_csv(dir.file(name));
    };
  };
  auto misses_file = [&](const std::string& name, const std::string& text) {
    return [&dir, name, text] {
      write_text(dir.file(name), text);
      read_misses(dir.file(name));
    };
  };
  auto comparison = [](const std::string& csv) { return [csv] { predicted_vs_measured(parse_csv(csv, "c.csv"), "c.csv"); }; };
  const std::vector<Case> cases = {
      {"set_input on an output", [] {
         Simulation sim(load_device("h100"), Workload{1, 1, 8, 4, DType::fp32}, Mapping{Algo::flash2, 8, 8});
         sim.set_input(TensorId::O, std::vector<float>(32));
       }, "only Q, K and V are inputs, not O", "Q, K and V"},
      {"set_input when counting only", [] {
         Simulation sim(load_device("h100"), Workload{1, 1, 8, 4, DType::fp32}, Mapping{Algo::flash2, 8, 8},
                        {.numerics = false});
         sim.set_input(TensorId::Q, std::vector<float>(32));
       }, "inputs need values", "do not pass --no-numerics"},
      {"a lesson that cannot be read", [] { load_lesson("/nonexistent/00-x.md"); },
       "cannot read lesson '/nonexistent/00-x.md'", "check the path"},
      {"CSV: text after a closing quote", [] { parse_csv("a,b\n\"x\"y,1\n", "s.csv"); }, "s.csv:2: text after a closing quote",
       "a sweep file is what `fasim sweep --out FILE.csv`"},
      {"CSV: a quote inside a cell", [] { parse_csv("a,b\nx\"y,1\n", "s.csv"); }, "s.csv:2: a quote inside an unquoted cell",
       "write \"\" inside a quoted cell"},
      {"trace: a directory", [&dir] { read_trace(dir.path().string()); }, "it is a directory", "give a trace file"},
      {"trace: a CSV that is no trace", trace("t1.csv", "a,b\n1,2\n"), "not a fasim trace", "check that it is a complete trace"},
      {"trace: a CSV header that stops early", trace("t2.csv", "index,kernel,block\n"),
       "the CSV header has 3 columns; column 'kind' is missing", "check that it is a complete trace"},
      {"trace: a CSV header with an extra column", trace("t3.csv", header + ",extra\n" + row + "\n"),
       "the CSV header has 35 columns, expected 34", "check that it is a complete trace"},
      {"trace: row_m set while has_row is 0",
       trace("t4.csv", header + "\n" + fields + ",0,1.5,,4096,0,0,1\n"),
       "column 'row_m' must be empty when has_row is 0", "check that it is a complete trace"},
      {"trace: an unknown tensor", trace("t5.jsonl", meta + step("tensor", "\"X\"")), "unknown tensor 'X'",
       "check that it is a complete trace"},
      {"trace: an integer past int64", trace("t6.jsonl", meta + step("rows", "18446744073709551615")),
       "field 'rows' is out of range", "check that it is a complete trace"},
      {"trace: a time that is no number", trace("t7.jsonl", meta + step("ts_us", "\"soon\"")),
       "field 'ts_us' is not a number", "check that it is a complete trace"},
      {"trace: a number past double", trace("t8.jsonl", meta + step("ts_us", "1e999")), "number overflow",
       "check that it is a complete trace"},
      {"trace: cumulative bytes past int64",
       trace("t9.json",
             "{\"traceEvents\":[" +
                 [] {
                   std::string ev =
                       "{\"ph\":\"X\",\"ts\":0,\"dur\":1,\"args\":{\"index\":0,\"kernel\":0,\"block\":0,\"kind\":"
                       "\"load\",\"tensor\":\"K\",\"what\":\"\",\"bh\":0,\"qb\":0,\"kb\":0,\"rows\":1,\"cols\":1,"
                       "\"hbm_read_bytes\":9223372036854775807,\"hbm_write_bytes\":0,\"flops_matmul\":0,"
                       "\"flops_other\":0,\"exps\":0,\"sram_bytes\":0,\"register_bytes\":0,\"row0\":0,\"col0\":0,"
                       "\"l2_read_bytes\":0,\"l2_write_bytes\":0,\"l2_hit_bytes\":0,\"dram_read_bytes\":0,"
                       "\"dram_write_bytes\":0,\"l2_fabric_bytes\":0,\"sm\":0,\"has_row\":false}}";
                   return ev + "," + ev;
                 }() +
                 "]}"),
       "cumulative HBM bytes overflow", "check that it is a complete trace"},
      // Recorded GPU runs (fidelity.cpp): every field a row can get wrong.
      {"recorded: no such file", [] { read_recorded_csv("/nonexistent/r.csv"); },
       "cannot read recorded run '/nonexistent/r.csv'", "check the path"},
      {"recorded: another header", recorded_file("r1.csv", "a,b\n"), "r1.csv:1: not a recorded run",
       "give the CSV that `fasim compare --sweep --out FILE.csv` writes"},
      {"recorded: a short row", recorded_file("r2.csv", kRecordedHeader + "x,y,z\n"),
       "r2.csv:2: expected 15 fields, found 3", "fix the row"},
      {"recorded: an unknown algorithm", recorded_file("r3.csv", recorded(3, "flash9")),
       "r3.csv:2: unknown algorithm 'flash9'", "use one of naive, flash1, flash2, decode"},
      {"recorded: an unknown dtype", recorded_file("r4.csv", recorded(4, "fp8")), "r4.csv:2: unknown dtype 'fp8'",
       "use fp32, fp16 or bf16"},
      {"recorded: an unknown L2 mode", recorded_file("r5.csv", recorded(11, "hot")), "r5.csv:2: unknown l2_mode 'hot'",
       "write cold or warm"},
      {"recorded: a size that is no positive number", recorded_file("r6.csv", recorded(8, "0")),
       "r6.csv:2: d '0' is not a positive whole number", "fix the row"},
      {"recorded: a measurement that is no number", recorded_file("r7.csv", recorded(14, "fast")),
       "r7.csv:2: measured 'fast' is not a number >= 0", "fix the row"},
      {"recorded: an unknown metric", recorded_file("r8.csv", recorded(12, "tflops")),
       "r8.csv:2: unknown metric 'tflops'", "use one of hbm_read_bytes, hbm_write_bytes, l2_read_bytes"},
      {"recorded: a metric twice", recorded_file("r9.csv", recorded() + recorded().substr(kRecordedHeader.size())),
       "r9.csv:3: metric time_s appears twice for this point", "keep one of the two rows"},
      {"recorded: no rows", recorded_file("r10.csv", kRecordedHeader), "r10.csv: no rows",
       "record a run with `fasim compare --sweep`"},
      // The list of known misses the ratchet test reads.
      {"misses: no such file", [] { read_misses("/nonexistent/m.csv"); },
       "cannot read the list of known misses '/nonexistent/m.csv'", "check the path"},
      {"misses: another header", misses_file("m1.csv", "point,metric\n"), "m1.csv:1: not a list of misses",
       "`fasim compare --recorded FILE.csv --misses OUT.csv`"},
      {"misses: a short row", misses_file("m2.csv", "point,metric,error_pct\np,time_s\n"),
       "m2.csv:2: expected point,metric,error_pct, found 2 fields", "fix the row"},
      {"misses: an unknown metric", misses_file("m3.csv", "point,metric,error_pct\np,tflops,3\n"),
       "m3.csv:2: unknown metric 'tflops'", "use one of hbm_read_bytes"},
      {"misses: an error that is no number", misses_file("m4.csv", "point,metric,error_pct\np,time_s,big\n"),
       "m4.csv:2: error_pct 'big' is not a number", "fix the row"},
      // The predicted-vs-measured figure (predicted_vs_measured.cpp).
      {"comparison: no metric rows", comparison("algo,N\nflash2,64\n"),
       "c.csv: no rows with metric, predicted and measured", "`fasim compare --sweep ... --out FILE.csv` writes"},
      {"comparison: no byte or time metric", comparison("metric,predicted,measured\ntflops,1,2\n"),
       "c.csv: no metric ends in _bytes or is time_s", "plot the long-form CSV that `fasim compare --sweep"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.what) {
      const std::string msg = error_of(c.act);
      INFO(msg);
      CHECK(msg.find('\n') == std::string::npos);
      CHECK_THAT(msg, Contains(c.problem));
      CHECK_THAT(msg, Contains(c.fix));
    }
  }
}

TEST_CASE("UserError keeps its message on one line, whatever it quotes", "[errors]") {
  CHECK(std::string(UserError("bad 'a\nb\rc\td'; fix it").what()) == "bad 'a?b?c?d'; fix it");
  CHECK(one_line("x\x1b[31my") == "x?[31my");
  // A device file whose error quotes a string holding a CR.
  CHECK_THAT(error_of([] { parse_device("name = \"x\"\ndescription = \"y\"\n[compute]\nsm_count = \"a\\rb\"\n", "d.toml"); }),
             Contains("sm_count must be a positive integer, got \"a?b\""));
  // What main() prints for an argument CLI11 does not know: still one line.
  const ProcessResult r = run_fasim({"run", "--N", "8", "--d", "4", "-\rx"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
