// Reading the two JSON trace formats. Chrome traces are parsed with a
// callback that handles each element of "traceEvents" and then discards it,
// so even a trace of millions of events is never held in memory whole.
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <streambuf>

#include "trace_columns.hpp"
#include "trace_reader_detail.hpp"

namespace fasim::trace_detail {
namespace {

using json = nlohmann::json;

const json& field(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end()) malformed(std::string("field '") + key + "' is missing");
  return *it;
}

std::string shown(const json& v) {
  return printable(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::int64_t get_int(const json& o, const char* key) {
  const json& v = field(o, key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    malformed(std::string("field '") + key + "' is out of range: " + shown(v));
  }
  if (!v.is_number_integer()) malformed(std::string("field '") + key + "' is not an integer: " + shown(v));
  return v.get<std::int64_t>();
}

// Numbers; with allow_special also "inf", "-inf", "nan" (JSON has no such numbers).
double get_real(const json& o, const char* key, bool allow_special) {
  const json& v = field(o, key);
  if (v.is_number()) return v.get<double>();
  if (allow_special && v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  malformed(std::string("field '") + key + "' is not a number: " + shown(v));
}

const std::string& get_string(const json& o, const char* key) {
  const json& v = field(o, key);
  if (!v.is_string()) malformed(std::string("field '") + key + "' is not a string: " + shown(v));
  return v.get_ref<const std::string&>();
}

bool get_bool(const json& o, const char* key) {
  const json& v = field(o, key);
  if (!v.is_boolean()) malformed(std::string("field '") + key + "' is not true or false: " + shown(v));
  return v.get<bool>();
}

// The header (jsonl's meta line, chrome's otherData): a trace_version newer
// than this fasim's may hold steps it would misread, so it is refused. An
// absent or non-integer version is left to the other checks.
void check_version(const json& header) {
  const auto v = header.find("trace_version");
  if (v == header.end()) return;  // traces before version 2 have none
  if (!v->is_number_integer() || (v->is_number_unsigned() ? v->get<std::uint64_t>() < 1 : v->get<std::int64_t>() < 1))
    malformed("trace_version " + shown(*v) + " is not a version number (1, 2, 3, ...): write the trace again with fasim");
  // Compared unsigned: a version above 2^63 must not wrap to a small one.
  if (v->get<std::uint64_t>() <= static_cast<std::uint64_t>(trace_columns::kTraceVersion)) return;
  malformed("trace_version " + v->dump() + " is newer than this fasim reads (up to " +
            std::to_string(trace_columns::kTraceVersion) + "): read it with the fasim that wrote it, or update this one");
}

// The fields written by put_step_fields (trace.cpp): index ... row_l.
TraceRecord record_from(const json& o) {
  if (!o.is_object()) malformed("expected a JSON object, found " + shown(o));
  TraceRecord r;
  r.index = get_int(o, "index");
  const std::int64_t kernel = get_int(o, "kernel");
  if (kernel < INT_MIN || kernel > INT_MAX) malformed("field 'kernel' is out of range");
  r.kernel = static_cast<int>(kernel);
  r.block = get_int(o, "block");
  r.kind = get_string(o, "kind");
  check_kind(r.kind);
  r.tensor = get_string(o, "tensor");
  check_tensor(r.tensor);
  r.what = get_string(o, "what");
  for (const auto& c : trace_columns::kIntColumns) {
    const std::string key(c.name);
    if (c.name == trace_columns::kNewestColumn && !o.contains(key))
      malformed("field '" + key + "' is missing" + std::string(trace_columns::kOlderTraceNote));
    r.*c.record = get_int(o, key.c_str());
  }
  r.has_row = get_bool(o, "has_row");
  if (r.has_row) {
    r.row_m = get_real(o, "row_m", true);
    r.row_l = get_real(o, "row_l", true);
  }
  return r;
}

// Counts the bytes handed out, so a callback knows where the parser is.
class CountingBuf : public std::streambuf {
 public:
  explicit CountingBuf(std::streambuf* source) : source_(source) {}
  std::int64_t consumed() const { return base_ + (gptr() - eback()); }

 protected:
  int_type underflow() override {
    base_ += egptr() - eback();
    const std::streamsize n = source_->sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    setg(buf_.data(), buf_.data(), buf_.data() + (n > 0 ? n : 0));
    return n > 0 ? traits_type::to_int_type(buf_[0]) : traits_type::eof();
  }

 private:
  std::streambuf* source_;
  std::array<char, 1 << 16> buf_{};
  std::int64_t base_ = 0;
};

// "...parse error at line 1, column 8: syntax error ..." -> "syntax error ..."
std::string parse_problem(const json::parse_error& e) {
  const std::string what = e.what();
  const auto colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

std::vector<TraceRecord> read_chrome(const std::string& path, std::istream& in) {
  CountingBuf counting(in.rdbuf());
  std::istream is(&counting);
  std::vector<TraceRecord> out;
  std::string top_key;
  bool in_events = false;
  bool saw_events = false;
  std::int64_t cum_read = 0;
  std::int64_t cum_write = 0;

  // Depths: 0 the document, 1 its members, 2 the elements of traceEvents.
  using Ev = json::parse_event_t;
  auto on_event = [&](int depth, Ev ev, json& parsed) -> bool {
    if (depth == 1) {
      if (ev == Ev::key) top_key = parsed.get<std::string>();
      if (ev == Ev::object_end && top_key == "otherData") check_version(parsed);  // written before the events
      if (ev == Ev::array_start && top_key == "traceEvents") in_events = saw_events = true;
      if (ev == Ev::array_end) in_events = false;
      // Keep keys and openings (else their contents are skipped unseen);
      // drop finished members: only the events matter.
      return ev == Ev::key || ev == Ev::array_start || ev == Ev::object_start;
    }
    if (depth != 2 || !in_events) return true;
    if (ev == Ev::value || ev == Ev::array_end) malformed("an entry of traceEvents is not an object");
    if (ev != Ev::object_end) return true;
    const auto ph = parsed.find("ph");
    if (ph == parsed.end() || !ph->is_string()) malformed("an event has no \"ph\" string");
    if (*ph == "X") {
      TraceRecord r = record_from(field(parsed, "args"));
      r.ts_us = get_real(parsed, "ts", false);
      r.dur_us = get_real(parsed, "dur", false);
      // Overflow would be UB; a real trace is far below 2^63 bytes.
      if (__builtin_add_overflow(cum_read, r.hbm_read_bytes, &cum_read) ||
          __builtin_add_overflow(cum_write, r.hbm_write_bytes, &cum_write)) {
        malformed("cumulative HBM bytes overflow");
      }
      r.cum_hbm_read_bytes = cum_read;
      r.cum_hbm_write_bytes = cum_write;
      out.push_back(std::move(r));
    }
    return false;  // discard the event: keeps memory flat
  };

  json doc;
  try {
    doc = json::parse(is, on_event);
  } catch (const json::parse_error& e) {
    const auto at = locate(path, e.byte > 0 ? static_cast<std::int64_t>(e.byte) - 1 : 0);
    fail_at(path, at.line, at.column, parse_problem(e));
  } catch (const Malformed& m) {
    const auto at = locate(path, counting.consumed() > 0 ? counting.consumed() - 1 : 0);
    fail_at(path, at.line, 0, m.problem);
  } catch (const json::exception& e) {  // not expected from parsing; never crash
    fail_at(path, 1, 0, printable(e.what()));
  }
  if (!doc.is_object()) fail_at(path, 1, 0, "expected a JSON object with a \"traceEvents\" array");
  if (!saw_events) fail_at(path, 1, 0, "no \"traceEvents\" array");
  return out;
}

std::vector<TraceRecord> read_jsonl(const std::string& path, std::istream& in) {
  std::vector<TraceRecord> out;
  std::string line;
  std::int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      fail_at(path, number, static_cast<std::int64_t>(e.byte), parse_problem(e));
    } catch (const json::exception& e) {  // e.g. a number beyond double's range (out_of_range.406)
      std::string why = e.what();
      if (auto p = why.find("] "); p != std::string::npos) why = why.substr(p + 2);
      fail_at(path, number, 0, why.substr(0, 80));
    }
    try {
      if (!j.is_object()) malformed("expected a JSON object, found " + shown(j));
      const std::string& type = get_string(j, "type");
      if (number == 1) {
        if (type != "meta") malformed("the first line must be the {\"type\":\"meta\"} header");
        check_version(j);
        continue;
      }
      if (type != "step") malformed("unknown line type " + printable(type) + " (expected \"step\")");
      TraceRecord r = record_from(j);
      r.cum_hbm_read_bytes = get_int(j, "cum_hbm_read_bytes");
      r.cum_hbm_write_bytes = get_int(j, "cum_hbm_write_bytes");
      r.ts_us = get_real(j, "ts_us", false);
      r.dur_us = get_real(j, "dur_us", false);
      out.push_back(std::move(r));
    } catch (const Malformed& m) {
      fail_at(path, number, 0, m.problem);
    }
  }
  return out;
}

}  // namespace fasim::trace_detail
