// Helpers for the end-to-end tests of the `fasim` program (tests/test_cli.cpp):
// run the binary with arguments and optional stdin, no shell in between, and
// capture its exit status, stdout and stderr separately; plus a scratch
// directory per test.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fasim::test {

/// @brief How a child process ended and what it printed.
struct ProcessResult {
  int exit_code = -1;      ///< exit status if it exited normally, else -1
  int term_signal = 0;     ///< the signal that killed it, else 0
  bool timed_out = false;  ///< true if we had to SIGKILL it after the time limit
  std::string out;         ///< everything written to stdout
  std::string err;         ///< everything written to stderr
  double seconds = 0;      ///< wall time from start to exit

  bool exited() const { return exit_code >= 0; }
  /// @brief A one-line description for test failure messages.
  std::string describe() const;
};

/// @brief A child process whose stdin, stdout and stderr are pipes to us.
/// The child starts with SIGINT/SIGTERM at their default disposition and no
/// blocked signals, whatever the test runner inherited.
class ChildProcess {
 public:
  /// @brief Starts `program` with `args` (argv[1..]). Without `stdin_text`
  /// the child's stdin is /dev/null; with it, the text is fed through a pipe
  /// that is then closed. Either way stdin is not a terminal.
  /// With `stdout_path`, the child's stdout is that file (opened for
  /// writing, e.g. /dev/full) instead of a pipe, and result.out stays empty.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               std::optional<std::string> stdin_text = std::nullopt,
               std::optional<std::string> stdout_path = std::nullopt);
  /// @brief Kills (SIGKILL) and reaps the child if wait() was not called.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  /// @brief Sends `sig` to the child (if it has not been reaped yet).
  void signal(int sig);
  /// @brief Feeds stdin, drains stdout/stderr and waits for the child to end;
  /// SIGKILLs it after `timeout` (then result.timed_out is true). Call once.
  ProcessResult wait(std::chrono::milliseconds timeout = std::chrono::seconds(60));

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string stdin_text_;
  std::chrono::steady_clock::time_point start_;
  bool reaped_ = false;
};

/// @brief Runs the fasim binary (FASIM_BINARY) with `args` and waits for it.
ProcessResult run_fasim(const std::vector<std::string>& args,
                        std::optional<std::string> stdin_text = std::nullopt,
                        std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// @brief Runs the fasim binary with `args`, its stdout the file `stdout_path`
/// (e.g. /dev/full), and waits for it; result.out is empty.
ProcessResult run_fasim_stdout_to(const std::string& stdout_path, const std::vector<std::string>& args,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// @brief How long a fasim run that predicts whole recorded sweeps again may
/// take before a test counts it as hung. Such runs took 62 to 121 s on a
/// 2-core box running nothing else (2026-11-29), and past 120 s with a build
/// beside them; a hang still ends the test.
inline constexpr std::chrono::seconds kWholeSweepsTimeout{600};

/// @brief A fresh, empty directory for one test, under $FASIM_TMP if set
/// (created if needed), else under the system temp directory. Removed, with
/// its contents, when the object dies.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// @brief path() / name, as a string.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// @brief Names of the entries in the directory, sorted.
  std::vector<std::string> entries() const;

 private:
  std::filesystem::path path_;
};

/// @brief Writes `text` to `path` (truncating).
void write_text(const std::filesystem::path& path, const std::string& text);
/// @brief The whole file as a string (empty if unreadable).
std::string read_text(const std::filesystem::path& path);

/// @brief `text` split at '\n' (a final newline does not make an empty line).
std::vector<std::string> split_lines(const std::string& text);
/// @brief How many lines of `text` start with `prefix`.
std::size_t count_lines_starting_with(const std::string& text, const std::string& prefix);
/// @brief 1234567 -> "1,234,567", as the CLI's tables print integers.
std::string with_commas(long long value);

}  // namespace fasim::test
