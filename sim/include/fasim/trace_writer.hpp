// TraceWriter: a Simulation's steps written to a trace file that appears only
// when complete (AtomicFile + TraceSink).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "fasim/atomic_file.hpp"
#include "fasim/simulation.hpp"
#include "fasim/trace.hpp"

namespace fasim {

/// @brief Makes the sink that writes a trace's text to a stream.
using TraceSinkFactory = std::function<std::unique_ptr<TraceSink>(std::ostream&)>;

/// @brief The header of a trace of `sim`: device, shape, tiling, kernel names,
/// the timing note, the watched row and the on-chip capacity per block.
TraceMeta trace_meta(const Simulation& sim);

/// @brief Writes each step of `sim` to `path` in `format`.
class TraceWriter {
 public:
  /// @brief Opens the temporary file and writes the header.
  /// @throws UserError for an unknown format or an unwritable path.
  TraceWriter(const std::string& path, const std::string& format, const Simulation& sim);
  /// @brief The same with a sink of the caller's (e.g. the trace viewer page).
  /// @throws UserError for an unwritable path.
  TraceWriter(const std::string& path, const TraceSinkFactory& make_sink, const Simulation& sim);
  /// @brief Writes the step sim just took (call after each successful next()).
  void step(const Simulation& sim);
  /// @brief Steps written so far.
  std::int64_t steps() const { return index_; }
  /// @brief Closes the document and renames the file into place.
  void commit();

 private:
  static TraceFormat parse(const std::string& format);
  AtomicFile file_;
  std::unique_ptr<TraceSink> sink_;
  std::int64_t index_ = 0;
};

}  // namespace fasim
