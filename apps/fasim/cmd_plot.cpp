// `fasim plot`: draw an SVG figure from a sweep file (CSV or JSON lines), as
// `fasim sweep --out` writes it. The figures live in fasim/figures.hpp.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/figures.hpp"

namespace fasim::cli {

namespace {
struct PlotArgs {
  std::vector<std::string> inputs;
  std::string figure, out, device;
};

// The rows of every file, in order, as one table.
SweepTable read_tables(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return read_table(paths[0]);
  SweepTable all;
  for (const std::string& p : paths) {
    const SweepTable t = read_table(p);
    const std::vector<std::string> columns = t.columns();
    for (std::size_t r = 0; r < t.size(); ++r) {
      FlatRow row;
      for (const std::string& c : columns)
        if (!t.at(r, c).is_null()) row.set(c, t.at(r, c));
      all.add(row);
    }
  }
  return all;
}
}  // namespace

Action add_plot(CLI::App& app) {
  auto a = std::make_shared<PlotArgs>();
  CLI::App* sub = app.add_subcommand("plot", "Draw an SVG figure from a sweep file (see `fasim sweep`)");
  sub->add_option("files", a->inputs,
                  "Sweep files: .csv or .jsonl, as `fasim sweep --out` writes them (several: their rows together)")
      ->required();
  sub->add_option("--figure", a->figure, "bytes-vs-n | block-size | roofline | predicted-vs-measured | gpu-bench")->required();
  sub->add_option("--out", a->out, "Write the SVG to FILE (default: stdout)");
  sub->add_option("--device", a->device, "roofline: the device (name or .toml; default: the one in the rows)");
  sub->footer(
      "Figures:\n"
      "  bytes-vs-n  HBM bytes against N, one line per algorithm (log-log). Sweep e.g.\n"
      "              fasim sweep --N 512:16384:x2 --algo naive,flash1,flash2 --out n.csv\n"
      "  block-size  HBM bytes (and predicted time, if the sweep has it) against Bc or Br. Sweep e.g.\n"
      "              fasim sweep --N 4096 --algo flash1,flash2 --bc 16:256:x2 --br 64 --out bs.csv\n"
      "  roofline    the device's roofline with each run at its arithmetic intensity.\n"
      "  predicted-vs-measured\n"
      "              fasim's predictions against GPU measurements, from the long-form CSVs of\n"
      "              fasim compare --sweep ... --out FILE.csv (e.g. docs/results/*.csv): bytes and time.\n"
      "  gpu-bench   TFLOP/s against N for fasim's kernels and PyTorch's, a panel per d and mask,\n"
      "              from the CSV scripts/gpu-bench.sh writes (docs/results/*-gpu-bench.csv).");

  return [a, sub] {
    const bool to_file = file_flag_given(*sub, "--out", a->out, "figure.svg");
    const auto figure = parse_figure(a->figure);
    if (!figure)
      throw UserError("unknown figure '" + a->figure + "'; use --figure with one of " + std::string(kFigureNames));
    const SweepTable rows = read_tables(a->inputs);
    const std::string origin = a->inputs.size() == 1 ? a->inputs[0] : a->inputs[0] + " and " +
                                                                           std::to_string(a->inputs.size() - 1) + " more";
    const std::string svg = render_svg(make_figure_panels(*figure, rows, origin, a->device));
    if (!to_file) {
      std::cout << svg;
      return 0;
    }
    AtomicFile file(a->out);
    file.stream() << svg;
    file.commit();
    std::cout << "plot: " << a->figure << " from " << origin << " -> " << a->out << "\n";
    return 0;
  };
}

}  // namespace fasim::cli
