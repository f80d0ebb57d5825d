// `fasim step`: walk the simulation one Step at a time. On a terminal, Enter
// advances; otherwise (or with --all) every step is printed at once.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "fasim/format.hpp"
#include "run_options.hpp"

namespace fasim::cli {

namespace {

struct StepArgs {
  RunFlags flags;
  bool all = false;
};

std::string tile_of(const Step& s) {
  if (s.qb < 0) return "";
  if (s.kb < 0) return "tile (" + std::to_string(s.qb) + ", -)";
  return "tile (" + std::to_string(s.qb) + ", " + std::to_string(s.kb) + ")";
}

std::string describe(const Step& s) {
  std::string shape = std::to_string(s.rows) + "x" + std::to_string(s.cols);
  switch (s.kind) {
    case StepKind::load:
      return "load " + std::string(name(s.tensor)) + " " + shape + "  +" + with_commas(s.hbm_read_bytes) +
             " B read (L2 hit " + with_commas(s.l2_hit_bytes) + " B, DRAM " + with_commas(s.dram_read_bytes) + " B)";
    case StepKind::store:
      return "store " + std::string(name(s.tensor)) + " " + shape + "  +" + with_commas(s.hbm_write_bytes) +
             " B written (to L2)";
    default: {
      std::string out = std::string(s.what) + "  " + shape;
      if (s.flops_matmul > 0) out += "  " + with_commas(s.flops_matmul) + " matmul FLOP";
      if (s.flops_other > 0) out += "  " + with_commas(s.flops_other) + " other";
      return out;
    }
  }
}

// The L2's step at a kernel's end: no SM, block or tile; DRAM, not HBM, so far.
void print_writeback(const Step& s, std::int64_t index, const Ledger& L) {
  char head[128];
  std::snprintf(head, sizeof head, "#%-6lld %9.3f us  %-37s ", static_cast<long long>(index), s.start_s * 1e6, "L2");
  std::cout << head << "end of kernel: "
            << (s.dram_write_bytes == 0 ? "no L2 write-backs left to count"
                                        : "L2 write-backs to DRAM no step counted yet  +" + with_commas(s.dram_write_bytes) + " B")
            << "\n";
  const CacheTraffic c = L.cache_total();
  std::cout << "        DRAM so far: read " << with_commas(c.dram_read_bytes) << " B, written "
            << with_commas(c.dram_write_bytes) << " B\n";
}

void print_step(const Step& s, std::int64_t index, const Ledger& L, std::int64_t row) {
  if (s.kind == StepKind::writeback) return print_writeback(s, index, L);
  char head[128];
  std::snprintf(head, sizeof head, "#%-6lld %9.3f us  SM %-3lld block %-5lld bh %-3lld %-13s ",
                static_cast<long long>(index), s.start_s * 1e6, static_cast<long long>(s.sm),
                static_cast<long long>(s.block), static_cast<long long>(s.bh), tile_of(s).c_str());
  std::cout << head << describe(s) << "\n";
  // What the block reserved when it started, for every tile it uses (flash2:
  // Q, K and V in SRAM), loaded or not: not the size of this step's tile.
  std::cout << "        reserved for all its tiles: SRAM " << with_commas(s.sram_bytes) << " B, registers "
            << with_commas(s.register_bytes)
            << " B | HBM so far: read " << with_commas(L.hbm_total().read_bytes) << " B, written "
            << with_commas(L.hbm_total().write_bytes) << " B";
  if (s.has_row) {
    char ml[96];
    std::snprintf(ml, sizeof ml, " | row %lld: m = %.4g, l = %.4g", static_cast<long long>(row),
                  static_cast<double>(s.row_m), static_cast<double>(s.row_l));
    std::cout << ml;
  }
  std::cout << "\n";
}

}  // namespace

Action add_step(CLI::App& app) {
  auto args = std::make_shared<StepArgs>();
  CLI::App* sub = app.add_subcommand("step", "Show the simulation one step at a time (Enter advances)");
  add_run_flags(*sub, args->flags);
  sub->add_flag("--all", args->all, "Print every step without waiting");

  return [args] {
    const RunConfig c = resolve(args->flags);
    Simulation sim(c.device, c.workload, c.mapping, c.options);
    const bool interactive = !args->all && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    std::cout << name(c.mapping.algo) << " on " << c.device.name << ": N " << c.workload.N << ", d "
              << c.workload.d << ", " << name(c.workload.dtype) << ", Br " << c.mapping.br << ", Bc "
              << c.mapping.bc << "; watching row " << c.options.watch.row << " of head 0\n";
    if (interactive) std::cout << "Enter: next step   a: all the rest   q: quit\n";
    std::int64_t index = 0;
    std::size_t kernel = sim.program().kernels.size();
    bool rest = !interactive;
    while (sim.next()) {
      const Step& s = sim.step();
      if (static_cast<std::size_t>(s.kernel) != kernel) {
        kernel = static_cast<std::size_t>(s.kernel);
        const Kernel& k = sim.program().kernels[kernel];
        std::cout << "== kernel " << kernel + 1 << "/" << sim.program().kernels.size() << ": " << k.name << " ("
                  << k.grid << " " << plural(k.grid, "block") << ") ==\n";
      }
      print_step(s, index++, sim.ledger(), c.options.watch.row);
      if (!rest) {
        std::cout << "> " << std::flush;
        std::string line;
        if (!std::getline(std::cin, line) || line == "q") break;
        if (line == "a") rest = true;
      }
    }
    const Traffic t = sim.ledger().hbm_total();
    std::cout << (sim.done() ? "done: " : "stopped: ") << index << " "
              << plural(static_cast<std::int64_t>(index), "step") << ", HBM read " << with_commas(t.read_bytes)
              << " B, written " << with_commas(t.write_bytes) << " B\n";
    return 0;
  };
}

}  // namespace fasim::cli
