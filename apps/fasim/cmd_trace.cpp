// `fasim trace --html FILE`: simulate one forward pass (the flags of
// `fasim run`) and write the trace viewer page with its trace inside: one
// HTML file that steps through the run in a browser, offline.
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/trace_page.hpp"
#include "fasim/trace_writer.hpp"
#include "run_options.hpp"

namespace fasim::cli {

namespace {
struct TraceArgs {
  RunFlags flags;
  std::string html;
  std::int64_t max_steps = 200'000;
};
}  // namespace

Action add_trace(CLI::App& app) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* sub = app.add_subcommand(
      "trace", "Write a run's trace into a web page that steps through it (opens offline, from file://)");
  add_run_flags(*sub, args->flags);
  sub->add_option("--html", args->html, "Write the viewer page, with the trace inside, to FILE")->required();
  sub->add_option("--max-steps", args->max_steps,
                  "Refuse runs of more steps than this: the page holds every step (default 200000)");
  sub->footer("The page shows the Q x K tile grid, what is in SRAM, the HBM, L2 and DRAM counters and the\n"
              "running m and l of --row, with play, pause, step and speed. Keep runs small enough to\n"
              "follow: tens to thousands of steps (e.g. --N 256 --d 64 --br 32 --bc 32).");

  return [args] {
    if (args->max_steps <= 0)
      throw UserError("--max-steps must be positive, got " + std::to_string(args->max_steps) + "; e.g. --max-steps 500000");
    const RunConfig c = resolve(args->flags);
    Simulation sim(c.device, c.workload, c.mapping, c.options);
    TraceWriter page(args->html, make_trace_page_sink, sim);
    while (sim.next()) {
      if (page.steps() == args->max_steps)
        throw UserError("the run has more than " + with_commas(args->max_steps) +
                        " steps, too many for one page; use a smaller shape (--N, --heads) or larger tiles "
                        "(--br, --bc), or raise --max-steps");
      page.step(sim);
    }
    page.commit();
    std::error_code ec;
    const auto size = std::filesystem::file_size(args->html, ec);
    std::cout << "trace: " << with_commas(page.steps()) << " steps of " << name(c.mapping.algo) << " (N "
              << c.workload.N << ", d " << c.workload.d << ", Br " << c.mapping.br << ", Bc " << c.mapping.bc
              << ") -> " << args->html;
    if (!ec) std::cout << " (" << human_bytes(static_cast<double>(size)) << ")";
    std::cout << "; open it in a browser\n";
    return 0;
  };
}

}  // namespace fasim::cli
