// Trace sinks: Chrome Trace Event JSON, JSON lines and CSV, all streamed one
// step at a time (nlohmann::json per event only, for escaping).
#include "fasim/trace.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "trace_columns.hpp"

namespace fasim {
namespace {

using ojson = nlohmann::ordered_json;  // keeps keys in column order for humans

// Never throws on invalid UTF-8 (a label could come from a user's config).
std::string dump(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

std::string str(std::string_view s) { return std::string(s); }

// JSON has no inf or nan; the running max of a row starts at -inf.
ojson real(double v) {
  if (std::isfinite(v)) return v;
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

ojson meta_json(const TraceMeta& m) {
  ojson j;
  j["generator"] = "fasim";
  j["trace_version"] = 1;
  j["device"] = m.device;
  const Workload& w = m.workload;
  j["workload"] = {{"batch", w.batch}, {"heads", w.heads}, {"N", w.N}, {"d", w.d},
                   {"dtype", str(name(w.dtype))}};
  j["mapping"] = {{"algo", str(name(m.mapping.algo))}, {"br", m.mapping.br}, {"bc", m.mapping.bc}};
  j["kernels"] = m.kernel_names;
  j["time_unit_note"] = m.time_unit_note;
  return j;
}

// The per-step fields shared by chrome args and jsonl (columns up to row_l).
void put_step_fields(ojson& j, const Step& s, std::int64_t index) {
  j["index"] = index;
  j["kernel"] = s.kernel;
  j["block"] = s.block;
  j["kind"] = str(name(s.kind));
  j["tensor"] = str(name(s.tensor));
  j["what"] = str(s.what);
  for (const auto& c : trace_columns::kIntColumns) j[str(c.name)] = s.*c.step;
  j["has_row"] = s.has_row;
  if (s.has_row) {
    j["row_m"] = real(s.row_m);
    j["row_l"] = real(s.row_l);
  }
}

// ---------------------------------------------------------------- chrome
class ChromeSink final : public TraceSink {
 public:
  explicit ChromeSink(std::ostream& os) : os_(os) {}

  void begin(const TraceMeta& meta) override {
    kernel_names_ = meta.kernel_names;
    // otherData first, so a reader meets the description before the events.
    os_ << "{\"displayTimeUnit\":\"ns\",\"otherData\":" << dump(meta_json(meta))
        << ",\"traceEvents\":[";
  }

  using TraceSink::step;
  void step(const Step& s, std::int64_t index, const Ledger& after, StepTime t) override {
    const std::int64_t pid = std::int64_t{s.kernel} + 1;  // Perfetto treats pid 0 as special
    const std::int64_t tid = thread_of(s, pid);
    ojson e;
    e["name"] = event_name(s);
    e["cat"] = str(name(s.kind));
    e["ph"] = "X";
    e["ts"] = t.start_us;
    e["dur"] = t.duration_us;
    e["pid"] = pid;
    e["tid"] = tid;
    put_step_fields(e["args"], s, index);
    emit(e);

    // Counters hold "after the step" values, so they change at its end.
    const double end = t.start_us + t.duration_us;
    if (s.hbm_read_bytes != 0 || s.hbm_write_bytes != 0) {
      const Traffic total = after.hbm_total();
      emit(counter("HBM bytes", pid, end, {{"read", total.read_bytes}, {"write", total.write_bytes}}));
    }
    const std::pair<std::int64_t, std::int64_t> sram{s.sram_bytes, s.register_bytes};
    auto [it, fresh] = last_sram_.try_emplace(s.kernel, sram);
    if (fresh || it->second != sram) {
      it->second = sram;
      emit(counter("SRAM bytes", pid, end, {{"shared", sram.first}, {"registers", sram.second}}));
    }
  }

  void end() override {
    os_ << "\n]}\n";
    os_.flush();
  }

 private:
  static std::string event_name(const Step& s) {
    if (s.kind == StepKind::load || s.kind == StepKind::store) {
      return str(name(s.kind)) + " " + str(name(s.tensor));
    }
    return s.what.empty() ? str(name(s.kind)) : str(s.what);
  }

  static ojson counter(const char* label, std::int64_t pid, double ts, ojson args) {
    ojson c;
    c["name"] = label;
    c["ph"] = "C";
    c["ts"] = ts;
    c["pid"] = pid;
    c["args"] = std::move(args);
    return c;
  }

  static ojson metadata(const char* what, std::int64_t pid, std::int64_t tid, ojson args) {
    ojson m;
    m["name"] = what;
    m["ph"] = "M";
    m["pid"] = pid;
    if (tid != 0) m["tid"] = tid;
    m["args"] = std::move(args);
    return m;
  }

  // tids are numbered from 1 in order of first appearance, unique across
  // kernels: Perfetto mishandles tid 0 and tids shared between pids.
  std::int64_t thread_of(const Step& s, std::int64_t pid) {
    const std::pair<std::int32_t, std::int64_t> key{s.kernel, s.block};
    if (key == last_key_ && last_tid_ != 0) return last_tid_;
    auto [it, fresh] = tids_.try_emplace(key, next_tid_);
    if (fresh) {
      ++next_tid_;
      if (named_kernels_.insert(s.kernel).second) {
        const auto k = static_cast<std::size_t>(s.kernel);
        const std::string kname =
            "kernel " + std::to_string(s.kernel) +
            (s.kernel >= 0 && k < kernel_names_.size() ? ": " + kernel_names_[k] : std::string());
        emit(metadata("process_name", pid, 0, {{"name", kname}}));
        emit(metadata("process_sort_index", pid, 0, {{"sort_index", s.kernel}}));
      }
      emit(metadata("thread_name", pid, it->second, {{"name", "block " + std::to_string(s.block)}}));
      emit(metadata("thread_sort_index", pid, it->second, {{"sort_index", s.block}}));
    }
    last_key_ = key;
    last_tid_ = it->second;
    return it->second;
  }

  void emit(const ojson& event) {
    os_ << (first_ ? "\n" : ",\n") << dump(event);  // one event per line
    first_ = false;
  }

  std::ostream& os_;
  std::vector<std::string> kernel_names_;
  bool first_ = true;
  std::map<std::pair<std::int32_t, std::int64_t>, std::int64_t> tids_;
  std::set<std::int32_t> named_kernels_;
  std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> last_sram_;
  std::pair<std::int32_t, std::int64_t> last_key_{0, 0};
  std::int64_t last_tid_ = 0;
  std::int64_t next_tid_ = 1;
};

// ---------------------------------------------------------------- jsonl
class JsonlSink final : public TraceSink {
 public:
  explicit JsonlSink(std::ostream& os) : os_(os) {}
  void begin(const TraceMeta& meta) override {
    ojson h;
    h["type"] = "meta";
    const ojson m = meta_json(meta);  // named: items() of a temporary would dangle
    for (const auto& [k, v] : m.items()) h[k] = v;
    os_ << dump(h) << '\n';
  }
  using TraceSink::step;
  void step(const Step& s, std::int64_t index, const Ledger& after, StepTime t) override {
    ojson j;
    j["type"] = "step";
    put_step_fields(j, s, index);
    const Traffic total = after.hbm_total();
    j["cum_hbm_read_bytes"] = total.read_bytes;
    j["cum_hbm_write_bytes"] = total.write_bytes;
    j["ts_us"] = t.start_us;
    j["dur_us"] = t.duration_us;
    os_ << dump(j) << '\n';
  }
  void end() override { os_.flush(); }

 private:
  std::ostream& os_;
};

// ---------------------------------------------------------------- csv
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
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + '"';
  }
  // Shortest text that reads back to the same double ("inf", "-inf", "nan" too).
  static std::string shortest(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  }

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
    case TraceFormat::chrome: return std::make_unique<ChromeSink>(out);
    case TraceFormat::jsonl: return std::make_unique<JsonlSink>(out);
    case TraceFormat::csv: return std::make_unique<CsvSink>(out);
  }
  return nullptr;
}

}  // namespace fasim
