// `fasim plot`: draw an SVG figure from a sweep file (CSV or JSON lines), as
// `fasim sweep --out` writes it. The figures live in fasim/figures.hpp.
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/figures.hpp"

namespace fasim::cli {

namespace {
struct PlotArgs {
  std::string input, figure, out, device;
};
}  // namespace

Action add_plot(CLI::App& app) {
  auto a = std::make_shared<PlotArgs>();
  CLI::App* sub = app.add_subcommand("plot", "Draw an SVG figure from a sweep file (see `fasim sweep`)");
  sub->add_option("file", a->input, "Sweep file: .csv or .jsonl, as `fasim sweep --out` writes it")->required();
  sub->add_option("--figure", a->figure, "bytes-vs-n | block-size | roofline")->required();
  sub->add_option("--out", a->out, "Write the SVG to FILE (default: stdout)");
  sub->add_option("--device", a->device, "roofline: the device (name or .toml; default: the one in the rows)");
  sub->footer(
      "Figures:\n"
      "  bytes-vs-n  HBM bytes against N, one line per algorithm (log-log). Sweep e.g.\n"
      "              fasim sweep --N 512:16384:x2 --algo naive,flash1,flash2 --out n.csv\n"
      "  block-size  HBM bytes (and predicted time, if the sweep has it) against Bc or Br. Sweep e.g.\n"
      "              fasim sweep --N 4096 --algo flash1,flash2 --bc 16:256:x2 --br 64 --out bs.csv\n"
      "  roofline    the device's roofline with each run at its arithmetic intensity.");

  return [a] {
    const auto figure = parse_figure(a->figure);
    if (!figure)
      throw UserError("unknown figure '" + a->figure + "'; use --figure with one of " + std::string(kFigureNames));
    const SweepTable rows = read_table(a->input);
    const std::string svg = render_svg(make_figure(*figure, rows, a->input, a->device));
    if (a->out.empty()) {
      std::cout << svg;
      return 0;
    }
    AtomicFile file(a->out);
    file.stream() << svg;
    file.commit();
    std::cout << "plot: " << a->figure << " from " << a->input << " -> " << a->out << "\n";
    return 0;
  };
}

}  // namespace fasim::cli
