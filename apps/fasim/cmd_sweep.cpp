// `fasim sweep`: run a simulation at every point of a grid of settings and
// write one flat row per point (CSV or JSON lines), for `fasim plot` or a
// spreadsheet. The grid and the rows come from fasim/sweep.hpp, the flags
// from sweep_options.cpp.
//
// Nothing finished is lost: on Ctrl-C (or SIGTERM) the points finished so far
// are written, whole, and the sweep exits 130; `--resume` then runs only the
// missing points and writes the file again, in grid order.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/sweep.hpp"
#include "fasim/sweep_resume.hpp"
#include "sweep_options.hpp"
#include "sweep_runner.hpp"

namespace fasim::cli {

namespace {

// "[#####.....] 37/100 points  N=4096 d=128 flash2" (37 done, this one
// running), redrawn in place on a terminal, nothing otherwise; cleared at the
// end. A redraw is one short write: cheap next to even the smallest point.
class ProgressBar {
 public:
  explicit ProgressBar(const SweepSpec& spec) : spec_(spec), on_(isatty(STDERR_FILENO) == 1) {}

  void operator()(std::size_t done, std::size_t total, const SweepPoint& p) {
    if (!on_) return;
    constexpr std::size_t kWidth = 20;
    const std::size_t filled = total ? done * kWidth / total : kWidth;
    const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
    std::fprintf(stderr, "\r[%s] %zu/%zu points  %s\033[K", bar.c_str(), done, total, describe(spec_, p).c_str());
    if (done == total) clear();
    std::fflush(stderr);
  }
  void clear() {
    if (on_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  const SweepSpec& spec_;
  bool on_;
};

std::string points_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " point" : " points"); }

}  // namespace

Action add_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Simulate every point of a grid of settings; write one row of numbers per point (CSV or JSON lines)");
  add_sweep_flags(*sub, *a);
  sub->footer(
      "Points run in this order, the last varying fastest: device, algo, dtype, batch, heads, d, br, bc, N.\n"
      "Each row holds the settings and every number of `fasim run --json`, nested keys joined with '.'\n"
      "(workload.N, hbm.read_bytes, hbm.by_tensor.Q.read_bytes, ...). A point that fails (tiles that do\n"
      "not fit) gets an 'error' cell and the sweep goes on. Ctrl-C writes the points finished so far;\n"
      "run the same command with --resume to finish. Draw the rows with `fasim plot`.");

  return [a, sub] {
    const bool to_file = file_flag_given(*sub, "--out", a->out, "sweep.csv");
    std::optional<TableFormat> format = to_file ? table_format_for(a->out) : TableFormat::csv;
    if (sub->count("--format") > 0) {
      format = parse_table_format(a->format);
      if (!format) throw UserError("unknown format '" + a->format + "'; use --format csv or jsonl");
    }
    if (a->resume && !to_file)
      throw UserError("--resume needs --out FILE, the file of the interrupted sweep; add --out");
    const SweepSpec spec = build_spec(*a, *sub);
    const std::size_t jobs = parse_jobs(*a, *sub, default_jobs());
    const std::vector<SweepPoint> points = sweep_points(spec);  // too many points: say so before any file
    std::vector<std::optional<FlatRow>> rows(points.size());
    std::size_t resumed = 0;
    if (a->resume && std::filesystem::exists(a->out)) {
      rows = match_done_rows(spec, points, read_table(a->out), a->out);
      for (const auto& r : rows) resumed += r ? 1 : 0;
    }
    std::optional<AtomicFile> file;
    if (to_file) file.emplace(a->out);  // an unwritable path fails now, not after the sweep

    ProgressBar bar(spec);
    const StopSignals stop;  // from here Ctrl-C stops the sweep; finished rows are written below
    const bool complete = run_missing_points(spec, points, rows, bar, jobs);
    bar.clear();
    const SweepTable table = table_of(rows);
    if (!complete && table.size() == 0) {
      file.reset();  // removes the temporary
      std::cerr << "fasim: sweep interrupted before the first point finished; nothing written\n";
      std::_Exit(130);  // the abandoned point may still be running: leave without unwinding
    }
    std::size_t errors = 0;  // points that failed (tiles that do not fit, a size too large)
    for (std::size_t r = 0; r < table.size(); ++r) errors += table.at(r, "error").is_null() ? 0 : 1;
    if (complete && errors > 0 && errors == table.size()) {  // no point ran: a table of errors is no answer
      file.reset();  // removes the temporary; a file being resumed stays as it was
      throw UserError((table.size() == 1 ? std::string("the sweep's one point failed: ")
                                         : "all " + std::to_string(table.size()) + " points of the sweep failed; the first: ") +
                      table.text(0, "error"));
    }
    if (file) {
      write_table(file->stream(), table, *format);
      file->commit();
    } else {
      write_table(std::cout, table, *format);
    }
    if (!complete) {
      std::cout.flush();
      std::cerr << "fasim: sweep interrupted: " << table.size() << " of " << points_text(points.size())
                << " written to " << (file ? a->out : std::string("stdout"))
                << (file ? "; run the same command with --resume to finish\n"
                         : "; add --out FILE to keep the rows in a file that --resume can finish\n");
      std::cerr.flush();
      std::_Exit(130);
    }
    if (errors > 0) {  // some points ran: keep their rows, and say that the others are missing
      std::cout.flush();
      std::cerr << "fasim: warning: " << errors << " of " << points_text(table.size())
                << " failed; their rows hold an 'error' cell saying why and what to change\n";
    }
    if (!file) return 0;
    std::cout << "sweep: " << points_text(table.size());
    if (resumed > 0) std::cout << " (" << resumed << " already in " << a->out << ")";
    if (errors > 0) std::cout << " (" << errors << " with an error; see the 'error' column)";
    std::cout << " -> " << a->out << "\n";
    return 0;
  };
}

}  // namespace fasim::cli
