// The predicted-vs-measured figure (figures.hpp): the recorded runs of
// `fasim compare --sweep`, one point per run and metric, prediction up,
// measurement across, with the line where they agree and the bands where
// they agree within 10% and 2x.
#include <algorithm>
#include <map>
#include <set>

#include "fasim/error.hpp"
#include "fasim/figures.hpp"
#include "fasim/format.hpp"

namespace fasim {
namespace {

struct Look {
  const char* metric;
  const char* label;
  const char* color;
  Marker marker;
};

// Colour by level, shape by direction.
constexpr Look kByteMetrics[] = {
    {"hbm_read_bytes", "HBM read", "#c2255c", Marker::circle},
    {"hbm_write_bytes", "HBM written", "#c2255c", Marker::triangle},
    {"l2_read_bytes", "L2 read", "#1c7ed6", Marker::circle},
    {"l2_write_bytes", "L2 written", "#1c7ed6", Marker::triangle},
    {"dram_read_bytes", "DRAM read", "#5f3dc4", Marker::circle},
    {"dram_write_bytes", "DRAM written", "#5f3dc4", Marker::triangle},
    {"dram_write_drained_bytes", "DRAM written, L2 drained", "#5f3dc4", Marker::square},
};

struct Point {
  std::string series;  // legend name
  double measured = 0, predicted = 0;
};

struct Panel {
  std::vector<Point> points;
  std::vector<std::string> order;  // series in legend order
  std::map<std::string, std::pair<std::string, Marker>> look;
  std::map<std::string, int> off_axis;  // series -> points with a value <= 0
};

void add(Panel& p, const std::string& series, const std::string& color, Marker m, double measured, double predicted) {
  if (!p.look.count(series)) {
    p.look[series] = {color, m};
    p.order.push_back(series);
  }
  if (measured > 0 && predicted > 0) p.points.push_back({series, measured, predicted});
  else ++p.off_axis[series];
}

std::string algo_color(const std::string& algo) {
  return algo == "naive" ? "#d62728" : algo == "flash1" ? "#ff7f0e" : algo == "flash2" ? "#1f77b4" : "#2ca02c";
}

Marker dtype_marker(const std::string& dtype) {
  return dtype == "fp32" ? Marker::circle : dtype == "fp16" ? Marker::triangle : Marker::square;
}

// "3 points with a 0 (DRAM written) are left out: a log axis has no 0."
std::string off_axis_note(const Panel& p) {
  int n = 0;
  std::string which;
  for (const auto& [series, count] : p.off_axis) n += count, which += (which.empty() ? "" : ", ") + series;
  if (n == 0) return "";
  return " " + std::to_string(n) + (n == 1 ? " point" : " points") + " with a 0 (" + which +
         ") left out: a log axis has no 0.";
}

Chart chart_of(const Panel& p, double unit) {
  Chart c;
  double lo = 1e300, hi = 0;
  for (const Point& q : p.points)
    lo = std::min({lo, q.measured * unit, q.predicted * unit}), hi = std::max({hi, q.measured * unit, q.predicted * unit});
  if (hi > 0) c.series.push_back({"y = x: prediction exact", "#222", {{lo, lo}, {hi, hi}}, true, false, "6 4"});
  for (const std::string& name : p.order) {
    Series s;
    s.name = name;
    s.color = p.look.at(name).first;
    s.marker = p.look.at(name).second;
    s.line = false;
    s.opacity = 0.8;
    for (const Point& q : p.points)
      if (q.series == name) s.points.emplace_back(q.measured * unit, q.predicted * unit);
    c.series.push_back(s);
  }
  c.same_scale = true;
  return c;
}

}  // namespace

std::vector<Chart> predicted_vs_measured(const SweepTable& t, const std::string& origin) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < t.size(); ++r)
    if (!t.text(r, "metric").empty() && t.number(r, "predicted") && t.number(r, "measured")) rows.push_back(r);
  if (rows.empty())
    throw UserError(origin +
                    ": no rows with metric, predicted and measured; this figure reads the long-form CSV that "
                    "`fasim compare --sweep ... --out FILE.csv` writes (see docs/results/)");

  Panel bytes, time;
  std::set<std::string> devices, dates, runs;
  for (std::size_t r : rows) {
    const std::string metric = t.text(r, "metric"), algo = t.text(r, "algo"), dtype = t.text(r, "dtype");
    const double measured = *t.number(r, "measured"), predicted = *t.number(r, "predicted");
    if (!t.text(r, "device").empty()) devices.insert(t.text(r, "device"));
    if (!t.text(r, "date").empty()) dates.insert(t.text(r, "date"));
    std::string run;
    for (const std::string& col : t.columns())
      if (col != "metric" && col != "predicted" && col != "measured") run += t.text(r, col) + '\x1f';
    runs.insert(run);
    if (metric == "time_s") {
      add(time, algo + (dtype.empty() ? "" : " " + dtype), algo_color(algo), dtype_marker(dtype), measured, predicted);
    } else if (metric.ends_with("_bytes")) {
      const auto* look = std::find_if(std::begin(kByteMetrics), std::end(kByteMetrics),
                                      [&](const Look& l) { return metric == l.metric; });
      if (look != std::end(kByteMetrics)) add(bytes, look->label, look->color, look->marker, measured, predicted);
      else add(bytes, metric, "#555", Marker::diamond, measured, predicted);
    }
  }
  if (bytes.order.empty() && time.order.empty())
    throw UserError(origin + ": no metric ends in _bytes or is time_s; plot the long-form CSV that "
                    "`fasim compare --sweep ... --out FILE.csv` writes (see docs/results/)");

  std::string on, when;
  for (const std::string& d : devices) on += (on.empty() ? "" : ", ") + d;
  for (const std::string& d : dates) when += (when.empty() ? "" : ", ") + d;
  // One GPU names itself in the title; several would not fit there, so the
  // title counts them and the subtitle names them.
  const std::string where = devices.empty()       ? ""
                            : devices.size() == 1 ? ": " + on
                                                  : ": " + std::to_string(devices.size()) + " GPUs";
  const std::string from = std::to_string(runs.size()) + " recorded runs" + (devices.size() > 1 ? " on " + on : "") +
                           (when.empty() ? "" : " (" + when + ")") + ". ";

  std::vector<Chart> panels;
  // Sort the byte legend into kByteMetrics order, whatever the file order.
  std::stable_sort(bytes.order.begin(), bytes.order.end(), [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& s) {
      for (std::size_t i = 0; i < std::size(kByteMetrics); ++i)
        if (s == kByteMetrics[i].label) return i;
      return std::size(kByteMetrics);
    };
    return rank(a) < rank(b);
  });
  // Time: naive, flash1, flash2, then others; fp32 before fp16 before bf16.
  std::stable_sort(time.order.begin(), time.order.end(), [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& s) {
      const std::string algo = s.substr(0, s.find(' ')), dtype = s.substr(s.find(' ') + 1);
      const int r = algo == "naive" ? 0 : algo == "flash1" ? 1 : algo == "flash2" ? 2 : 3;
      return r * 4 + (dtype == "fp32" ? 0 : dtype == "fp16" ? 1 : 2);
    };
    return rank(a) < rank(b);
  });
  if (!bytes.order.empty()) {
    Chart c = chart_of(bytes, 1);
    c.title = "Predicted vs measured bytes" + where;
    c.subtitle = from + "HBM: bytes the kernel asks for (its own counters); L2, DRAM: hardware counters." +
                 off_axis_note(bytes);
    c.x = {"measured (bytes)", true, 2, TickStyle::bytes};
    c.y = {"predicted by fasim (bytes)", true, 2, TickStyle::bytes};
    c.bands = {{2, "within 2×"}, {1.1, "within 10%"}};
    panels.push_back(c);
  }
  if (!time.order.empty()) {
    Chart c = chart_of(time, 1e6);
    c.title = "Predicted vs measured time" + where;
    c.subtitle = from + "Kernel time: fasim's timing model against the median of timed GPU runs." + off_axis_note(time);
    c.x = {"measured time (µs)", true, 10, TickStyle::number};
    c.y = {"predicted by fasim (µs)", true, 10, TickStyle::number};
    c.bands = {{10, "within 10×"}, {2, "within 2×"}, {1.1, "within 10%"}};
    panels.push_back(c);
  }
  return panels;
}

}  // namespace fasim
