// AtomicFile: the target appears whole on commit() or not at all.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"

namespace fs = std::filesystem;

using fasim::test::read_text;
using fasim::test::ScratchDir;

TEST_CASE("AtomicFile: the target appears only on commit", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("t.json");
  {
    fasim::AtomicFile f(path);
    CHECK(f.temp_path() == path + ".tmp-" + std::to_string(::getpid()));
    f.stream() << "{\"a\": 1}\n";
    CHECK_FALSE(fs::exists(path));
    CHECK(fs::exists(f.temp_path()));
    f.commit();
    CHECK(fs::exists(path));
  }
  CHECK(read_text(path) == "{\"a\": 1}\n");
  CHECK(d.entries() == std::vector<std::string>{"t.json"});
}

TEST_CASE("AtomicFile: without commit nothing is left", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("t.csv");
  {
    fasim::AtomicFile f(path);
    f.stream() << "half a line";
  }
  CHECK(d.entries().empty());

  // An exception unwinding through the writer leaves nothing either.
  try {
    fasim::AtomicFile f(path);
    f.stream() << "partial";
    throw std::runtime_error("simulated failure");
  } catch (const std::runtime_error&) {
  }
  CHECK(d.entries().empty());
}

TEST_CASE("AtomicFile: an existing file is replaced whole, or kept", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("report.txt");
  std::ofstream(path) << "old\n";
  {
    fasim::AtomicFile f(path);
    f.stream() << "new\n";
    CHECK(read_text(path) == "old\n");
  }
  CHECK(read_text(path) == "old\n");  // not committed: old contents survive
  {
    fasim::AtomicFile f(path);
    f.stream() << "new\n";
    f.commit();
  }
  CHECK(read_text(path) == "new\n");
  CHECK(d.entries().size() == 1);
}

TEST_CASE("AtomicFile: two writers to one target do not share a temporary", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("t.txt");
  fasim::AtomicFile a(path);
  fasim::AtomicFile b(path);
  CHECK(a.temp_path() != b.temp_path());
  a.stream() << "a";
  b.stream() << "b";
  a.commit();
  b.commit();
  CHECK(read_text(path) == "b");
  CHECK(d.entries().size() == 1);
}

TEST_CASE("AtomicFile: a missing directory is a UserError with the fix", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("no/such/dir/t.json");
  try {
    fasim::AtomicFile f(path);
    FAIL("expected a UserError");
  } catch (const fasim::UserError& e) {
    const std::string msg = e.what();
    CHECK(msg == "cannot write '" + path +
                     "': No such file or directory; check that the directory exists and is "
                     "writable");
    CHECK(msg.find('\n') == std::string::npos);
  }
  CHECK_THROWS_AS(fasim::AtomicFile(""), fasim::UserError);
}

TEST_CASE("AtomicFile: a directory is refused up front", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("out");
  fs::create_directory(path);
  CHECK_THROWS_WITH(fasim::AtomicFile(path),
                    "cannot write '" + path + "': it is not a regular file (a directory); give a file name, not a directory");
  CHECK(d.entries() == std::vector<std::string>{"out"});
  CHECK(fs::is_directory(path));
}

TEST_CASE("AtomicFile: a FIFO is refused up front and kept", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("f");
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(fasim::AtomicFile(path),
                    "cannot write '" + path + "': it is not a regular file (a FIFO); give a path to a file");
  CHECK(fs::is_fifo(path));
  CHECK(d.entries() == std::vector<std::string>{"f"});
  // A link to the FIFO is refused the same way, naming the link.
  const std::string link = d.file("lnk");
  fs::create_symlink(path, link);
  CHECK_THROWS_WITH(fasim::AtomicFile(link), "cannot write '" + link +
                                                 "': it is not a regular file (a link to a FIFO); give a path to a file");
  CHECK(fs::is_symlink(link));
  CHECK(fs::is_fifo(path));
}

TEST_CASE("AtomicFile: a FIFO that appears before commit is not renamed over", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("t.csv");
  fasim::AtomicFile f(path);
  f.stream() << "x";
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(f.commit(), Catch::Contains("(a FIFO)"));
  CHECK(fs::is_fifo(path));
}

TEST_CASE("AtomicFile: a symbolic link is kept and its target written", "[atomic_file]") {
  ScratchDir d;
  fs::create_directory(d.file("sub"));
  const std::string target = d.file("sub/target.csv");
  std::ofstream(target) << "old\n";
  const std::string link = d.file("lnk");
  fs::create_symlink("sub/target.csv", link);  // relative, as `ln -s` makes them
  {
    fasim::AtomicFile f(link);
    f.stream() << "new\n";
    f.commit();
  }
  CHECK(fs::is_symlink(link));
  CHECK(read_text(target) == "new\n");
  CHECK(d.entries() == std::vector<std::string>{"lnk", "sub"});
  // A dangling link: the file it names is created, the link kept.
  const std::string dangling = d.file("dangling");
  fs::create_symlink("sub/new.csv", dangling);
  {
    fasim::AtomicFile f(dangling);
    f.stream() << "fresh\n";
    f.commit();
  }
  CHECK(fs::is_symlink(dangling));
  CHECK(read_text(d.file("sub/new.csv")) == "fresh\n");
}

TEST_CASE("AtomicFile: remove_all_temps removes live temporaries", "[atomic_file]") {
  ScratchDir d;
  fasim::AtomicFile a(d.file("a"));
  fasim::AtomicFile b(d.file("b"));
  CHECK(d.entries().size() == 2);
  fasim::AtomicFile::remove_all_temps();
  CHECK(d.entries().empty());
}

TEST_CASE("AtomicFile: Ctrl-C removes the temporary and exits 130", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("t.json");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // In the child: nothing Catch-related, just the scenario, then _exit.
    fasim::AtomicFile::install_interrupt_cleanup();
    fasim::AtomicFile f(path);
    f.stream() << "partial output";
    f.stream().flush();
    ::raise(SIGINT);
    ::_exit(1);  // not reached
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(d.entries().empty());
}
