#include "sweep_options.hpp"

#include <charconv>
#include <optional>

#include "fasim/error.hpp"
#include "fasim/scenario.hpp"

namespace fasim::cli {

const AxisExample* axis_example(std::string_view flag) {
  static constexpr AxisExample kAxes[] = {
      {"--N", "512,1024", "512:16384:x2"},   {"--d", "64,128", "32:256:x2"},
      {"--batch", "1,4", "1:8:x2"},          {"--heads", "16,132", "8:128:+8"},
      {"--br", "64,128", "16:128:x2"},       {"--bc", "32,64", "16:128:x2"},
      {"--blocks-per-sm", "1,2", "1:4:+1"},  {"--algo", "flash1,flash2", ""},
      {"--dtype", "fp16,fp32", ""},          {"--l2", "cold,warm", ""},
      {"--device", "h100,h200", ""}};
  for (const AxisExample& a : kAxes)
    if (a.flag == flag) return &a;
  return nullptr;
}

void add_sweep_flags(CLI::App& sub, SweepArgs& a) {
  const char* ints = "1024 | 512,1024,4096 | 512:16384:x2 (geometric) | 16:128:+16 (arithmetic)";
  sub.add_option("--N", a.N, std::string("Sequence lengths: ") + ints + " (default 1024)");
  auto same = [](const char* flag) {  // "same syntax", with values of this flag's own kind
    const AxisExample* x = axis_example(flag);
    return "same syntax, e.g. " + std::string(x->list) + " or " + std::string(x->range);
  };
  sub.add_option("--d", a.d, "Head dimensions, " + same("--d") + " (default 64)");
  sub.add_option("--br", a.br, "Br values, " + same("--br") + " (default: Bc's values if --bc is given, else each point's default tiles, as in fasim run --help)");
  sub.add_option("--bc", a.bc, "Bc values, " + same("--bc") + " (default: Br's values if --br is given, else each point's default tiles)");
  sub.add_option("--batch", a.batch, "Batch sizes, " + same("--batch") + " (default 1)");
  sub.add_option("--heads", a.heads, "Head counts, " + same("--heads") + " (default 1)");
  sub.add_option("--blocks-per-sm", a.blocks_per_sm,
                 "Most blocks on one SM at once, " + same("--blocks-per-sm") + " (default: as many as fit)");
  sub.add_option("--algo", a.algo, "Algorithms, a comma list of " + std::string(kAlgoNames) + " (default flash2)");
  sub.add_option("--dtype", a.dtype, "Storage types: fp32,fp16,bf16 or any of them (default fp16)");
  sub.add_option("--device", a.device, "Devices: names or .toml paths, comma-separated (default h100)");
  sub.add_option("--scenario", a.scenario, "TOML file with the fixed settings; flags override it");
  sub.add_flag("--numerics", a.numerics, "Also compute values and their error (slower; default: count only)");
  sub.add_option("--out", a.out, "Write the rows to FILE (default: CSV on stdout)");
  sub.add_option("--format", a.format, "csv | jsonl (default: from --out's extension, else csv)");
  sub.add_option("--jobs", a.jobs,
                 "Points to run at once, one per core (default: the machine's cores); rows keep grid order")
      ->type_name("INT");
  sub.add_flag("--resume", a.resume,
               "Keep the points already in --out (from an interrupted run of the same sweep) and run the rest");
}

SweepSpec build_spec(const SweepArgs& a, const CLI::App& sub) {
  auto given = [&](const char* flag) { return sub.count(flag) > 0; };
  Scenario sc;
  if (given("--scenario")) sc = load_scenario(a.scenario);

  SweepSpec s;
  if (given("--device")) {
    for (const std::string& n : parse_name_list("--device", a.device)) s.devices.push_back(load_device(n));
  } else {
    s.devices.push_back(load_device(sc.device.value_or("h100")));
  }
  // Every setting of the scenario goes into the base point; the flags' axes
  // (and the scenario's values of them, when a flag is not given) vary on top.
  apply_scenario(sc, s.workload, s.mapping, s.options);
  const Workload& w = s.workload;
  s.algos = given("--algo") ? parse_algo_axis("--algo", a.algo) : std::vector{s.mapping.algo};
  s.dtypes = given("--dtype") ? parse_dtype_axis("--dtype", a.dtype) : std::vector{w.dtype};
  auto ints = [&](const char* flag, const std::string& text,
                  std::optional<std::int64_t> fallback) -> std::vector<std::int64_t> {
    if (given(flag)) return parse_int_axis(flag, text);
    if (fallback) return {*fallback};
    return {};
  };
  s.batch = ints("--batch", a.batch, w.batch);
  s.heads = ints("--heads", a.heads, w.heads);
  s.d = ints("--d", a.d, w.d);
  s.N = ints("--N", a.N, w.N);
  s.br = ints("--br", a.br, sc.br);  // neither given: default tiles per point
  s.bc = ints("--bc", a.bc, sc.bc);
  s.blocks_per_sm = ints("--blocks-per-sm", a.blocks_per_sm, s.mapping.blocks_per_sm);
  s.options.numerics = a.numerics;  // a scenario's numerics = true is for `run`; sweeps count only
  return s;
}

std::size_t parse_jobs(const SweepArgs& a, const CLI::App& sub, std::size_t fallback) {
  if (sub.count("--jobs") == 0) return fallback;
  std::size_t jobs = 0;
  const char* end = a.jobs.data() + a.jobs.size();
  const auto [ptr, ec] = std::from_chars(a.jobs.data(), end, jobs);
  if (ec != std::errc() || ptr != end || jobs < 1 || jobs > 1024)
    throw UserError("--jobs '" + a.jobs + "' is not a whole number from 1 to 1024; write e.g. --jobs 2");
  return jobs;
}

}  // namespace fasim::cli
