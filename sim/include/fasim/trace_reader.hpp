// Trace reader: parses a trace written by a TraceSink back into records, for
// tests and viewers. Untrusted input: every malformation is a UserError that
// names the file, the line (and column where known) and the problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fasim {

/// @brief One Step as read back from a trace file. Field meanings are those of
/// fasim::Step; kind and tensor are names ("load", "K").
struct TraceRecord {
  std::int64_t index = 0;   ///< position in the run, 0, 1, 2, ...
  int kernel = 0;           ///< kernel index (chrome: args.kernel, not the pid)
  std::int64_t block = 0;   ///< block index within the kernel's grid
  std::string kind;         ///< name(StepKind)
  std::string tensor;       ///< name(TensorId)
  std::string what;         ///< Step::what
  std::int64_t bh = 0;  ///< (batch * head), see Step::bh
  std::int64_t qb = -1;  ///< query block i, -1 if none
  std::int64_t kb = -1;  ///< key/value block j, -1 if none
  std::int64_t rows = 0;  ///< tile rows touched
  std::int64_t cols = 0;  ///< tile columns touched
  std::int64_t hbm_read_bytes = 0;  ///< bytes read from HBM
  std::int64_t hbm_write_bytes = 0;  ///< bytes written to HBM
  std::int64_t flops_matmul = 0;  ///< matmul FLOPs
  std::int64_t flops_other = 0;  ///< other FLOPs (exp included)
  std::int64_t exps = 0;  ///< of flops_other, exp and log
  std::int64_t sram_bytes = 0;  ///< shared memory in use after the step
  std::int64_t register_bytes = 0;  ///< register tiles in use after the step
  std::int64_t row0 = 0;              ///< load/store: first row of the tile
  std::int64_t col0 = 0;              ///< load/store: first column of the tile
  std::int64_t l2_read_bytes = 0;     ///< sector-rounded bytes asked of L2
  std::int64_t l2_write_bytes = 0;    ///< sector-rounded bytes written to L2
  std::int64_t l2_hit_bytes = 0;      ///< of l2_read_bytes, hits
  std::int64_t dram_read_bytes = 0;   ///< of l2_read_bytes, read from DRAM
  std::int64_t dram_write_bytes = 0;  ///< dirty bytes evicted to DRAM
  std::int64_t l2_fabric_bytes = 0;   ///< bytes that crossed between the L2 partitions
  std::int64_t sm = 0;                ///< the SM that ran the block
  bool has_row = false;  ///< true if row_m and row_l hold the watched row
  double row_m = 0;  ///< 0 when !has_row; may be -inf
  double row_l = 0;  ///< 0 when !has_row
  /// HBM bytes of all steps up to and including this one. Stored in jsonl and
  /// csv; for chrome, summed from the records (the trace starts at step 0).
  std::int64_t cum_hbm_read_bytes = 0;
  std::int64_t cum_hbm_write_bytes = 0;  ///< see cum_hbm_read_bytes
  double ts_us = 0;   ///< simulated start time, microseconds
  double dur_us = 0;  ///< simulated duration, microseconds

  /// @brief Equal when every field is.
  bool operator==(const TraceRecord&) const = default;
};

/// @brief Reads a trace in any TraceFormat; the format is detected from the
/// content (a JSON object with "traceEvents": chrome; a first line
/// {"type":"meta",...}: jsonl; the fasim CSV header: csv).
/// @throws UserError "cannot read trace 'PATH' (line L, column C): PROBLEM; ..."
/// for an unreadable file or malformed content. Never crashes on garbage.
std::vector<TraceRecord> read_trace(const std::string& path);

}  // namespace fasim
