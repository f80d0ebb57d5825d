// The gpu-bench figure (figures.hpp): what scripts/gpu-bench.sh measured,
// TFLOP/s against N, one line per implementation, a panel per head dimension
// and mask. fasim's kernels are solid lines, PyTorch's dashed, so a reader
// sees at once where fasim stands against the kernels people use.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "fasim/error.hpp"
#include "fasim/figures.hpp"

namespace fasim {
namespace {

struct Look {
  const char* impl;
  const char* label;
  const char* color;
};

// Legend order: the fastest fasim kernel first, then PyTorch, then the rest.
constexpr Look kLooks[] = {
    {"fasim-v7-flash2-hopper", "fasim v7 flash2-hopper", "#0b7285"},
    {"fasim-v6-flash2-fast", "fasim v6 flash2-fast", "#1c7ed6"},
    {"fasim-v4-flash2-mma", "fasim v4 flash2-mma", "#74c0fc"},
    {"torch-sdpa-fa2", "PyTorch SDPA FlashAttention-2", "#e8590c"},
    {"torch-sdpa-cudnn", "PyTorch SDPA cuDNN", "#862e9c"},
    {"torch-eager", "PyTorch eager (standard)", "#c92a2a"},
    {"fasim-v5-naive-cublas", "fasim v5 naive-cublas", "#f783ac"},
    {"fasim-v1-naive", "fasim v1 naive (fp32 math)", "#868e96"},
    {"fasim-v2-flash2-fp32", "fasim v2 flash2 (fp32 math)", "#495057"},
    {"fasim-v3-flash1-fp32", "fasim v3 flash1 (fp32 math)", "#adb5bd"},
};

const Look* look_of(const std::string& impl) {
  for (const Look& l : kLooks)
    if (impl == l.impl) return &l;
  return nullptr;
}

}  // namespace

std::vector<Chart> gpu_bench_panels(const SweepTable& rows, const std::string& origin) {
  for (const char* c : {"impl", "causal", "N", "d", "tflops"})
    if (!rows.has(c))
      throw UserError(origin + " has no '" + c +
                      "' column; gpu-bench needs the CSV scripts/gpu-bench.sh writes (e.g. docs/results/*-gpu-bench.csv)");
  // (d, causal) -> impl -> (N, TFLOP/s), N increasing.
  std::map<std::pair<int, int>, std::map<std::string, std::vector<std::pair<double, double>>>> panels;
  std::set<std::string> devices, unknown;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto n = rows.number(r, "N"), d = rows.number(r, "d"), c = rows.number(r, "causal"),
               tf = rows.number(r, "tflops");
    if (!n || !d || !c || !tf || *tf <= 0) continue;
    // read_table refuses such cells; a table built otherwise must not reach an out-of-range cast.
    if (!(*d >= 1 && *d <= 16777216 && *d == std::floor(*d)) || (*c != 0 && *c != 1) || !std::isfinite(*n) ||
        !std::isfinite(*tf))
      throw UserError(origin + ": row " + std::to_string(r + 1) + " has d = " + rows.text(r, "d") + ", causal = " +
                      rows.text(r, "causal") + "; d must be an integer in 1..16777216 and causal 0 or 1: fix the row");
    const std::string impl = rows.text(r, "impl");
    if (!look_of(impl)) {
      unknown.insert(impl);
      continue;
    }
    if (rows.has("device")) devices.insert(rows.text(r, "device"));
    panels[{static_cast<int>(*d), static_cast<int>(*c)}][impl].push_back({*n, *tf});
  }
  if (panels.empty())
    throw UserError(origin + " has no gpu-bench rows with impl, causal, N, d and tflops > 0; "
                    "plot the CSV scripts/gpu-bench.sh writes (e.g. docs/results/*-gpu-bench.csv)");
  std::string device;
  for (const std::string& x : devices) device += (device.empty() ? "" : ", ") + x;
  std::vector<Chart> out;
  for (auto& [key, impls] : panels) {
    Chart ch;
    ch.title = "Attention forward, fp16, d = " + std::to_string(key.first) + (key.second ? ", causal" : ", non-causal") +
               (device.empty() ? "" : " (" + device + ")");
    ch.subtitle = "Measured by scripts/gpu-bench.sh: batch = 16384 / N, heads = 2048 / d, median of CUDA-event "
                  "timings; TFLOP/s = 4 batch heads N^2 d" + std::string(key.second ? " / 2" : "") +
                  " / time. Solid: fasim's kernels; dashed: PyTorch. From " + origin + ".";
    if (!unknown.empty()) ch.subtitle += " Left out (unknown implementation): " + *unknown.begin() + ".";
    ch.x = {"sequence length N", true, 2, TickStyle::number};
    ch.y = {"speed (TFLOP/s)", false, 10, TickStyle::number, true};
    for (const Look& l : kLooks) {
      auto it = impls.find(l.impl);
      if (it == impls.end()) continue;
      Series s;
      s.name = l.label;
      s.color = l.color;
      s.points = it->second;
      std::sort(s.points.begin(), s.points.end());
      s.line = s.points.size() > 1;
      const bool torch = std::string_view(l.impl).starts_with("torch");
      s.dash = torch ? "6 4" : "";
      s.marker = torch ? Marker::square : Marker::circle;
      ch.series.push_back(std::move(s));
    }
    out.push_back(std::move(ch));
  }
  return out;
}

}  // namespace fasim
