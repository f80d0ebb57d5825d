// `fasim compare`: the simulator's prediction (counting only) beside the GPU's
// measurement of the same configuration, one row per quantity: HBM requests
// (the kernel's own counters; must be exact), L2 reads and writes the SMs
// asked for, DRAM reads and writes (CUPTI), and time (median of unprofiled
// runs). `--sweep` runs every point of a grid and writes long-form CSV.
// `--causal` compares the causal kernels (one point at a time: the sweep CSV
// has no causal column).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "compare_recorded.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/format.hpp"
#include "fasim/simulation.hpp"
#include "fasim/sweep.hpp"
#include "fasim/tiling.hpp"
#include "run_options.hpp"
#include "sweep_options.hpp"

#if FASIM_HAVE_CUDA
#include "fasim/cuda/measure.hpp"
#endif

namespace fasim::cli {

// Defined in cmd_gpu.cpp.
void require_gpu();
RunConfig resolve_for_gpu(const RunFlags& f, std::string& note);

namespace {

struct CompareArgs {
  // Axes: one value each, or (with --sweep) lists and ranges as `fasim sweep` takes them.
  std::string algo, dtype, N, d, batch, heads, br, bc, l2, blocks_per_sm;
  std::string device, scenario, out, recorded, misses;
  std::uint64_t seed = 0;
  bool no_numerics = false, double_buffer = false, json = false, sweep = false, causal = false;
  int runs = 20;
  int counter_runs = 1;
  int placements = 1;
};

/// The metrics of a comparison, in fidelity's Metric order, with table labels
/// (their CSV names are name(Metric)).
struct MetricDef {
  Metric id;
  const char* label;  // table
};
constexpr MetricDef kMetrics[] = {
    {Metric::hbm_read_bytes, "HBM read bytes (requests)"}, {Metric::hbm_write_bytes, "HBM write bytes (requests)"},
    {Metric::l2_read_bytes, "L2 read bytes"},               {Metric::l2_write_bytes, "L2 write bytes"},
    {Metric::dram_read_bytes, "DRAM read bytes"},           {Metric::dram_write_bytes, "DRAM write bytes"},
    {Metric::dram_write_drained_bytes, "DRAM written, L2 drained"}, {Metric::time_s, "time (s)"}};

/// Where m is in kMetrics, in a Comparison's rows and in MetricValues: all three are in Metric order.
constexpr std::size_t at(Metric m) { return static_cast<std::size_t>(m); }

constexpr bool in_metric_order() {
  for (std::size_t i = 0; i < std::size(kMetrics); ++i)
    if (at(kMetrics[i].id) != i) return false;
  return std::size(kMetrics) == kMetricCount;
}
static_assert(in_metric_order(), "kMetrics must list every Metric in enum order: rows are indexed by at(Metric)");

struct Row {
  std::string key;            // the CSV / JSON name: name(Metric), or l2_fabric_bytes
  const char* label = "";     // the table's
  bool seconds = false;       // the time row (else bytes)
  double predicted = 0;
  std::optional<double> measured;  // unset: counters unavailable
  bool exact_required = false;     // HBM rows: must be equal
  std::optional<double> min, max;  // over the counter ranges or the timed runs
  bool exact() const { return measured && *measured == predicted; }
  std::optional<double> error_pct() const {
    if (!measured || *measured == 0) return std::nullopt;
    return (predicted - *measured) / *measured * 100;
  }
};

// One value of each axis for a point; resolve() reads them through RunFlags
// (it asks the app which flags were given, and they have the same names here).
struct Point {
  std::string algo, dtype, l2;
  std::int64_t N = 0, d = 0, batch = 0, heads = 0, br = 0, bc = 0, blocks_per_sm = 0;
};

// Every point of the grid (one point without --sweep). Axes not given get a
// placeholder that resolve() ignores. Order: algo, dtype, batch, heads, d, br,
// bc, blocks per SM, N, l2 (the last varies fastest).
std::vector<Point> grid(const CompareArgs& a, const CLI::App& sub) {
  auto given = [&](const char* flag) { return sub.count(flag) > 0; };
  auto ints = [&](const char* flag, const std::string& text) -> std::vector<std::int64_t> {
    return given(flag) ? parse_int_axis(flag, text) : std::vector<std::int64_t>{0};
  };
  std::vector<std::string> algos{""}, dtypes{""}, l2s{""};
  if (given("--algo")) {
    algos.clear();
    for (Algo x : parse_algo_axis("--algo", a.algo)) algos.emplace_back(name(x));
  }
  if (given("--dtype")) {
    dtypes.clear();
    for (DType x : parse_dtype_axis("--dtype", a.dtype)) dtypes.emplace_back(name(x));
  }
  if (given("--l2")) {
    l2s = parse_name_list("--l2", a.l2);
    for (const std::string& s : l2s)
      if (s != "cold" && s != "warm") throw UserError("unknown L2 start '" + s + "'; use --l2 cold or --l2 warm");
  }
  const auto N = ints("--N", a.N), d = ints("--d", a.d), batch = ints("--batch", a.batch),
             heads = ints("--heads", a.heads), br = ints("--br", a.br), bc = ints("--bc", a.bc),
             per_sm = ints("--blocks-per-sm", a.blocks_per_sm);
  if (!a.sweep) {
    const std::pair<const char*, std::size_t> counts[] = {
        {"--algo", algos.size()}, {"--dtype", dtypes.size()}, {"--l2", l2s.size()},    {"--N", N.size()},
        {"--d", d.size()},        {"--batch", batch.size()},  {"--heads", heads.size()}, {"--br", br.size()},
        {"--bc", bc.size()},      {"--blocks-per-sm", per_sm.size()}};
    for (const auto& [flag, count] : counts)
      if (count != 1)
        throw UserError(std::string(flag) + " has " + std::to_string(count) +
                        " values; add --sweep to compare every point (CSV), or give one value");
  }
  std::vector<Point> points;
  for (const auto& al : algos)
    for (const auto& dt : dtypes)
      for (auto b : batch)
        for (auto h : heads)
          for (auto dd : d)
            for (auto r : br)
              for (auto c : bc)
                for (auto k : per_sm)
                  for (auto n : N)
                    for (const auto& l : l2s) {
                      points.push_back({al, dt, l, n, dd, b, h, r, c, k});
                      if (points.size() > kMaxSweepPoints)
                        throw UserError("the sweep has more than " + std::to_string(kMaxSweepPoints) +
                                        " points; use fewer values");
                    }
  return points;
}

#if FASIM_HAVE_CUDA


RunFlags flags_for(const CompareArgs& a, CLI::App* sub, const Point& p) {
  RunFlags f;
  f.app = sub;
  f.algo = p.algo;
  f.dtype = p.dtype;
  f.l2 = p.l2;
  f.N = p.N;
  f.d = p.d;
  f.batch = p.batch;
  f.heads = p.heads;
  f.br = p.br;
  f.bc = p.bc;
  f.blocks_per_sm = p.blocks_per_sm;
  f.device = a.device;
  f.scenario = a.scenario;
  f.seed = a.seed;
  f.no_numerics = a.no_numerics;
  f.double_buffer = a.double_buffer;
  f.causal = a.causal;
  return f;
}

struct Comparison {
  RunConfig config;
  std::string note;
  cuda::Measurement measured;
  std::vector<Row> rows;  // the CSV metrics, in Metric order
  Row fabric;             // bytes between the L2 halves (lts__t_sectors_srcunit_ltcfabric)
  double predicted_seconds = 0;
  double predicted_background_write_bytes = 0;           ///< of the predicted DRAM writes: the GPU's own
  double predicted_background_write_expected_bytes = 0;  ///< of the predicted drained writes: the GPU's own
  double predicted_code_fetch_bytes = 0;                 ///< of the predicted DRAM reads: the kernels' code
  std::string predicted_bound;
  std::string predicted_occupancy;  ///< blocks per SM of each simulated kernel, "2" or "4, 8, 2"
  const Row& row(Metric m) const { return rows[at(m)]; }
  bool hbm_exact() const { return row(Metric::hbm_read_bytes).exact() && row(Metric::hbm_write_bytes).exact(); }
};

Comparison compare_point(const RunFlags& f, int runs, int counter_runs, int placements) {
  Comparison cmp;
  cmp.config = resolve_for_gpu(f, cmp.note);
  const RunConfig& c = cmp.config;
  validate(c.workload, c.mapping, c.device);
  Simulation sim(c.device, c.workload, c.mapping,
                 {.numerics = false, .seed = c.options.seed, .l2 = c.options.l2,
                  .compute = cuda_compute_model(c.workload, c.mapping)});
  sim.run();
  cuda::MeasureOptions options;
  options.timed_runs = runs;
  options.counter_runs = counter_runs;
  options.placements = placements;
  options.check = c.options.numerics;
  cmp.measured = cuda::measure(c.device, c.workload, c.mapping, c.options.l2, c.options.seed, options);
  const cuda::Measurement& m = cmp.measured;

  const Traffic own = m.own_total();
  const MetricValues p = predicted_metrics(sim);
  auto row = [&p](Metric id, std::optional<double> measured, bool exact_required) {
    Row r;
    r.key = name(id);
    r.label = kMetrics[at(id)].label;
    r.seconds = id == Metric::time_s;
    r.predicted = p[at(id)];
    r.measured = measured;
    r.exact_required = exact_required;
    return r;
  };
  // A counter row: the median range's value, and the least and most of all ranges.
  auto counted = [&m](Row r, double (*get)(const cuda::HwCounters&)) {
    if (!m.hw) return r;
    r.measured = get(*m.hw);
    for (const cuda::HwCounters& h : m.hw_runs) {
      r.min = std::min(r.min.value_or(get(h)), get(h));
      r.max = std::max(r.max.value_or(get(h)), get(h));
    }
    return r;
  };
  auto hw = [&](Metric id, double (*get)(const cuda::HwCounters&)) { return counted(row(id, std::nullopt, false), get); };
  Row time = row(Metric::time_s, m.time.median_s, false);
  time.min = m.time.min_s;
  time.max = m.time.max_s;
  cmp.rows = {row(Metric::hbm_read_bytes, static_cast<double>(own.read_bytes), true),
              row(Metric::hbm_write_bytes, static_cast<double>(own.write_bytes), true),
              hw(Metric::l2_read_bytes, [](const cuda::HwCounters& h) { return h.l2_read_bytes(); }),
              hw(Metric::l2_write_bytes, [](const cuda::HwCounters& h) { return h.l2_write_bytes(); }),
              hw(Metric::dram_read_bytes, [](const cuda::HwCounters& h) { return h.dram_read_bytes; }),
              hw(Metric::dram_write_bytes, [](const cuda::HwCounters& h) { return h.dram_write_bytes; }),
              hw(Metric::dram_write_drained_bytes, [](const cuda::HwCounters& h) { return h.dram_write_drained_bytes; }),
              time};
  // Not one of the CSV metrics: the table and --json only.
  Row fabric;
  fabric.key = "l2_fabric_bytes";
  fabric.label = "L2 fabric bytes";
  fabric.predicted = static_cast<double>(sim.ledger().cache_total().l2_fabric_bytes);
  cmp.fabric = counted(fabric, [](const cuda::HwCounters& h) { return h.l2_fabric_bytes(); });
  cmp.predicted_seconds = sim.time().seconds;
  cmp.predicted_background_write_bytes = background_write_bytes(sim);
  cmp.predicted_background_write_expected_bytes = background_write_expected_bytes(sim);
  cmp.predicted_code_fetch_bytes = code_fetch_bytes(sim);
  cmp.predicted_bound = std::string(name(sim.time().bound));
  for (const KernelTime& k : sim.time().kernels)
    cmp.predicted_occupancy += (cmp.predicted_occupancy.empty() ? "" : ", ") + std::to_string(k.blocks_per_sm);
  return cmp;
}

// DRAM bytes read in each placement of the buffers (the median of its
// ranges), MB, one decimal: which pages give which count. Empty for one.
std::string placement_reads_text(const cuda::Measurement& m) {
  if (m.placements < 2 || m.hw_runs.empty()) return {};
  const std::size_t per = m.hw_runs.size() / static_cast<std::size_t>(m.placements);
  std::string out = "DRAM read in each placement, MB:";
  for (std::size_t k = 0; k < static_cast<std::size_t>(m.placements); ++k) {
    std::vector<double> v;
    for (std::size_t i = 0; i < per; ++i) v.push_back(m.hw_runs[k * per + i].dram_read_bytes);
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.1f", cuda::median(std::move(v)) / 1e6);
    out += buf;
  }
  if (m.placements_released > 0)
    out += " (" + std::to_string(m.placements_released) +
           " earlier placements freed for want of memory: their pages may have come back)";
  return out;
}

std::string show(const Row& r, double v) {
  if (r.seconds) return micros(v, 3);
  return with_commas(static_cast<std::int64_t>(std::llround(v)));
}

std::string error_text(const Row& r) {
  if (!r.measured) return "n/a";
  if (r.exact_required) {
    if (r.exact()) return "exact";
    const double diff = r.predicted - *r.measured;
    return (diff > 0 ? "+" : "") + with_commas(static_cast<std::int64_t>(diff)) + " B DIFFERS";
  }
  const auto e = r.error_pct();
  if (!e) return r.predicted == 0 ? "exact" : "n/a (measured 0)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", *e);
  return buf;
}

void print_table(std::ostream& os, const Comparison& cmp) {
  const RunConfig& c = cmp.config;
  const Workload& w = c.workload;
  const cuda::Measurement& m = cmp.measured;
  const Row& time = cmp.row(Metric::time_s);
  const Row& read = cmp.row(Metric::dram_read_bytes);
  const Row& written = cmp.row(Metric::dram_write_bytes);
  const Row& drained = cmp.row(Metric::dram_write_drained_bytes);
  os << "fasim compare: " << name(c.mapping.algo) << " " << name(w.dtype) << ", batch " << w.batch << " x heads "
     << w.heads << ", N " << w.N << ", d " << w.d << (w.causal ? ", causal" : "") << ", Br " << c.mapping.br
     << ", Bc " << c.mapping.bc << ", L2 " << cuda::l2_start_name(m.l2)
     << (c.mapping.blocks_per_sm > 0
             ? ", at most " + std::to_string(c.mapping.blocks_per_sm) + " " + plural(c.mapping.blocks_per_sm, "block") +
                   " per SM"
             : "")
     << "\n";
  os << "  predicted  fasim on " << c.device.name << " (" << c.device.description << "), counting only, "
     << cmp.predicted_bound << "-bound, " << cmp.predicted_occupancy << " per SM\n";
  os << "  measured   " << m.gpu.description << ", driver " << m.gpu.driver << ", kernel "
     << static_cast<int>(m.version) << " (" << cuda::name(m.version) << ")"
     << (m.blocks_per_sm.empty() ? std::string() : ", " + cuda::occupancy_text(m, c.mapping)) << "\n";
  if (!cmp.note.empty()) os << "  " << cmp.note << "\n";
  os << "\n  " << pad("quantity", 28, false) << pad("predicted", 20) << pad("measured", 20) << pad("error", 18) << "\n";
  auto line = [&os](const Row& r) {
    os << "  " << pad(r.label, 28, false) << pad(show(r, r.predicted), 20)
       << pad(r.measured ? show(r, *r.measured) : "n/a", 20) << pad(error_text(r), 18) << "\n";
  };
  for (const Row& r : cmp.rows) line(r);
  line(cmp.fabric);
  os << "\n  error = (predicted - measured) / measured. HBM: the kernel's own counters, which must equal the\n"
        "  simulator's exactly. L2: sectors between the SMs and L2 x 32 B (l1tex__m_xbar2l1tex/l1tex2xbar). DRAM:\n"
        "  dram__bytes; written data still in L2 at the end is in neither, except in \"DRAM written, L2 drained\",\n"
        "  which adds what a read-only pass over 2x the L2 after the kernel writes back. The predicted reads include the\n"
        "  kernels' code a cold run fetches ("
     << with_commas(static_cast<std::int64_t>(std::llround(cmp.predicted_code_fetch_bytes)))
     << " B; docs/results/code-fetch-2026-11-29.md), and the predicted writes the GPU's background\n"
        "  writes ("
     << with_commas(static_cast<std::int64_t>(std::llround(cmp.predicted_background_write_bytes))) << " B: [hbm] "
        "background_write_mib_per_s x predicted time, in whole\n  256 KiB pieces; the drained row takes the expected value, "
     << with_commas(static_cast<std::int64_t>(std::llround(cmp.predicted_background_write_expected_bytes))) << " B).\n"
        "  L2 fabric: sectors one L2 half read or wrote in the other x 32 B (lts__t_sectors_srcunit_ltcfabric);\n"
        "  no bar, a check of the copy rule (docs/results/fabric-compare-2026-11-24.md). Time: median of "
     << m.time.runs << " unprofiled runs\n  (min " << show(time, m.time.min_s) << ", max "
     << show(time, m.time.max_s) << ").\n";
  if (!m.hw) os << "  hardware counters unavailable: " << m.hw_unavailable << "\n";
  if (m.hw_runs.size() > 1)
    os << "  Counters: the median of " << m.hw_runs.size() << " ranges"
       << (m.placements > 1 ? " in " + std::to_string(m.placements) + " placements of the buffers" : std::string())
       << "; DRAM read " << show(read, *read.min) << " to " << show(read, *read.max) << " B, written "
       << show(written, *written.min) << " to " << show(written, *written.max) << " B, drained "
       << show(drained, *drained.min) << " to " << show(drained, *drained.max) << " B.\n";
  if (const std::string each = placement_reads_text(m); !each.empty()) os << "  " << each << "\n";
  if (m.checked) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "  GPU output: max abs error %.2e, max rel error %.2e against an fp64 reference\n",
                  m.max_abs_error, m.max_rel_error);
    os << buf;
  }
}

nlohmann::json comparison_json(const Comparison& cmp, const std::string& date) {
  const RunConfig& c = cmp.config;
  const cuda::Measurement& m = cmp.measured;
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&rows](const Row& r) {
    nlohmann::json j = {{"metric", r.key}, {"quantity", r.label}, {"predicted", r.predicted}};
    j["measured"] = r.measured ? nlohmann::json(*r.measured) : nlohmann::json(nullptr);
    const auto e = r.error_pct();
    j["error_pct"] = e ? nlohmann::json(*e) : nlohmann::json(nullptr);
    if (r.exact_required) j["exact"] = r.exact();
    if (r.min) j["measured_min"] = *r.min;  // over the counter ranges, or the timed runs
    if (r.max) j["measured_max"] = *r.max;
    rows.push_back(j);
  };
  for (const Row& r : cmp.rows) add(r);
  add(cmp.fabric);
  return {{"device", c.device.name},
          {"gpu", m.gpu.name},
          {"driver", m.gpu.driver},
          {"date", date},
          {"workload",
           {{"batch", c.workload.batch}, {"heads", c.workload.heads}, {"N", c.workload.N}, {"d", c.workload.d},
            {"dtype", std::string(name(c.workload.dtype))}, {"causal", c.workload.causal}}},
          {"mapping",
           {{"algo", std::string(name(c.mapping.algo))},
            {"br", c.mapping.br},
            {"bc", c.mapping.bc},
            {"blocks_per_sm", c.mapping.blocks_per_sm}}},
          {"kernel", {{"version", static_cast<int>(m.version)}, {"name", std::string(cuda::name(m.version))}}},
          {"l2_mode", std::string(cuda::l2_start_name(m.l2))},
          {"hbm_exact", cmp.hbm_exact()},
          {"predicted_bound", cmp.predicted_bound},
          {"predicted_background_write_bytes", cmp.predicted_background_write_bytes},
          {"predicted_background_write_expected_bytes", cmp.predicted_background_write_expected_bytes},
          {"predicted_code_fetch_bytes", cmp.predicted_code_fetch_bytes},
          {"rows", rows},
          {"measurement", cuda::to_json(m)}};
}

void write_csv_rows(std::ostream& os, const Comparison& cmp, const std::string& date) {
  const std::string prefix = recorded_csv_key(cmp.measured.gpu.name, cmp.measured.gpu.driver, date,
                                              cmp.config.workload, cmp.config.mapping, cmp.measured.l2);
  for (const Row& r : cmp.rows)
    os << prefix << "," << r.key << "," << csv_number(r.predicted) << "," << (r.measured ? csv_number(*r.measured) : "")
       << "," << (r.min ? csv_number(*r.min) : "") << "," << (r.max ? csv_number(*r.max) : "") << ","
       << recorded_csv_occupancy(cmp.config.mapping) << "\n";
}

int run_sweep(const CompareArgs& a, CLI::App* sub, const std::vector<Point>& points) {
  std::optional<AtomicFile> file;
  if (!a.out.empty()) file.emplace(a.out);  // an unwritable path fails now, before any GPU work
  std::ostream& os = file ? file->stream() : std::cout;
  os << recorded_csv_header() << "\n";
  const std::string date = utc_date();
  int status = 0;
  std::size_t done = 0, skipped = 0;
  for (const Point& p : points) {
    ++done;
    const RunFlags f = flags_for(a, sub, p);
    try {
      const Comparison cmp = compare_point(f, a.runs, a.counter_runs, a.placements);
      write_csv_rows(os, cmp, date);
      const auto t = cmp.row(Metric::time_s).error_pct();
      char line[64];
      std::snprintf(line, sizeof line, "time %+.1f%%", t ? *t : 0.0);
      std::cerr << "[" << done << "/" << points.size() << "] " << describe(cmp.config.workload, cmp.config.mapping, cmp.config.options.l2) << ": HBM "
                << (cmp.hbm_exact() ? "exact" : "DIFFERS") << ", " << line
                << (cmp.measured.hw ? "" : ", no hardware counters") << "\n";
      if (const std::string each = placement_reads_text(cmp.measured); !each.empty())
        std::cerr << "  " << each << "\n";
      if (!cmp.hbm_exact() || !cmp.measured.hw) status = 1;
    } catch (const UserError& e) {  // a point this GPU or kernel cannot run: say so, go on
      ++skipped;
      std::cerr << "[" << done << "/" << points.size() << "] skipped: " << e.what() << "\n";
    }
  }
  if (file) file->commit();
  if (skipped == points.size()) throw UserError("no point of the sweep could run (see the lines above)");
  if (skipped > 0) {  // a sweep with holes is not the sweep asked for: say so, and do not exit 0
    std::cerr << "fasim compare: " << skipped << " of " << points.size()
              << " points skipped (reasons above); the CSV holds the other " << points.size() - skipped
              << "; give tiles that fit (--br, --bc) to run them\n";
    status = 1;
  }
  return status;
}

#endif  // FASIM_HAVE_CUDA

}  // namespace

Action add_compare(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* sub = app.add_subcommand(
      "compare", "Predict with the simulator and measure on the GPU, side by side: HBM, L2, DRAM bytes and time");
  auto ints = [](const char* flag) {  // each axis its own values: --d 64,128, not sequence lengths
    const AxisExample* x = axis_example(flag);
    return "; with --sweep a list or range, e.g. " + std::string(x->list) + " or " + std::string(x->range);
  };
  sub->add_option("--algo", a->algo, "Algorithm: naive | flash1 | flash2 (default flash2); with --sweep a list");
  sub->add_option("--N", a->N, std::string("Sequence length N (default 1024)") + ints("--N"));
  sub->add_option("--d", a->d, std::string("Head dimension d (default 64)") + ints("--d"));
  sub->add_option("--batch", a->batch, std::string("Batch size (default 1)") + ints("--batch"));
  sub->add_option("--heads", a->heads, std::string("Heads (default 1)") + ints("--heads"));
  sub->add_option("--dtype", a->dtype, "Storage type: fp32 | fp16 | bf16 (default fp16); with --sweep a list");
  sub->add_option("--br", a->br,
                  std::string("Br, query rows per tile (default: Bc if --bc is given; else the largest power of two <= 128 that fits, at most the query rows rounded up to a power of two; flash1: the paper's min(Bc, d))") + ints("--br"));
  sub->add_option("--bc", a->bc,
                  std::string("Bc, key/value rows per tile (default: Br if --br is given; else as Br's default, with the keys in place of N; flash1: the paper's ceil(M / 4d), at most the keys rounded up to a power of two)") + ints("--bc"));
  sub->add_option("--blocks-per-sm", a->blocks_per_sm,
                  std::string("At most this many blocks on one SM, in the simulator and on the GPU (default: as "
                              "many as fit)") + ints("--blocks-per-sm"));
  sub->add_option("--device", a->device, "Simulated device: name or .toml (default: the profile of this GPU)");
  sub->add_option("--scenario", a->scenario, "TOML file with the same settings; flags override it");
  sub->add_option("--seed", a->seed, "Seed of the random inputs (default 1)")->check(whole_number<std::uint64_t>());
  sub->add_flag("--no-numerics", a->no_numerics, "Do not check the GPU's output against the fp64 reference");
  sub->add_option("--l2", a->l2, "L2 at the start: cold (flushed) | warm (default cold); with --sweep a list");
  sub->add_flag("--double-buffer", a->double_buffer, "Simulate loads of the next tile overlapping compute (SRAM holds both copies)");
  sub->add_flag("--causal", a->causal, "Causal mask: query i sees keys j <= i (not with --sweep)");
  sub->add_flag("--json", a->json, "Print one JSON object (not with --sweep; with --recorded, the fit)");
  sub->add_flag("--sweep", a->sweep, "Compare every point of the grid the lists and ranges span; write long-form CSV");
  sub->add_option("--out", a->out,
                  "With --sweep: write the CSV to FILE (default: stdout). With --recorded: write the points "
                  "again, today's predictions in place of the recorded ones");
  sub->add_option("--recorded", a->recorded,
                  "Predict a recorded run (long-form CSV from --sweep) again; no GPU needed. The device is --device, "
                  "else NAME-measured.toml beside NAME-sweep.csv. --algo, --dtype, --batch, --heads, --N, --d, "
                  "--br, --bc, --l2, --blocks-per-sm (one value each) pick points; --json prints the fit as JSON");
  sub->add_option("--misses", a->misses, "With --recorded: write the points outside their bars to this CSV");
  sub->add_option("--runs", a->runs, "Timed runs per point, 20 to 100000; the time is their median (default 20)")
      ->check(in_range(20, 100000));
  sub->add_option("--counter-runs", a->counter_runs,
                  "Profiled ranges per point (L2 as --l2 before each); the counters are their median, and --sweep "
                  "writes the least and most too (1 to 100; default 1)")
      ->check(in_range(1, 100));
  sub->add_option("--placements", a->placements,
                  "Allocate the buffers this many times, each after a 2 MiB larger pad (other physical pages), and "
                  "take --counter-runs ranges in each; the counters are the median of all (1 to 64; default 1)")
      ->check(in_range(1, 64));
  sub->footer(
      "Rows: HBM read/write bytes (the kernel's own counters; must equal the simulator exactly, else\n"
      "exit 1), L2 read/write bytes (CUPTI l1tex__m_xbar2l1tex_read / l1tex2xbar_write sectors x 32 B),\n"
      "DRAM read/write bytes (dram__bytes), DRAM written with L2 drained (the writes plus what a\n"
      "read-only pass over 2x the L2 after the kernel writes back), time (median of unprofiled runs),\n"
      "and L2 fabric bytes (sectors between the two L2 halves x 32 B; table and --json only).\n"
      "error = (predicted - measured) / measured.\n"
      "CSV columns (--sweep): device, driver, date, algo, dtype, batch, heads, N, d, br, bc, l2_mode,\n"
      "metric, predicted, measured, measured_min, measured_max, blocks_per_sm; metric is one of\n"
      "hbm_read_bytes, hbm_write_bytes, l2_read_bytes, l2_write_bytes, dram_read_bytes,\n"
      "dram_write_bytes, dram_write_drained_bytes, time_s; min and max over the counter ranges\n"
      "(counters) or timed runs (time); blocks_per_sm as --blocks-per-sm gave it, empty when not given.\n"
      "Near the L2's size the GPU's DRAM bytes depend on the buffers' physical pages: give\n"
      "--placements 8 (or 32) to see by how much (docs/results/h200-2026-11-23-flash1-placement.md).\n"
      "Exit 0: HBM exact everywhere (with --recorded: the points were predicted again); 1: a\n"
      "difference, no counters, a sweep point skipped, or a GPU failure; 2: bad input, or no GPU to\n"
      "run on (no NVIDIA driver, or a build without CUDA).");

  return [a, sub]() -> int {
    const bool misses = file_flag_given(*sub, "--misses", a->misses, "misses.csv");
    const bool to_file = file_flag_given(*sub, "--out", a->out, "compare.csv");
    if (file_flag_given(*sub, "--recorded", a->recorded, "docs/results/NAME-sweep.csv")) {
      if (a->sweep) throw UserError("--recorded predicts a recorded run again; leave out --sweep");
      if (a->causal)
        throw UserError("--causal does not go with --recorded (recorded sweeps are not causal); drop --causal");
      // Flags of a GPU run or of the simulated mapping that a recorded run
      // fixes: repredict() reads each point's settings from the file alone.
      for (const char* flag : {"--double-buffer", "--scenario", "--seed", "--no-numerics", "--runs", "--counter-runs",
                               "--placements"})
        if (sub->count(flag) > 0)
          throw UserError(std::string(flag) + " does not go with --recorded (the recorded file fixes the run); drop it");
      RecordedSelection sel;
      sel.csv = a->recorded;
      sel.device = a->device;
      const std::pair<const char*, const std::string*> axes[] = {
          {"--algo", &a->algo}, {"--dtype", &a->dtype}, {"--batch", &a->batch}, {"--heads", &a->heads},
          {"--N", &a->N},       {"--d", &a->d},         {"--br", &a->br},       {"--bc", &a->bc},
          {"--l2", &a->l2},     {"--blocks-per-sm", &a->blocks_per_sm}};
      for (const auto& [flag, value] : axes) {
        if (sub->count(flag) == 0) continue;
        if (const std::size_t cut = value->find_first_of(",:"); cut != std::string::npos)  // a list or range
          throw UserError(std::string(flag) + " " + *value + " is several values, but with --recorded each flag "
                          "picks points by one value; give one (e.g. " + flag + " " + value->substr(0, cut) +
                          "), or leave " + flag + " out for all points");
        sel.filters.emplace_back(flag, *value);
      }
      return compare_recorded(sel, misses ? a->misses : "", to_file ? a->out : "", a->json);
    }
    if (misses) throw UserError("--misses goes with --recorded FILE.csv");
    if (a->json && a->sweep) throw UserError("--json and --sweep do not go together; --sweep writes CSV");
    if (to_file && !a->sweep)
      throw UserError("--out goes with --sweep or --recorded; without them the table goes to stdout");
    if (a->causal && a->sweep)
      throw UserError("--causal does not go with --sweep (the sweep CSV has no causal column); compare causal "
                      "points one at a time, without --sweep");
    const std::vector<Point> points = grid(*a, *sub);  // bad flags: exit 2 before anything runs
    require_gpu();
#if FASIM_HAVE_CUDA
    if (a->sweep) return run_sweep(*a, sub, points);
    const Comparison cmp = compare_point(flags_for(*a, sub, points.front()), a->runs, a->counter_runs, a->placements);
    if (a->json)
      std::cout << comparison_json(cmp, utc_date()).dump(2) << "\n";
    else
      print_table(std::cout, cmp);
    if (!cmp.hbm_exact()) {
      std::cerr << "fasim: error: the kernel's own HBM counters differ from the simulator's Ledger\n";
      return 1;
    }
    return cmp.measured.hw ? 0 : 1;
#else
    (void)points;
    return 2;
#endif
  };
}

}  // namespace fasim::cli
