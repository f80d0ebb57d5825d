// The Chrome Trace Event sink: a JSON object that Perfetto and
// chrome://tracing open. One process per kernel, one thread per block, one
// complete ("X") event per step, and counters for HBM and DRAM traffic and
// on-chip use.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "trace_json.hpp"

namespace fasim::trace_json {
namespace {

// Sort position of the L2 write-backs track: after any block's.
constexpr std::int64_t kL2TrackSort = std::int64_t{1} << 40;

class ChromeSink final : public TraceSink {
 public:
  explicit ChromeSink(std::ostream& os) : os_(os) {}

  void begin(const TraceMeta& meta) override {
    kernel_names_ = meta.kernel_names;
    // otherData first, so a reader meets the description before the events.
    os_ << "{\"displayTimeUnit\":\"ns\",\"otherData\":" << trace_json::meta(meta)
        << ",\"traceEvents\":[";
  }

  using TraceSink::step;
  void step(const Step& s, std::int64_t index, const Ledger& after, StepTime t) override {
    const std::int64_t pid = std::int64_t{s.kernel} + 1;  // Perfetto treats pid 0 as special
    const std::int64_t tid = thread_of(s, pid);

    std::string args;
    Object a(args);
    put_step_fields(a, s, index);
    a.close();
    Object e(begin_event());
    e.string("name", event_name(s))
        .string("cat", name(s.kind))
        .string("ph", "X")
        .real("ts", t.start_us)
        .real("dur", t.duration_us)
        .integer("pid", pid)
        .integer("tid", tid)
        .raw("args", args);
    e.close();

    // Counters hold "after the step" values, so they change at its end.
    const double end = t.start_us + t.duration_us;
    if (s.hbm_read_bytes != 0 || s.hbm_write_bytes != 0) {
      const Traffic total = after.hbm_total();
      counter("HBM bytes", pid, end, "read", total.read_bytes, "write", total.write_bytes);
    }
    // What reached DRAM through the L2, beside what the kernel asked of HBM.
    if (s.dram_read_bytes != 0 || s.dram_write_bytes != 0) {
      const CacheTraffic total = after.cache_total();
      counter("DRAM bytes", pid, end, "read", total.dram_read_bytes, "write", total.dram_write_bytes);
    }
    if (s.kind == StepKind::writeback) {  // the L2's step: no block, no on-chip use
      flush_line();
      return;
    }
    const std::pair<std::int64_t, std::int64_t> on_chip{s.sram_bytes, s.register_bytes};
    auto [it, fresh] = last_on_chip_.try_emplace(s.kernel, on_chip);
    if (fresh || it->second != on_chip) {
      it->second = on_chip;
      counter("SRAM bytes", pid, end, "shared", on_chip.first, "registers", on_chip.second);
    }
    flush_line();
  }

  void end() override {
    os_ << "\n]}\n";
    os_.flush();
  }

 private:
  static std::string event_name(const Step& s) {
    if (s.kind == StepKind::load || s.kind == StepKind::store) {
      return std::string(name(s.kind)) + " " + std::string(name(s.tensor));
    }
    return std::string(s.what.empty() ? name(s.kind) : s.what);
  }

  void counter(std::string_view label, std::int64_t pid, double ts, std::string_view k1,
               std::int64_t v1, std::string_view k2, std::int64_t v2) {
    std::string args;
    Object(args).integer(k1, v1).integer(k2, v2).close();
    Object c(begin_event());
    c.string("name", label).string("ph", "C").real("ts", ts).integer("pid", pid).raw("args", args);
    c.close();
  }

  // "M" events: a display name or a sort position. tid 0: process-level.
  void metadata(std::string_view what, std::int64_t pid, std::int64_t tid, const std::string& label) {
    std::string args;
    Object(args).string("name", label).close();
    metadata_event(what, pid, tid, args);
  }
  void metadata(std::string_view what, std::int64_t pid, std::int64_t tid, std::int64_t sort_index) {
    std::string args;
    Object(args).integer("sort_index", sort_index).close();
    metadata_event(what, pid, tid, args);
  }
  void metadata_event(std::string_view what, std::int64_t pid, std::int64_t tid,
                      const std::string& args) {
    Object m(begin_event());
    m.string("name", what).string("ph", "M").integer("pid", pid);
    if (tid != 0) m.integer("tid", tid);
    m.raw("args", args).close();
  }

  // tids are numbered from 1 in order of first appearance, unique across
  // kernels: Perfetto mishandles tid 0 and tids shared between pids.
  std::int64_t thread_of(const Step& s, std::int64_t pid) {
    const std::pair<std::int32_t, std::int64_t> key{s.kernel, s.block};
    if (last_tid_ != 0 && key == last_key_) return last_tid_;
    auto [it, fresh] = tids_.try_emplace(key, next_tid_);
    if (fresh) {
      ++next_tid_;
      if (named_kernels_.insert(s.kernel).second) {
        const auto k = static_cast<std::size_t>(s.kernel);
        std::string label = "kernel " + std::to_string(s.kernel);
        if (s.kernel >= 0 && k < kernel_names_.size()) label += ": " + kernel_names_[k];
        metadata("process_name", pid, 0, label);
        metadata("process_sort_index", pid, 0, std::int64_t{s.kernel});
      }
      // The writeback step (block -1) gets a track of its own, below the blocks.
      const bool l2 = s.kind == StepKind::writeback;
      metadata("thread_name", pid, it->second, l2 ? std::string("L2 write-backs") : "block " + std::to_string(s.block));
      metadata("thread_sort_index", pid, it->second, l2 ? kL2TrackSort : s.block);
    }
    last_key_ = key;
    last_tid_ = it->second;
    return it->second;
  }

  // Events are separated by ",\n": one event per line, which also gives the
  // reader's error messages a useful line number.
  std::string& begin_event() {
    line_ += first_ ? "\n" : ",\n";
    first_ = false;
    return line_;
  }
  void flush_line() {
    os_ << line_;
    line_.clear();
  }

  std::ostream& os_;
  std::string line_;  // events of the current step, written together
  std::vector<std::string> kernel_names_;
  bool first_ = true;
  std::map<std::pair<std::int32_t, std::int64_t>, std::int64_t> tids_;
  std::set<std::int32_t> named_kernels_;
  std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> last_on_chip_;
  std::pair<std::int32_t, std::int64_t> last_key_{0, 0};
  std::int64_t last_tid_ = 0;
  std::int64_t next_tid_ = 1;
};

}  // namespace

std::unique_ptr<TraceSink> make_chrome_sink(std::ostream& out) {
  return std::make_unique<ChromeSink>(out);
}

}  // namespace fasim::trace_json
