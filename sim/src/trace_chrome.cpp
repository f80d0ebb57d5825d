// The Chrome Trace Event sink: a JSON object that Perfetto and
// chrome://tracing open. One process per kernel, one thread per block (and
// more for the block's stores, which run on while the block goes on), one
// complete ("X") event per step, and counters for HBM and DRAM traffic and
// on-chip use.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "trace_json.hpp"

namespace fasim::trace_json {
namespace {

// Sort position of the L2 write-backs track: after any block's.
constexpr std::int64_t kL2TrackSort = std::int64_t{1} << 50;
// A block's tracks sort at block * kLaneSlots + lane: the block's own
// (lane 0), then its store tracks (lanes 1, 2, ...).
constexpr std::int64_t kLaneSlots = 64;
// ts + dur rounds in doubles: a store may seem to end a hair (far below a
// nanosecond) after the next one on its track starts. Gaps this small do not
// need another track.
constexpr double kSlackUs = 1e-9;

// Bytes a step moved, as the cumulative counters add them up.
struct Moved {
  std::int64_t hbm_read = 0, hbm_write = 0, dram_read = 0, dram_write = 0;
  bool any_hbm() const { return hbm_read != 0 || hbm_write != 0; }
  bool any_dram() const { return dram_read != 0 || dram_write != 0; }
  Moved& operator+=(const Moved& m) {
    hbm_read += m.hbm_read;
    hbm_write += m.hbm_write;
    dram_read += m.dram_read;
    dram_write += m.dram_write;
    return *this;
  }
};

class ChromeSink final : public TraceSink {
 public:
  explicit ChromeSink(std::ostream& os) : os_(os) {}

  void begin(const TraceMeta& meta) override {
    kernel_names_ = meta.kernel_names;
    // otherData first, so a reader meets the description before the events.
    // No displayTimeUnit: ts and dur are in microseconds, the format's own.
    os_ << "{\"otherData\":" << trace_json::meta(meta) << ",\"traceEvents\":[";
  }

  using TraceSink::step;
  void step(const Step& s, std::int64_t index, const Ledger&, StepTime t) override {
    const std::int64_t pid = std::int64_t{s.kernel} + 1;  // Perfetto treats pid 0 as special
    const double end = t.start_us + t.duration_us;
    if (pid != counter_pid_) start_counters(pid, t.start_us);
    // Steps come in order of start time, so none still to come ends before
    // this one starts: the bytes counted before then are final.
    flush_counters(t.start_us);
    const Moved moved{s.hbm_read_bytes, s.hbm_write_bytes, s.dram_read_bytes, s.dram_write_bytes};
    // Bytes count when their step ends. A step that ends before the last
    // sample (only if the steps came out of order) counts at that sample.
    if (moved.any_hbm() || moved.any_dram()) pending_[std::max(end, last_sample_us_)] += moved;

    const std::int64_t tid = thread_of(s, pid, lane_of(s, t.start_us, end));
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

    if (s.kind == StepKind::writeback) {  // the L2's step: no block, no on-chip use
      flush_line();
      return;
    }
    // Not cumulative: the shared memory and registers the stepping block
    // holds, from the end of the step.
    const std::pair<std::int64_t, std::int64_t> on_chip{s.sram_bytes, s.register_bytes};
    auto [it, fresh] = last_on_chip_.try_emplace(s.kernel, on_chip);
    if (fresh || it->second != on_chip) {
      it->second = on_chip;
      counter("on-chip bytes", pid, end, "shared", on_chip.first, "registers", on_chip.second);
    }
    flush_line();
  }

  void end() override {
    flush_counters(std::numeric_limits<double>::infinity());
    flush_line();
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

  // A kernel's cumulative counters start at 0 when its first step starts
  // (kernels run one after another, so the last one's are complete).
  void start_counters(std::int64_t pid, double ts) {
    flush_counters(std::numeric_limits<double>::infinity());
    counter_pid_ = pid;
    total_ = {};
    last_sample_us_ = ts;
    store_lanes_.clear();  // the last kernel's blocks are done
    counter("HBM bytes", pid, ts, "read", 0, "write", 0);
    counter("DRAM bytes", pid, ts, "read", 0, "write", 0);
  }

  // Samples the counters at each time before `before` at which bytes
  // counted, in time order, so that sorted by ts they never fall.
  void flush_counters(double before) {
    auto it = pending_.begin();
    for (; it != pending_.end() && it->first < before; ++it) {
      const auto& [ts, moved] = *it;
      total_ += moved;
      last_sample_us_ = ts;
      if (moved.any_hbm()) counter("HBM bytes", counter_pid_, ts, "read", total_.hbm_read, "write", total_.hbm_write);
      if (moved.any_dram())
        counter("DRAM bytes", counter_pid_, ts, "read", total_.dram_read, "write", total_.dram_write);
    }
    pending_.erase(pending_.begin(), it);
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

  // Slices on one thread must nest, and a block's store runs on while the
  // block's next steps run. So stores go on store tracks of their own, lanes
  // 1, 2, ...: each on the first whose last store has ended, a new one when
  // all are busy. Every other step is on lane 0, the block's track.
  std::int64_t lane_of(const Step& s, double start, double end) {
    if (s.kind != StepKind::store) return 0;
    std::vector<double>& ends = store_lanes_[s.block];  // by lane - 1
    auto free = std::find_if(ends.begin(), ends.end(), [&](double e) { return e <= start + kSlackUs; });
    if (free == ends.end()) free = ends.insert(ends.end(), end);
    else *free = end;
    return (free - ends.begin()) + 1;
  }

  static std::string thread_label(const Step& s, std::int64_t lane) {
    if (s.kind == StepKind::writeback) return "L2 write-backs";
    std::string label = "block " + std::to_string(s.block);
    if (lane > 0) label += " stores";
    if (lane > 1) label += " " + std::to_string(lane);
    return label;
  }

  // tids are numbered from 1 in order of first appearance, unique across
  // kernels: Perfetto mishandles tid 0 and tids shared between pids.
  std::int64_t thread_of(const Step& s, std::int64_t pid, std::int64_t lane) {
    const ThreadKey key{s.kernel, s.block, lane};
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
      metadata("thread_name", pid, it->second, thread_label(s, lane));
      metadata("thread_sort_index", pid, it->second,
               l2 ? kL2TrackSort : s.block * kLaneSlots + std::min(lane, kLaneSlots - 1));
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

  using ThreadKey = std::tuple<std::int32_t, std::int64_t, std::int64_t>;  // kernel, block, lane

  std::ostream& os_;
  std::string line_;  // events of the current step, written together
  std::vector<std::string> kernel_names_;
  bool first_ = true;
  std::map<ThreadKey, std::int64_t> tids_;
  std::set<std::int32_t> named_kernels_;
  std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> last_on_chip_;
  ThreadKey last_key_{0, 0, 0};
  std::int64_t last_tid_ = 0;
  std::int64_t next_tid_ = 1;
  // This kernel's blocks: when the last store on each store lane ends.
  std::map<std::int64_t, std::vector<double>> store_lanes_;
  // The cumulative counters of kernel counter_pid_ - 1: bytes counted so
  // far, and bytes still to count, by the time they count at.
  std::int64_t counter_pid_ = 0;
  Moved total_;
  std::map<double, Moved> pending_;
  double last_sample_us_ = 0;
};

}  // namespace

std::unique_ptr<TraceSink> make_chrome_sink(std::ostream& out) {
  return std::make_unique<ChromeSink>(out);
}

}  // namespace fasim::trace_json
