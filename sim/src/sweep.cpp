#include "fasim/sweep.hpp"

#include <array>
#include <charconv>
#include <limits>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/report.hpp"
#include "fasim/tiling.hpp"

namespace fasim {

namespace {

constexpr const char* kRangeSyntax = "write START:END:xFACTOR or START:END:+STEP";
constexpr const char* kValueSyntax =
    "write a positive whole number, a list like 512,1024, or a range START:END:xFACTOR (512:16384:x2) or "
    "START:END:+STEP (16:128:+16)";

[[noreturn]] void bad(std::string_view flag, std::string_view text, const std::string& why, const char* fix) {
  throw UserError(std::string(flag) + " '" + std::string(text) + "': " + why + "; " + fix);
}

// Blanks around a value, as a view into the flag's text (the values stay views).
std::string_view trim_view(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = s.find(sep, start);
    out.push_back(trim_view(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// A positive whole number, or nullopt (also on overflow).
std::optional<std::int64_t> positive(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v <= 0) return std::nullopt;
  return v;
}

void append_range(std::string_view flag, std::string_view item, std::vector<std::int64_t>& out) {
  const std::vector<std::string_view> parts = split(item, ':');
  if (parts.size() != 3) bad(flag, item, "a range has three parts", kRangeSyntax);
  const auto start = positive(parts[0]), end = positive(parts[1]);
  if (!start) bad(flag, item, "the start '" + std::string(parts[0]) + "' is not a positive whole number", kRangeSyntax);
  if (!end) bad(flag, item, "the end '" + std::string(parts[1]) + "' is not a positive whole number", kRangeSyntax);
  if (*end < *start) bad(flag, item, "the range end is below its start", kRangeSyntax);
  const std::string_view step = parts[2];
  const auto by = step.size() > 1 ? positive(step.substr(1)) : std::nullopt;
  if (!step.empty() && (step[0] == 'x' || step[0] == '*')) {
    if (!by || *by < 2) bad(flag, item, "the factor must be a whole number >= 2, e.g. x2", kRangeSyntax);
    for (std::int64_t v = *start;; v *= *by) {  // at most 63 values: no count check needed
      out.push_back(v);
      if (v > *end / *by) break;  // the next value would pass END (or overflow)
    }
  } else if (!step.empty() && step[0] == '+') {
    if (!by) bad(flag, item, "the step must be a positive whole number, e.g. +16", kRangeSyntax);
    const std::int64_t count = (*end - *start) / *by + 1;
    if (static_cast<std::uint64_t>(count) > kMaxSweepPoints)
      bad(flag, item, "the range has " + with_commas(count) + " values, more than " +
                          with_commas(kMaxSweepPoints), "use a larger step or a geometric range");
    for (std::int64_t i = 0; i < count; ++i) out.push_back(*start + i * *by);
  } else {
    bad(flag, item, "the step '" + std::string(step) + "' must start with x (multiply) or + (add)", kRangeSyntax);
  }
}

template <typename T, typename Parse>
std::vector<T> parse_names(std::string_view flag, std::string_view text, Parse parse, const std::string& what,
                           const std::string& fix) {
  std::vector<T> out;
  for (const std::string& n : parse_name_list(flag, text)) {
    auto v = parse(n);
    if (!v) bad(flag, n, "unknown " + what, fix.c_str());
    out.push_back(*v);
  }
  return out;
}

// An axis of tile sizes; {unset} when not swept.
std::vector<std::optional<std::int64_t>> tile_axis(const std::vector<std::int64_t>& v) {
  if (v.empty()) return {std::nullopt};
  return {v.begin(), v.end()};
}

}  // namespace

std::vector<std::int64_t> parse_int_axis(std::string_view flag, std::string_view text) {
  std::vector<std::int64_t> out;
  if (trim(text).empty()) bad(flag, text, "no values", kValueSyntax);
  for (std::string_view item : split(text, ',')) {
    if (item.find(':') != std::string_view::npos) {
      append_range(flag, item, out);
    } else if (auto v = positive(item)) {
      out.push_back(*v);
    } else {
      bad(flag, item, item.empty() ? "an empty item in the list" : "not a positive whole number", kValueSyntax);
    }
    if (out.size() > kMaxSweepPoints)
      bad(flag, text, "more than " + with_commas(kMaxSweepPoints) + " values", "use fewer or larger steps");
  }
  return out;
}

std::vector<std::string> parse_name_list(std::string_view flag, std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view item : split(text, ',')) {
    if (item.empty())
      bad(flag, text, "an empty item in the list",
          flag == "--algo"    ? "write names separated by commas, e.g. naive,flash2"
          : flag == "--dtype" ? "write names separated by commas, e.g. fp16,fp32"
          : flag == "--l2"    ? "write names separated by commas, e.g. cold,warm"
                              : "write names separated by commas, e.g. h100,a100");
    out.emplace_back(item);
  }
  return out;
}

std::vector<Algo> parse_algo_axis(std::string_view flag, std::string_view text) {
  return parse_names<Algo>(flag, text, [](const std::string& s) { return parse_algo(s); }, "algorithm",
                           "use one or more of " + std::string(kAlgoNames) + ", separated by commas");
}

std::vector<DType> parse_dtype_axis(std::string_view flag, std::string_view text) {
  return parse_names<DType>(flag, text, [](const std::string& s) { return parse_dtype(s); }, "dtype",
                            "use one or more of fp32, fp16, bf16, separated by commas");
}

std::size_t sweep_size(const SweepSpec& s) {
  const std::array<std::size_t, 10> sizes = {
      s.devices.size(), s.algos.size(),   s.dtypes.size(),
      s.batch.size(),   s.heads.size(),   s.d.size(),
      tile_axis(s.br).size(), tile_axis(s.bc).size(), s.blocks_per_sm.size(), s.N.size()};
  std::size_t total = 1;
  for (std::size_t n : sizes) {
    if (n != 0 && total > std::numeric_limits<std::size_t>::max() / n) return std::numeric_limits<std::size_t>::max();
    total *= n;
  }
  return total;
}

std::vector<SweepPoint> sweep_points(const SweepSpec& s) {
  const std::size_t total = sweep_size(s);
  if (total > kMaxSweepPoints)
    throw UserError("the sweep has " + (total == std::numeric_limits<std::size_t>::max()
                                            ? std::string("too many")
                                            : with_commas(static_cast<std::int64_t>(total))) +
                    " points, more than " + with_commas(kMaxSweepPoints) +
                    "; narrow a range, use larger steps or sweep fewer flags at once");
  const auto brs = tile_axis(s.br), bcs = tile_axis(s.bc);
  std::vector<SweepPoint> out;
  out.reserve(total);
  // Outermost first; N varies fastest, so each curve of a figure is a run of rows.
  for (std::size_t dev = 0; dev < s.devices.size(); ++dev)
    for (Algo algo : s.algos)
      for (DType dtype : s.dtypes)
        for (std::int64_t batch : s.batch)
          for (std::int64_t heads : s.heads)
            for (std::int64_t d : s.d)
              for (const auto& br : brs)
                for (const auto& bc : bcs)
                  for (std::int64_t per_sm : s.blocks_per_sm)
                    for (std::int64_t N : s.N) {
                      SweepPoint p;
                      p.device = dev;
                      p.algo = algo;
                      p.workload = s.workload;  // the settings no axis sweeps
                      p.workload.batch = batch;
                      p.workload.heads = heads;
                      p.workload.N = N;
                      p.workload.d = d;
                      p.workload.dtype = dtype;
                      p.br = br ? br : bc;  // one tile size given: square tiles, as `fasim run`
                      p.bc = bc ? bc : br;
                      p.blocks_per_sm = per_sm;
                      out.push_back(p);
                    }
  return out;
}

std::string describe(const SweepSpec& s, const SweepPoint& p) {
  const Workload& w = p.workload;
  std::string out;
  auto add = [&](bool varies, const std::string& text) {
    if (varies) out += (out.empty() ? "" : " ") + text;
  };
  const bool one = sweep_size(s) == 1;
  add(s.N.size() > 1 || one, "N=" + std::to_string(w.N));
  add(s.d.size() > 1 || one, "d=" + std::to_string(w.d));
  add(s.br.size() > 1 && p.br, "Br=" + std::to_string(p.br.value_or(0)));
  add(s.bc.size() > 1 && p.bc, "Bc=" + std::to_string(p.bc.value_or(0)));
  add(s.blocks_per_sm.size() > 1, "per-SM=" + std::to_string(p.blocks_per_sm));
  add(s.batch.size() > 1, "batch=" + std::to_string(w.batch));
  add(s.heads.size() > 1, "heads=" + std::to_string(w.heads));
  add(s.algos.size() > 1 || one, std::string(name(p.algo)));
  add(s.dtypes.size() > 1, std::string(name(w.dtype)));
  add(s.devices.size() > 1, s.devices[p.device].name);
  return out;
}

FlatRow run_point(const SweepSpec& s, const SweepPoint& p) {
  const DeviceSpec& dev = s.devices.at(p.device);
  const Workload& w = p.workload;
  FlatRow row;  // the settings first, so an error row still says which point failed
  row.set("device", dev.name);
  row.set("mapping.algo", std::string(name(p.algo)));
  row.set("workload.dtype", std::string(name(w.dtype)));
  row.set("workload.batch", w.batch);
  row.set("workload.heads", w.heads);
  row.set("workload.N", w.N);
  row.set("workload.d", w.d);
  if (p.br) row.set("mapping.br", *p.br);
  if (p.bc) row.set("mapping.bc", *p.bc);
  row.set("mapping.blocks_per_sm", p.blocks_per_sm);
  try {
    validate_workload(w);
    Mapping m = s.mapping;  // double_buffer and splits as the base point has them
    m.algo = p.algo;
    m.blocks_per_sm = p.blocks_per_sm;
    if (p.br) {
      m.br = *p.br;
      m.bc = p.bc.value_or(*p.br);
    } else {
      m = default_tiles(m, w, dev);  // tiles that fit with its double buffer
    }
    Simulation sim(dev, w, m, s.options);
    sim.run();
    std::optional<NumericsResult> num;
    if (s.options.numerics) num = sim.numerics();
    nlohmann::json report = report_json(sim, num);
    report.erase("device_spec");  // the same for every row: the "device" column names it
    flatten_into(row, report);
  } catch (const UserError& e) {
    row.set("error", e.what());
  }
  return row;
}

SweepTable run_sweep(const SweepSpec& s, const SweepProgress& progress) {
  const std::vector<SweepPoint> points = sweep_points(s);
  SweepTable table;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (progress) progress(i, points.size(), points[i]);  // before: a slow point shows while it runs
    table.add(run_point(s, points[i]));
  }
  if (progress && !points.empty()) progress(points.size(), points.size(), points.back());
  return table;
}

}  // namespace fasim
