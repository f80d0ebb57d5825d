// AtomicFile: an output file that appears whole or not at all. Everything is
// written to "<path>.tmp-<pid>" beside the target and renamed over it on
// commit(), so an exception, a full disk or Ctrl-C never leaves a
// half-written report or trace behind (design principle 3).
#pragma once

#include <memory>
#include <ostream>
#include <string>

namespace fasim {

/// @brief A file written through a temporary beside it and renamed into place
/// by commit(). If commit() is never reached the temporary is removed.
///
/// Errors (cannot create, write or rename) throw fasim::UserError with one
/// line, e.g. "cannot write 'out/t.json': No such file or directory; check
/// that the directory exists and is writable".
class AtomicFile {
 public:
  /// @brief Creates the temporary "<path>.tmp-<pid>" in path's directory.
  /// If path is a symbolic link, the file it points to is the one written
  /// (and the temporary sits beside that file); the link is kept.
  /// @throws UserError if it cannot be created, or if path is (or links to)
  /// something other than a regular file: a FIFO, device, socket or
  /// directory is refused here, before any work, never replaced.
  explicit AtomicFile(std::string path);
  /// @brief Removes the temporary unless commit() succeeded. Never throws.
  ~AtomicFile();

  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// @brief Where to write the contents. Errors are reported by commit().
  std::ostream& stream();

  /// @brief Flushes, checks every write succeeded, fsyncs, and renames the
  /// temporary over the target. Call once.
  /// @throws UserError on any failure (the temporary is then removed by the
  /// destructor and the target is left as it was).
  void commit();

  /// @brief The target path, as given.
  const std::string& path() const { return path_; }
  /// @brief The temporary being written (empty after commit()).
  const std::string& temp_path() const { return temp_; }

  /// @brief Unlinks every temporary of every live AtomicFile in the process.
  /// Async-signal-safe (atomic loads and unlink(2) only), so a SIGINT
  /// handler may call it before _exit(). Temporaries whose path is longer
  /// than 4095 bytes, or beyond the 64th open at once, are not tracked.
  static void remove_all_temps() noexcept;

  /// @brief Installs handlers for SIGINT and SIGTERM that call
  /// remove_all_temps() and then _exit(128 + signal), i.e. 130 for Ctrl-C.
  /// Optional convenience for the CLI.
  static void install_interrupt_cleanup();

 private:
  struct Impl;
  std::string path_;
  std::string target_;  ///< path_, or the file it links to
  std::string temp_;
  std::unique_ptr<Impl> impl_;
  int slot_ = -1;  ///< index in the process-wide registry, -1 if untracked
  bool committed_ = false;
};

}  // namespace fasim
