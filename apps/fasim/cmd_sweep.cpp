// `fasim sweep`: run a simulation at every point of a grid of settings and
// write one flat row per point (CSV or JSON lines), for `fasim plot` or a
// spreadsheet. The grid and the rows come from fasim/sweep.hpp.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/scenario.hpp"
#include "fasim/sweep.hpp"

namespace fasim::cli {

namespace {

struct SweepArgs {
  std::string N, d, br, bc, algo, dtype, device, batch, heads, scenario, out, format;
  bool numerics = false;
};

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
    if (done == total) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  const SweepSpec& spec_;
  bool on_;
};

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
  s.algos = given("--algo") ? parse_algo_axis("--algo", a.algo) : std::vector{sc.algo.value_or(Algo::flash2)};
  s.dtypes = given("--dtype") ? parse_dtype_axis("--dtype", a.dtype) : std::vector{sc.dtype.value_or(DType::fp16)};
  auto ints = [&](const char* flag, const std::string& text, const std::optional<std::int64_t>& from_file,
                  std::optional<std::int64_t> fallback) -> std::vector<std::int64_t> {
    if (given(flag)) return parse_int_axis(flag, text);
    if (from_file) return {*from_file};
    if (fallback) return {*fallback};
    return {};
  };
  s.batch = ints("--batch", a.batch, sc.batch, 1);
  s.heads = ints("--heads", a.heads, sc.heads, 1);
  s.d = ints("--d", a.d, sc.d, 64);
  s.N = ints("--N", a.N, sc.N, 1024);
  s.br = ints("--br", a.br, sc.br, std::nullopt);  // neither given: default tiles per point
  s.bc = ints("--bc", a.bc, sc.bc, std::nullopt);
  s.options.numerics = a.numerics;  // a scenario's numerics = true is for `run`; sweeps count only
  s.options.seed = sc.seed.value_or(1);
  return s;
}

}  // namespace

Action add_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Simulate every point of a grid of settings; write one row of numbers per point (CSV or JSON lines)");
  const char* ints = "1024 | 512,1024,4096 | 512:16384:x2 (geometric) | 16:128:+16 (arithmetic)";
  sub->add_option("--N", a->N, std::string("Sequence lengths: ") + ints + " (default 1024)");
  sub->add_option("--d", a->d, "Head dimensions, same syntax (default 64)");
  sub->add_option("--br", a->br, "Br values, same syntax (default: largest power of two <= 128 that fits)");
  sub->add_option("--bc", a->bc, "Bc values, same syntax (default: as Br)");
  sub->add_option("--batch", a->batch, "Batch sizes, same syntax (default 1)");
  sub->add_option("--heads", a->heads, "Head counts, same syntax (default 1)");
  sub->add_option("--algo", a->algo, "Algorithms: naive,flash1,flash2 or any of them (default flash2)");
  sub->add_option("--dtype", a->dtype, "Storage types: fp32,fp16,bf16 or any of them (default fp16)");
  sub->add_option("--device", a->device, "Devices: names or .toml paths, comma-separated (default h100)");
  sub->add_option("--scenario", a->scenario, "TOML file with the fixed settings; flags override it");
  sub->add_flag("--numerics", a->numerics, "Also compute values and their error (slower; default: count only)");
  sub->add_option("--out", a->out, "Write the rows to FILE (default: CSV on stdout)");
  sub->add_option("--format", a->format, "csv | jsonl (default: from --out's extension, else csv)");
  sub->footer(
      "Points run in this order, the last varying fastest: device, algo, dtype, batch, heads, d, br, bc, N.\n"
      "Each row holds the settings and every number of `fasim run --json`, nested keys joined with '.'\n"
      "(workload.N, hbm.read_bytes, hbm.by_tensor.Q.read_bytes, ...). A point that fails (tiles that do\n"
      "not fit) gets an 'error' cell and the sweep goes on. Draw the rows with `fasim plot`.");

  return [a, sub] {
    std::optional<TableFormat> format = a->out.empty() ? TableFormat::csv : table_format_for(a->out);
    if (sub->count("--format") > 0) {
      format = parse_table_format(a->format);
      if (!format) throw UserError("unknown format '" + a->format + "'; use --format csv or jsonl");
    }
    const SweepSpec spec = build_spec(*a, *sub);
    (void)sweep_points(spec);  // too many points: say so before creating any file
    std::optional<AtomicFile> file;
    if (!a->out.empty()) file.emplace(a->out);  // an unwritable path fails now, not after the sweep

    ProgressBar bar(spec);
    const SweepTable table =
        run_sweep(spec, [&](std::size_t done, std::size_t total, const SweepPoint& p) { bar(done, total, p); });
    if (!file) {
      write_table(std::cout, table, *format);
      return 0;
    }
    write_table(file->stream(), table, *format);
    file->commit();
    std::size_t errors = 0;
    for (std::size_t r = 0; r < table.size(); ++r) errors += table.at(r, "error").is_null() ? 0 : 1;
    std::cout << "sweep: " << table.size() << (table.size() == 1 ? " point" : " points");
    if (errors > 0) std::cout << " (" << errors << " with an error; see the 'error' column)";
    std::cout << " -> " << a->out << "\n";
    return 0;
  };
}

}  // namespace fasim::cli
