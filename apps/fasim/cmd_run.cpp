// `fasim run`: simulate one forward pass and print what it moved.
#include <cmath>
#include <iostream>
#include <memory>
#include <string_view>

#include "commands.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/report.hpp"
#include "fasim/tiling.hpp"
#include "fasim/trace.hpp"
#include "fasim/trace_writer.hpp"
#include "run_options.hpp"
#include "summary.hpp"

namespace fasim::cli {

namespace {
struct RunArgs {
  RunFlags flags;
  bool json = false;
  std::string trace, trace_format = "chrome";
};

// A run estimated to take longer than this says so first (estimated_seconds,
// tiling.hpp): a run of hours is otherwise hours of silence.
constexpr double kLongRunSeconds = 10;

// "40 seconds", "25 minutes", "7 hours", "3 days": roughly.
std::string roughly(double seconds) {
  auto n = [](double x, std::string_view unit) {
    const auto v = static_cast<std::int64_t>(std::llround(x));
    return std::to_string(v) + " " + plural(v, unit);
  };
  if (seconds < 100) return n(seconds, "second");
  if (seconds < 100 * 60) return n(seconds / 60, "minute");
  if (seconds < 48 * 3600) return n(seconds / 3600, "hour");
  return n(seconds / 86400, "day");
}

// One line on stderr before a long run: roughly how long, and what makes it shorter.
void warn_if_long(const Simulation& sim) {
  const RunSize size = estimate_run_size(sim.workload(), sim.mapping());
  const bool numerics = sim.options().numerics;
  const double seconds = estimated_seconds(size, numerics);
  if (seconds <= kLongRunSeconds) return;
  std::cerr << "fasim: warning: this run may take about " << roughly(seconds) << " (" << human_count(size.steps)
            << " steps" << (numerics ? ", with values" : "") << "); " << (numerics ? "--no-numerics, " : "")
            << "a smaller --N, --N-kv, --batch or --heads (or larger --br and --bc) makes it shorter\n";
}
}  // namespace

Action add_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Simulate one attention forward pass and print its traffic");
  add_run_flags(*sub, args->flags);
  sub->add_flag("--json", args->json, "Print one JSON object instead of the summary");
  sub->add_option("--trace", args->trace, "Write every step to FILE (Chrome trace: open in Perfetto)");
  sub->add_option("--trace-format", args->trace_format, "Trace format: chrome | jsonl | csv (default chrome)");

  return [args, sub] {
    const bool traced = file_flag_given(*sub, "--trace", args->trace, "run.json");
    if (!parse_trace_format(args->trace_format))
      throw UserError("unknown trace format '" + args->trace_format +
                      "'; use --trace-format chrome, jsonl or csv");
    if (sub->count("--trace-format") > 0 && !traced)
      throw UserError("--trace-format goes with --trace FILE; add --trace");
    const RunConfig c = resolve(args->flags);
    Simulation sim(c.device, c.workload, c.mapping, c.options);
    if (traced) {
      TraceWriter trace(args->trace, args->trace_format, sim);  // a bad path is an error, not a warning first
      warn_if_long(sim);
      while (sim.next()) trace.step(sim);
      trace.commit();
    } else {
      warn_if_long(sim);
      sim.run();
    }
    std::optional<NumericsResult> num;
    if (c.options.numerics) num = sim.numerics();
    if (args->json) {
      std::cout << report_json(sim, num).dump(2) << "\n";
    } else {
      print_summary(std::cout, sim, num);
      if (traced) std::cout << "trace       " << args->trace << " (" << args->trace_format << ")\n";
    }
    return 0;
  };
}

}  // namespace fasim::cli
