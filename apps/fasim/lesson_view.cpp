// The stepper's picture of a step (see lesson_view.hpp): tile grids, what is
// in SRAM, the counters and the watched row.
#include "lesson_view.hpp"

#include <algorithm>
#include <cstdio>

#include "fasim/format.hpp"

namespace fasim::cli {
namespace {

constexpr std::int64_t kMaxGridRows = 16;  // more Q blocks are drawn in groups
constexpr int kGridColumns = 60;           // room for cells, label included

std::string range(std::int64_t first, std::int64_t count) {
  return count <= 1 ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(first + count - 1);
}

std::string percent(std::int64_t part, std::int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buf;
}

}  // namespace

StepView::StepView(const Simulation& sim, std::int64_t total, TextStyle style) : total_(total), style_(style) {
  const Workload& w = sim.workload();
  Tr_ = std::max<std::int64_t>(1, ceil_div(w.N, sim.mapping().br));
  Tc_ = std::max<std::int64_t>(1, ceil_div(w.n_keys(), sim.mapping().bc));
}

void StepView::absorb(const Simulation& sim) {
  const Step& s = sim.step();
  ++count_;
  if (s.kernel != kernel_) {  // each kernel sweeps the grid anew
    kernel_ = s.kernel;
    touched_.clear();
    latest_.clear();
    loaded_.clear();
  }
  if (s.qb >= Tr_ || s.kb >= Tc_) {  // an algorithm with more tiles than the shape suggests
    const std::int64_t tr = std::max(Tr_, s.qb + 1), tc = std::max(Tc_, s.kb + 1);
    for (auto& [bh, cells] : touched_) {
      std::vector<char> grown(static_cast<std::size_t>(tr * tc), 0);
      for (std::int64_t r = 0; r < Tr_; ++r)
        for (std::int64_t c = 0; c < Tc_; ++c) grown[static_cast<std::size_t>(r * tc + c)] = cells[static_cast<std::size_t>(r * Tc_ + c)];
      cells = std::move(grown);
    }
    Tr_ = tr;
    Tc_ = tc;
  }
  step_ = s;
  if (s.kind == StepKind::writeback) return;  // the L2's step: no block, no tile
  latest_[s.block] = {s.bh, s.qb, s.kb};
  if (s.qb >= 0 && s.kb >= 0) {
    auto& cells = touched_[s.bh];
    cells.resize(static_cast<std::size_t>(Tr_ * Tc_), 0);
    cells[static_cast<std::size_t>(s.qb * Tc_ + s.kb)] = 1;
  }
  if (s.kind == StepKind::load) loaded_[s.block][s.tensor] = {s.row0, s.rows};
  if (s.has_row && (!row_seen_ || s.row_m != row_m_ || s.row_l != row_l_)) {  // remember when it last changed
    row_seen_ = true;
    row_m_ = s.row_m;
    row_l_ = s.row_l;
    row_step_ = count_;
  }
}

StepView::Cell StepView::cell(const Simulation& sim, std::int64_t bh, std::int64_t qb, std::int64_t kb) const {
  if (step_.bh == bh && step_.qb == qb && step_.kb == kb) return now;
  if (step_.bh == bh && ((step_.kb < 0 && step_.qb == qb) || (step_.qb < 0 && step_.kb == kb))) return whole;
  for (const auto& [block, t] : latest_)
    if (block != step_.block && t.bh == bh && t.qb == qb && t.kb == kb) return other;
  if (auto it = touched_.find(bh); it != touched_.end() && it->second[static_cast<std::size_t>(qb * Tc_ + kb)]) return done;
  const Workload& w = sim.workload();
  if (w.masked()) {
    const std::int64_t r0 = qb * sim.mapping().br, r1 = std::min(w.N, r0 + sim.mapping().br) - 1;
    const std::int64_t c0 = kb * sim.mapping().bc, c1 = std::min(w.n_keys(), c0 + sim.mapping().bc) - 1;
    if (w.key_hi(r1) < c0 || w.key_lo(r0) > c1) return masked;
  }
  return todo;
}

std::vector<std::string> StepView::grid(const Simulation& sim, std::int64_t bh) const {
  const bool wide = Tc_ * 4 + 8 > kGridColumns;
  const std::int64_t fc = wide ? (Tc_ + (kGridColumns - 8) - 1) / (kGridColumns - 8) : 1;  // tiles per cell
  const std::int64_t fr = (Tr_ + kMaxGridRows - 1) / kMaxGridRows;
  const std::int64_t cols = (Tc_ + fc - 1) / fc, rows = (Tr_ + fr - 1) / fr;
  const bool here = step_.bh == bh;

  std::vector<std::string> out;
  out.push_back("bh " + std::to_string(bh) + ": Q blocks i down, K/V blocks j across");
  std::string head = "       ";
  if (!wide) {
    for (std::int64_t c = 0; c < cols; ++c) {
      char b[32];
      std::snprintf(b, sizeof b, "%3lld ", static_cast<long long>(c));
      head += b;
    }
  } else {
    head += "j = 0.." + std::to_string(Tc_ - 1) + (fc > 1 ? " (" + std::to_string(fc) + " per column)" : "");
  }
  out.push_back(head);
  if (here && step_.qb < 0 && step_.kb >= 0) {  // a step on a whole K/V column
    const std::int64_t c = step_.kb / fc;
    out.push_back(std::string(static_cast<std::size_t>(7 + (wide ? c : c * 4 + 1)), ' ') + (wide ? "v" : " v"));
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const bool row_step = here && step_.kb < 0 && step_.qb >= 0 && step_.qb / fr == r;
    char label[32];
    std::snprintf(label, sizeof label, "%s %4lld  ", row_step ? ">" : " ", static_cast<long long>(r * fr));
    std::string line = row_step ? style_.highlight(label) : std::string(label);
    for (std::int64_t c = 0; c < cols; ++c) {
      // A cell of several tiles shows the most telling state among them.
      int n[6] = {0, 0, 0, 0, 0, 0};  // now, other, done, masked, todo, line
      std::int64_t count = 0;
      for (std::int64_t q = r * fr; q < std::min(Tr_, (r + 1) * fr); ++q)
        for (std::int64_t k = c * fc; k < std::min(Tc_, (c + 1) * fc); ++k, ++count) {
          const Cell x = cell(sim, bh, q, k);
          ++n[x == now ? 0 : x == other ? 1 : x == done ? 2 : x == masked ? 3 : x == whole ? 5 : 4];
        }
      const Cell x = n[0] ? now : n[5] ? whole : n[1] ? other : n[2] + n[3] == count && n[2] ? done : n[3] == count ? masked
                                                 : n[2] ? done : todo;
      std::string text = wide ? std::string(1, x == todo ? '-' : static_cast<char>(x))
                              : std::string("[") + static_cast<char>(x) + "] ";
      if (x == now || x == whole) text = style_.highlight(text);
      else if (x == done || x == masked) text = style_.dim(text);
      line += text;
    }
    out.push_back(line);
  }
  return out;
}

std::string StepView::describe(const Step& s) const {
  const std::string shape = std::to_string(s.rows) + "x" + std::to_string(s.cols);
  std::string where = std::string(name(s.tensor)) + " rows " + range(s.row0, s.rows);
  if (s.col0 > 0) where += ", cols " + range(s.col0, s.cols);
  switch (s.kind) {
    case StepKind::load:
      return "load " + where + " (" + shape + "): +" + with_commas(s.hbm_read_bytes) + " B from HBM (L2 hit " +
             with_commas(s.l2_hit_bytes) + " B, DRAM " + with_commas(s.dram_read_bytes) + " B)";
    case StepKind::store:
      return "store " + where + " (" + shape + "): +" + with_commas(s.hbm_write_bytes) + " B to HBM (into L2)";
    case StepKind::writeback:
      if (s.dram_write_bytes == 0) return "end of kernel: no L2 write-backs left to count";
      return "end of kernel: +" + with_commas(s.dram_write_bytes) +
             " B written back to DRAM, dirty L2 lines evicted during the kernel that no step counted yet";
    default: {
      std::string out = std::string(s.what) + " (" + shape + ")";
      if (s.flops_matmul > 0) out += ": " + with_commas(s.flops_matmul) + " matmul FLOP";
      if (s.flops_other > 0) out += std::string(s.flops_matmul > 0 ? ", " : ": ") + with_commas(s.flops_other) + " other";
      return out;
    }
  }
}

std::string StepView::sram_line(const Simulation& sim) const {
  if (step_.kind == StepKind::writeback) return "SRAM: every block of the kernel has finished";
  std::string tiles;
  if (auto it = loaded_.find(step_.block); it != loaded_.end())
    for (const auto& [t, l] : it->second)
      tiles += (tiles.empty() ? "" : ", ") + std::string(name(t)) + " rows " + range(l.row0, l.rows);
  const DeviceSpec& dev = sim.device();
  std::string out = wrap("SRAM of block " + std::to_string(step_.block) + ": " + (tiles.empty() ? "nothing loaded yet" : tiles),
                         style_, "", "  ");
  // The block reserves room for every tile it will use when it starts (for
  // flash2: Q, K and V in shared memory), so these figures are that room, not
  // the tiles loaded so far. Each "shared ... (p%)" stays on one line.
  auto figure = [](std::string_view what, std::int64_t used, std::int64_t capacity) {
    std::string s = std::string(what) + " " + with_commas(used) + " B of " + with_commas(capacity) + " B (" +
                    percent(used, capacity) + ")";
    std::replace(s.begin(), s.end(), ' ', '\x1f');  // wrap() keeps it whole
    return s;
  };
  out += "\n" + wrap("reserved for all its tiles, loaded or not: " +
                         figure("shared", step_.sram_bytes, dev.sram_bytes_per_block) + ", " +
                         figure("registers", step_.register_bytes, dev.register_bytes_per_block),
                     style_, "  ", "  ");
  return out;
}

std::string StepView::frame(const Simulation& sim) const {
  const Step& s = step_;
  const auto& kernels = sim.program().kernels;
  char when[32];
  std::snprintf(when, sizeof when, "%.3f us", s.start_s * 1e6);
  std::string out = style_.bold("step " + with_commas(count_) + " of " + with_commas(total_)) + " | kernel " +
                    std::to_string(s.kernel + 1) + "/" + std::to_string(kernels.size()) + " " +
                    std::string(kernels[static_cast<std::size_t>(s.kernel)].name) + " | " +
                    (s.kind == StepKind::writeback ? std::string("the L2")
                                                   : "block " + std::to_string(s.block) + " on SM " + std::to_string(s.sm)) +
                    " | " + when + "\n";
  out += wrap(describe(s), style_, "", "  ") + "\n\n";

  // The current (batch, head) first, then others with a tile in flight, as many as fit side by side.
  std::vector<std::int64_t> heads{s.bh};
  for (const auto& [block, t] : latest_)
    if (t.kb >= 0 && t.qb >= 0 && std::find(heads.begin(), heads.end(), t.bh) == heads.end()) heads.push_back(t.bh);
  std::vector<std::vector<std::string>> grids;
  int used = 0;
  for (std::int64_t bh : heads) {
    auto g = grid(sim, bh);
    int w = 0;
    for (const auto& line : g) w = std::max(w, display_width(line));
    if (!grids.empty() && used + 3 + w > style_.width) break;
    used += (grids.empty() ? 0 : 3) + w;
    for (auto& line : g) line += std::string(static_cast<std::size_t>(w - display_width(line)), ' ');
    grids.push_back(std::move(g));
  }
  std::size_t height = 0;
  for (const auto& g : grids) height = std::max(height, g.size());
  for (std::size_t i = 0; i < height; ++i) {
    std::string line = "  ";
    for (std::size_t k = 0; k < grids.size(); ++k) {
      const auto& g = grids[k];
      const int w = display_width(g[0]);
      line += (k ? "   " : "") + (i < g.size() ? g[i] : std::string(static_cast<std::size_t>(w), ' '));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  const std::size_t hidden = heads.size() - grids.size();
  out += style_.dim("  [#] this tile  [=] this row/col  [o] others  [x] done  [ ] to do" +
                    std::string(sim.workload().masked() ? "  [.] masked" : "")) +
         (hidden ? "  (+" + std::to_string(hidden) + " " + plural(static_cast<std::int64_t>(hidden), "head") + ")"
                 : "") +
         "\n\n";

  out += sram_line(sim) + "\n";
  const Traffic t = sim.ledger().hbm_total();
  const CacheTraffic c = sim.ledger().cache_total();
  out += "HBM  read " + with_commas(t.read_bytes) + " B, written " + with_commas(t.write_bytes) + " B   L2 hits " +
         with_commas(c.l2_hit_bytes) + " B\nDRAM read " + with_commas(c.dram_read_bytes) + " B, written " +
         with_commas(c.dram_write_bytes) + " B\n";
  const std::int64_t watched = sim.options().watch.row;
  const std::string row = "row " + std::to_string(watched) + " (Q block " + std::to_string(watched / sim.mapping().br) + ")";
  if (!sim.options().numerics) {
    out += style_.dim(row + ": m and l need values (this scenario counts only)");
  } else if (!row_seen_) {
    out += row + ": m = -inf, l = 0 (not reached yet)";
  } else {
    char ml[96];
    std::snprintf(ml, sizeof ml, ": m = %.4g, l = %.4g", static_cast<double>(row_m_), static_cast<double>(row_l_));
    out += row + ml + (row_step_ == count_ ? style_.highlight(" (changed at this step)")
                                           : " (since step " + with_commas(row_step_) + ")");
  }
  return out;
}

}  // namespace fasim::cli
