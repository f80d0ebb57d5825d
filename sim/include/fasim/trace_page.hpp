// The trace viewer page: one static HTML file (web/trace_viewer/, built into
// the library) that steps through a trace in a browser, from file://, with
// nothing from the network. `fasim trace --html FILE` writes it with a run's
// trace embedded as JSON lines.
#pragma once

#include <memory>
#include <ostream>
#include <string_view>

#include "fasim/trace.hpp"

namespace fasim {

/// @brief The viewer page with no trace in it: it offers to open a trace file
/// (Chrome JSON or JSON lines, as `fasim run --trace` writes them).
std::string_view trace_viewer_page();

/// @brief A sink that writes the viewer page to `out` with the trace embedded
/// in it: the page up to its trace slot at begin(), one JSON line per step
/// (the jsonl format; '<' escaped as \\u003c so no text can close the
/// script element), the rest of the page at end(). `out` must outlive the sink.
std::unique_ptr<TraceSink> make_trace_page_sink(std::ostream& out);

}  // namespace fasim
