// Device TOML parsing. The schema lives in one table (kSchema) so that reading,
// "missing key" help and "unknown key" checks cannot drift apart. Every error is
// a UserError with one line: "origin[:line:col]: problem; fix".
#include "fasim/device_spec.hpp"
#include "fasim/l2_lines.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/input_file.hpp"
#include "toml_text.hpp"

namespace fasim {
namespace detail {
// Generated from configs/devices/*.toml by cmake/embed_devices.cmake:
// (file stem, file text), sorted by stem.
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_device_files();
}  // namespace detail

namespace {

struct KeySpec {
  std::string_view name;
  bool integer;           // TOML integer only; otherwise an int or a float
  std::string_view unit;  // shown in "missing key" help
  // Largest value accepted, far beyond any GPU: sizes and counts above it
  // overflow the simulator's int64 products or allocate without end.
  double max;
  bool optional = false;  // may be left out (read with a default)
  // Smallest value accepted (number() keys), far below any GPU: a rate of
  // 5e-324 GB/s is finite and positive, yet makes times of inf or 70 digits.
  double min = 0;
};
struct TableSpec {
  std::string_view name;
  std::vector<KeySpec> keys;
};

// Maxima (KeySpec::max), in the file's units.
constexpr double kKiB = 1024, kMiB = kKiB * kKiB, kGiB = kMiB * kKiB, kTiB = kGiB * kKiB, kPiB = kTiB * kKiB;

const std::vector<TableSpec>& schema() {
  static const std::vector<TableSpec> s = {
      {"compute", {{"sm_count", true, "count", 4096}, {"clock_ghz", false, "GHz", 100, false, 0.01}}},
      {"sram",
       {{"bytes_per_sm", true, "bytes", kGiB},
        {"bytes_per_block", true, "bytes", kGiB},
        {"bandwidth_bytes_per_clock_per_sm", false, "bytes per clock", kMiB, false, 1}}},
      {"registers", {{"bytes_per_sm", true, "bytes", kGiB}, {"bytes_per_block", true, "bytes", kGiB}}},
      {"l2",
       {{"bytes", true, "bytes", kTiB},
        {"line_bytes", true, "bytes", kMiB},
        {"sector_bytes", true, "bytes", kMiB},
        {"bandwidth_gbps", false, "GB/s", 1e9, false, 1},
        {"latency_ns", false, "ns", 1e9},
        {"partitions", true, "count", 1024, true},
        {"ways", true, "count", kL2MaxWays, true},
        {"first_wave_runs", true, "SMs a run", 4096, true},
        {"small_grid_fill", false, "letters A or B, one an SM", 4096, true},
        {"sampled_sets", false, "a built-in sample's name", 4096, true}}},
      {"hbm",
       {{"bytes", true, "bytes", kPiB},
        {"bandwidth_gbps", false, "GB/s", 1e9, false, 1},
        {"latency_ns", false, "ns", 1e9},
        {"background_write_mib_per_s", false, "MiB/s", 1e9, true}}},
      {"rates",
       {{"matmul_tflops_fp32", false, "TFLOP/s", 1e9, false, 0.001},
        {"matmul_tflops_fp16", false, "TFLOP/s", 1e9, false, 0.001},
        {"matmul_tflops_bf16", false, "TFLOP/s", 1e9, false, 0.001},
        {"fp32_tflops", false, "TFLOP/s", 1e9, false, 0.001},
        {"exp_per_clock_per_sm", false, "exponentials per clock", 1e6, false, 0.01},
        {"launch_overhead_us", false, "microseconds", 1e6}}},
      {"code_fetch",
       {{"naive_kib", false, "KiB", kMiB, true},
        {"flash1_kib", false, "KiB", kMiB, true},
        {"flash2_kib", false, "KiB", kMiB, true},
        {"flash2_mma_kib", false, "KiB", kMiB, true}}},
  };
  return s;
}

const std::vector<std::string_view> kTopStrings = {"name", "description"};

// Reads and checks one device file against schema().
class Reader {
 public:
  Reader(const toml::table& root, const std::string& origin) : root_(root), origin_(origin) {}

  [[noreturn]] void fail(const toml::source_region& at, const std::string& msg) const {
    throw UserError(toml_where(origin_, at) + ": " + msg);
  }

  // Unknown tables and keys are errors: a typo must not silently leave a default.
  void check_known() const {
    std::vector<std::string_view> top = kTopStrings;
    for (const auto& t : schema()) top.push_back(t.name);
    for (const auto& [k, v] : root_) {
      if (std::find(kTopStrings.begin(), kTopStrings.end(), k.str()) != kTopStrings.end()) continue;
      const TableSpec* spec = find_table(k.str());
      if (!spec) fail(k.source(), "unknown key " + std::string(k.str()) + "; known top-level keys: " + join_names(top));
      if (!v.is_table())
        fail(k.source(), "[" + std::string(k.str()) + "] must be a table, got " + toml_describe(v) +
                             "; write it as a [" + std::string(k.str()) + "] section");
      std::vector<std::string_view> names;
      for (const auto& key : spec->keys) names.push_back(key.name);
      for (const auto& [kk, vv] : *v.as_table()) {
        if (std::find(names.begin(), names.end(), kk.str()) == names.end())
          fail(kk.source(), "unknown key [" + std::string(k.str()) + "] " + std::string(kk.str()) +
                                "; known keys: " + join_names(names));
      }
    }
  }

  std::string text(std::string_view key, bool non_empty) const {
    auto it = root_.find(key);
    if (it == root_.end())
      throw UserError(origin_ + ": missing key " + std::string(key) + " (a string); add it");
    const auto* s = it->second.as_string();
    if (!s) fail(it->first.source(), std::string(key) + " must be a string, got " + toml_describe(it->second));
    if (non_empty && s->get().empty())
      fail(it->first.source(), std::string(key) + " must not be empty; give the device a short name, e.g. \"mygpu\"");
    return s->get();
  }

  std::int64_t integer(std::string_view table, std::string_view key) const {
    const auto [k, n] = lookup(table, key);
    if (!n->is_integer() || n->as_integer()->get() <= 0)
      fail(k->source(), label(table, key) + " must be a positive integer, got " + toml_describe(*n) + "; " +
                            positive_fix(table, key));
    check_max(table, key, static_cast<double>(n->as_integer()->get()));
    return n->as_integer()->get();
  }

  // An optional integer key: `fallback` when the table has no such key.
  std::int64_t integer_or(std::string_view table, std::string_view key, std::int64_t fallback) const {
    const auto* tbl = root_.get_as<toml::table>(table);
    if (!tbl || !tbl->contains(key)) return fallback;
    return integer(table, key);
  }

  // An optional integer key that may be 0: `fallback` when left out.
  std::int64_t count_or(std::string_view table, std::string_view key, std::int64_t fallback) const {
    const auto* tbl = root_.get_as<toml::table>(table);
    if (!tbl || !tbl->contains(key)) return fallback;
    const auto [k, n] = lookup(table, key);
    if (!n->is_integer() || n->as_integer()->get() < 0)
      fail(k->source(), label(table, key) + " must be an integer, 0 or more, got " + toml_describe(*n));
    return n->as_integer()->get();
  }

  // An optional list of positive integers (each at most the key's max):
  // empty when left out.
  std::vector<std::int64_t> integers_or_none(std::string_view table, std::string_view key) const {
    const auto* tbl = root_.get_as<toml::table>(table);
    if (!tbl || !tbl->contains(key)) return {};
    const auto [k, n] = lookup(table, key);
    const auto* a = n->as_array();
    auto positive = [](const toml::node& e) { return e.is_integer() && e.as_integer()->get() > 0; };
    if (!a || a->empty() || !std::all_of(a->begin(), a->end(), positive))
      fail(k->source(), label(table, key) + " must be a list of positive integers, e.g. [16, 48, 50, 18], got " +
                            toml_describe(*n));
    std::vector<std::int64_t> out;
    for (const auto& e : *a) {
      out.push_back(e.as_integer()->get());
      check_max(table, key, static_cast<double>(out.back()));
    }
    return out;
  }

  // An optional string of the letters A and B (the L2 half of each SM in
  // the order the GPU fills them): empty when left out.
  std::string halves_or_none(std::string_view table, std::string_view key) const {
    const auto* tbl = root_.get_as<toml::table>(table);
    if (!tbl || !tbl->contains(key)) return {};
    const auto [k, n] = lookup(table, key);
    const auto* s = n->as_string();
    if (!s || s->get().empty() || s->get().find_first_not_of("AB") != std::string::npos)
      fail(k->source(), label(table, key) + " must be a string of the letters A and B, one an SM, e.g. " +
                            "\"AAAAABBB\", got " + toml_describe(*n));
    check_max(table, key, static_cast<double>(s->get().size()));
    return s->get();
  }

  // An optional name of a built-in L2 set sample (l2_lines.hpp): empty when left out.
  std::string sample_or_none(std::string_view table, std::string_view key) const {
    const auto* tbl = root_.get_as<toml::table>(table);
    if (!tbl || !tbl->contains(key)) return {};
    const auto [k, n] = lookup(table, key);
    const auto* s = n->as_string();
    const std::vector<std::string> known = builtin_l2_set_sample_names();
    std::string names;
    for (const std::string& x : known) names += (names.empty() ? "\"" : ", \"") + x + "\"";
    if (!s || std::find(known.begin(), known.end(), s->get()) == known.end())
      fail(k->source(), label(table, key) + " must name a built-in L2 set sample (" + names + "), got " +
                            toml_describe(*n) + "; or leave it out");
    return s->get();
  }

  // An optional number that may be 0: `fallback` when left out.
  double amount_or(std::string_view table, std::string_view key, double fallback) const {
    const auto* tbl = root_.get_as<toml::table>(table);
    if (!tbl || !tbl->contains(key)) return fallback;
    const auto [k, n] = lookup(table, key);
    const auto v = n->is_number() ? n->value<double>() : std::nullopt;
    if (!v || !std::isfinite(*v) || *v < 0)
      fail(k->source(), label(table, key) + " must be a number, 0 or more, got " + toml_describe(*n));
    check_max(table, key, *v);
    return *v;
  }

  // A positive number times `scale` (its unit in SI): the product is checked
  // too, since a tiny figure can round to 0 s or 0 B/s once converted.
  double number(std::string_view table, std::string_view key, double scale = 1) const {
    const auto [k, n] = lookup(table, key);
    const auto v = n->is_number() ? n->value<double>() : std::nullopt;
    if (!v || !std::isfinite(*v) || *v <= 0)
      fail(k->source(), label(table, key) + " must be a positive number, got " + toml_describe(*n) + "; " +
                            positive_fix(table, key));
    check_max(table, key, *v);
    check_min(table, key, *v);
    const double si = *v * scale;
    if (!std::isfinite(si) || si <= 0)
      fail(k->source(), label(table, key) + " (" + toml_describe(*n) +
                            ") is too small to compute with; give a figure of a real device");
    return si;
  }

  // Values above KeySpec::max are refused: they overflow the simulator's
  // products (sizes) or its allocations (SM counts), never model a GPU.
  void check_max(std::string_view table, std::string_view key, double v) const {
    const KeySpec& ks = key_spec(table, key);
    if (v <= ks.max) return;
    char max[32];
    std::snprintf(max, sizeof max, "%.0f", ks.max);
    const std::string unit = ks.unit == "count" ? "" : " " + std::string(ks.unit);
    fail(lookup(table, key).first->source(), label(table, key) + " must be at most " + max + unit + ", got " +
                                                 toml_describe(*lookup(table, key).second) +
                                                 "; no GPU comes near it, lower it");
  }

  // Values below KeySpec::min are refused: no GPU is that slow, and such a
  // rate makes times of inf or dozens of digits.
  void check_min(std::string_view table, std::string_view key, double v) const {
    const KeySpec& ks = key_spec(table, key);
    if (v >= ks.min) return;
    char min[32];
    std::snprintf(min, sizeof min, "%g", ks.min);
    fail(lookup(table, key).first->source(), label(table, key) + " must be at least " + min + " " +
                                                 std::string(ks.unit) + ", got " +
                                                 toml_describe(*lookup(table, key).second) +
                                                 "; no GPU is that slow, give the device's real figure");
  }

  // Position of a key, for consistency errors that involve it.
  const toml::source_region& pos(std::string_view table, std::string_view key) const {
    return lookup(table, key).first->source();
  }

  // The fix for a missing, zero or negative figure: what to give, with the
  // H100's figure as an example where there is an obvious one.
  static std::string positive_fix(std::string_view table, std::string_view key) {
    static const std::map<std::pair<std::string_view, std::string_view>, std::string_view> example = {
        {{"compute", "sm_count"}, "set it to the GPU's SM count, e.g. 132"},
        {{"compute", "clock_ghz"}, "set it to the GPU's clock in GHz, e.g. 1.98"},
        {{"l2", "bytes"}, "set it to the L2's size in bytes, e.g. 52428800"},
        {{"l2", "line_bytes"}, "set it to the L2's line size, e.g. 128"},
        {{"l2", "sector_bytes"}, "set it to the L2's sector size, e.g. 32"},
        {{"l2", "partitions"}, "set it to the L2's partitions, e.g. 2, or leave it out for 1"},
        {{"hbm", "bytes"}, "set it to the GPU's memory in bytes, e.g. 85899345920"},
        {{"l2", "bandwidth_gbps"}, "set it to the L2's bandwidth in GB/s, e.g. 5500"},
        {{"hbm", "bandwidth_gbps"}, "set it to the memory's bandwidth in GB/s, e.g. 3350"},
    };
    if (auto it = example.find({table, key}); it != example.end()) return std::string(it->second);
    const KeySpec& ks = key_spec(table, key);
    return "give the device's figure" + (ks.unit == "count" ? std::string() : " in " + std::string(ks.unit));
  }

  static std::string label(std::string_view table, std::string_view key) {
    return "[" + std::string(table) + "] " + std::string(key);
  }

 private:
  static const TableSpec* find_table(std::string_view name) {
    for (const auto& t : schema())
      if (t.name == name) return &t;
    return nullptr;
  }

  static const KeySpec& key_spec(std::string_view table, std::string_view key) {
    const auto& keys = find_table(table)->keys;
    return *std::find_if(keys.begin(), keys.end(), [&](const KeySpec& s) { return s.name == key; });
  }

  std::pair<const toml::key*, const toml::node*> lookup(std::string_view table, std::string_view key) const {
    const TableSpec* spec = find_table(table);
    const auto* tbl = root_.get_as<toml::table>(table);
    if (!tbl) {
      std::vector<std::string_view> names;  // what to add: the keys that may not be left out
      for (const auto& k : spec->keys)
        if (!k.optional) names.push_back(k.name);
      throw UserError(origin_ + ": missing table [" + std::string(table) + "] (keys: " + join_names(names) +
                      "); add it");
    }
    auto it = tbl->find(key);
    if (it == tbl->end()) {
      const KeySpec& ks = key_spec(table, key);
      throw UserError(origin_ + ": missing key " + label(table, key) + " (" +
                      (ks.integer ? "a positive integer, " : "a number, ") + std::string(ks.unit) +
                      "); add it");
    }
    return {&it->first, &it->second};
  }

  const toml::table& root_;
  const std::string& origin_;
};

DeviceSpec read_device(const Reader& r) {
  DeviceSpec d;
  d.name = r.text("name", true);
  d.description = r.text("description", false);

  d.sm_count = r.integer("compute", "sm_count");
  d.clock_hz = r.number("compute", "clock_ghz", 1e9);

  d.sram_bytes_per_sm = r.integer("sram", "bytes_per_sm");
  d.sram_bytes_per_block = r.integer("sram", "bytes_per_block");
  d.sram_bandwidth_per_sm = r.number("sram", "bandwidth_bytes_per_clock_per_sm") * d.clock_hz;
  d.register_bytes_per_sm = r.integer("registers", "bytes_per_sm");
  d.register_bytes_per_block = r.integer("registers", "bytes_per_block");

  d.l2_bytes = r.integer("l2", "bytes");
  d.l2_line_bytes = r.integer("l2", "line_bytes");
  d.l2_sector_bytes = r.integer("l2", "sector_bytes");
  d.l2_bandwidth = r.number("l2", "bandwidth_gbps", 1e9);
  d.l2_latency_s = r.number("l2", "latency_ns", 1e-9);
  d.l2_partitions = r.integer_or("l2", "partitions", 1);
  d.l2_ways = r.count_or("l2", "ways", kL2Ways);
  d.l2_first_wave_runs = r.integers_or_none("l2", "first_wave_runs");
  d.l2_small_grid_fill = r.halves_or_none("l2", "small_grid_fill");
  d.l2_sampled_sets = r.sample_or_none("l2", "sampled_sets");

  d.hbm_bytes = r.integer("hbm", "bytes");
  d.hbm_bandwidth = r.number("hbm", "bandwidth_gbps", 1e9);
  d.hbm_latency_s = r.number("hbm", "latency_ns", 1e-9);
  d.dram_background_write_rate = r.amount_or("hbm", "background_write_mib_per_s", 0) * 1024 * 1024;
  CodeFetch& code = d.code_fetch;  // left out: the defaults of CodeFetch
  code.naive = r.amount_or("code_fetch", "naive_kib", code.naive / 1024) * 1024;
  code.flash1 = r.amount_or("code_fetch", "flash1_kib", code.flash1 / 1024) * 1024;
  code.flash2 = r.amount_or("code_fetch", "flash2_kib", code.flash2 / 1024) * 1024;
  code.flash2_mma = r.amount_or("code_fetch", "flash2_mma_kib", code.flash2_mma / 1024) * 1024;

  d.matmul_flops_fp32 = r.number("rates", "matmul_tflops_fp32", 1e12);
  d.matmul_flops_fp16 = r.number("rates", "matmul_tflops_fp16", 1e12);
  d.matmul_flops_bf16 = r.number("rates", "matmul_tflops_bf16", 1e12);
  d.fp32_flops = r.number("rates", "fp32_tflops", 1e12);
  d.exp_rate = r.number("rates", "exp_per_clock_per_sm") * static_cast<double>(d.sm_count) * d.clock_hz;
  d.launch_overhead_s = r.number("rates", "launch_overhead_us", 1e-6);
  return d;
}

// A built-in L2 set sample is the sets of one GPU's L2: its halves, ways and
// 128-byte lines. Simulating a profile of another L2 on it would silently
// run that GPU's cache, so the profile's [l2] must be that L2. ([l2] ways is
// not compared: the count model's ways are a fit, e.g. 64 for the H200,
// whose sample measured 16.)
void check_sample_geometry(const Reader& r, const DeviceSpec& d) {
  const auto sample = builtin_l2_set_sample(d.l2_sampled_sets);
  if (!sample) return;  // sample_or_none() already refused unknown names
  constexpr std::int64_t kSampleLine = 128, kSampleHalves = 2;
  const std::int64_t bytes = kSampleHalves * sample->sets_per_half * sample->ways * kSampleLine;
  auto size = [](std::int64_t b) {
    char buf[48];
    if (b % (1 << 20) == 0) std::snprintf(buf, sizeof buf, "%lld MiB", static_cast<long long>(b >> 20));
    else std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(b));
    return std::string(buf);
  };
  std::string differs;
  if (d.l2_bytes != bytes) differs = "is " + size(d.l2_bytes);
  else if (d.l2_partitions != kSampleHalves) differs = "has " + std::to_string(d.l2_partitions) + " partition(s)";
  else if (d.l2_line_bytes != kSampleLine) differs = "has " + std::to_string(d.l2_line_bytes) + "-byte lines";
  if (differs.empty()) return;
  r.fail(r.pos("l2", "sampled_sets"),
         "[l2] sampled_sets '" + d.l2_sampled_sets + "' samples a " + size(bytes) + " L2 of " +
             std::to_string(kSampleHalves) + " halves (" + with_commas(sample->sets_per_half) + " sets x " +
             std::to_string(sample->ways) + " ways x " + std::to_string(kSampleLine) +
             " B each); this profile's L2 " + differs + ": drop sampled_sets or make [l2] match");
}

// Relations between figures that the simulator relies on.
void check_consistency(const Reader& r, const DeviceSpec& d) {
  auto not_above = [&](std::string_view table, std::int64_t block, std::int64_t sm) {
    if (block > sm)
      r.fail(r.pos(table, "bytes_per_block"),
             Reader::label(table, "bytes_per_block") + " (" + std::to_string(block) + ") must not exceed " +
                 Reader::label(table, "bytes_per_sm") + " (" + std::to_string(sm) +
                 "); a block cannot use more than its SM has, lower it");
  };
  not_above("sram", d.sram_bytes_per_block, d.sram_bytes_per_sm);
  not_above("registers", d.register_bytes_per_block, d.register_bytes_per_sm);

  const std::string line = "[l2] line_bytes (" + std::to_string(d.l2_line_bytes) + ")";
  if (d.l2_sector_bytes > d.l2_line_bytes)
    r.fail(r.pos("l2", "sector_bytes"), "[l2] sector_bytes (" + std::to_string(d.l2_sector_bytes) +
                                            ") must not exceed " + line + "; a sector is part of a line");
  if (d.l2_line_bytes % d.l2_sector_bytes != 0)
    r.fail(r.pos("l2", "sector_bytes"), "[l2] sector_bytes (" + std::to_string(d.l2_sector_bytes) +
                                            ") must divide " + line + "; a line is a whole number of sectors");
  if (d.l2_bytes % d.l2_line_bytes != 0)
    r.fail(r.pos("l2", "bytes"), "[l2] bytes (" + std::to_string(d.l2_bytes) + ") must be a multiple of " +
                                     line + "; the cache is a whole number of lines");
  if (d.l2_partitions > d.sm_count)
    r.fail(r.pos("l2", "partitions"), "[l2] partitions (" + std::to_string(d.l2_partitions) +
                                          ") must not exceed [compute] sm_count (" + std::to_string(d.sm_count) +
                                          "); every partition serves at least one SM");
  if (d.l2_ways > kL2MaxWays)
    r.fail(r.pos("l2", "ways"), "[l2] ways (" + std::to_string(d.l2_ways) + ") must be at most " +
                                    std::to_string(kL2MaxWays) + "; use 0 for one fully associative set");
  if (d.l2_ways > d.l2_bytes / (d.l2_line_bytes * d.l2_partitions))
    r.fail(r.pos("l2", "ways"), "[l2] ways (" + std::to_string(d.l2_ways) + ") must not exceed the lines of one partition (" +
                                    std::to_string(d.l2_bytes / (d.l2_line_bytes * d.l2_partitions)) +
                                    "); use 0 for one fully associative set");
  if (!d.l2_first_wave_runs.empty()) {
    std::int64_t sms = 0;
    for (const std::int64_t run : d.l2_first_wave_runs) sms += run;
    if (d.l2_partitions < 2)
      r.fail(r.pos("l2", "first_wave_runs"), "[l2] first_wave_runs needs [l2] partitions of 2 or more (got " +
                                                 std::to_string(d.l2_partitions) +
                                                 "); with one partition every SM is next to it, so leave it out");
    if (sms != d.sm_count)
      r.fail(r.pos("l2", "first_wave_runs"), "[l2] first_wave_runs adds up to " + std::to_string(sms) +
                                                 " SMs, but [compute] sm_count is " + std::to_string(d.sm_count) +
                                                 "; the runs must cover every SM once");
  }
  if (!d.l2_small_grid_fill.empty()) {
    if (d.l2_partitions != 2)
      r.fail(r.pos("l2", "small_grid_fill"), "[l2] small_grid_fill needs [l2] partitions = 2 (got " +
                                                 std::to_string(d.l2_partitions) +
                                                 "); A and B name the two halves, so leave it out");
    if (static_cast<std::int64_t>(d.l2_small_grid_fill.size()) != d.sm_count)
      r.fail(r.pos("l2", "small_grid_fill"), "[l2] small_grid_fill has " +
                                                 std::to_string(d.l2_small_grid_fill.size()) +
                                                 " letters, but [compute] sm_count is " + std::to_string(d.sm_count) +
                                                 "; give one letter for every SM");
  }
  if (d.l2_bytes % (d.l2_line_bytes * d.l2_partitions) != 0)
    r.fail(r.pos("l2", "bytes"), "[l2] bytes (" + std::to_string(d.l2_bytes) + ") must be a multiple of " + line +
                                     " x [l2] partitions (" + std::to_string(d.l2_partitions) +
                                     "); each partition is a whole number of lines");
  if (!d.l2_sampled_sets.empty()) check_sample_geometry(r, d);
}

std::string read_file(const std::string& path) { return read_input_file(path, "device file", "check the path"); }

}  // namespace

double DeviceSpec::matmul_flops(DType t) const {
  switch (t) {
    case DType::fp32: return matmul_flops_fp32;
    case DType::fp16: return matmul_flops_fp16;
    case DType::bf16: return matmul_flops_bf16;
  }
  return matmul_flops_fp32;
}

DeviceSpec parse_device(std::string_view toml_text, const std::string& origin) {
  const toml::table root = parse_toml(toml_text, origin);
  const Reader r(root, origin);
  r.check_known();
  DeviceSpec d = read_device(r);
  check_consistency(r, d);
  return d;
}

std::vector<DeviceSpec> builtin_devices() {
  // Parsed once; a broken built-in file is a build bug, reported like a user file.
  static const std::vector<DeviceSpec> all = [] {
    std::vector<DeviceSpec> out;
    for (const auto& [stem, text] : detail::builtin_device_files()) {
      DeviceSpec d = parse_device(text, "configs/devices/" + std::string(stem) + ".toml");
      d.source = "built-in";
      out.push_back(std::move(d));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
  }();
  return all;
}

DeviceSpec load_device(std::string_view name_or_path) {
  const std::string s(name_or_path);
  if (s.ends_with(".toml") || s.find('/') != std::string::npos) {
    DeviceSpec d = parse_device(read_file(s), s);
    d.source = s;
    return d;
  }
  const auto all = builtin_devices();
  std::vector<std::string_view> names;
  for (const auto& d : all) {
    if (lower(d.name) == lower(s)) return d;
    names.push_back(d.name);
  }
#ifdef FASIM_DEVICES_DIR
  // Profiles written by `fasim gpu calibrate` (NAME-measured.toml) sit beside
  // the stock ones but are not built in: find them on disk by name.
  const std::string local = std::string(FASIM_DEVICES_DIR) + "/" + lower(s) + ".toml";
  if (std::FILE* f = std::fopen(local.c_str(), "r")) {
    std::fclose(f);
    DeviceSpec d = parse_device(read_file(local), local);
    d.source = local;
    return d;
  }
#endif
  throw UserError("unknown device '" + s + "'; known: " + join_names(names) + ", or pass a path to a .toml file");
}

}  // namespace fasim
