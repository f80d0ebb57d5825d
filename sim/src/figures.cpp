#include "fasim/figures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"

namespace fasim {

namespace {

using Rows = std::vector<std::size_t>;

// Rows without an error whose `need` columns are all numbers.
Rows usable_rows(const SweepTable& t, std::initializer_list<const char*> need) {
  Rows out;
  for (std::size_t r = 0; r < t.size(); ++r) {
    bool ok = t.at(r, "error").is_null();
    for (const char* c : need) ok = ok && t.number(r, c).has_value();
    if (ok) out.push_back(r);
  }
  return out;
}

[[noreturn]] void no_rows(const std::string& origin, const std::string& need, const std::string& example) {
  throw UserError(origin + ": no rows with " + need +
                  " (every row has an error, or this is not a sweep file); make one with `fasim sweep " + example +
                  " --out FILE.csv`");
}

std::vector<std::string> distinct(const SweepTable& t, const Rows& rows, const std::string& col) {
  std::vector<std::string> out;
  for (std::size_t r : rows)
    if (std::string v = t.text(r, col); std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

// "d=128", "Br=64", "fp16", "h100": a setting as a reader names it.
std::string setting_text(const std::string& col, const std::string& value) {
  static const std::map<std::string, std::string> short_name = {
      {"workload.N", "N"},         {"workload.d", "d"},   {"workload.batch", "batch"},
      {"workload.heads", "heads"}, {"mapping.br", "Br"}, {"mapping.bc", "Bc"}};
  auto it = short_name.find(col);
  return it == short_name.end() ? value : it->second + "=" + value;
}

// Settings columns with more than one value over `rows`, except `skip`.
std::vector<std::string> varying(const SweepTable& t, const Rows& rows, const std::set<std::string>& skip) {
  std::vector<std::string> out;
  for (const std::string& c : sweep_setting_columns())
    if (!skip.count(c) && distinct(t, rows, c).size() > 1) out.push_back(c);
  return out;
}

// "held fixed: batch=1, heads=1, Br=128, Bc=128": settings with one value, except `skip`.
std::string held_fixed(const SweepTable& t, const Rows& rows, const std::set<std::string>& skip) {
  std::string out;
  for (const std::string& c : sweep_setting_columns()) {
    const std::vector<std::string> v = distinct(t, rows, c);
    if (skip.count(c) || v.size() != 1 || v[0].empty()) continue;
    out += (out.empty() ? "Held fixed: " : ", ") + setting_text(c, v[0]);
  }
  return out;
}

// The title's "h100, d=64, fp16": these settings, or "d varies" where they do.
std::string head(const SweepTable& t, const Rows& rows, std::initializer_list<const char*> cols) {
  std::string out;
  for (const char* col : cols) {
    const std::vector<std::string> v = distinct(t, rows, col);
    if (v.size() == 1 && v[0].empty()) continue;  // not in this file
    const std::string c = col, short_name = setting_text(c, "x");  // "d=x", or "x" for device and dtype
    const std::string varies = c == "device" ? "several devices"
                               : c == "workload.dtype" ? "dtype varies"
                                                       : short_name.substr(0, short_name.size() - 2) + " varies";
    out += (out.empty() ? "" : ", ") + (v.size() == 1 ? setting_text(col, v[0]) : varies);
  }
  return out;
}

std::string with_head(const std::string& title, const std::string& head) {
  return head.empty() ? title : title + ": " + head;
}

std::string ridge_text(double intensity) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f FLOP/B", intensity);
  return buf;
}

struct Group {
  std::string label, algo;
  Rows rows;
};

// Rows split by the values of `keys`; naive, flash1, flash2 first, then in file order.
std::vector<Group> group_rows(const SweepTable& t, const Rows& rows, const std::vector<std::string>& keys) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (std::size_t r : rows) {
    std::string id, label = t.text(r, "mapping.algo");
    for (const std::string& k : keys) {
      id += t.text(r, k) + '\x1f';
      if (k != "mapping.algo") label += ", " + setting_text(k, t.text(r, k));
    }
    auto [it, fresh] = index.try_emplace(id, groups.size());
    if (fresh) groups.push_back({label, t.text(r, "mapping.algo"), {}});
    groups[it->second].rows.push_back(r);
  }
  auto rank = [](const std::string& a) { return a == "naive" ? 0 : a == "flash1" ? 1 : a == "flash2" ? 2 : 3; };
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) { return rank(a.algo) < rank(b.algo); });
  return groups;
}

bool repeats_x(const SweepTable& t, const std::vector<Group>& groups, const std::string& x) {
  for (const Group& g : groups)
    if (distinct(t, g.rows, x).size() != g.rows.size()) return true;
  return false;
}

// Colour by algorithm; a second curve of the same algorithm gets a dash pattern.
void paint(std::vector<Series>& series, const std::vector<Group>& groups) {
  static const char* dashes[] = {"", "7 4", "2 3", "9 3 2 3"};
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string& a = groups[i].algo;
    series[i].color = a == "naive" ? "#d62728" : a == "flash1" ? "#ff7f0e" : a == "flash2" ? "#1f77b4" : "#2ca02c";
    series[i].dash = dashes[seen[a]++ % 4];
  }
}

Series curve(const SweepTable& t, const Group& g, const std::string& x, auto y) {
  Series s;
  s.name = g.label;
  for (std::size_t r : g.rows) s.points.emplace_back(*t.number(r, x), y(r));
  std::sort(s.points.begin(), s.points.end());
  return s;
}

double hbm_bytes(const SweepTable& t, std::size_t r) {
  return *t.number(r, "hbm.read_bytes") + *t.number(r, "hbm.write_bytes");
}

Chart bytes_vs_n(const SweepTable& t, const std::string& origin) {
  const Rows rows = usable_rows(t, {"workload.N", "hbm.read_bytes", "hbm.write_bytes"});
  if (rows.empty()) no_rows(origin, "workload.N and hbm bytes", "--N 512:16384:x2 --algo naive,flash2");
  std::vector<std::string> keys = varying(t, rows, {"workload.N", "mapping.br", "mapping.bc", "mapping.algo"});
  keys.insert(keys.begin(), "mapping.algo");
  std::vector<Group> groups = group_rows(t, rows, keys);
  if (repeats_x(t, groups, "workload.N")) {  // tiles were swept too: one curve per tile size
    for (const std::string& c : varying(t, rows, {})) if (c == "mapping.br" || c == "mapping.bc") keys.push_back(c);
    groups = group_rows(t, rows, keys);
  }
  Chart c;
  for (const Group& g : groups) c.series.push_back(curve(t, g, "workload.N", [&](std::size_t r) { return hbm_bytes(t, r); }));
  paint(c.series, groups);
  c.title = with_head("HBM traffic vs sequence length", head(t, rows, {"device", "workload.d", "workload.dtype"}));
  c.subtitle = "Bytes read + written between HBM and SRAM, counted by fasim. " +
               held_fixed(t, rows, {"device", "workload.N", "workload.d", "workload.dtype", "mapping.algo"});
  c.x = {"N (sequence length)", true, 2, TickStyle::number};
  c.y = {"HBM traffic (bytes)", true, 2, TickStyle::bytes};
  return c;
}

Chart block_size(const SweepTable& t, const std::string& origin) {
  const Rows rows = usable_rows(t, {"mapping.br", "mapping.bc", "hbm.read_bytes", "hbm.write_bytes"});
  if (rows.empty()) no_rows(origin, "mapping.bc and hbm bytes", "--N 4096 --bc 16:256:x2");
  // A tile size varies when it does within one algorithm (default tiles differ between algorithms).
  auto varies = [&](const char* col) {
    for (const Group& g : group_rows(t, rows, {"mapping.algo"}))
      if (distinct(t, g.rows, col).size() > 1) return true;
    return false;
  };
  const bool bc_varies = varies("mapping.bc");
  if (!bc_varies && !varies("mapping.br"))
    throw UserError(origin + ": Br and Bc do not vary within any algorithm; sweep a block size, e.g. `fasim sweep "
                             "--N 4096 --algo flash1 --bc 16:256:x2 --out FILE.csv`");
  const std::string x = bc_varies ? "mapping.bc" : "mapping.br", other = bc_varies ? "mapping.br" : "mapping.bc";
  bool square = true;
  for (std::size_t r : rows) square = square && t.text(r, "mapping.br") == t.text(r, "mapping.bc");
  std::set<std::string> skip = {x, "mapping.algo"};
  if (square) skip.insert(other);  // --br alone sweeps square tiles: Br is not a second variable
  std::vector<std::string> keys = varying(t, rows, skip);
  keys.insert(keys.begin(), "mapping.algo");
  const std::vector<Group> groups = group_rows(t, rows, keys);

  bool has_time = false, pow2 = true;
  double tmax = 0, xmin = 1e300, xmax = 0, bmin = 1e300, bmax = 0;
  for (std::size_t r : rows) {
    if (auto s = t.number(r, "time.seconds")) has_time = true, tmax = std::max(tmax, *s);
    const auto v = static_cast<std::int64_t>(*t.number(r, x));
    pow2 = pow2 && v > 0 && (v & (v - 1)) == 0;
    xmin = std::min(xmin, double(v)), xmax = std::max(xmax, double(v));
    bmin = std::min(bmin, hbm_bytes(t, r)), bmax = std::max(bmax, hbm_bytes(t, r));
  }
  const auto [unit, unit_name] = tmax >= 1 ? std::pair{1.0, "s"} : tmax >= 1e-3 ? std::pair{1e3, "ms"} : std::pair{1e6, "µs"};
  Chart c;
  std::vector<Group> painted;
  for (const Group& g : groups) {
    c.series.push_back(curve(t, g, x, [&](std::size_t r) { return hbm_bytes(t, r); }));
    painted.push_back(g);
    if (has_time) c.series.back().name += ": HBM bytes";
  }
  if (has_time)
    for (const Group& g : groups) {
      Series s = curve(t, g, x, [&, unit = unit](std::size_t r) { return t.number(r, "time.seconds").value_or(std::nan("")) * unit; });
      s.name += ": time", s.right_axis = true;
      c.series.push_back(s);
      painted.push_back(g);
    }
  paint(c.series, painted);
  for (std::size_t i = groups.size(); i < c.series.size(); ++i) c.series[i].dash = "7 4";
  const std::string which = bc_varies ? "Bc (key/value rows per tile)" : "Br (query rows per tile)";
  c.title = with_head("HBM accesses vs block size", head(t, rows, {"device", "workload.N", "workload.d", "workload.dtype"}));
  c.subtitle = std::string(has_time ? "Time: predicted by fasim's timing model. " : "time: not in this sweep. ") +
               held_fixed(t, rows, {"device", "workload.N", "workload.d", "workload.dtype", "mapping.algo", x});
  c.x = {"block size " + which, pow2 && xmax >= 4 * xmin, 2, TickStyle::number};
  c.y = {"HBM accesses (bytes)", bmax > 30 * bmin, 2, TickStyle::bytes, true};
  if (has_time) c.y2 = Axis{std::string("predicted time (") + unit_name + ")", false, 10, TickStyle::number, true};
  return c;
}

Chart roofline(const SweepTable& t, const std::string& origin, const std::string& device) {
  // The roof's slope is DRAM bandwidth, so the intensity is per DRAM byte when
  // the sweep has it (bytes that L2 served do not count against the roof).
  bool per_dram = false;
  for (std::size_t r = 0; r < t.size() && !per_dram; ++r)
    per_dram = t.number(r, "arithmetic_intensity_dram").has_value();
  const std::string ai = per_dram ? "arithmetic_intensity_dram" : "arithmetic_intensity";
  Rows rows = usable_rows(t, {ai.c_str()});
  std::erase_if(rows, [&](std::size_t r) { return !(*t.number(r, ai) > 0); });
  if (rows.empty()) no_rows(origin, ai, "--N 512:16384:x2 --algo naive,flash2");
  std::string dev_name = device;
  if (dev_name.empty()) {
    const std::vector<std::string> devs = distinct(t, rows, "device");
    if (devs.size() != 1 || devs[0].empty())
      throw UserError(origin + ": the rows name " + (devs.size() > 1 ? "several devices" : "no device") +
                      "; choose the roofline's device with --device NAME");
    dev_name = devs[0];
  }
  DeviceSpec dev;
  try {
    dev = load_device(dev_name);
  } catch (const UserError& e) {
    throw UserError(std::string(e.what()) + " (for the roofline; pass --device NAME or --device PATH.toml)");
  }
  const double bw = dev.hbm_bandwidth;
  auto peak_of = [&](const std::string& dtype) { return dev.matmul_flops(parse_dtype(dtype).value_or(DType::fp16)); };
  std::vector<std::string> dtypes = distinct(t, rows, "workload.dtype");
  if (dtypes.size() == 1 && dtypes[0].empty()) dtypes = {"fp16"};

  bool timed = false;
  double lo = 1e300, hi = 0;
  for (std::size_t r : rows) {
    lo = std::min(lo, *t.number(r, ai)), hi = std::max(hi, *t.number(r, ai));
    timed = timed || t.number(r, "time.seconds").has_value();
  }
  Chart c;
  for (const std::string& dt : dtypes) {
    const double peak = peak_of(dt), ridge = peak / bw;
    lo = std::min(lo, ridge), hi = std::max(hi, ridge);
    c.labels.push_back({ridge, peak, (dtypes.size() > 1 ? dt + " ridge: " : "ridge: ") + ridge_text(ridge)});
  }
  lo /= 2, hi *= 3;  // room on both sides of the ridge and of every point
  for (std::size_t i = 0; i < dtypes.size(); ++i) {
    const double peak = peak_of(dtypes[i]);
    Series roof{"roof " + dtypes[i] + " (" + human_count(peak) + "FLOP/s, " + human_count(bw) + "B/s)", "#444",
                {{lo, lo * bw}, {peak / bw, peak}, {hi, peak}}, true, false, i == 0 ? "" : "7 4"};
    c.series.push_back(roof);
  }
  const std::vector<Group> groups = group_rows(t, rows, {"mapping.algo"});
  std::vector<Series> points;
  for (const Group& g : groups) {
    Series s;
    s.name = g.label, s.line = false;
    for (std::size_t r : g.rows) {
      const double I = *t.number(r, ai);
      const auto secs = t.number(r, "time.seconds");
      const double flops = t.number(r, "flops.matmul").value_or(0) + t.number(r, "flops.other").value_or(0);
      s.points.emplace_back(I, secs && *secs > 0 ? flops / *secs : std::min(peak_of(t.text(r, "workload.dtype")), I * bw));
    }
    points.push_back(s);
  }
  paint(points, groups);
  c.series.insert(c.series.end(), points.begin(), points.end());
  c.title = with_head("Roofline of " + dev.name, head(t, rows, {"workload.d", "workload.dtype"}));
  c.subtitle = dev.description + ". " +
               (timed ? "Points: achieved FLOP/s = (flops.matmul + flops.other) / time.seconds. "
                      : "Points sit on the roof: attainable FLOP/s at each run's intensity (no time.seconds in this sweep). ") +
               held_fixed(t, rows, {"device", "workload.d", "workload.dtype", "mapping.algo"});
  c.x = {per_dram ? "arithmetic intensity (FLOP per DRAM byte)" : "arithmetic intensity (FLOP per HBM byte)", true,
         10, TickStyle::number};
  c.y = {timed ? "FLOP/s (achieved)" : "FLOP/s (attainable)", true, 10, TickStyle::si};
  return c;
}

}  // namespace

std::optional<Figure> parse_figure(std::string_view s) {
  if (s == "bytes-vs-n") return Figure::bytes_vs_n;
  if (s == "block-size") return Figure::block_size;
  if (s == "roofline") return Figure::roofline;
  if (s == "predicted-vs-measured") return Figure::predicted_vs_measured;
  if (s == "gpu-bench") return Figure::gpu_bench;
  return std::nullopt;
}

Chart make_figure(Figure figure, const SweepTable& rows, const std::string& origin, const std::string& device) {
  switch (figure) {
    case Figure::bytes_vs_n: return bytes_vs_n(rows, origin);
    case Figure::block_size: return block_size(rows, origin);
    case Figure::roofline: return roofline(rows, origin, device);
    case Figure::predicted_vs_measured: return predicted_vs_measured(rows, origin).front();
    case Figure::gpu_bench: return gpu_bench_panels(rows, origin).front();
  }
  return {};
}

std::vector<Chart> make_figure_panels(Figure figure, const SweepTable& rows, const std::string& origin,
                                      const std::string& device) {
  if (figure == Figure::predicted_vs_measured) return predicted_vs_measured(rows, origin);
  if (figure == Figure::gpu_bench) return gpu_bench_panels(rows, origin);
  return {make_figure(figure, rows, origin, device)};
}

}  // namespace fasim
