// libFuzzer target: the command line of `fasim run` / `fasim step` and
// `fasim sweep`, as main() parses it, then flag resolution (scenario, device,
// defaults, validation). The input is the argument list, one argument per
// line. Small shapes are then simulated with values and checked against the
// fp64 reference; larger ones stop after resolution, so every input is fast.
// Arguments with '/' are skipped: no device or scenario file is opened.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/simulation.hpp"
#include "fasim/sweep.hpp"
#include "fuzz_check.hpp"
#include "run_options.hpp"
#include "sweep_options.hpp"

namespace {

using fasim::fuzz::require;

constexpr std::size_t kMaxArgs = 48;

// Small enough to simulate with values in well under a millisecond or so.
bool small(const fasim::Workload& w) {
  return w.bh() <= 8 && w.N <= 256 && w.n_keys() <= 256 && w.d <= 128 &&
         w.bh() * w.N * w.n_keys() * w.d <= (std::int64_t{1} << 18);
}

void simulate_run(const fasim::cli::RunFlags& flags) {
  const fasim::cli::RunConfig c = fasim::cli::resolve(flags);
  if (!small(c.workload) || c.mapping.br > 4096 || c.mapping.bc > 4096) return;
  fasim::SimOptions o = c.options;
  o.numerics = true;
  fasim::Simulation sim(c.device, c.workload, c.mapping, o);
  sim.run();
  require(sim.ledger().hbm_total().total() > 0, "a run moves bytes");
  const fasim::NumericsResult r = sim.numerics();
  // Random N(0, 1) inputs: the error is rounding only (bf16 has 8 bits).
  require(std::isfinite(r.max_abs_error) && r.max_rel_error < 0.05, "the output matches the fp64 reference");
}

void simulate_sweep(const fasim::cli::SweepArgs& a, const CLI::App& sub) {
  const fasim::SweepSpec spec = fasim::cli::build_spec(a, sub);
  const std::vector<fasim::SweepPoint> points = fasim::sweep_points(spec);
  require(points.size() == fasim::sweep_size(spec), "every point of the grid is listed");
  if (points.empty()) return;
  const fasim::SweepPoint& p = points.front();
  (void)fasim::describe(spec, p);
  if (!small(p.workload) || p.br.value_or(0) > 4096 || p.bc.value_or(0) > 4096) return;
  const fasim::FlatRow row = fasim::run_point(spec, p);
  if (const nlohmann::json* e = row.find("error")) fasim::fuzz::check_one_line(e->get<std::string>());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args = {"fasim"};
  for (std::size_t start = 0; start <= text.size() && args.size() <= kMaxArgs;) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(start, end - start));
    if (args.back().find('/') != std::string::npos) return 0;
    start = end + 1;
  }
  if (args.size() > kMaxArgs) return 0;

  // As main() sets it up, with the commands whose flags are resolved here.
  CLI::App app{"fasim"};
  app.require_subcommand(1);
  fasim::cli::RunFlags run;
  CLI::App* run_cmd = app.add_subcommand("run", "one pass");
  fasim::cli::add_run_flags(*run_cmd, run);
  bool json = false;
  std::string trace, trace_format;
  run_cmd->add_flag("--json", json);
  run_cmd->add_option("--trace", trace);
  run_cmd->add_option("--trace-format", trace_format);
  fasim::cli::SweepArgs sweep;
  CLI::App* sweep_cmd = app.add_subcommand("sweep", "a grid");
  fasim::cli::add_sweep_flags(*sweep_cmd, sweep);

  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // main() prints "fasim: error: WHAT; run 'fasim CMD --help' for the options",
    // WHAT through one_line(): CLI11 quotes the arguments, control characters too.
    require(e.get_exit_code() == 0 || !std::string(e.what()).empty(), "a command-line error says what is wrong");
    return 0;
  }
  try {
    if (run_cmd->parsed()) simulate_run(run);
    if (sweep_cmd->parsed()) simulate_sweep(sweep, *sweep_cmd);
  } catch (const fasim::UserError& e) {
    fasim::fuzz::check_one_line(e.what());
  }
  return 0;
}
