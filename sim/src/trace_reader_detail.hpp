// Internal to the trace reader: how the per-format parsers report problems
// and share validation. read_trace() (trace_reader.cpp) detects the format
// and calls one of read_chrome / read_jsonl (trace_read_json.cpp) or
// read_csv (trace_read_csv.cpp).
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/trace_reader.hpp"

namespace fasim::trace_detail {

/// A problem in the content whose location the caller knows better.
struct Malformed {
  std::string problem;
};

/// Throws Malformed.
[[noreturn]] void malformed(std::string problem);

/// Throws the UserError "cannot read trace 'PATH' (line L, column C): PROBLEM; ...".
/// column <= 0 leaves the column out.
[[noreturn]] void fail_at(const std::string& path, std::int64_t line, std::int64_t column,
                          std::string_view problem);

/// Untrusted text made safe for a one-line message: quoted, control
/// characters replaced, cut after 40 characters.
std::string printable(std::string_view s);

/// Throws Malformed unless s is a StepKind / TensorId name.
void check_kind(std::string_view s);
void check_tensor(std::string_view s);

/// Line and column (both from 1) of the byte at `offset` in the file.
struct LineColumn {
  std::int64_t line = 1;
  std::int64_t column = 1;
};
LineColumn locate(const std::string& path, std::int64_t offset);

std::vector<TraceRecord> read_chrome(const std::string& path, std::istream& in);
std::vector<TraceRecord> read_jsonl(const std::string& path, std::istream& in);
std::vector<TraceRecord> read_csv(const std::string& path, std::istream& in);

}  // namespace fasim::trace_detail
