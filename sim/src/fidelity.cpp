#include "fasim/fidelity.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "fasim/atomic_file.hpp"
#include "fasim/block_placement.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/input_file.hpp"

namespace fasim {

namespace {

constexpr const char* kMetricNames[kMetricCount] = {
    "hbm_read_bytes",   "hbm_write_bytes",          "l2_read_bytes", "l2_write_bytes", "dram_read_bytes",
    "dram_write_bytes", "dram_write_drained_bytes", "time_s"};
constexpr const char* kHeader = "device,driver,date,algo,dtype,batch,heads,N,d,br,bc,l2_mode,metric,predicted,measured";
constexpr const char* kSpreadColumns = ",measured_min,measured_max";  // optional: runs with --counter-runs
constexpr const char* kOccupancyColumn = ",blocks_per_sm";  // optional, after them: --blocks-per-sm (empty: none)

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(line);
  while (std::getline(in, item, ',')) out.push_back(trim(item));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// "hbm_read_bytes, ..., time_s": what a metric column may hold.
std::string metric_list() {
  std::string out;
  for (const char* m : kMetricNames) out += (out.empty() ? "" : ", ") + std::string(m);
  return out;
}

}  // namespace

const char* name(Metric m) { return kMetricNames[static_cast<std::size_t>(m)]; }

std::optional<Metric> parse_metric(const std::string& s) {
  for (std::size_t i = 0; i < kMetricCount; ++i)
    if (s == kMetricNames[i]) return static_cast<Metric>(i);
  return std::nullopt;
}

double background_write_expected_bytes(const Simulation& sim) {
  return sim.device().dram_background_write_rate * sim.time().seconds;
}

double background_write_bytes(const Simulation& sim) {
  // Pieces come at a steady pace (an idle 100 ms range counted 7 in each of 5
  // tries), so a range of time t sees floor(t / pace) or one more, the more
  // often the larger the fraction; the median of several ranges, which is
  // what is recorded, is the nearer whole number.
  return std::round(background_write_expected_bytes(sim) / kBackgroundPieceBytes) * kBackgroundPieceBytes;
}

double code_fetch_bytes(const Simulation& sim) {
  if (sim.options().l2 != L2Start::cold) return 0;
  const CodeFetch& code = sim.device().code_fetch;
  switch (sim.options().compute) {
    case ComputeModel::ideal: return 0;
    case ComputeModel::cuda_mma: return code.flash2_mma;
    case ComputeModel::cuda_simt: break;
  }
  switch (sim.mapping().algo) {
    case Algo::naive: return code.naive;
    case Algo::flash1: return code.flash1;
    case Algo::flash2: return code.flash2;
    case Algo::decode: return 0;  // no CUDA kernel of its own
  }
  return 0;
}

MetricValues predicted_metrics(const Simulation& sim) {
  const Traffic hbm = sim.ledger().hbm_total();
  const CacheTraffic c = sim.ledger().cache_total();
  const double dram_read = static_cast<double>(c.dram_read_bytes) + code_fetch_bytes(sim);
  const double dram_written = static_cast<double>(c.dram_write_bytes) + background_write_bytes(sim);
  // Whatever is still dirty goes to DRAM once the drain after the kernel evicts it.
  const double drained = static_cast<double>(c.dram_write_bytes) + static_cast<double>(sim.l2_dirty_bytes()) +
                         background_write_expected_bytes(sim);
  return {static_cast<double>(hbm.read_bytes),  static_cast<double>(hbm.write_bytes),
          static_cast<double>(c.l2_read_bytes), static_cast<double>(c.l2_write_bytes),
          dram_read,                            dram_written,
          drained,                              sim.time().seconds};
}

double bar_pct(Metric m) {
  switch (m) {
    case Metric::hbm_read_bytes:
    case Metric::hbm_write_bytes: return 0;
    case Metric::time_s: return 25;
    default: return 10;
  }
}

double error_pct(double predicted, double measured) {
  if (measured == 0) return predicted == 0 ? 0 : std::numeric_limits<double>::infinity();
  return (predicted - measured) / measured * 100;
}

std::string describe(const Workload& w, const Mapping& m, L2Start l2) {
  return std::string(name(m.algo)) + " " + std::string(name(w.dtype)) + " B=" + std::to_string(w.batch) +
         " H=" + std::to_string(w.heads) + " N=" + std::to_string(w.N) + " d=" + std::to_string(w.d) +
         " Br=" + std::to_string(m.br) + " Bc=" + std::to_string(m.bc) + " L2 " +
         (l2 == L2Start::warm ? "warm" : "cold") +
         (m.blocks_per_sm > 0 ? " at most " + std::to_string(m.blocks_per_sm) + " per SM" : "");
}

std::string describe(const RecordedPoint& p) { return describe(p.workload, p.mapping, p.l2); }

std::string recorded_csv_header() { return std::string(kHeader) + kSpreadColumns + kOccupancyColumn; }

std::string recorded_csv_occupancy(const Mapping& m) {
  return m.blocks_per_sm > 0 ? std::to_string(m.blocks_per_sm) : std::string();
}

std::string recorded_csv_key(const std::string& device, const std::string& driver, const std::string& date,
                             const Workload& w, const Mapping& m, L2Start l2) {
  return csv_cell(device) + "," + csv_cell(driver) + "," + date + "," + std::string(name(m.algo)) + "," +
         std::string(name(w.dtype)) + "," + std::to_string(w.batch) + "," + std::to_string(w.heads) + "," +
         std::to_string(w.N) + "," + std::to_string(w.d) + "," + std::to_string(m.br) + "," + std::to_string(m.bc) +
         "," + (l2 == L2Start::warm ? "warm" : "cold");
}

std::vector<RecordedPoint> read_recorded_csv(const std::string& path) {
  std::istringstream in(read_input_file(path, "recorded run", "check the path"));
  std::string line;
  std::getline(in, line);
  const bool occupancy = trim(line) == recorded_csv_header();
  const bool spread = occupancy || trim(line) == std::string(kHeader) + kSpreadColumns;
  if (trim(line) != kHeader && !spread)
    throw UserError(path + ":1: not a recorded run: the header must be " + std::string(kHeader) + " (then " +
                    std::string(kSpreadColumns + 1) + " if the run has them, then " + std::string(kOccupancyColumn + 1) + ")" +
                    "; give the CSV that `fasim compare --sweep --out FILE.csv` writes");
  const std::size_t fields = occupancy ? 18 : spread ? 17 : 15;
  std::vector<RecordedPoint> points;
  std::map<std::string, std::size_t> index;  // point key -> position
  for (int lineno = 2; std::getline(in, line); ++lineno) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> f = split(line);
    const std::string where = path + ":" + std::to_string(lineno) + ": ";
    if (f.size() != fields)
      throw UserError(where + "expected " + std::to_string(fields) + " fields, found " + std::to_string(f.size()) +
                      "; fix the row");
    auto integer = [&](const std::string& s, const char* what) {
      try {
        std::size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used == s.size() && v > 0) return static_cast<std::int64_t>(v);
      } catch (const std::exception&) {
      }
      throw UserError(where + what + " '" + s + "' is not a positive whole number; fix the row");
    };
    auto number = [&](const std::string& s, const char* what) -> std::optional<double> {
      if (s.empty()) return std::nullopt;
      try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size() && std::isfinite(v) && v >= 0) return v;
      } catch (const std::exception&) {
      }
      throw UserError(where + what + " '" + s + "' is not a number >= 0; fix the row");
    };
    const std::string point_key = f[0] + "," + f[1] + "," + f[2] + "," + f[3] + "," + f[4] + "," + f[5] + "," + f[6] + "," +
                                  f[7] + "," + f[8] + "," + f[9] + "," + f[10] + "," + f[11] +
                                  (occupancy ? "," + f[17] : std::string());
    auto [it, fresh] = index.try_emplace(point_key, points.size());
    if (fresh) {
      RecordedPoint p;
      p.device = f[0], p.driver = f[1], p.date = f[2];
      p.where = path + ":" + std::to_string(lineno);
      const auto algo = parse_algo(f[3]);
      if (!algo) throw UserError(where + "unknown algorithm '" + f[3] + "'; use one of " + std::string(kAlgoNames));
      const auto dtype = parse_dtype(f[4]);
      if (!dtype) throw UserError(where + "unknown dtype '" + f[4] + "'; use fp32, fp16 or bf16");
      if (f[11] != "cold" && f[11] != "warm")
        throw UserError(where + "unknown l2_mode '" + f[11] + "'; write cold or warm");
      p.mapping.algo = *algo;
      p.workload.dtype = *dtype;
      p.workload.batch = integer(f[5], "batch");
      p.workload.heads = integer(f[6], "heads");
      p.workload.N = integer(f[7], "N");
      p.workload.d = integer(f[8], "d");
      p.mapping.br = integer(f[9], "br");
      p.mapping.bc = integer(f[10], "bc");
      p.l2 = f[11] == "warm" ? L2Start::warm : L2Start::cold;
      if (occupancy && !f[17].empty()) p.mapping.blocks_per_sm = integer(f[17], "blocks_per_sm");
      points.push_back(std::move(p));
    }
    RecordedPoint& p = points[it->second];
    const auto metric = parse_metric(f[12]);
    if (!metric) throw UserError(where + "unknown metric '" + f[12] + "'; use one of " + metric_list());
    const auto m = static_cast<std::size_t>(*metric);
    if (p.measured[m] || p.predicted[m])
      throw UserError(where + "metric " + f[12] + " appears twice for this point; keep one of the two rows");
    p.predicted[m] = number(f[13], "predicted");
    p.measured[m] = number(f[14], "measured");
    if (spread) {
      p.measured_min[m] = number(f[15], "measured_min");
      p.measured_max[m] = number(f[16], "measured_max");
    }
  }
  if (points.empty()) throw UserError(path + ": no rows; record a run with `fasim compare --sweep`");
  return points;
}

ComputeModel cuda_compute_model(const Workload& w, const Mapping& m) {
  auto in = [](std::int64_t x) { return x == 64 || x == 128; };
  const bool mma = m.algo == Algo::flash2 && w.dtype != DType::fp32 && in(m.br) && in(m.bc) && in(w.d);
  return mma ? ComputeModel::cuda_mma : ComputeModel::cuda_simt;
}

std::vector<Reprediction> repredict(const std::vector<RecordedPoint>& points, const DeviceSpec& device,
                                    unsigned jobs) {
  std::vector<Reprediction> out(points.size());
  std::vector<std::exception_ptr> failed(points.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&] {  // each point's slot of `out` is written by the one worker that took it
    for (std::size_t i; !stop && (i = next++) < points.size();) {
      const RecordedPoint& p = points[i];
      try {
        const ComputeModel compute = cuda_compute_model(p.workload, p.mapping);
        Simulation sim(device, p.workload, p.mapping, {.numerics = false, .l2 = p.l2, .compute = compute});
        sim.run();
        std::vector<std::int64_t> grids;
        for (const Kernel& k : sim.program().kernels) grids.push_back(k.grid);
        out[i] = {&p,
                  predicted_metrics(sim),
                  std::string(name(sim.time().bound)),
                  sim.ledger().cache_total().l2_fabric_bytes,
                  placement_name(device, compute, grids),
                  code_fetch_bytes(sim),
                  background_write_bytes(sim),
                  background_write_expected_bytes(sim)};
      } catch (const UserError& e) {
        // The simulator's fix names the flags of a run (--br 64 ...); a
        // recorded row has none. Keep the problem, name the row, and give
        // a fix that fits a recorded file.
        const std::string what = e.what();
        const std::string problem = what.substr(0, what.find("; "));
        failed[i] = std::make_exception_ptr(
            UserError(p.where + ": " + problem + "; this row cannot be predicted on the device profile " +
                      device.name + "; predict it with the profile of the GPU it was recorded on (--device), or "
                      "fix the row"));
        stop = true;
      } catch (...) {
        failed[i] = std::current_exception();
        stop = true;
      }
    }
  };
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> workers;
  for (std::size_t k = 1; k < std::min<std::size_t>(jobs, points.size()); ++k) workers.emplace_back(work);
  work();  // this thread is one of the workers
  for (std::thread& t : workers) t.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  return out;
}

std::vector<Miss> find_misses(const std::vector<Reprediction>& reps) {
  std::vector<Miss> out;
  for (const Reprediction& r : reps)
    for (std::size_t i = 0; i < kMetricCount; ++i) {
      const auto measured = r.point->measured[i];
      if (!measured) continue;
      const auto m = static_cast<Metric>(i);
      const double e = error_pct(r.predicted[i], *measured);
      const bool exact_needed = bar_pct(m) == 0;
      if (exact_needed ? r.predicted[i] != *measured : !(std::abs(e) <= bar_pct(m)))
        out.push_back({describe(*r.point), m, e});
    }
  return out;
}

void write_repredicted_csv(std::ostream& os, const std::vector<Reprediction>& reps) {
  os << recorded_csv_header() << "\n";
  auto cell = [](const std::optional<double>& v) { return v ? csv_number(*v) : std::string(); };
  for (const Reprediction& r : reps) {
    const RecordedPoint& p = *r.point;
    const std::string prefix = recorded_csv_key(p.device, p.driver, p.date, p.workload, p.mapping, p.l2);
    for (std::size_t m = 0; m < kMetricCount; ++m) {
      if (!p.measured[m]) continue;
      os << prefix << "," << name(static_cast<Metric>(m)) << "," << csv_number(r.predicted[m]) << ","
         << cell(p.measured[m]) << "," << cell(p.measured_min[m]) << "," << cell(p.measured_max[m]) << ","
         << recorded_csv_occupancy(p.mapping) << "\n";
    }
  }
}

void write_misses(std::ostream& os, const std::vector<Miss>& misses) {
  os << "point,metric,error_pct\n";
  char buf[32];
  for (const Miss& m : misses) {
    std::snprintf(buf, sizeof buf, "%.2f", m.error_pct);
    os << m.point << "," << name(m.metric) << "," << buf << "\n";
  }
}

void write_misses(const std::string& path, const std::vector<Miss>& misses) {
  AtomicFile out(path);
  write_misses(out.stream(), misses);
  out.commit();
}

std::vector<Miss> read_misses(const std::string& path) {
  std::istringstream in(read_input_file(path, "the list of known misses", "check the path"));
  std::string line;
  std::getline(in, line);
  if (trim(line) != "point,metric,error_pct")
    throw UserError(path + ":1: not a list of misses (header point,metric,error_pct); write one with "
                    "`fasim compare --recorded FILE.csv --misses OUT.csv`");
  std::vector<Miss> out;
  for (int lineno = 2; std::getline(in, line); ++lineno) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> f = split(line);
    const std::string where = path + ":" + std::to_string(lineno) + ": ";
    if (f.size() != 3)
      throw UserError(where + "expected point,metric,error_pct, found " + std::to_string(f.size()) +
                      " fields; fix the row");
    const auto metric = parse_metric(f[1]);
    if (!metric) throw UserError(where + "unknown metric '" + f[1] + "'; use one of " + metric_list());
    double e = std::nan("");
    try {
      std::size_t used = 0;
      e = std::stod(f[2], &used);
      if (used != f[2].size()) e = std::nan("");
    } catch (const std::exception&) {
    }
    if (std::isnan(e)) throw UserError(where + "error_pct '" + f[2] + "' is not a number; fix the row");
    out.push_back({f[0], *metric, e});
  }
  return out;
}

std::vector<std::string> ratchet_problems(const std::vector<Miss>& now, const std::vector<Miss>& known) {
  std::vector<std::string> problems;
  auto key = [](const Miss& m) { return m.point + " " + name(m.metric); };
  std::map<std::string, const Miss*> listed, found;
  for (const Miss& m : known) listed[key(m)] = &m;
  for (const Miss& m : now) found[key(m)] = &m;
  char buf[160];
  for (const Miss& m : now) {
    if (bar_pct(m.metric) == 0) {
      problems.push_back(m.point + ": " + name(m.metric) + " is not exact; the byte counts must match");
      continue;
    }
    const auto it = listed.find(key(m));
    if (it == listed.end()) {
      std::snprintf(buf, sizeof buf, " error %+.2f%% is outside the %.0f%% bar (and not a known miss)", m.error_pct,
                    bar_pct(m.metric));
      problems.push_back(m.point + ": " + name(m.metric) + buf);
    } else if (std::abs(m.error_pct) > std::abs(it->second->error_pct) + 0.05) {
      std::snprintf(buf, sizeof buf, " error grew from %+.2f%% to %+.2f%%", it->second->error_pct, m.error_pct);
      problems.push_back(m.point + ": " + name(m.metric) + buf);
    }
  }
  for (const Miss& m : known)
    if (found.find(key(m)) == found.end())
      problems.push_back(m.point + ": " + name(m.metric) +
                         " now meets its bar; take it off the list of known misses (fasim compare --recorded --misses)");
  return problems;
}

double mean_abs_error_pct(const std::vector<Reprediction>& reps, Metric m) {
  const auto i = static_cast<std::size_t>(m);
  double sum = 0;
  int n = 0;
  for (const Reprediction& r : reps)
    if (const auto measured = r.point->measured[i]) {
      const double e = error_pct(r.predicted[i], *measured);
      if (std::isfinite(e)) sum += std::abs(e), ++n;
    }
  return n > 0 ? sum / n : 0;
}

}  // namespace fasim
