// read_trace: opens the file, detects the format from the first line, and
// hands over to the parser of that format. Also the shared error helpers.
#include "fasim/trace_reader.hpp"

#include <array>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "fasim/error.hpp"
#include "fasim/input_file.hpp"
#include "fasim/step.hpp"
#include "fasim/tensor.hpp"
#include "trace_reader_detail.hpp"

namespace fasim {
namespace trace_detail {

void malformed(std::string problem) { throw Malformed{std::move(problem)}; }

void fail_at(const std::string& path, std::int64_t line, std::int64_t column,
             std::string_view problem) {
  std::string where = "line " + std::to_string(line);
  if (column > 0) where += ", column " + std::to_string(column);
  throw UserError("cannot read trace '" + path + "' (" + where + "): " + std::string(problem) +
                  "; check that it is a complete trace written by fasim");
}

std::string printable(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    out += (u < 0x20 || u == 0x7f) ? '?' : s[i];
  }
  if (s.size() > kMax) out += "...";
  return out + "'";
}

void check_kind(std::string_view s) {
  for (StepKind k : kAllStepKinds) {
    if (name(k) == s) return;
  }
  malformed("unknown step kind " + printable(s) +
            " (expected load, store, matmul, softmax, rescale or writeback)");
}

void check_tensor(std::string_view s) {
  for (TensorId t : kAllTensors) {
    if (name(t) == s) return;
  }
  malformed("unknown tensor " + printable(s) + " (expected Q, K, V, O, S, P, m, l or L)");
}

LineColumn locate(const std::string& path, std::int64_t offset) {
  LineColumn lc;
  std::ifstream in(path, std::ios::binary);
  std::array<char, 1 << 16> buf{};
  std::int64_t pos = 0;
  std::int64_t line_start = 0;
  while (in && pos < offset) {
    const auto want = static_cast<std::streamsize>(
        std::min<std::int64_t>(static_cast<std::int64_t>(buf.size()), offset - pos));
    in.read(buf.data(), want);
    const std::streamsize got = in.gcount();
    if (got <= 0) break;
    for (std::streamsize i = 0; i < got; ++i, ++pos) {
      if (buf[static_cast<std::size_t>(i)] == '\n') {
        ++lc.line;
        line_start = pos + 1;
      }
    }
  }
  lc.column = offset - line_start + 1;
  return lc;
}

}  // namespace trace_detail

namespace {

// The first line, at most `limit` bytes (enough to recognise every format).
std::string first_line(std::istream& in, std::size_t limit) {
  std::string line;
  for (int c = in.get(); c != std::char_traits<char>::eof() && c != '\n'; c = in.get()) {
    line += static_cast<char>(c);
    if (line.size() >= limit) break;
  }
  return line;
}

bool is_jsonl_header(const std::string& line) {
  const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  const auto type = j.find("type");
  return type != j.end() && *type == "meta";
}

}  // namespace

std::vector<TraceRecord> read_trace(const std::string& path) {
  using namespace trace_detail;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UserError("cannot read trace '" + path + "': it is a directory; give a trace file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno != 0 ? errno : ENOENT;
    throw UserError("cannot read trace '" + path + "': " + std::system_category().message(err) +
                    "; check the path");
  }
  std::string first = first_line(in, 1 << 20);
  if (first.empty() && in.eof()) fail_at(path, 1, 0, "the file is empty");
  // A UTF-8 byte order mark (an editor's or spreadsheet's) is not part of the
  // text. The JSON parser skips it itself; the CSV reader starts after it.
  const bool bom = first.starts_with(kUtf8Bom);
  if (bom) first.erase(0, kUtf8Bom.size());

  const auto lead = first.find_first_not_of(" \t\r");
  const bool json_object = lead == std::string::npos || first[lead] == '{';
  in.clear();
  in.seekg(0);
  if (!in) throw UserError("cannot read trace '" + path + "': cannot seek; give a regular file");

  if (json_object && is_jsonl_header(first)) return read_jsonl(path, in);
  if (json_object) return read_chrome(path, in);
  if (first.rfind("index,", 0) == 0) {
    if (bom) in.seekg(static_cast<std::streamoff>(kUtf8Bom.size()));
    return read_csv(path, in);
  }
  fail_at(path, 1, 0,
          "not a fasim trace: expected a Chrome trace JSON object, JSON lines starting with "
          "{\"type\":\"meta\"}, or a CSV header starting with 'index,kernel,block'");
}

}  // namespace fasim
