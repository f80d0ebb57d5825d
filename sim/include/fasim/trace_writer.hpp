// TraceWriter: a Simulation's steps written to a trace file that appears only
// when complete (AtomicFile + TraceSink).
#pragma once

#include <memory>
#include <string>

#include "fasim/atomic_file.hpp"
#include "fasim/simulation.hpp"
#include "fasim/trace.hpp"

namespace fasim {

/// @brief Writes each step of `sim` to `path` in `format`.
class TraceWriter {
 public:
  /// @brief Opens the temporary file and writes the header.
  /// @throws UserError for an unknown format or an unwritable path.
  TraceWriter(const std::string& path, const std::string& format, const Simulation& sim);
  /// @brief Writes the step sim just took (call after each successful next()).
  void step(const Simulation& sim);
  /// @brief Closes the document and renames the file into place.
  void commit();

 private:
  static TraceFormat parse(const std::string& format);
  AtomicFile file_;
  std::unique_ptr<TraceSink> sink_;
  std::int64_t index_ = 0;
};

}  // namespace fasim
