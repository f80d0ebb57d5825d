#include "cli_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

extern char** environ;

namespace fasim::test {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, int err = errno) {
  throw std::system_error(err, std::generic_category(), what);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

std::string ProcessResult::describe() const {
  std::ostringstream s;
  if (timed_out) s << "timed out; ";
  if (exited())
    s << "exit code " << exit_code;
  else
    s << "killed by signal " << term_signal;
  s << " after " << seconds << " s\n--- stdout (" << out.size() << " B) ---\n"
    << out.substr(0, 2000) << "\n--- stderr (" << err.size() << " B) ---\n"
    << err.substr(0, 2000);
  return s.str();
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args,
                           std::optional<std::string> stdin_text, std::optional<std::string> stdout_path) {
  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  if (!stdout_path && ::pipe2(out_pipe, O_CLOEXEC) != 0) fail("pipe2");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) fail("pipe2");
  if (stdin_text && ::pipe2(in_pipe, O_CLOEXEC) != 0) fail("pipe2");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_text)
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
  else
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (stdout_path)
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path->c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  else
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);

  // The test runner may have inherited SIGINT ignored (e.g. a background job
  // of a non-interactive shell) or installed its own handlers; the child gets
  // the defaults and an empty signal mask.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGQUIT, SIGHUP}) sigaddset(&defaults, sig);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.push_back(program);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  start_ = std::chrono::steady_clock::now();
  const int rc = ::posix_spawn(&pid_, program.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);

  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);
  close_fd(in_pipe[0]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  in_fd_ = in_pipe[1];
  if (rc != 0) {
    close_fd(out_fd_);
    close_fd(err_fd_);
    close_fd(in_fd_);
    pid_ = -1;
    fail("posix_spawn " + program, rc);
  }
  if (in_fd_ >= 0) {
    ::fcntl(in_fd_, F_SETFL, ::fcntl(in_fd_, F_GETFL) | O_NONBLOCK);
    stdin_text_ = std::move(*stdin_text);
    if (stdin_text_.empty()) close_fd(in_fd_);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
}

void ChildProcess::signal(int sig) {
  if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
}

// Timeouts guard against hangs; they are not measurements. Under
// AddressSanitizer a run takes several times longer (and CI machines may be
// loaded), so the limit grows by the same factor there.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kSlowdown = 5;
#else
constexpr int kSlowdown = 1;
#endif

ProcessResult ChildProcess::wait(std::chrono::milliseconds timeout) {
  ProcessResult r;
  const auto deadline = start_ + timeout * kSlowdown;

  // A write to a pipe whose reader has exited raises SIGPIPE; keep it blocked
  // while we feed stdin and swallow it afterwards (write then fails with EPIPE).
  sigset_t pipe_set, old_mask, pending_before;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigpending(&pending_before);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);

  std::size_t written = 0;
  int status = 0;
  bool have_status = false;
  char buf[65536];
  while (true) {
    pollfd fds[3];
    int n = 0;
    if (in_fd_ >= 0) fds[n++] = {in_fd_, POLLOUT, 0};
    if (out_fd_ >= 0) fds[n++] = {out_fd_, POLLIN, 0};
    if (err_fd_ >= 0) fds[n++] = {err_fd_, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    if (n == 0) {  // all pipes closed: wait for the exit itself
      const pid_t w = ::waitpid(pid_, &status, WNOHANG);
      if (w == pid_) {
        have_status = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    const int p = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(std::min<long long>(left.count(), 100)));
    if (p < 0) {
      if (errno == EINTR) continue;
      fail("poll");
    }
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd_) {
        const ssize_t w = ::write(in_fd_, stdin_text_.data() + written, stdin_text_.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == stdin_text_.size()) close_fd(in_fd_);
      } else {
        int& fd = fds[i].fd == out_fd_ ? out_fd_ : err_fd_;
        std::string& sink = fds[i].fd == out_fd_ ? r.out : r.err;
        const ssize_t got = ::read(fd, buf, sizeof buf);
        if (got > 0)
          sink.append(buf, static_cast<std::size_t>(got));
        else if (got == 0 || (errno != EAGAIN && errno != EINTR))
          close_fd(fd);
      }
    }
  }
  close_fd(in_fd_);

  if (!have_status) {
    if (r.timed_out) ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  reaped_ = true;
  r.seconds = seconds_since(start_);
  close_fd(out_fd_);
  close_fd(err_fd_);

  if (!sigismember(&pending_before, SIGPIPE)) {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE)) {
      timespec zero{0, 0};
      (void)sigtimedwait(&pipe_set, nullptr, &zero);
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);

  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  return r;
}

ProcessResult run_fasim(const std::vector<std::string>& args, std::optional<std::string> stdin_text,
                        std::chrono::milliseconds timeout) {
  ChildProcess child(FASIM_BINARY, args, std::move(stdin_text));
  return child.wait(timeout);
}

ProcessResult run_fasim_stdout_to(const std::string& stdout_path, const std::vector<std::string>& args,
                                  std::chrono::milliseconds timeout) {
  ChildProcess child(FASIM_BINARY, args, std::nullopt, stdout_path);
  return child.wait(timeout);
}

ScratchDir::ScratchDir() {
  const char* env = std::getenv("FASIM_TMP");
  fs::path base = env && *env ? fs::path(env) : fs::temp_directory_path();
  fs::create_directories(base);
  std::string templ = (base / "cli-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) fail("mkdtemp " + templ);
  path_ = fs::absolute(templ);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::vector<std::string> ScratchDir::entries() const {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::size_t count_lines_starting_with(const std::string& text, const std::string& prefix) {
  std::size_t n = 0;
  for (const std::string& line : split_lines(text))
    if (line.rfind(prefix, 0) == 0) ++n;
  return n;
}

std::string with_commas(long long value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

}  // namespace fasim::test
