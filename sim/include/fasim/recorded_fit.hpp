// The fit of the model to a recorded GPU run, as numbers: which recorded
// points to look at, how many meet each metric's bar, the mean and largest
// error, and (for one point) its predicted and measured values. Both
// `fasim compare --recorded FILE --json` and the ```recorded blocks of a
// lesson print this JSON, so a lesson's `{{ KEY of NAME }}` reads the very
// numbers the command shows:
//
//   recorded, device, gpu, driver, date   where the numbers come from
//   spec.KEY                              figures of the device predicted on:
//                                         every key of device_spec_json
//                                         (report.hpp), e.g. spec.l2_bytes,
//                                         spec.hbm_bandwidth (bytes/s),
//                                         spec.fp32_flops (FLOP/s), plus
//                                         spec.matmul_flops_fp32 / _fp16
//   points                                recorded points kept by the filters
//   misses                                (point, metric) pairs outside their bars
//   fit.METRIC.points                     points that measured METRIC
//   fit.METRIC.in_bar                     of those, within the bar (HBM: exact)
//   fit.METRIC.mean_abs_error_pct         mean |error| in percent
//   fit.METRIC.max_abs_error_pct          largest |error| in percent
//   fit.METRIC.bar_pct                    the bar (0: must be exact)
//   fit.METRIC.repeated                   points measured several times (runs
//                                         with --counter-runs: min and max kept)
//   fit.METRIC.spread_over_bar            of those, where the GPU's own spread
//                                         (max - min) / median exceeds the bar
//   fit.METRIC.in_range                   of those, predicted within [min, max]
//   point, bound                          with exactly one point: what it is,
//   predicted.METRIC, measured.METRIC,    what bounds the predicted time, and
//   error_pct.METRIC                      the three numbers of each metric
//   measured_min.METRIC,                  with exactly one point: the least and
//   measured_max.METRIC                   most over the GPU's ranges or runs
//                                         (only metrics whose CSV row has them)
//
// METRIC is a CSV name of fidelity.hpp (hbm_read_bytes, ..., time_s); error
// = (predicted - measured) / measured. Predictions are the current model's,
// made again now, not the ones written in the CSV.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fasim/fidelity.hpp"

namespace fasim {

/// @brief A recorded run and the points of it to look at.
struct RecordedSelection {
  std::string csv;     ///< the long-form CSV of `fasim compare --sweep`
  std::string device;  ///< the device to predict on; empty: recorded_device_path(csv)
  /// (flag, value) pairs, e.g. ("--algo", "flash2"): a point is kept when it
  /// has every value. Flags are those of recorded_filter_flags().
  std::vector<std::pair<std::string, std::string>> filters;
};

/// @brief The flags that pick recorded points: --algo, --dtype, --batch,
/// --heads, --N, --d, --br, --bc, --l2 (the axes of `fasim compare --sweep`).
const std::vector<std::string>& recorded_filter_flags();

/// @brief Parses `--recorded FILE.csv [--device D] [FILTER VALUE]...`; a
/// leading "fasim compare" is allowed. Throws UserError (no location) on a
/// missing --recorded, an unknown flag, a flag without a value or twice.
RecordedSelection parse_recorded_selection(const std::vector<std::string>& words);

/// @brief NAME-measured.toml beside NAME-sweep.csv if it exists, else "".
std::string recorded_device_path(const std::string& csv);

/// @brief The value of a point on a filter axis, written as its flag takes it
/// ("flash2", "fp16", "4096", "cold").
std::string recorded_axis_value(const RecordedPoint& p, std::string_view flag);

/// @brief The points that have every filter's value, in order. Throws
/// UserError naming the first filter that leaves none and the values the
/// points before it have.
std::vector<Reprediction> select_recorded(const std::vector<Reprediction>& reps,
                                          const std::vector<std::pair<std::string, std::string>>& filters);
/// @brief The same for points not yet predicted (predict only those kept).
std::vector<RecordedPoint> select_recorded(const std::vector<RecordedPoint>& points,
                                           const std::vector<std::pair<std::string, std::string>>& filters);

/// @brief How well one metric fits over a set of points.
struct MetricFit {
  int points = 0;                 ///< points that measured the metric
  int in_bar = 0;                 ///< of those, within bar_pct (bar 0: exactly equal)
  double mean_abs_error_pct = 0;  ///< mean |error| over finite errors, percent
  double max_abs_error_pct = 0;   ///< largest finite |error|, percent
  int repeated = 0;               ///< points measured more than once (with measured_min and _max)
  int spread_over_bar = 0;        ///< of those, where the GPU's own (max - min) / median exceeds the bar
  int in_range = 0;               ///< of those, where the prediction lies within [min, max]
};

/// @brief The fit of metric `m` over `reps`.
MetricFit fit_of(const std::vector<Reprediction>& reps, Metric m);

/// @brief A metric's name for people ("L2 read bytes", "time").
const char* metric_label(Metric m);

/// @brief The JSON of the file comment. `reps` are the selected points (at
/// least one); `device` the spec they were predicted on; `sel` is echoed.
nlohmann::json recorded_fit_json(const std::vector<Reprediction>& reps, const DeviceSpec& device,
                                 const RecordedSelection& sel);

/// @brief Recorded runs read and predicted again once per (CSV, device), and
/// the JSON of each selection of them kept: a lesson names one file often.
class RecordedFits {
 public:
  /// @brief recorded_fit_json of `sel`. Throws UserError (no location) if the
  /// file or device does not load or the filters keep no point.
  const nlohmann::json& get(const RecordedSelection& sel);
  /// @brief Called with the CSV and its number of points just before a file
  /// is predicted again (seconds for a big sweep), e.g. for a progress line.
  std::function<void(const std::string& csv, std::size_t points)> on_predict;

 private:
  struct Run {  // points first: the repredictions point into them
    std::vector<RecordedPoint> points;
    DeviceSpec device;
    std::vector<Reprediction> reps;
  };
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Run>> runs_;
  std::map<std::pair<std::pair<std::string, std::string>, std::vector<std::pair<std::string, std::string>>>,
           nlohmann::json>
      json_;
};

}  // namespace fasim
