// read_input_file: every input file fasim reads whole (device and scenario
// TOMLs, lessons, sweeps, recorded runs) comes back byte for byte, and every
// way it can fail is one line naming the file, the reason and the fix.
// Tag [input].
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli_support.hpp"
#include "fasim/error.hpp"
#include "fasim/input_file.hpp"
#include "user_error_text.hpp"

using fasim::read_input_file;
using fasim::test::error_of;
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
