// AtomicFile: POSIX open/write/fsync/rename, so every failure has an errno we
// can name, and a signal-safe registry of live temporaries for Ctrl-C.
#include "fasim/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <streambuf>
#include <system_error>

#include "fasim/error.hpp"

namespace fasim {
namespace {

// ---- process-wide registry of temporaries, read by signal handlers ----
// Fixed storage and lock-free atomics only: a handler may run at any moment,
// so it must not allocate, lock or follow pointers that may be freed.
constexpr int kSlots = 64;
constexpr std::size_t kMaxPath = 4096;
enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[kMaxPath];
};
static_assert(std::atomic<int>::is_always_lock_free);
Slot g_slots[kSlots];

int register_temp(const std::string& p) {
  if (p.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_slots[i].path, p.c_str(), p.size() + 1);
      g_slots[i].state.store(kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;  // untracked: still removed by the destructor, just not on SIGINT
}

void unregister_temp(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree, std::memory_order_release);
}

[[noreturn]] void fail(const std::string& path, int err) {
  const char* hint = "check that the directory exists and is writable";
  if (err == ENOSPC || err == EDQUOT) hint = "free some disk space or write elsewhere";
  if (err == EISDIR) hint = "give a file name, not a directory";
  throw UserError("cannot write '" + path + "': " + std::system_category().message(err) + "; " +
                  hint);
}

// What a non-regular file is, for the message.
const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

[[noreturn]] void refuse_kind(const std::string& path, mode_t m, bool via_link) {
  const bool dir = S_ISDIR(m);
  throw UserError("cannot write '" + path + "': it is not a regular file (" + (via_link ? "a link to " : "") +
                  kind_of(m) + "); " + (dir ? "give a file name, not a directory" : "give a path to a file"));
}

// The file that writing `path` should replace: `path` itself, or, when it is
// a symbolic link, the file the link points to (so the link survives and its
// target is updated, as a shell's `>` would). Refuses, before anything is
// created, a path that is (or leads to) a FIFO, device, socket or directory:
// renaming over one would replace it with a plain file.
std::string resolve_target(const std::string& path) {
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    if (errno == ENOENT) return path;  // a new file; open() names a missing directory
    fail(path, errno);
  }
  if (!S_ISLNK(lst.st_mode)) {
    if (!S_ISREG(lst.st_mode)) refuse_kind(path, lst.st_mode, false);
    return path;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) refuse_kind(path, st.st_mode, true);
    char buf[PATH_MAX];
    if (::realpath(path.c_str(), buf) == nullptr) fail(path, errno);
    return buf;
  }
  if (errno != ENOENT) fail(path, errno);
  // A dangling link: follow the chain by hand to the name it would create.
  std::string at = path;
  for (int hops = 0; hops < 40; ++hops) {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(at.c_str(), buf, sizeof buf - 1);
    if (n < 0) {
      if (errno == EINVAL || errno == ENOENT) return at;  // not a link (any more): the end of the chain
      fail(path, errno);
    }
    std::string next(buf, static_cast<std::size_t>(n));
    if (next.empty()) fail(path, ENOENT);
    if (next.front() != '/') {
      const auto slash = at.rfind('/');
      if (slash != std::string::npos) next = at.substr(0, slash + 1) + next;
    }
    at = next;
  }
  fail(path, ELOOP);
}

// A streambuf over a file descriptor that remembers the first write error.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (error_ != 0) return false;
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += n;
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
  }

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buf_{};
};

// Makes the rename itself durable; best effort, errors are ignored.
void sync_directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  (void)::close(fd);
}

extern "C" void fasim_atomic_file_on_signal(int sig) {
  AtomicFile::remove_all_temps();
  ::_exit(128 + sig);
}

}  // namespace

struct AtomicFile::Impl {
  explicit Impl(int f) : fd(f), buf(f), os(&buf) {}
  int fd;
  FdBuf buf;
  std::ostream os;
};

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw UserError("cannot write '': the file name is empty; give a file name");
  target_ = resolve_target(path_);
  // "<path>.tmp-<pid>"; O_EXCL so two writers never share a temporary, with a
  // numbered fallback if this process already has one for the same target.
  static std::atomic<unsigned> sequence{0};
  const std::string base = target_ + ".tmp-" + std::to_string(::getpid());
  int fd = -1;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_ = attempt == 0 ? base : base + "-" + std::to_string(++sequence);
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) break;
  }
  if (fd < 0) fail(path_, errno);
  slot_ = register_temp(temp_);
  impl_ = std::make_unique<Impl>(fd);
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  if (impl_ && impl_->fd >= 0) (void)::close(impl_->fd);
  if (!temp_.empty()) (void)::unlink(temp_.c_str());
  unregister_temp(slot_);
}

std::ostream& AtomicFile::stream() { return impl_->os; }

void AtomicFile::commit() {
  if (committed_ || impl_->fd < 0) throw std::logic_error("AtomicFile::commit called twice");
  impl_->os.flush();
  if (impl_->buf.error() != 0) fail(path_, impl_->buf.error());
  if (!impl_->os) fail(path_, EIO);
  const int fd = impl_->fd;
  impl_->fd = -1;
  // EINVAL/EROFS: the file system cannot sync (e.g. some pseudo file systems).
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    const int err = errno;
    (void)::close(fd);
    fail(path_, err);
  }
  if (::close(fd) != 0) fail(path_, errno);
  // Something may have appeared at the target since the constructor looked:
  // never rename over a FIFO, device or directory.
  struct stat st {};
  if (::lstat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) refuse_kind(path_, st.st_mode, target_ != path_);
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail(path_, errno);
  committed_ = true;
  unregister_temp(slot_);
  slot_ = -1;
  temp_.clear();
  sync_directory_of(target_);
}

void AtomicFile::remove_all_temps() noexcept {
  for (Slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) == kLive) (void)::unlink(s.path);
  }
}

void AtomicFile::install_interrupt_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = fasim_atomic_file_on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  (void)::sigaction(SIGINT, &sa, nullptr);
  (void)::sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace fasim
