// Sample steps and helpers shared by the trace tests (test_trace.cpp,
// test_trace_reader.cpp): a run over two kernels and several blocks, written
// through an AtomicFile exactly as the CLI does.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/ledger.hpp"
#include "fasim/step.hpp"
#include "fasim/trace.hpp"
#include "fasim/trace_reader.hpp"

namespace Catch {
template <>
struct StringMaker<fasim::TraceRecord> {
  static std::string convert(const fasim::TraceRecord& r) {
    std::ostringstream s;
    s << "{index " << r.index << " kernel " << r.kernel << " block " << r.block << ' ' << r.kind
      << ' ' << r.tensor << " '" << r.what << "' bh " << r.bh << " qb " << r.qb << " kb " << r.kb
      << " " << r.rows << "x" << r.cols << " hbm " << r.hbm_read_bytes << "/" << r.hbm_write_bytes
      << " flops " << r.flops_matmul << "/" << r.flops_other << "/" << r.exps << " on-chip "
      << r.sram_bytes << "/" << r.register_bytes << " at " << r.row0 << "," << r.col0 << " l2 "
      << r.l2_read_bytes << "/" << r.l2_write_bytes << " hit " << r.l2_hit_bytes << " dram "
      << r.dram_read_bytes << "/" << r.dram_write_bytes << " fabric " << r.l2_fabric_bytes << " sm " << r.sm
      << " row " << r.has_row << ' ' << r.row_m << ' '
      << r.row_l << " cum " << r.cum_hbm_read_bytes << "/" << r.cum_hbm_write_bytes << " t "
      << r.ts_us << "+" << r.dur_us << '}';
    return s.str();
  }
};
}  // namespace Catch

namespace fasim::test {

inline Step sample_step(StepKind kind, TensorId t, std::int32_t kernel, std::int64_t block,
                        std::int64_t read, std::int64_t write, std::string_view what = {}) {
  Step s;
  s.kind = kind;
  s.tensor = t;
  s.kernel = kernel;
  s.block = block;
  s.what = what;
  s.bh = block / 2;
  s.qb = block % 2;
  s.kb = kind == StepKind::load && t != TensorId::Q ? 1 : -1;
  s.rows = 64;
  s.cols = 32 + block;
  s.hbm_read_bytes = read;
  s.hbm_write_bytes = write;
  s.sram_bytes = 4096 * (block + 1);
  s.register_bytes = 1024 * kernel;
  // Made-up but distinct L2 bytes, so a column that moves or drops shows.
  s.l2_read_bytes = read;
  s.l2_hit_bytes = read / 2;
  s.dram_read_bytes = read - read / 2;
  s.l2_write_bytes = write;
  s.dram_write_bytes = write / 8;
  s.l2_fabric_bytes = read / 4 + write / 2;
  s.row0 = 64 * s.qb;
  s.sm = block + 3;
  return s;
}

// Two kernels, several blocks, labels with commas, quotes and a newline, and
// a watched row whose running max starts at -inf.
inline std::vector<Step> sample_steps() {
  std::vector<Step> v;
  v.push_back(sample_step(StepKind::load, TensorId::Q, 0, 0, 8192, 0, "load Q_i"));
  v.push_back(sample_step(StepKind::load, TensorId::K, 0, 0, 8192, 0));
  Step mm = sample_step(StepKind::matmul, TensorId::S, 0, 0, 0, 0, "S = scale * Q K^T, \"tile\"");
  mm.flops_matmul = 2 * 64 * 64 * 32;
  v.push_back(mm);
  Step sm = sample_step(StepKind::softmax, TensorId::P, 0, 1, 0, 0, "online softmax\nrow max");
  sm.flops_other = 5 * 64 * 64;
  sm.exps = 64 * 64;
  sm.has_row = true;
  sm.row_m = -std::numeric_limits<float>::infinity();
  sm.row_l = 0.0f;
  v.push_back(sm);
  Step rs = sample_step(StepKind::rescale, TensorId::O, 0, 1, 0, 0, "O *= exp(m_old - m_new)");
  rs.flops_other = 123;
  rs.has_row = true;
  rs.row_m = 3.1415927f;
  rs.row_l = 17.25f;
  v.push_back(rs);
  v.push_back(sample_step(StepKind::store, TensorId::O, 0, 1, 0, 4096));
  v.push_back(sample_step(StepKind::load, TensorId::S, 1, 0, 16384, 0));
  v.push_back(sample_step(StepKind::store, TensorId::P, 1, 3, 0, 16384, ""));
  v.push_back(sample_step(StepKind::softmax, TensorId::P, 1, 3, 0, 0, ""));
  return v;
}

inline TraceMeta sample_meta() {
  TraceMeta m;
  m.device = "h100";
  m.workload.N = 256;
  m.workload.d = 32;
  m.mapping.algo = fasim::Algo::naive;
  m.kernel_names = {"S = QK^T, P = softmax(S)", "O = P V"};
  return m;
}

// Writes the steps through an AtomicFile, as the CLI will.
inline void write_trace(TraceFormat format, const std::string& path,
                        const std::vector<Step>& steps) {
  fasim::AtomicFile file(path);
  const auto sink = fasim::make_trace_sink(format, file.stream());
  sink->begin(sample_meta());
  fasim::Ledger ledger;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ledger.record(steps[i]);
    sink->step(steps[i], static_cast<std::int64_t>(i), ledger);
  }
  sink->end();
  file.commit();
}

inline std::vector<TraceRecord> expected_records(const std::vector<Step>& steps) {
  std::vector<TraceRecord> out;
  std::int64_t cum_r = 0, cum_w = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    TraceRecord r;
    r.index = static_cast<std::int64_t>(i);
    r.kernel = s.kernel;
    r.block = s.block;
    r.kind = std::string(fasim::name(s.kind));
    r.tensor = std::string(fasim::name(s.tensor));
    r.what = std::string(s.what);
    r.bh = s.bh;
    r.qb = s.qb;
    r.kb = s.kb;
    r.rows = s.rows;
    r.cols = s.cols;
    r.hbm_read_bytes = s.hbm_read_bytes;
    r.hbm_write_bytes = s.hbm_write_bytes;
    r.flops_matmul = s.flops_matmul;
    r.flops_other = s.flops_other;
    r.exps = s.exps;
    r.sram_bytes = s.sram_bytes;
    r.register_bytes = s.register_bytes;
    r.row0 = s.row0;
    r.col0 = s.col0;
    r.l2_read_bytes = s.l2_read_bytes;
    r.l2_write_bytes = s.l2_write_bytes;
    r.l2_hit_bytes = s.l2_hit_bytes;
    r.dram_read_bytes = s.dram_read_bytes;
    r.dram_write_bytes = s.dram_write_bytes;
    r.l2_fabric_bytes = s.l2_fabric_bytes;
    r.sm = s.sm;
    r.has_row = s.has_row;
    r.row_m = s.has_row ? s.row_m : 0.0;
    r.row_l = s.has_row ? s.row_l : 0.0;
    r.cum_hbm_read_bytes = cum_r += s.hbm_read_bytes;
    r.cum_hbm_write_bytes = cum_w += s.hbm_write_bytes;
    r.ts_us = static_cast<double>(i);
    r.dur_us = 1.0;
    out.push_back(r);
  }
  return out;
}

inline std::vector<std::string> lines_of(const std::string& path) {
  return split_lines(read_text(path));
}

inline void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + '\n';
  write_text(path, text);
}

}  // namespace fasim::test
