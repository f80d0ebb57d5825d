// Internal to the trace sinks: a small streaming JSON object writer, so each
// step is appended as text without building a JSON tree (traces can have
// millions of steps). Strings that need escaping go through nlohmann::json.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "fasim/step.hpp"
#include "fasim/trace.hpp"

namespace fasim::trace_json {

/// Appends one JSON object to `out`: open, add members, close().
class Object {
 public:
  explicit Object(std::string& out) : out_(out) { out_ += '{'; }
  Object& integer(std::string_view key, std::int64_t v);
  /// Shortest round-trip text; inf and nan become "inf", "-inf", "nan".
  Object& real(std::string_view key, double v);
  Object& boolean(std::string_view key, bool v);
  Object& string(std::string_view key, std::string_view v);
  /// v must already be JSON text (a nested object).
  Object& raw(std::string_view key, std::string_view v);
  void close() { out_ += '}'; }

 private:
  void key(std::string_view k);
  std::string& out_;
  bool first_ = true;
};

/// The run description (device, workload, mapping, kernels, time note) as a
/// JSON object; with a non-empty `type` it starts with "type": type.
std::string meta(const TraceMeta& m, std::string_view type = {});

/// Adds the per-step members shared by chrome args and jsonl, index ... row_l
/// (row_m and row_l only when s.has_row).
void put_step_fields(Object& o, const Step& s, std::int64_t index);

/// The Chrome Trace Event sink (trace_chrome.cpp).
std::unique_ptr<TraceSink> make_chrome_sink(std::ostream& out);

}  // namespace fasim::trace_json
