#include "fasim/report.hpp"

namespace fasim {

double arithmetic_intensity(const Ledger& ledger) {
  const std::int64_t bytes = ledger.hbm_total().total();
  return bytes > 0 ? static_cast<double>(ledger.flops().total()) / static_cast<double>(bytes) : 0.0;
}

nlohmann::json device_spec_json(const DeviceSpec& d) {
  // The device's figures, so lessons check a device figure as they check a
  // byte count: {{ device_spec.sm_count of NAME }}.
  const auto balance = [&](double rate) { return d.hbm_bandwidth > 0 ? rate / d.hbm_bandwidth : 0.0; };
  return {{"name", d.name},
          {"description", d.description},
          {"sm_count", d.sm_count},
          {"clock_hz", d.clock_hz},
          {"sram_bytes_per_sm", d.sram_bytes_per_sm},
          {"sram_bytes_per_block", d.sram_bytes_per_block},
          {"sram_bandwidth_per_sm", d.sram_bandwidth_per_sm},
          {"register_bytes_per_sm", d.register_bytes_per_sm},
          {"register_bytes_per_block", d.register_bytes_per_block},
          {"l2_bytes", d.l2_bytes},
          {"l2_line_bytes", d.l2_line_bytes},
          {"l2_sector_bytes", d.l2_sector_bytes},
          {"l2_partitions", d.l2_partitions},
          {"l2_ways", d.l2_ways},
          {"l2_first_wave_runs", d.l2_first_wave_runs},
          {"l2_small_grid_fill", d.l2_small_grid_fill},
          {"l2_sampled_sets", d.l2_sampled_sets},
          {"l2_bandwidth", d.l2_bandwidth},
          {"l2_latency_s", d.l2_latency_s},
          {"hbm_bytes", d.hbm_bytes},
          {"hbm_bandwidth", d.hbm_bandwidth},
          {"hbm_latency_s", d.hbm_latency_s},
          {"dram_background_write_rate", d.dram_background_write_rate},
          {"code_fetch_bytes",
           {{"naive", d.code_fetch.naive},
            {"flash1", d.code_fetch.flash1},
            {"flash2", d.code_fetch.flash2},
            {"flash2_mma", d.code_fetch.flash2_mma}}},
          {"matmul_flops", {{"fp32", d.matmul_flops_fp32}, {"fp16", d.matmul_flops_fp16}, {"bf16", d.matmul_flops_bf16}}},
          {"fp32_flops", d.fp32_flops},
          {"exp_rate", d.exp_rate},
          {"launch_overhead_s", d.launch_overhead_s},
          {"balance_point",
           {{"fp32", balance(d.matmul_flops_fp32)}, {"fp16", balance(d.matmul_flops_fp16)},
            {"bf16", balance(d.matmul_flops_bf16)}}}};
}

nlohmann::json report_json(const Simulation& sim, const std::optional<NumericsResult>& numerics) {
  using nlohmann::json;
  const Workload& w = sim.workload();
  const Mapping& m = sim.mapping();
  const Ledger& L = sim.ledger();
  json by_tensor = json::object();
  for (TensorId t : kAllTensors) {
    const Traffic& x = L.hbm(t);
    if (x.total() > 0)
      by_tensor[std::string(name(t))] = {{"read_bytes", x.read_bytes}, {"write_bytes", x.write_bytes}};
  }
  json kernels = json::array();
  for (std::size_t i = 0; i < sim.program().kernels.size(); ++i) {
    const Kernel& k = sim.program().kernels[i];
    json entry = {{"name", std::string(k.name)}, {"grid", k.grid}};
    if (i < L.kernels().size()) {  // what it moved (a kernel not yet run has nothing)
      const KernelTraffic& t = L.kernels()[i];
      entry["hbm"] = {{"read_bytes", t.hbm.read_bytes}, {"write_bytes", t.hbm.write_bytes}};
      entry["l2"] = {{"read_bytes", t.cache.l2_read_bytes},
                     {"write_bytes", t.cache.l2_write_bytes},
                     {"hit_bytes", t.cache.l2_hit_bytes},
                     {"fabric_bytes", t.cache.l2_fabric_bytes}};
      entry["dram"] = {{"read_bytes", t.cache.dram_read_bytes}, {"write_bytes", t.cache.dram_write_bytes}};
    }
    kernels.push_back(entry);
  }
  json j = {
      {"workload",
       {{"batch", w.batch}, {"heads", w.heads}, {"N", w.N}, {"d", w.d}, {"dtype", std::string(name(w.dtype))},
        {"kv_heads", w.n_kv_heads()}, {"N_kv", w.n_keys()}, {"causal", w.masked()}, {"window", w.window},
        {"page_size", w.page_size}}},
      {"mapping", {{"algo", std::string(name(m.algo))}, {"br", m.br}, {"bc", m.bc}, {"splits", m.splits},
                   {"blocks_per_sm", m.blocks_per_sm}}},
      {"device", sim.device().name},
      {"device_spec", device_spec_json(sim.device())},
      {"hbm",
       {{"read_bytes", L.hbm_total().read_bytes},
        {"write_bytes", L.hbm_total().write_bytes},
        {"by_tensor", by_tensor}}},
      {"flops", {{"matmul", L.flops().matmul}, {"other", L.flops().other}, {"exp", L.flops().exp}}},
      {"arithmetic_intensity", arithmetic_intensity(L)},
      {"sram",
       {{"peak_bytes_per_block", L.peak_sram_bytes()},
        {"capacity_bytes_per_block", sim.device().sram_bytes_per_block}}},
      {"registers",
       {{"peak_bytes_per_block", L.peak_register_bytes()},
        {"capacity_bytes_per_block", sim.device().register_bytes_per_block}}},
      {"kernels", kernels},
      {"steps", L.steps()},
  };
  const CacheTraffic c = L.cache_total();
  const std::int64_t dram_bytes = c.dram_read_bytes + c.dram_write_bytes;
  j["arithmetic_intensity_dram"] =
      dram_bytes > 0 ? static_cast<double>(L.flops().total()) / static_cast<double>(dram_bytes) : 0.0;
  j["l2"] = {{"read_bytes", c.l2_read_bytes},
             {"write_bytes", c.l2_write_bytes},
             {"hit_bytes", c.l2_hit_bytes},
             {"miss_bytes", c.l2_read_bytes - c.l2_hit_bytes},
             {"fabric_bytes", c.l2_fabric_bytes},
             {"start", sim.options().l2 == L2Start::warm ? "warm" : "cold"}};
  j["dram"] = {{"read_bytes", c.dram_read_bytes},
               {"write_bytes", c.dram_write_bytes},
               {"dirty_bytes_at_end", sim.l2_dirty_bytes()}};
  const TimeReport& t = sim.time();
  json kt = json::array();
  for (const KernelTime& k : t.kernels) {
    json util = json::object();
    for (int b = 0; b <= static_cast<int>(Bound::exp); ++b)
      util[std::string(name(static_cast<Bound>(b)))] = k.utilization(static_cast<Bound>(b));
    kt.push_back({{"name", std::string(k.name)}, {"seconds", k.seconds()}, {"bound", std::string(name(k.bound))},
                  {"grid", k.grid}, {"blocks_per_sm", k.blocks_per_sm}, {"waves", k.waves},
                  {"utilization", util}});
  }
  const double secs = t.seconds;
  j["time"] = {{"seconds", secs},
               {"cycles", secs * sim.device().clock_hz},
               {"bound", std::string(name(t.bound))},
               {"tflops", secs > 0 ? static_cast<double>(L.flops().total()) / secs / 1e12 : 0.0},
               {"dram_gbps", secs > 0 ? static_cast<double>(c.dram_read_bytes + c.dram_write_bytes) / secs / 1e9 : 0.0},
               {"hbm_request_gbps", secs > 0 ? static_cast<double>(L.hbm_total().total()) / secs / 1e9 : 0.0},
               {"kernels", kt},
               {"model", "cycle-approximate; see docs/timing-model.md"}};
  j["mapping"]["double_buffer"] = m.double_buffer;
  j["blocks_per_sm"] = sim.blocks_per_sm();
  if (numerics) {
    j["numerics"] = {{"max_abs_error", numerics->max_abs_error},
                     {"max_rel_error", numerics->max_rel_error},
                     {"reference", "fp64, same stored inputs"},
                     {"nonfinite_inputs", numerics->nonfinite_inputs},
                     {"propagated_values", numerics->propagated},
                     {"overflowed_values", numerics->overflowed}};
    if (numerics->overflowed > 0)
      j["numerics"]["overflow"] = {{"cause", numerics->overflow_cause}, {"fix", numerics->overflow_fix}};
  }
  return j;
}

}  // namespace fasim
