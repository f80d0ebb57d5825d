// read_input_file: every input file fasim reads whole (device and scenario
// TOMLs, lessons, sweeps, recorded runs) comes back byte for byte, less a
// leading UTF-8 byte order mark, and every way it can fail is one line naming
// the file, the reason and the fix. Every CSV reader (and the trace reader,
// which streams) reads a file with a byte order mark as one without.
// Tag [input].
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli_support.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/input_file.hpp"
#include "fasim/sweep_table.hpp"
#include "fasim/trace_reader.hpp"
#include "user_error_text.hpp"

using fasim::read_input_file;
using fasim::test::error_of;
using fasim::test::ProcessResult;
using fasim::test::read_text;
using fasim::test::run_fasim;
using fasim::test::ScratchDir;
using fasim::test::write_text;

TEST_CASE("read_input_file returns the file byte for byte", "[input]") {
  const ScratchDir dir;
  // Past one 64 KiB read, with a NUL byte, CR LF line ends and no final newline.
  std::string text(70000, 'x');
  for (std::size_t i = 0; i < text.size(); i += 97) text[i] = '\n';
  text[1000] = '\0';
  text[2000] = '\r';
  text += "end";
  write_text(dir.file("big.txt"), text);
  const std::string got = read_input_file(dir.file("big.txt"), "test file", "fix it");
  CHECK(got.size() == text.size());
  CHECK(got == text);

  write_text(dir.file("empty.txt"), "");
  CHECK(read_input_file(dir.file("empty.txt"), "test file", "fix it").empty());
}

TEST_CASE("read_input_file names the file, the reason and the fix in one line", "[input]") {
  const ScratchDir dir;
  const std::string missing = dir.file("none.toml");
  CHECK(error_of([&] { read_input_file(missing, "device file", "check the path"); }) ==
        "cannot read device file '" + missing + "': No such file or directory; check the path");

  const std::string folder = dir.path().string();
  CHECK(error_of([&] { read_input_file(folder, "lesson", "check the path"); }) ==
        "cannot read lesson '" + folder + "': it is a directory; check the path");

  const std::string under_file = dir.file("plain.txt") + "/x.toml";  // a file where a folder belongs
  write_text(dir.file("plain.txt"), "x");
  CHECK(error_of([&] { read_input_file(under_file, "scenario file", "check the path"); }) ==
        "cannot read scenario file '" + under_file + "': Not a directory; check the path");

  const std::string locked = dir.file("locked.csv");
  write_text(locked, "a,b\n");
  std::filesystem::permissions(locked, std::filesystem::perms::none);
  if (std::FILE* f = std::fopen(locked.c_str(), "rb")) {
    std::fclose(f);  // root reads any file: nothing to refuse
    WARN("skipped the permission case: this user can read a file with no permissions (root)");
  } else {
    CHECK(error_of([&] { read_input_file(locked, "sweep file", "give another"); }) ==
          "cannot read sweep file '" + locked + "': Permission denied; give another");
  }
  std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
}

TEST_CASE("read_input_file refuses what is not a plain file, and files past the size cap", "[input]") {
  const ScratchDir dir;
  // /dev/zero never ends: it was read until memory ran out.
  CHECK(error_of([] { read_input_file("/dev/zero", "scenario file", "check the path"); }) ==
        "cannot read scenario file '/dev/zero': it is not a regular file (a device, FIFO or socket); check the path");
  // A FIFO with no writer: fopen blocked for ever.
  const std::string fifo = dir.file("pipe.toml");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(error_of([&] { read_input_file(fifo, "device file", "check the path"); }) ==
        "cannot read device file '" + fifo + "': it is not a regular file (a device, FIFO or socket); check the path");
  // A link to a plain file is read as the file.
  write_text(dir.file("real.toml"), "N = 1\n");
  std::filesystem::create_symlink(dir.file("real.toml"), dir.file("link.toml"));
  CHECK(read_input_file(dir.file("link.toml"), "scenario file", "check the path") == "N = 1\n");
  // One byte past the cap (a sparse file: no disk is used), refused before reading.
  const std::string big = dir.file("big.csv");
  write_text(big, "");
  std::filesystem::resize_file(big, fasim::kMaxInputFileBytes + 1);
  CHECK(error_of([&] { read_input_file(big, "sweep file", "give another"); }) ==
        "cannot read sweep file '" + big + "': it is larger than 256 MiB, more than any input fasim reads; give another");
}

TEST_CASE("a leading UTF-8 byte order mark is skipped by every reader of CSV (and TOML) files", "[input][cli]") {
  const ScratchDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  // read_input_file drops it at the start only; one inside the text stays.
  write_text(dir.file("b.txt"), bom + "a" + bom + "b\n");
  CHECK(read_input_file(dir.file("b.txt"), "test file", "fix it") == "a" + bom + "b\n");

  // A recorded run (`fasim compare --recorded`) and its list of known misses.
  const std::string recorded =
      "device,driver,date,algo,dtype,batch,heads,N,d,br,bc,l2_mode,metric,predicted,measured\n"
      "x,y,z,flash2,fp16,1,1,256,64,64,64,cold,time_s,1,1\n";
  write_text(dir.file("rec.csv"), bom + recorded);
  CHECK(fasim::read_recorded_csv(dir.file("rec.csv")).size() == 1);
  write_text(dir.file("misses.csv"), bom + "point,metric,error_pct\np,time_s,3\n");
  CHECK(fasim::read_misses(dir.file("misses.csv")).size() == 1);
  const ProcessResult compared = run_fasim({"compare", "--recorded", dir.file("rec.csv"), "--device", "h100"});
  INFO(compared.describe());
  CHECK(compared.exit_code == 0);
  CHECK_THAT(compared.out, Catch::Contains("recorded  " + dir.file("rec.csv") + " (1 point"));

  // Sweep tables (plot, gpu-bench, --resume): the first column keeps its name.
  write_text(dir.file("t.csv"), bom + "device,workload.N,hbm.read_bytes\nh100,64,100\n");
  const fasim::SweepTable t = fasim::read_table(dir.file("t.csv"));
  CHECK(t.columns().front() == "device");
  CHECK(t.text(0, "device") == "h100");
  write_text(dir.file("t.jsonl"), bom + "{\"device\":\"h100\",\"workload.N\":64}\n");
  CHECK(fasim::read_table(dir.file("t.jsonl")).text(0, "device") == "h100");

  // `fasim sweep --resume` finishes a file that an editor saved with one.
  const std::vector<std::string> sweep = {"sweep", "--N", "64,128", "--d", "16", "--out", dir.file("s.csv")};
  REQUIRE(run_fasim(sweep).exit_code == 0);
  const std::string table = read_text(dir.file("s.csv"));
  const std::string first_row_only = table.substr(0, table.find('\n', table.find('\n') + 1) + 1);
  write_text(dir.file("s.csv"), bom + first_row_only);
  std::vector<std::string> resume = sweep;
  resume.push_back("--resume");
  const ProcessResult resumed = run_fasim(resume);
  INFO(resumed.describe());
  CHECK(resumed.exit_code == 0);
  CHECK(fasim::read_table(dir.file("s.csv")).size() == 2);

  // Traces in each of their three formats.
  for (const char* format : {"csv", "jsonl", "chrome"}) {
    INFO(format);
    const std::string trace = dir.file(std::string("trace.") + format);
    REQUIRE(run_fasim({"run", "--N", "16", "--d", "4", "--br", "4", "--bc", "4", "--device", "toy", "--trace", trace,
                       "--trace-format", format})
                .exit_code == 0);
    const std::size_t records = fasim::read_trace(trace).size();
    write_text(trace, bom + read_text(trace));
    CHECK(fasim::read_trace(trace).size() == records);
  }

  // A device TOML with one loaded before; it still does.
  write_text(dir.file("toy.toml"), bom + read_text(std::string(FASIM_SOURCE_DIR) + "/configs/devices/toy.toml"));
  CHECK(fasim::load_device(dir.file("toy.toml")).name == "toy");
}
