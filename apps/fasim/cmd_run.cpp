// `fasim run`: simulate one forward pass and print what it moved.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "fasim/error.hpp"
#include "fasim/report.hpp"
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
      TraceWriter trace(args->trace, args->trace_format, sim);
      while (sim.next()) trace.step(sim);
      trace.commit();
    } else {
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
