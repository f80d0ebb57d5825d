// Trace: the ordered Steps with timestamps, written as they happen to a sink:
// Chrome Trace Event JSON (opens in Perfetto / chrome://tracing), JSON lines,
// or CSV. Sinks stream: a trace of millions of steps is never held in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/ledger.hpp"
#include "fasim/mapping.hpp"
#include "fasim/step.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief The file formats a trace can be written in.
enum class TraceFormat { chrome, jsonl, csv };

/// @brief "chrome", "jsonl" or "csv".
std::string_view name(TraceFormat f);
/// @brief Parses "chrome" | "jsonl" | "csv"; nullopt for anything else.
std::optional<TraceFormat> parse_trace_format(std::string_view s);

/// @brief What the time axis means while fasim has no timing model.
inline constexpr std::string_view kStepIndexTimeNote =
    "no timing model yet: step k starts at k us and lasts 1 us, so times are "
    "step indices (order), not predicted durations";

/// @brief Describes the run a trace comes from; written once, at the top.
struct TraceMeta {
  std::string device;                     ///< DeviceSpec name, e.g. "h100"
  Workload workload;                      ///< the attention shape
  Mapping mapping;                        ///< algorithm and tiling
  std::vector<std::string> kernel_names;  ///< name of kernel k at index k
  std::string time_unit_note{kStepIndexTimeNote};  ///< what ts/dur mean
  /// The row whose running max and sum (row_m, row_l) the steps carry; -1:
  /// not said (the header then has no "watched_row").
  std::int64_t watched_row = -1;
  std::int64_t watched_bh = 0;  ///< the (batch, head) of watched_row
  /// True if the run computed values (then steps carry row_m and row_l);
  /// written as "numerics" only with watched_row.
  bool numerics = false;
  /// Shared memory and register bytes one block may use; 0: not said (the
  /// header then has no "capacity").
  std::int64_t sram_bytes_per_block = 0;
  std::int64_t register_bytes_per_block = 0;  ///< see sram_bytes_per_block
};

/// @brief When a step ran, in microseconds. Until a timing model exists the
/// caller passes StepTime::from_index(k): start k, duration 1.
struct StepTime {
  double start_us = 0;  ///< start, microseconds
  double duration_us = 1;  ///< duration, microseconds
  /// @brief The placeholder time of step `index`: [index, index + 1) us.
  static StepTime from_index(std::int64_t index) {
    return {static_cast<double>(index), 1.0};
  }
};

/// @brief Receives the steps of one run, in order: begin(), step()*, end().
/// A sink writes to a stream it does not own and never checks it for errors:
/// write through an AtomicFile, whose commit() does.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  /// @brief Writes the header (device, shape, tiling, kernel names, time note).
  virtual void begin(const TraceMeta& meta) = 0;
  /// @brief Writes step `index` (0, 1, 2, ... in order) that ran at `time`.
  /// `after` is the Ledger after recording s (it already includes s).
  virtual void step(const Step& s, std::int64_t index, const Ledger& after, StepTime time) = 0;
  /// @brief Same, at the placeholder time StepTime::from_index(index).
  void step(const Step& s, std::int64_t index, const Ledger& after) {
    step(s, index, after, StepTime::from_index(index));
  }
  /// @brief Closes the document (e.g. the JSON array). Call once, last.
  virtual void end() = 0;
};

/// @brief A sink writing `format` to `out`. `out` must outlive the sink.
///
/// Columns of jsonl and csv, in order: index, kernel, block, kind, tensor,
/// what, bh, qb, kb, rows, cols, hbm_read_bytes, hbm_write_bytes,
/// flops_matmul, flops_other, exps, sram_bytes, register_bytes, has_row,
/// row_m, row_l, cum_hbm_read_bytes, cum_hbm_write_bytes, ts_us, dur_us.
/// The chrome sink puts index ... row_l in each "X" event's args (the time is
/// the event's ts/dur, in microseconds), uses pid = kernel + 1 and one tid
/// per block, numbered from 1 (Perfetto treats pid 0 and tid 0 specially).
/// A block's stores, which run on while the block goes on, are on threads
/// of their own, "block N stores" (and "block N stores 2", ... while several
/// are in flight), so the slices on every thread nest. A kernel's writeback
/// step, block -1, gets a thread named "L2 write-backs" (a zero-length
/// slice when it wrote nothing back, so step numbers stay whole). Counters, per kernel: "HBM bytes" and "DRAM bytes"
/// {read, write}, the kernel's bytes so far, from 0 at its first step's
/// start, each step's counted at its end (so, by time, they never fall);
/// "on-chip bytes" {shared, registers} of the step's block at its end,
/// whenever it changes. Non-finite row_m/row_l (the running max starts at
/// -inf) are written as the strings "-inf", "inf", "nan" in JSON; CSV writes
/// them bare.
std::unique_ptr<TraceSink> make_trace_sink(TraceFormat format, std::ostream& out);

}  // namespace fasim
