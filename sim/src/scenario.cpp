// Scenario files: the same error style as device files (one line,
// "origin:line:col: problem; fix"); unknown keys are errors so a typo cannot
// silently fall back to a default.
#include "fasim/scenario.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/input_file.hpp"
#include "fasim/simulation.hpp"
#include "fasim/workload.hpp"
#include "toml_text.hpp"

namespace fasim {
namespace {

// Keep in step with parse_dtype / parse_algo (they offer no list of names).
constexpr std::string_view kDtypes = "fp32, fp16, bf16";
constexpr std::string_view kAlgos = kAlgoNames;

// Same rule as load_device: a name with '/' or ending in ".toml" is a path.
bool is_path(std::string_view s) { return s.ends_with(".toml") || s.find('/') != std::string_view::npos; }

// One key's value with its position, checked against the expected type.
class Field {
 public:
  Field(const std::string& origin, std::string label, const toml::key& k, const toml::node& v)
      : origin_(origin), label_(std::move(label)), key_(k), node_(v) {}

  [[noreturn]] void fail(const std::string& msg) const {
    throw UserError(toml_where(origin_, key_.source()) + ": " + msg);
  }

  std::string text() const {
    if (!node_.is_string()) fail(label_ + " must be a string, got " + toml_describe(node_));
    return node_.as_string()->get();
  }
  // min 1: positive; min 0: non-negative.
  std::int64_t integer(std::int64_t min) const {
    if (!node_.is_integer() || node_.as_integer()->get() < min)
      fail(label_ + (min > 0 ? " must be a positive integer" : " must be a non-negative integer") + ", got " +
           toml_describe(node_) + "; write a whole number, e.g. " + example(min));
    return node_.as_integer()->get();
  }
  bool boolean() const {
    if (!node_.is_boolean()) fail(label_ + " must be true or false, got " + toml_describe(node_));
    return node_.as_boolean()->get();
  }
  const toml::table& table() const {
    if (!node_.is_table())
      fail(label_ + " must be a table, got " + toml_describe(node_) + "; write it as a [" + label_ + "] section");
    return *node_.as_table();
  }
  const std::string& label() const { return label_; }

 private:
  // "N = 1024": the key (the label's last word) with a typical value.
  std::string example(std::int64_t min) const {
    const std::string key = label_.substr(label_.rfind(' ') + 1);
    static const std::vector<std::pair<std::string_view, std::string_view>> typical = {
        {"batch", "1"}, {"heads", "16"}, {"N", "1024"}, {"d", "64"}, {"kv_heads", "1"}, {"N_kv", "4096"},
        {"br", "64"},   {"bc", "64"}};
    for (const auto& [k, v] : typical)
      if (key == k) return key + " = " + std::string(v);
    return key + " = " + std::to_string(min);
  }

  const std::string& origin_;
  std::string label_;
  const toml::key& key_;
  const toml::node& node_;
};

using Handler = std::function<void(const Field&)>;
struct Entry {
  std::string_view key;
  Handler read;
};

// Reads every key of `tbl` with its handler; any other key is an error.
void read_table(const std::string& origin, std::string_view table, const toml::table& tbl,
                const std::vector<Entry>& entries) {
  std::vector<std::string_view> names;
  for (const auto& e : entries) names.push_back(e.key);
  const std::string prefix = table.empty() ? "" : "[" + std::string(table) + "] ";
  for (const auto& [k, v] : tbl) {
    const std::string_view name = k.str();  // clang < 16 cannot capture a structured binding
    auto it = std::find_if(entries.begin(), entries.end(), [name](const Entry& e) { return e.key == name; });
    if (it == entries.end())
      throw UserError(toml_where(origin, k.source()) + ": unknown key " + prefix + std::string(k.str()) +
                      (table.empty() ? "; known top-level keys: " : "; known keys: ") + join_names(names));
    it->read(Field(origin, prefix + std::string(k.str()), k, v));
  }
}

// `device = "..."`: a built-in name is checked now, so the error points at this
// line; a path is resolved against the scenario's directory and read later.
std::string read_device(const Field& f, const std::string& base_dir) {
  std::string dev = f.text();
  if (dev.empty()) f.fail(f.label() + " must not be empty; give a built-in name or a path to a .toml file");
  if (is_path(dev)) {
    std::filesystem::path p(dev);
    if (p.is_relative() && !base_dir.empty()) dev = (std::filesystem::path(base_dir) / p).lexically_normal().string();
    return dev;
  }
  std::vector<std::string_view> names;
  const auto all = builtin_devices();
  for (const auto& d : all) {
    if (lower(d.name) == lower(dev)) return dev;
    names.push_back(d.name);
  }
  f.fail("unknown device '" + dev + "'; known: " + join_names(names) + ", or pass a path to a .toml file");
}

}  // namespace

Scenario parse_scenario(std::string_view toml_text, const std::string& origin, const std::string& base_dir) {
  const toml::table root = parse_toml(toml_text, origin);

  Scenario s;
  auto positive = [](std::optional<std::int64_t>& out) { return [&out](const Field& f) { out = f.integer(1); }; };
  auto non_negative = [](std::optional<std::int64_t>& out) { return [&out](const Field& f) { out = f.integer(0); }; };

  const std::vector<Entry> workload = {
      {"batch", positive(s.batch)},
      {"heads", positive(s.heads)},
      {"N", positive(s.N)},
      {"d", positive(s.d)},
      {"dtype",
       [&](const Field& f) {
         s.dtype = parse_dtype(f.text());
         if (!s.dtype) f.fail(f.label() + " must be one of " + std::string(kDtypes) + ", got \"" + f.text() + "\"");
       }},
      {"kv_heads", positive(s.kv_heads)},
      {"N_kv", positive(s.N_kv)},
      {"causal", [&](const Field& f) { s.causal = f.boolean(); }},
      {"window", non_negative(s.window)},
      {"page_size", non_negative(s.page_size)},
  };
  const std::vector<Entry> mapping = {
      {"algo",
       [&](const Field& f) {
         s.algo = parse_algo(f.text());
         if (!s.algo) f.fail(f.label() + " must be one of " + std::string(kAlgos) + ", got \"" + f.text() + "\"");
       }},
      {"br", positive(s.br)},
      {"bc", positive(s.bc)},
      {"double_buffer", [&](const Field& f) { s.double_buffer = f.boolean(); }},
      {"splits", non_negative(s.splits)},
      {"blocks_per_sm", non_negative(s.blocks_per_sm)},
  };
  const std::vector<Entry> run = {
      {"seed", [&](const Field& f) { s.seed = static_cast<std::uint64_t>(f.integer(0)); }},
      {"numerics", [&](const Field& f) { s.numerics = f.boolean(); }},
      {"row", [&](const Field& f) { s.row = f.integer(0); }},
      {"l2",
       [&](const Field& f) {
         const std::string v = f.text();
         if (v != "cold" && v != "warm") f.fail(f.label() + " must be \"cold\" or \"warm\", got \"" + v + "\"");
         s.l2_warm = v == "warm";
       }},
  };
  auto table = [&](std::string_view name, const std::vector<Entry>& entries) {
    return [&origin, name, e = &entries](const Field& f) { read_table(origin, name, f.table(), *e); };
  };

  const std::vector<Entry> top = {
      {"title", [&](const Field& f) { s.title = f.text(); }},
      {"device", [&](const Field& f) { s.device = read_device(f, base_dir); }},
      {"workload", table("workload", workload)},
      {"mapping", table("mapping", mapping)},
      {"run", table("run", run)},
  };
  read_table(origin, "", root, top);
  return s;
}

Scenario load_scenario(const std::string& path) {
  const std::string text = read_input_file(path, "scenario file", "check the path");
  return parse_scenario(text, path, std::filesystem::path(path).parent_path().string());
}

void apply_scenario(const Scenario& sc, Workload& w, Mapping& m, SimOptions& o) {
  auto set = [](auto& field, const auto& given) {
    if (given) field = *given;
  };
  set(w.batch, sc.batch);
  set(w.heads, sc.heads);
  set(w.N, sc.N);
  set(w.d, sc.d);
  set(w.dtype, sc.dtype);
  set(w.kv_heads, sc.kv_heads);
  set(w.N_kv, sc.N_kv);
  set(w.causal, sc.causal);
  set(w.window, sc.window);
  set(w.page_size, sc.page_size);
  set(m.algo, sc.algo);
  std::optional<std::int64_t> br = sc.br, bc = sc.bc;
  square_lone_tile(br, bc);
  set(m.br, br);
  set(m.bc, bc);
  set(m.double_buffer, sc.double_buffer);
  set(m.splits, sc.splits);
  set(m.blocks_per_sm, sc.blocks_per_sm);
  set(o.seed, sc.seed);
  set(o.numerics, sc.numerics);
  set(o.watch.row, sc.row);
  if (sc.l2_warm) o.l2 = *sc.l2_warm ? L2Start::warm : L2Start::cold;
}

}  // namespace fasim
