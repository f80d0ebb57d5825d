// The fit of the model to a recorded GPU run as JSON (see recorded_fit.hpp):
// picking points, counting them within their bars, and caching the
// predictions a lesson asks for again and again.
#include "fasim/recorded_fit.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "fasim/error.hpp"
#include "fasim/report.hpp"
#include "flag_pairs.hpp"

namespace fasim {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A JSON number, or null where the error is infinite (measured 0).
nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

const std::vector<std::string>& recorded_filter_flags() {
  static const std::vector<std::string> flags = {"--algo", "--dtype", "--batch", "--heads", "--N",
                                                 "--d",    "--br",    "--bc",    "--l2",    "--blocks-per-sm"};
  return flags;
}

RecordedSelection parse_recorded_selection(const std::vector<std::string>& words) {
  const std::size_t first = words.size() >= 2 && words[0] == "fasim" && words[1] == "compare" ? 2 : 0;
  const auto& filters = recorded_filter_flags();
  const auto check = [&](const std::string& flag) {
    if (flag != "--recorded" && flag != "--device" && std::find(filters.begin(), filters.end(), flag) == filters.end())
      throw UserError("unknown flag '" + flag + "' for recorded points; use --recorded FILE.csv, --device NAME, or a "
                      "filter (" + joined(filters) + ") with one value");
  };
  RecordedSelection sel;
  for (auto& [flag, value] : flag_pairs(words, first, check, [](const std::string& flag) {
         return flag == "--recorded" ? "FILE-sweep.csv" : "VALUE";
       })) {
    if (flag == "--recorded") sel.csv = value;
    else if (flag == "--device") sel.device = value;
    else sel.filters.emplace_back(flag, value);
  }
  if (sel.csv.empty()) throw UserError("no recorded run named; add --recorded FILE-sweep.csv");
  return sel;
}

std::string recorded_device_path(const std::string& csv) {
  const std::string suffix = "-sweep.csv";
  if (csv.size() > suffix.size() && csv.compare(csv.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string toml = csv.substr(0, csv.size() - suffix.size()) + "-measured.toml";
    if (std::filesystem::exists(toml)) return toml;
  }
  return "";
}

std::string recorded_axis_value(const RecordedPoint& p, std::string_view flag) {
  const Workload& w = p.workload;
  if (flag == "--algo") return std::string(name(p.mapping.algo));
  if (flag == "--dtype") return std::string(name(w.dtype));
  if (flag == "--batch") return std::to_string(w.batch);
  if (flag == "--heads") return std::to_string(w.heads);
  if (flag == "--N") return std::to_string(w.N);
  if (flag == "--d") return std::to_string(w.d);
  if (flag == "--br") return std::to_string(p.mapping.br);
  if (flag == "--bc") return std::to_string(p.mapping.bc);
  if (flag == "--l2") return p.l2 == L2Start::warm ? "warm" : "cold";
  if (flag == "--blocks-per-sm") return std::to_string(p.mapping.blocks_per_sm);  // 0: as many as fit
  throw UserError("unknown filter '" + std::string(flag) + "'; filters are " + joined(recorded_filter_flags()));
}

namespace {

// The items that have every filter's value; `point` gives an item's RecordedPoint.
template <typename T, typename Point>
std::vector<T> select_by(const std::vector<T>& items, const std::vector<std::pair<std::string, std::string>>& filters,
                         Point point) {
  std::vector<T> kept = items;
  for (const auto& [flag, value] : filters) {
    std::vector<T> next;
    std::vector<std::string> seen;
    for (const T& item : kept) {
      const std::string v = recorded_axis_value(point(item), flag);
      if (v == value) next.push_back(item);
      if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
    }
    if (next.empty())
      throw UserError("no recorded point has " + flag + " " + value +
                      (kept.size() < items.size() ? " (with the filters before it)" : "") + "; the points there have " +
                      flag + " " + joined(seen));
    kept = std::move(next);
  }
  return kept;
}

}  // namespace

std::vector<Reprediction> select_recorded(const std::vector<Reprediction>& reps,
                                          const std::vector<std::pair<std::string, std::string>>& filters) {
  return select_by(reps, filters, [](const Reprediction& r) -> const RecordedPoint& { return *r.point; });
}

std::vector<RecordedPoint> select_recorded(const std::vector<RecordedPoint>& points,
                                           const std::vector<std::pair<std::string, std::string>>& filters) {
  return select_by(points, filters, [](const RecordedPoint& p) -> const RecordedPoint& { return p; });
}

MetricFit fit_of(const std::vector<Reprediction>& reps, Metric m) {
  const auto i = static_cast<std::size_t>(m);
  MetricFit f;
  for (const Reprediction& r : reps) {
    const auto measured = r.point->measured[i];
    if (!measured) continue;
    ++f.points;
    const double e = error_pct(r.predicted[i], *measured);
    if (bar_pct(m) == 0 ? r.predicted[i] == *measured : std::abs(e) <= bar_pct(m)) ++f.in_bar;
    if (std::isfinite(e)) f.max_abs_error_pct = std::max(f.max_abs_error_pct, std::abs(e));
    const auto lo = r.point->measured_min[i], hi = r.point->measured_max[i];
    if (!lo || !hi) continue;
    ++f.repeated;
    // (most - least) / median in percent; a spread around a median of 0 is unbounded
    const double spread = *measured > 0 ? (*hi - *lo) / *measured * 100
                                        : (*hi > *lo ? std::numeric_limits<double>::infinity() : 0.0);
    if (bar_pct(m) > 0 && spread > bar_pct(m)) ++f.spread_over_bar;
    if (*lo <= r.predicted[i] && r.predicted[i] <= *hi) ++f.in_range;
  }
  f.mean_abs_error_pct = mean_abs_error_pct(reps, m);
  return f;
}

const char* metric_label(Metric m) {
  switch (m) {
    case Metric::hbm_read_bytes: return "HBM read bytes (requests)";
    case Metric::hbm_write_bytes: return "HBM write bytes (requests)";
    case Metric::l2_read_bytes: return "L2 read bytes";
    case Metric::l2_write_bytes: return "L2 write bytes";
    case Metric::dram_read_bytes: return "DRAM read bytes";
    case Metric::dram_write_bytes: return "DRAM write bytes";
    case Metric::dram_write_drained_bytes: return "DRAM written, L2 drained";
    case Metric::time_s: return "time";
  }
  return "?";
}

nlohmann::json recorded_fit_json(const std::vector<Reprediction>& reps, const DeviceSpec& device,
                                 const RecordedSelection& sel) {
  if (reps.empty()) throw UserError("no recorded points to fit; loosen the filters");
  const RecordedPoint& first = *reps.front().point;
  nlohmann::json j = {{"recorded", sel.csv},
                      {"device", device.name},
                      {"gpu", first.device},
                      {"driver", first.driver},
                      {"date", first.date},
                      {"points", reps.size()},
                      {"misses", find_misses(reps).size()}};
  // Every figure `fasim run --json` gives as device_spec, plus the flat
  // matmul keys this JSON has always had.
  j["spec"] = device_spec_json(device);
  j["spec"]["matmul_flops_fp32"] = device.matmul_flops_fp32;
  j["spec"]["matmul_flops_fp16"] = device.matmul_flops_fp16;
  nlohmann::json filters = nlohmann::json::object();
  for (const auto& [flag, value] : sel.filters) filters[flag.substr(2)] = value;
  j["filters"] = filters;
  nlohmann::json fit = nlohmann::json::object();
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    const auto m = static_cast<Metric>(i);
    const MetricFit f = fit_of(reps, m);
    fit[name(m)] = {{"points", f.points},
                    {"in_bar", f.in_bar},
                    {"mean_abs_error_pct", f.mean_abs_error_pct},
                    {"max_abs_error_pct", f.max_abs_error_pct},
                    {"bar_pct", bar_pct(m)},
                    {"repeated", f.repeated},
                    {"spread_over_bar", f.spread_over_bar},
                    {"in_range", f.in_range}};
  }
  j["fit"] = fit;
  if (reps.size() == 1) {
    const Reprediction& r = reps.front();
    nlohmann::json predicted = nlohmann::json::object(), measured = nlohmann::json::object(),
                   error = nlohmann::json::object(), least = nlohmann::json::object(), most = nlohmann::json::object();
    for (std::size_t i = 0; i < kMetricCount; ++i) {
      const char* key = name(static_cast<Metric>(i));
      predicted[key] = r.predicted[i];
      if (const auto v = r.point->measured[i]) {
        measured[key] = *v;
        error[key] = number_or_null(error_pct(r.predicted[i], *v));
      }
      if (const auto v = r.point->measured_min[i]) least[key] = *v;
      if (const auto v = r.point->measured_max[i]) most[key] = *v;
    }
    j["point"] = describe(*r.point);
    j["bound"] = r.bound;
    j["placement"] = r.placement;
    j["predicted"] = predicted;
    j["measured"] = measured;
    j["error_pct"] = error;
    j["measured_min"] = least;  // only the metrics whose CSV row gave a range
    j["measured_max"] = most;
  }
  return j;
}

const nlohmann::json& RecordedFits::get(const RecordedSelection& sel) {
  const std::string device = sel.device.empty() ? recorded_device_path(sel.csv) : sel.device;
  const auto run_key = std::make_pair(sel.csv, device);
  const auto key = std::make_pair(run_key, sel.filters);
  if (auto it = json_.find(key); it != json_.end()) return it->second;

  auto found = runs_.find(run_key);
  if (found == runs_.end()) {
    if (device.empty())
      throw UserError("no device profile for '" + sel.csv + "'; name one with --device (a NAME-sweep.csv finds "
                      "NAME-measured.toml beside it)");
    auto run = std::make_unique<Run>();
    run->points = read_recorded_csv(sel.csv);
    run->device = load_device(device);
    if (on_predict) on_predict(sel.csv, run->points.size());
    run->reps = repredict(run->points, run->device);
    found = runs_.emplace(run_key, std::move(run)).first;
  }
  const Run& run = *found->second;
  return json_.emplace(key, recorded_fit_json(select_recorded(run.reps, sel.filters), run.device, sel)).first->second;
}

}  // namespace fasim
