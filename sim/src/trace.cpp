// Trace sinks: the JSON text helpers, the JSON-lines and CSV sinks, and the
// factory (the Chrome sink is in trace_chrome.cpp). All stream one step at a
// time as text; nothing is accumulated.
#include "fasim/trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "trace_columns.hpp"
#include "trace_json.hpp"

namespace fasim {
namespace trace_json {
namespace {

// Shortest text that reads back to the same value ("inf", "-inf", "nan" too).
std::string shortest(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void append_quoted(std::string& out, std::string_view s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {  // the common case: labels are printable ASCII
    out += '"';
    out += s;
    out += '"';
    return;
  }
  // Escapes and, with replace, never throws on invalid UTF-8.
  out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void Object::key(std::string_view k) {
  if (!first_) out_ += ',';
  first_ = false;
  append_quoted(out_, k);
  out_ += ':';
}

Object& Object::integer(std::string_view k, std::int64_t v) {
  key(k);
  out_ += std::to_string(v);
  return *this;
}

Object& Object::real(std::string_view k, double v) {
  key(k);
  // JSON has no inf or nan; the running max of a row starts at -inf.
  if (std::isfinite(v)) out_ += shortest(v);
  else append_quoted(out_, std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
  return *this;
}

Object& Object::boolean(std::string_view k, bool v) {
  key(k);
  out_ += v ? "true" : "false";
  return *this;
}

Object& Object::string(std::string_view k, std::string_view v) {
  key(k);
  append_quoted(out_, v);
  return *this;
}

Object& Object::raw(std::string_view k, std::string_view v) {
  key(k);
  out_ += v;
  return *this;
}

std::string meta(const TraceMeta& m, std::string_view type) {
  const Workload& w = m.workload;
  std::string workload, mapping, kernels = "[";
  Object(workload)
      .integer("batch", w.batch)
      .integer("heads", w.heads)
      .integer("N", w.N)
      .integer("d", w.d)
      .string("dtype", name(w.dtype))
      .integer("N_kv", w.n_keys())
      .integer("kv_heads", w.n_kv_heads())
      .boolean("causal", w.causal || w.window > 0)
      .integer("window", w.window)
      .close();
  Object(mapping)
      .string("algo", name(m.mapping.algo))
      .integer("br", m.mapping.br)
      .integer("bc", m.mapping.bc)
      .close();
  for (std::size_t k = 0; k < m.kernel_names.size(); ++k) {
    if (k > 0) kernels += ',';
    append_quoted(kernels, m.kernel_names[k]);
  }
  kernels += ']';

  std::string out;
  Object o(out);
  if (!type.empty()) o.string("type", type);
  o.string("generator", "fasim")
      .integer("trace_version", trace_columns::kTraceVersion)
      .string("device", m.device)
      .raw("workload", workload)
      .raw("mapping", mapping)
      .raw("kernels", kernels)
      .string("time_unit_note", m.time_unit_note);
  // Added to the header after version 1 was first written; readers ignore
  // header members they do not know, so these needed no new version.
  if (m.watched_row >= 0)
    o.integer("watched_row", m.watched_row).integer("watched_bh", m.watched_bh).boolean("numerics", m.numerics);
  if (m.sram_bytes_per_block > 0 || m.register_bytes_per_block > 0) {
    std::string capacity;
    Object(capacity)
        .integer("sram_bytes_per_block", m.sram_bytes_per_block)
        .integer("register_bytes_per_block", m.register_bytes_per_block)
        .close();
    o.raw("capacity", capacity);
  }
  o.close();
  return out;
}

void put_step_fields(Object& o, const Step& s, std::int64_t index) {
  o.integer("index", index)
      .integer("kernel", s.kernel)
      .integer("block", s.block)
      .string("kind", name(s.kind))
      .string("tensor", name(s.tensor))
      .string("what", s.what);
  for (const auto& c : trace_columns::kIntColumns) o.integer(c.name, s.*c.step);
  o.boolean("has_row", s.has_row);
  if (s.has_row) o.real("row_m", s.row_m).real("row_l", s.row_l);
}

}  // namespace trace_json

namespace {

class JsonlSink final : public TraceSink {
 public:
  explicit JsonlSink(std::ostream& os) : os_(os) {}
  void begin(const TraceMeta& meta) override { os_ << trace_json::meta(meta, "meta") << '\n'; }
  using TraceSink::step;
  void step(const Step& s, std::int64_t index, const Ledger& after, StepTime t) override {
    line_.clear();
    trace_json::Object o(line_);
    o.string("type", "step");
    trace_json::put_step_fields(o, s, index);
    const Traffic total = after.hbm_total();
    o.integer("cum_hbm_read_bytes", total.read_bytes)
        .integer("cum_hbm_write_bytes", total.write_bytes)
        .real("ts_us", t.start_us)
        .real("dur_us", t.duration_us)
        .close();
    line_ += '\n';
    os_ << line_;
  }
  void end() override { os_.flush(); }

 private:
  std::ostream& os_;
  std::string line_;
};

class CsvSink final : public TraceSink {
 public:
  explicit CsvSink(std::ostream& os) : os_(os) {}
  void begin(const TraceMeta&) override {
    const char* sep = "";
    for (std::string_view c : trace_columns::kAll) {
      os_ << sep << c;
      sep = ",";
    }
    os_ << '\n';
  }
  using TraceSink::step;
  void step(const Step& s, std::int64_t index, const Ledger& after, StepTime t) override {
    os_ << index << ',' << s.kernel << ',' << s.block << ',' << name(s.kind) << ','
        << name(s.tensor) << ',' << quoted(s.what);
    for (const auto& c : trace_columns::kIntColumns) os_ << ',' << s.*c.step;
    os_ << ',' << (s.has_row ? 1 : 0) << ',';
    if (s.has_row) os_ << shortest(s.row_m) << ',' << shortest(s.row_l);
    else os_ << ',';
    const Traffic total = after.hbm_total();
    os_ << ',' << total.read_bytes << ',' << total.write_bytes << ',' << shortest(t.start_us)
        << ',' << shortest(t.duration_us) << '\n';
  }
  void end() override { os_.flush(); }

 private:
  // RFC 4180: always quoted, inner quotes doubled; commas and newlines survive.
  static std::string quoted(std::string_view s) {
    std::string q = "\"";
    for (char c : s) {
      q += c;
      if (c == '"') q += '"';
    }
    return q + '"';
  }
  static std::string shortest(double v) { return trace_json::shortest(v); }

  std::ostream& os_;
};

}  // namespace

std::string_view name(TraceFormat f) {
  switch (f) {
    case TraceFormat::chrome: return "chrome";
    case TraceFormat::jsonl: return "jsonl";
    case TraceFormat::csv: return "csv";
  }
  return "?";
}

std::optional<TraceFormat> parse_trace_format(std::string_view s) {
  if (s == "chrome") return TraceFormat::chrome;
  if (s == "jsonl") return TraceFormat::jsonl;
  if (s == "csv") return TraceFormat::csv;
  return std::nullopt;
}

std::unique_ptr<TraceSink> make_trace_sink(TraceFormat format, std::ostream& out) {
  switch (format) {
    case TraceFormat::chrome: return trace_json::make_chrome_sink(out);
    case TraceFormat::jsonl: return std::make_unique<JsonlSink>(out);
    case TraceFormat::csv: return std::make_unique<CsvSink>(out);
  }
  return nullptr;
}

}  // namespace fasim
