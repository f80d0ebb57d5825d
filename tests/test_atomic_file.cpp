// AtomicFile: the target appears whole on commit() or not at all.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"

namespace fs = std::filesystem;

namespace {

// A fresh directory under /tmp, removed with everything in it.
struct ScratchDir {
  fs::path dir;
  ScratchDir() {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("fasim-atomic-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    return out;
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

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
  CHECK(slurp(path) == "{\"a\": 1}\n");
  CHECK(d.names() == std::vector<std::string>{"t.json"});
}

TEST_CASE("AtomicFile: without commit nothing is left", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("t.csv");
  {
    fasim::AtomicFile f(path);
    f.stream() << "half a line";
  }
  CHECK(d.names().empty());

  // An exception unwinding through the writer leaves nothing either.
  try {
    fasim::AtomicFile f(path);
    f.stream() << "partial";
    throw std::runtime_error("simulated failure");
  } catch (const std::runtime_error&) {
  }
  CHECK(d.names().empty());
}

TEST_CASE("AtomicFile: an existing file is replaced whole, or kept", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("report.txt");
  std::ofstream(path) << "old\n";
  {
    fasim::AtomicFile f(path);
    f.stream() << "new\n";
    CHECK(slurp(path) == "old\n");
  }
  CHECK(slurp(path) == "old\n");  // not committed: old contents survive
  {
    fasim::AtomicFile f(path);
    f.stream() << "new\n";
    f.commit();
  }
  CHECK(slurp(path) == "new\n");
  CHECK(d.names().size() == 1);
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
  CHECK(slurp(path) == "b");
  CHECK(d.names().size() == 1);
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

TEST_CASE("AtomicFile: renaming over a directory fails cleanly", "[atomic_file]") {
  ScratchDir d;
  const std::string path = d.file("out");
  fs::create_directory(path);
  {
    fasim::AtomicFile f(path);
    f.stream() << "x";
    CHECK_THROWS_WITH(f.commit(), Catch::Contains("cannot write '" + path + "'"));
  }
  CHECK(d.names() == std::vector<std::string>{"out"});
  CHECK(fs::is_directory(path));
}

TEST_CASE("AtomicFile: remove_all_temps removes live temporaries", "[atomic_file]") {
  ScratchDir d;
  fasim::AtomicFile a(d.file("a"));
  fasim::AtomicFile b(d.file("b"));
  CHECK(d.names().size() == 2);
  fasim::AtomicFile::remove_all_temps();
  CHECK(d.names().empty());
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
  CHECK(d.names().empty());
}
