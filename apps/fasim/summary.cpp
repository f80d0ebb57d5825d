#include "summary.hpp"

#include <cstdio>
#include <string>

#include "fasim/format.hpp"
#include "fasim/report.hpp"

namespace fasim::cli {

namespace {

std::string percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

}  // namespace

void print_summary(std::ostream& os, const Simulation& sim, const std::optional<NumericsResult>& num) {
  const Workload& w = sim.workload();
  const Mapping& m = sim.mapping();
  const DeviceSpec& dev = sim.device();
  const Ledger& L = sim.ledger();
  const std::int64_t Tr = ceil_div(w.N, m.br), Tc = ceil_div(w.n_keys(), m.bc);

  os << "fasim run: " << name(m.algo) << " on " << dev.name << " (" << dev.description << ")\n";
  os << "  workload  batch " << w.batch << " x heads " << w.heads << ", N " << w.N << ", d " << w.d
     << ", " << name(w.dtype) << " (" << w.elem_bytes() << " B per element)\n";
  if (!w.plain() || m.splits > 0) {
    std::string v;
    auto add = [&v](const std::string& s) { v += (v.empty() ? "" : ", ") + s; };
    if (w.n_kv_heads() != w.heads)
      add(std::to_string(w.n_kv_heads()) + " K/V heads (" + (w.n_kv_heads() == 1 ? "MQA" : "GQA") + ", " +
          std::to_string(w.group()) + " query heads each)");
    if (w.n_keys() != w.N) add("N_kv " + std::to_string(w.n_keys()));
    if (w.window > 0) add("sliding window " + std::to_string(w.window));
    else if (w.causal) add("causal");
    if (w.page_size > 0) add("paged K/V, " + std::to_string(w.page_size) + " " + plural(w.page_size, "row") + " per page");
    if (m.splits > 0) add(std::to_string(m.splits) + (m.splits == 1 ? " split" : " splits"));
    os << "  variant   " << v << "\n";
  }
  os << "  tiles     Br " << m.br << ", Bc " << m.bc << ": " << Tr << " x " << Tc
     << " tiles per head\n";
  os << "  kernels  ";
  for (const Kernel& k : sim.program().kernels)
    os << " [" << k.name << ": " << k.grid << (k.grid == 1 ? " block]" : " blocks]");
  if (m.blocks_per_sm > 0)
    os << "\n  occupancy at most " << m.blocks_per_sm << (m.blocks_per_sm == 1 ? " block" : " blocks")
       << " per SM (--blocks-per-sm; a kernel that fits fewer keeps its own)";
  os << "\n\n";

  os << "HBM traffic (bytes between HBM and SRAM: the paper's \"HBM accesses\")\n";
  os << "  " << pad("tensor", 8, false) << pad("read", 20) << pad("written", 20) << "\n";
  for (TensorId t : kAllTensors) {
    const Traffic& x = L.hbm(t);
    if (x.total() == 0) continue;
    os << "  " << pad(std::string(name(t)), 8, false) << pad(with_commas(x.read_bytes), 20)
       << pad(with_commas(x.write_bytes), 20) << "\n";
  }
  const Traffic total = L.hbm_total();
  os << "  " << pad("total", 8, false) << pad(with_commas(total.read_bytes), 20)
     << pad(with_commas(total.write_bytes), 20) << "   (" << human_bytes(static_cast<double>(total.total()))
     << " moved)\n\n";

  const Flops& f = L.flops();
  char ai[32];
  std::snprintf(ai, sizeof ai, "%.1f", arithmetic_intensity(L));
  os << "FLOPs       matmul " << human_count(static_cast<double>(f.matmul)) << ", other "
     << human_count(static_cast<double>(f.other)) << " (of which exp/log "
     << human_count(static_cast<double>(f.exp)) << ")\n";
  os << "intensity   " << ai << " FLOP per HBM byte\n";
  os << "SRAM        peak " << with_commas(L.peak_sram_bytes()) << " B per block of "
     << with_commas(dev.sram_bytes_per_block) << " B ("
     << percent(static_cast<double>(L.peak_sram_bytes()), static_cast<double>(dev.sram_bytes_per_block)) << ")\n";
  os << "registers   peak " << with_commas(L.peak_register_bytes()) << " B per block of "
     << with_commas(dev.register_bytes_per_block) << " B ("
     << percent(static_cast<double>(L.peak_register_bytes()), static_cast<double>(dev.register_bytes_per_block))
     << ")\n";
  const CacheTraffic c = L.cache_total();
  os << "\nL2 and DRAM (" << (sim.options().l2 == L2Start::warm ? "warm" : "cold") << " L2 of "
     << human_bytes(static_cast<double>(dev.l2_bytes))
     << (dev.l2_partitions > 1 ? " in " + std::to_string(dev.l2_partitions) + " partitions" : std::string())
     << (sim.line_l2() ? ", line by line on the sets sampled (" + dev.l2_sampled_sets + ")"
        : dev.l2_ways > 0 ? ", " + std::to_string(dev.l2_ways) + "-way sets"
                          : std::string(", fully associative"))
     << ", LRU, write-back)\n";
  os << "  L2 reads    " << pad(with_commas(c.l2_read_bytes), 16) << " B, of which hits "
     << with_commas(c.l2_hit_bytes) << " B ("
     << percent(static_cast<double>(c.l2_hit_bytes), static_cast<double>(c.l2_read_bytes)) << ")\n";
  os << "  DRAM read   " << pad(with_commas(c.dram_read_bytes), 16) << " B\n";
  os << "  DRAM write  " << pad(with_commas(c.dram_write_bytes), 16) << " B, and "
     << with_commas(sim.l2_dirty_bytes()) << " B still dirty in L2 at the end\n";
  if (dev.l2_partitions > 1)  // an SM reaches far-homed data through a copy in its own partition
    os << "  L2 fabric   " << pad(with_commas(c.l2_fabric_bytes), 16)
       << " B between the partitions (sectors a copy lacked, and stores homed far)\n";
  if (sim.program().kernels.size() > 1) {  // where each kernel's bytes went
    os << "  " << pad("by kernel", 20, false) << pad("HBM read", 16) << pad("HBM written", 16) << pad("DRAM read", 16)
       << pad("DRAM written", 16) << "\n";
    const std::vector<KernelTraffic>& ks = L.kernels();
    for (std::size_t i = 0; i < ks.size() && i < sim.program().kernels.size(); ++i)
      os << "  " << pad(std::string(sim.program().kernels[i].name), 20, false)
         << pad(with_commas(ks[i].hbm.read_bytes), 16) << pad(with_commas(ks[i].hbm.write_bytes), 16)
         << pad(with_commas(ks[i].cache.dram_read_bytes), 16) << pad(with_commas(ks[i].cache.dram_write_bytes), 16)
         << "\n";
  }

  const TimeReport& t = sim.time();
  char line[160];
  std::snprintf(line, sizeof line, "\ntime        %s predicted (%s-bound), %.1f TFLOP/s, %.0f GB/s DRAM\n",
                micros(t.seconds, 3).c_str(), std::string(name(t.bound)).c_str(),
                t.seconds > 0 ? static_cast<double>(f.total()) / t.seconds / 1e12 : 0.0,
                t.seconds > 0 ? static_cast<double>(c.dram_read_bytes + c.dram_write_bytes) / t.seconds / 1e9 : 0.0);
  os << line;
  for (const KernelTime& k : t.kernels) {
    std::snprintf(line, sizeof line, "  %-22s %13s  %-7s  %lld %s, up to %lld per SM, %lld %s\n",
                  std::string(k.name).c_str(), micros(k.seconds(), 3).c_str(), std::string(name(k.bound)).c_str(),
                  static_cast<long long>(k.grid), plural(k.grid, "block").c_str(),
                  static_cast<long long>(k.blocks_per_sm), static_cast<long long>(k.waves),
                  plural(k.waves, "wave").c_str());
    os << line;
  }
  if (num) {
    os << "\nnumerics    max abs error " << sci(num->max_abs_error) << ", max rel error "
       << sci(num->max_rel_error) << " against an fp64 reference\n";
    const std::string of = " of " + with_commas(w.bh() * w.N * w.d) + " output values";
    if (num->overflowed > 0)
      os << "  warning   " << with_commas(num->overflowed) << of << " are NaN or Inf where the reference is finite\n"
         << "  cause     " << num->overflow_cause << "\n"
         << "  fix       " << num->overflow_fix << "\n";
    if (num->nonfinite_inputs > 0)
      os << "  inputs    " << with_commas(num->nonfinite_inputs) << " values of Q, K and V are NaN or Inf as stored in "
         << name(w.dtype) << "; " << with_commas(num->propagated) << of
         << " are NaN or Inf from them, as in the reference\n";
  } else {
    os << "\nnumerics    not computed (--no-numerics: counting only)\n";
  }
}

}  // namespace fasim::cli
