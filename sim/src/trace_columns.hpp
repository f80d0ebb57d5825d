// Internal: the columns shared by the trace writers and the reader, listed
// once so that what is written and what is read cannot drift apart.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "fasim/step.hpp"
#include "fasim/trace_reader.hpp"

namespace fasim::trace_columns {

/// An int64 field copied unchanged from Step to the file to TraceRecord.
struct IntColumn {
  std::string_view name;
  std::int64_t Step::*step;
  std::int64_t TraceRecord::*record;
};

inline constexpr std::array<IntColumn, 21> kIntColumns = {{
    {"bh", &Step::bh, &TraceRecord::bh},
    {"qb", &Step::qb, &TraceRecord::qb},
    {"kb", &Step::kb, &TraceRecord::kb},
    {"rows", &Step::rows, &TraceRecord::rows},
    {"cols", &Step::cols, &TraceRecord::cols},
    {"hbm_read_bytes", &Step::hbm_read_bytes, &TraceRecord::hbm_read_bytes},
    {"hbm_write_bytes", &Step::hbm_write_bytes, &TraceRecord::hbm_write_bytes},
    {"flops_matmul", &Step::flops_matmul, &TraceRecord::flops_matmul},
    {"flops_other", &Step::flops_other, &TraceRecord::flops_other},
    {"exps", &Step::exps, &TraceRecord::exps},
    {"sram_bytes", &Step::sram_bytes, &TraceRecord::sram_bytes},
    {"register_bytes", &Step::register_bytes, &TraceRecord::register_bytes},
    {"row0", &Step::row0, &TraceRecord::row0},
    {"col0", &Step::col0, &TraceRecord::col0},
    {"l2_read_bytes", &Step::l2_read_bytes, &TraceRecord::l2_read_bytes},
    {"l2_write_bytes", &Step::l2_write_bytes, &TraceRecord::l2_write_bytes},
    {"l2_hit_bytes", &Step::l2_hit_bytes, &TraceRecord::l2_hit_bytes},
    {"dram_read_bytes", &Step::dram_read_bytes, &TraceRecord::dram_read_bytes},
    {"dram_write_bytes", &Step::dram_write_bytes, &TraceRecord::dram_write_bytes},
    {"l2_fabric_bytes", &Step::l2_fabric_bytes, &TraceRecord::l2_fabric_bytes},
    {"sm", &Step::sm, &TraceRecord::sm},
}};

/// Every column of jsonl and csv, in file order.
inline constexpr std::array<std::string_view, 34> kAll = {
    "index", "kernel", "block", "kind", "tensor", "what",
    // the kIntColumns, in the same order
    "bh", "qb", "kb", "rows", "cols", "hbm_read_bytes", "hbm_write_bytes", "flops_matmul",
    "flops_other", "exps", "sram_bytes", "register_bytes", "row0", "col0", "l2_read_bytes",
    "l2_write_bytes", "l2_hit_bytes", "dram_read_bytes", "dram_write_bytes", "l2_fabric_bytes", "sm",
    //
    "has_row", "row_m", "row_l", "cum_hbm_read_bytes", "cum_hbm_write_bytes", "ts_us", "dur_us"};

/// The column added last (traces written before it lack it), and what a
/// reader says when it is missing.
inline constexpr std::string_view kNewestColumn = "l2_fabric_bytes";
inline constexpr std::string_view kOlderTraceNote =
    " (a trace from an older fasim, which did not record L2 fabric bytes: write it again with this one)";

/// The format this fasim writes ("trace_version" in the header): 3, kernels
/// end with a writeback step; 2, steps have l2_fabric_bytes; 1, neither. A
/// reader refuses a newer one: it may hold steps it would misread.
inline constexpr int kTraceVersion = 3;

constexpr bool int_columns_match() {
  for (std::size_t i = 0; i < kIntColumns.size(); ++i) {
    if (kAll[6 + i] != kIntColumns[i].name) return false;
  }
  return true;
}
static_assert(int_columns_match(), "kAll must list kIntColumns in order after 'what'");

}  // namespace fasim::trace_columns
