// The host side of `fasim gpu calibrate` that needs no GPU: the figures with
// their sources and how each was measured, the device TOML, the table, the
// JSON and the output path rules (see calibrate.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "code_fetch_families.hpp"
#include "fasim/cuda/calibrate.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/format.hpp"

namespace fasim::cuda {

namespace {

// The first line of every file device_toml() writes; refuse_out_path() lets
// such a file be replaced.
constexpr std::string_view kHeader = "# Device profile measured by `fasim gpu calibrate`";

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string mib(std::int64_t bytes) { return human_bytes(static_cast<double>(bytes)); }

// A TOML number for a positive finite figure (the background writes and the
// kernels' code may be 0: a GPU that writes nothing on its own, a fetch lost
// in the noise): 5 significant digits.
std::string toml_number(const Figure& f) {
  const bool may_be_zero = f.key == "hbm.background_write_mib_per_s" || f.key.rfind("code_fetch.", 0) == 0;
  if (!std::isfinite(f.value) || f.value < 0 || (f.value == 0 && !may_be_zero))
    throw std::runtime_error("fasim gpu calibrate: " + f.key + " came out as " + fmt("%g", f.value) +
                             ", not a positive number; the benchmark failed, run it again");
  if (f.unit == "bytes" || f.unit == "count") return std::to_string(static_cast<std::int64_t>(std::llround(f.value)));
  std::string s = fmt("%.5g", f.value);
  return s;
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;  // no control characters in a basic string
    out += ch;
  }
  return out + "\"";
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

// A figure for the table: integers with commas, others with 4 significant digits.
std::string show(double v, const std::string& unit) {
  if (unit == "bytes" || unit == "count") return with_commas(static_cast<std::int64_t>(std::llround(v)));
  if (v >= 1000) return with_commas(static_cast<std::int64_t>(std::llround(v)));
  return fmt("%.4g", v);
}

}  // namespace

std::string_view name(HbmFigure f) { return f == HbmFigure::copy ? "copy" : "read"; }

std::string_view name(Source s) {
  switch (s) {
    case Source::measured: return "measured";
    case Source::device_properties: return "cudaGetDeviceProperties";
    case Source::datasheet: return "datasheet";
    case Source::not_measured: return "not measured";
  }
  return "measured";
}

std::optional<double> Figure::ratio() const {
  if (!stock || *stock == 0 || source == Source::not_measured) return std::nullopt;
  return value / *stock;
}

std::vector<Figure> figures(const Calibration& c, const DeviceSpec* s) {
  using S = Source;
  const std::string runs = "median of " + std::to_string(c.runs) + " runs after " + std::to_string(c.warmup) +
                           " warm-up, CUDA events";
  const std::string other_hbm =
      c.hbm_figure == HbmFigure::copy ? "read-only pass: " + fmt("%.0f", c.hbm_read_gbps) + " GB/s"
                                      : "copy (read + write): " + fmt("%.0f", c.hbm_copy_gbps) + " GB/s";
  auto opt = [&](double v) { return s ? std::optional<double>(v) : std::nullopt; };
  const double stock_clock = s ? s->clock_hz : 0;

  std::vector<Figure> f = {
      {"compute.sm_count", true, "SMs", "count", static_cast<double>(c.sm_count),
       opt(s ? static_cast<double>(s->sm_count) : 0), S::device_properties, "multiProcessorCount"},
      {"compute.clock_ghz", true, "SM clock", "GHz", c.clock_ghz, opt(stock_clock / 1e9), S::measured,
       "SM clock while the FP32 benchmark ran: clock64() cycles / %globaltimer ns over a launch, " + runs +
           "; clocks left as they were (peak by cudaDevAttrClockRate " + fmt("%.3f", c.peak_clock_ghz) + " GHz)"},
      {"sram.bytes_per_sm", true, "shared memory per SM", "bytes", static_cast<double>(c.sram_bytes_per_sm),
       opt(s ? static_cast<double>(s->sram_bytes_per_sm) : 0), S::device_properties, "sharedMemPerMultiprocessor"},
      {"sram.bytes_per_block", true, "shared memory per block", "bytes", static_cast<double>(c.sram_bytes_per_block),
       opt(s ? static_cast<double>(s->sram_bytes_per_block) : 0), S::device_properties,
       "sharedMemPerBlockOptin (the most one block may opt in to)"},
      {"sram.bandwidth_bytes_per_clock_per_sm", true, "shared memory bandwidth", "bytes/clock/SM",
       c.sram_bytes_per_clock_per_sm, opt(s && stock_clock > 0 ? s->sram_bandwidth_per_sm / stock_clock : 0),
       S::measured,
       "one block of 1024 threads per SM (128 KiB of shared memory each) reads 16-byte words without bank "
       "conflicts (ld.shared.v4), each pass at other addresses; bytes / clock64() cycles of each block, mean over "
       "blocks, " + runs},
      {"registers.bytes_per_sm", true, "registers per SM", "bytes", static_cast<double>(c.register_bytes_per_sm),
       opt(s ? static_cast<double>(s->register_bytes_per_sm) : 0), S::device_properties,
       "regsPerMultiprocessor x 4 B"},
      {"registers.bytes_per_block", true, "registers per block", "bytes",
       static_cast<double>(c.register_bytes_per_block), opt(s ? static_cast<double>(s->register_bytes_per_block) : 0),
       S::device_properties, "regsPerBlock x 4 B"},
      {"l2.bytes", true, "L2 size", "bytes", static_cast<double>(c.l2_bytes),
       opt(s ? static_cast<double>(s->l2_bytes) : 0), S::device_properties, "l2CacheSize"},
      {"l2.line_bytes", true, "L2 line", "bytes", static_cast<double>(c.l2_line_bytes),
       opt(s ? static_cast<double>(s->l2_line_bytes) : 0), S::datasheet,
       "CUDA C++ Programming Guide: 128-byte lines (not measured)"},
      {"l2.sector_bytes", true, "L2 sector", "bytes", static_cast<double>(c.l2_sector_bytes),
       opt(s ? static_cast<double>(s->l2_sector_bytes) : 0), S::datasheet,
       "CUDA C++ Programming Guide: 32-byte sectors (not measured)"},
      {"l2.partitions", true, "L2 partitions", "count", static_cast<double>(c.l2_partitions),
       opt(s ? static_cast<double>(s->l2_partitions) : 0), S::datasheet,
       "NVIDIA A100 and H100 whitepapers: from sm_80 on the L2 is two partitions, each caching data for the SMs "
       "next to it (not measured)"},
      {"l2.bandwidth_gbps", true, "L2 bandwidth", "GB/s", c.l2_gbps, opt(s ? s->l2_bandwidth / 1e9 : 0), S::measured,
       "every SM reads a " + mib(c.l2_working_set_bytes) +
           " working set (at most L2 / 8; in L2 after the warm-up) over and over, 16-byte ld.global.cg (L1 bypassed); "
           "bytes read / time, " + runs},
      {"l2.latency_ns", true, "L2 latency", "ns", c.l2_latency_ns, opt(s ? s->l2_latency_s * 1e9 : 0), S::measured,
       "one thread chases pointers in random order, " + std::to_string(c.chase_stride_bytes) + " B apart, over " +
           mib(c.l2_chase_bytes) + " (all L2 hits after the warm-up), ld.global.cg, " +
           std::to_string(c.l2_chase_steps) + " steps; time / steps (" + fmt("%.0f", c.l2_latency_cycles) +
           " cycles), " + runs},
      {"hbm.bytes", true, "HBM size", "bytes", static_cast<double>(c.hbm_bytes),
       opt(s ? static_cast<double>(s->hbm_bytes) : 0), S::device_properties, "totalGlobalMem"},
      {"hbm.bandwidth_gbps", true, "HBM bandwidth", "GB/s", c.hbm_gbps(), opt(s ? s->hbm_bandwidth / 1e9 : 0),
       S::measured,
       c.hbm_figure == HbmFigure::copy
           ? "copy of " + mib(c.hbm_buffer_bytes) + " into another buffer (16-byte loads and stores, back to back), "
                 "(bytes read + bytes written) / time, " + runs +
                 "; copy chosen because the model's one HBM server carries reads and writes alike; " + other_hbm
           : "read-only pass over " + mib(c.hbm_buffer_bytes) + " (16-byte loads, back to back), bytes / time, " +
                 runs + "; read chosen with --hbm read; " + other_hbm},
      {"hbm.latency_ns", true, "HBM latency", "ns", c.hbm_latency_ns, opt(s ? s->hbm_latency_s * 1e9 : 0),
       S::measured,
       "one thread chases pointers in random order, " + std::to_string(c.chase_stride_bytes) + " B apart, over " +
           mib(c.hbm_chase_bytes) + " (2 x L2), L2 flushed before each run, " + std::to_string(c.hbm_chase_steps) +
           " steps, each a miss; time / steps (" + fmt("%.0f", c.hbm_latency_cycles) + " cycles), " + runs},
      {"rates.matmul_tflops_fp32", true, "fp32 matmul", "TFLOP/s", c.fp32_tflops,
       opt(s ? s->matmul_flops_fp32 / 1e12 : 0), S::measured,
       "the FP32 FMA rate (as rates.fp32_tflops): fasim's fp32 kernels multiply with FMA on the FP32 units (no TF32)"},
      {"rates.matmul_tflops_fp16", true, "fp16 matmul", "TFLOP/s", c.matmul_fp16_tflops,
       opt(s ? s->matmul_flops_fp16 / 1e12 : 0), S::measured,
       "mma.sync.m16n8k16 f16 x f16 + f32 (what fasim's tensor-core kernel issues), 8 independent accumulators "
       "per warp in registers, full occupancy, every SM; 4096 FLOP per mma / time, " + runs + " (SM clock " +
           fmt("%.3f", c.clock_matmul_ghz) + " GHz; the datasheet peak needs wgmma)"},
      {"rates.matmul_tflops_bf16", true, "bf16 matmul", "TFLOP/s", c.matmul_bf16_tflops,
       opt(s ? s->matmul_flops_bf16 / 1e12 : 0), S::measured,
       "mma.sync.m16n8k16 bf16 x bf16 + f32, as fp16"},
      {"rates.fp32_tflops", true, "FP32 rate", "TFLOP/s", c.fp32_tflops, opt(s ? s->fp32_flops / 1e12 : 0),
       S::measured,
       "16 independent FMA chains per thread in registers, full occupancy, every SM; 2 FLOP per FMA / time, " +
           runs},
      {"rates.exp_per_clock_per_sm", true, "exp rate", "per clock/SM", c.exp_per_clock_per_sm,
       opt(s && s->sm_count > 0 && stock_clock > 0 ? s->exp_rate / (static_cast<double>(s->sm_count) * stock_clock)
                                                   : 0),
       S::measured,
       "8 independent ex2.approx.ftz.f32 chains per thread (MUFU.EX2), full occupancy; exponentials / time / SMs / "
       "SM clock of the same launch, " + runs + " (__expf: " + fmt("%.3g", c.expf_fast_per_clock_per_sm) +
           ", expf: " + fmt("%.3g", c.expf_per_clock_per_sm) + " per clock per SM)"},
      {"rates.launch_overhead_us", true, "launch overhead", "us", c.launch_overhead_us,
       opt(s ? s->launch_overhead_s * 1e6 : 0), S::measured,
       std::to_string(c.launches_per_run) + " empty kernels <<<1, 32>>> launched back to back between two events; "
       "time / " + std::to_string(c.launches_per_run) + ", " + runs},
  };

  // The GPU's own DRAM writes: a TOML figure (in [hbm], after its latency)
  // when measured; else the first extra, saying why not.
  const double mib_per_s = 1024.0 * 1024.0;
  if (c.background_write_mib_per_s) {
    const auto at = std::find_if(f.begin(), f.end(), [](const Figure& x) { return x.key == "hbm.latency_ns"; });
    f.insert(at + 1, Figure{"hbm.background_write_mib_per_s", true, "DRAM writes, background", "MiB/s",
                 *c.background_write_mib_per_s, opt(s ? s->dram_background_write_rate / mib_per_s : 0), S::measured,
                 std::to_string(c.background_ranges) + " CUPTI ranges (L2 flushed after the profiler's start), each "
                 "around one kernel that waits " + fmt("%.3g", c.background_idle_s) + " s and touches no memory; "
                 "DRAM bytes written / range time, the median; predictions add it x time to the DRAM writes"});
  } else {
    f.push_back({"extra.background_write_mib_per_s", false, "DRAM writes, background", "MiB/s", 0,
                 opt(s ? s->dram_background_write_rate / mib_per_s : 0), S::not_measured,
                 "not measured (" + c.background_why_not + "); the TOML leaves it out, so predictions count 0"});
  }

  // The kernels' code: one TOML figure per family ([code_fetch], after the
  // other TOML figures), the mean of its runs; else one extra saying why not.
  auto extras = std::find_if(f.begin(), f.end(), [](const Figure& x) { return !x.toml; });
  bool measured = false;
  for (const detail::CodeFetchFamily& fam : detail::kCodeFetchFamilies) {
    double sum = 0;
    std::string runs_how;
    int n = 0;
    for (const CodeFetchRun& r : c.code_fetch_runs) {
      if (r.family != fam.key) continue;
      sum += r.code_bytes();
      runs_how += (n++ ? "; " : "") + r.shape + ": " + fmt("%.1f", r.read_bytes / 1024) + " KiB read, " +
                  fmt("%.1f", r.data_bytes / 1024) + " KiB of it data";
    }
    if (n == 0) continue;
    measured = true;
    const std::string key = "code_fetch." + std::string(fam.key) + "_kib";
    extras = 1 + f.insert(extras, Figure{key, true, std::string(fam.label), "KiB", sum / n / 1024,
                 opt(s ? s->code_fetch.*fam.figure / 1024 : 0), S::measured,
                 "cold runs of fasim's kernel (L2 flushed), DRAM bytes read (CUPTI, the median of " +
                     std::to_string(c.code_fetch_ranges) + " ranges) less the data the simulator predicts, the mean (" +
                     runs_how + "); predictions add it to a cold run's DRAM reads"});
  }
  if (!measured)
    f.push_back({"extra.code_fetch_kib", false, "code of the kernels", "KiB", 0,
                 opt(s ? s->code_fetch.flash2 / 1024 : 0), S::not_measured,
                 "not measured (" + (c.code_fetch_why_not.empty() ? std::string("no run") : c.code_fetch_why_not) +
                     "); the TOML leaves [code_fetch] out, so predictions use fasim's recorded medians"});

  // Extras: shown, not written.
  const bool copy = c.hbm_figure == HbmFigure::copy;
  f.push_back({copy ? "extra.hbm_read_gbps" : "extra.hbm_copy_gbps", false,
               copy ? "HBM bandwidth, read only" : "HBM bandwidth, copy (read + write)", "GB/s",
               copy ? c.hbm_read_gbps : c.hbm_copy_gbps, opt(s ? s->hbm_bandwidth / 1e9 : 0), S::measured,
               copy ? "read-only pass over " + mib(c.hbm_buffer_bytes) + ", bytes / time (not the TOML's figure)"
                    : "copy of " + mib(c.hbm_buffer_bytes) + ", (read + written) / time (not the TOML's figure)"});
  f.push_back({"extra.peak_clock_ghz", false, "SM clock, peak", "GHz", c.peak_clock_ghz, opt(stock_clock / 1e9),
               S::device_properties, "cudaDevAttrClockRate (the clock the GPU may reach, not the one it ran at)"});
  f.push_back({"extra.clock_matmul_ghz", false, "SM clock during mma.sync", "GHz", c.clock_matmul_ghz,
               opt(stock_clock / 1e9), S::measured, "clock64() / %globaltimer while the fp16 mma.sync benchmark ran"});
  std::optional<double> stock_exp;
  for (const Figure& x : f)
    if (x.key == "rates.exp_per_clock_per_sm") stock_exp = x.stock;
  f.push_back({"extra.expf_fast_per_clock_per_sm", false, "__expf rate", "per clock/SM", c.expf_fast_per_clock_per_sm,
               stock_exp, S::measured, "as the exp rate, with __expf (FMUL + ex2.approx.ftz)"});
  f.push_back({"extra.expf_per_clock_per_sm", false, "expf rate", "per clock/SM", c.expf_per_clock_per_sm, stock_exp,
               S::measured, "as the exp rate, with expf (the accurate library function; fasim's fp32 kernels call it)"});
  return f;
}

namespace {

const char* const kFirstWaveHow =
    "a large grid's first wave fills SMs next to one L2 partition, then the other, in runs of these many blocks "
    "(launch-placement probe on an H100 and an H200, docs/results/launch-placement-2026-11-23.md; not measured by "
    "calibrate)";

const char* const kSmallGridHow =
    "the L2 half next to the SM a grid of one wave fills k-th, A the first (launch-placement probe on every grid "
    "of 1 to 132 blocks, H200, docs/results/small-grid-placement-2026-11-28.md; not measured by calibrate)";

const char* const kSampledSetsHow =
    "the L2 sets the eviction-set probe found on an H200 (configs/l2-sets/, docs/results/l2-evset-2026-11-30.md; "
    "not measured by calibrate)";

std::string runs_text(const std::vector<std::int64_t>& runs) {
  std::string t;
  for (const std::int64_t r : runs) t += (t.empty() ? "" : ", ") + std::to_string(r);
  return t;
}

}  // namespace

std::string measured_name(const Calibration& c) {
  if (!c.stock.empty()) return c.stock + "-measured";
  std::string slug;
  for (char ch : lower(c.gpu)) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      slug += ch;
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return (slug.empty() ? std::string("gpu") : slug) + "-measured";
}

std::string default_out_path(const Calibration& c) { return "configs/devices/" + measured_name(c) + ".toml"; }

std::string stock_profile_for(std::string_view gpu_name) {
  const std::string g(gpu_name);
  for (const char* known : {"H200", "H100", "A100"})
    if (g.find(known) != std::string::npos) return lower(known);
  return "";
}

std::optional<std::string> refuse_out_path(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string stem = file;
  if (stem.size() > 5 && lower(stem.substr(stem.size() - 5)) == ".toml") stem.resize(stem.size() - 5);
  for (const DeviceSpec& d : builtin_devices())
    if (lower(stem) == lower(d.name))
      return "--out " + path + " names the stock profile '" + d.name +
             "', which calibrate never overwrites; write to another file, e.g. --out configs/devices/" + d.name +
             "-measured.toml";
  std::ifstream in(path);
  if (in) {
    std::string first;
    std::getline(in, first);
    if (first.rfind(kHeader, 0) != 0)
      return "--out " + path + " exists and was not written by `fasim gpu calibrate`; remove it or pick another --out";
  }
  return std::nullopt;
}

std::string device_toml(const Calibration& c) {
  const std::vector<Figure> figs = figures(c, nullptr);
  const std::string on = "`fasim gpu calibrate` on " + c.gpu + ", driver " + c.driver + ", " + c.date;
  std::ostringstream os;
  os << kHeader << " on " << one_line(c.gpu) << " (sm_" << c.cc_major << c.cc_minor << "), driver "
     << one_line(c.driver) << ", CUDA runtime " << one_line(c.cuda_runtime) << ", " << one_line(c.date) << ".\n";
  os << "# Each figure says where it comes from: measured (a microbenchmark: how), cudaGetDeviceProperties,\n"
     << "# or the datasheet. Timings: " << c.warmup << " warm-up launches, then the median of " << c.runs
     << " launches timed with CUDA events.\n"
     << "# Use it with --device PATH, e.g. fasim run --device " << default_out_path(c) << "\n";
  os << "name = " << toml_string(measured_name(c)) << "\n";
  os << "description = " << toml_string(c.gpu + ", measured by fasim gpu calibrate " + c.date) << "\n";
  std::string table;
  for (const Figure& f : figs) {
    if (!f.toml) continue;
    const std::size_t dot = f.key.find('.');
    const std::string t = f.key.substr(0, dot), key = f.key.substr(dot + 1);
    if (t != table) {
      os << "\n[" << t << "]\n";
      table = t;
    }
    switch (f.source) {
      case Source::measured: os << "# measured by " << one_line(on) << ": "; break;
      case Source::device_properties: os << "# read by " << one_line(on) << ", from cudaGetDeviceProperties: "; break;
      case Source::datasheet: os << "# written by " << one_line(on) << ", from the datasheet: "; break;
      case Source::not_measured: continue;  // never a TOML figure
    }
    os << one_line(f.how) << "\n";
    os << key << " = " << toml_number(f) << "\n";
    if (f.key != "l2.partitions") continue;
    // The block order is copied from the stock profile, not measured: say so above each line.
    auto copied = [&](const char* how, const std::string& line) {
      os << "# copied by " << one_line(on) << ", from the stock profile " << one_line(c.stock) << ": " << how << "\n"
         << line << "\n";
    };
    if (!c.first_wave_runs.empty()) copied(kFirstWaveHow, "first_wave_runs = [" + runs_text(c.first_wave_runs) + "]");
    if (!c.small_grid_fill.empty()) copied(kSmallGridHow, "small_grid_fill = \"" + c.small_grid_fill + "\"");
    if (!c.sampled_sets.empty()) copied(kSampledSetsHow, "sampled_sets = \"" + c.sampled_sets + "\"");
  }
  return os.str();
}

std::string figures_table(const Calibration& c, const DeviceSpec* stock) {
  const std::vector<Figure> figs = figures(c, stock);
  std::ostringstream os;
  os << "fasim gpu calibrate: " << c.gpu << " (sm_" << c.cc_major << c.cc_minor << ", " << c.sm_count
     << " SMs), driver " << c.driver << ", CUDA runtime " << c.cuda_runtime << ", " << c.date << "\n";
  os << "  stock profile: " << (stock ? stock->name : std::string("none (no built-in profile of this GPU)"))
     << "; every timing is the median of " << c.runs << " runs after " << c.warmup << " warm-up, CUDA events\n\n";
  const std::size_t wk = 40, wu = 16, wv = 16;
  os << "  " << pad("figure (TOML key)", wk, false) << pad("unit", wu, false) << pad("measured", wv, true)
     << pad("stock", wv, true) << pad("ratio", 8, true) << "  source\n";
  bool extras = false;
  for (const Figure& f : figs) {
    if (!f.toml && !extras) {
      os << "  not in the TOML:\n";
      extras = true;
    }
    const auto r = f.ratio();
    os << "  " << pad(f.toml ? f.key : f.label, wk, false) << pad(f.unit, wu, false) << pad(show(f.value, f.unit), wv, true)
       << pad(f.stock ? show(*f.stock, f.unit) : "-", wv, true) << pad(r ? fmt("%.2f", *r) : "-", 8, true) << "  "
       << name(f.source) << "\n";
    if (f.key == "l2.partitions" && !c.first_wave_runs.empty())  // a list: the runs, copied, no ratio
      os << "  " << pad("l2.first_wave_runs", wk, false) << pad("SMs a run", wu, false)
         << pad(runs_text(c.first_wave_runs), wv, true) << pad("-", wv, true) << pad("-", 8, true)
         << "  stock profile\n";
  }
  os << "\nhow each figure was found\n";
  for (const Figure& f : figs) os << "  " << (f.toml ? f.key : f.label) << ": " << f.how << "\n";
  if (!c.first_wave_runs.empty()) os << "  l2.first_wave_runs: from the stock profile " << c.stock << ": " << kFirstWaveHow << "\n";
  if (!c.small_grid_fill.empty())
    os << "  l2.small_grid_fill: from the stock profile " << c.stock << " (" << c.small_grid_fill.size()
       << " letters, not shown): " << kSmallGridHow << "\n";
  if (!c.sampled_sets.empty())
    os << "  l2.sampled_sets: from the stock profile " << c.stock << ": " << kSampledSetsHow << "\n";
  return os.str();
}

nlohmann::json to_json(const Calibration& c, const DeviceSpec* stock) {
  nlohmann::json figs = nlohmann::json::array();
  for (const Figure& f : figures(c, stock)) {
    nlohmann::json j = {{"key", f.key},     {"toml", f.toml},   {"label", f.label},
                        {"unit", f.unit},   {"value", f.value}, {"source", std::string(name(f.source))},
                        {"how", f.how}};
    j["stock"] = f.stock ? nlohmann::json(*f.stock) : nlohmann::json(nullptr);
    const auto r = f.ratio();
    j["ratio"] = r ? nlohmann::json(*r) : nlohmann::json(nullptr);
    figs.push_back(std::move(j));
  }
  return {{"gpu",
           {{"name", c.gpu},
            {"driver", c.driver},
            {"date", c.date},
            {"cuda_runtime", c.cuda_runtime},
            {"compute_capability", std::to_string(c.cc_major) + "." + std::to_string(c.cc_minor)}}},
          {"stock", stock ? nlohmann::json(stock->name) : nlohmann::json(nullptr)},
          {"name", measured_name(c)},
          {"hbm_figure", std::string(name(c.hbm_figure))},
          {"runs", c.runs},
          {"warmup", c.warmup},
          {"first_wave_runs", c.first_wave_runs},  // from the stock profile (kFirstWaveHow)
          {"small_grid_fill", c.small_grid_fill},  // from the stock profile (kSmallGridHow)
          {"sampled_sets", c.sampled_sets},        // from the stock profile (kSampledSetsHow)
          {"figures", figs}};
}

}  // namespace fasim::cuda
