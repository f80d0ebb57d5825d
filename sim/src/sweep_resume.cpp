#include "fasim/sweep_resume.hpp"

#include <unordered_map>

#include "fasim/error.hpp"

namespace fasim {

namespace {

constexpr const char* kFix = "run the same `fasim sweep` command that wrote it, or drop --resume to start over";

// The settings that identify a point; Br and Bc only when the sweep sets them
// (otherwise each point has default tiles, which its settings determine), and
// the blocks per SM only when it does.
std::vector<std::string> key_columns(bool tiles, bool per_sm = false) {
  std::vector<std::string> cols = {"device",         "mapping.algo", "workload.dtype", "workload.batch",
                                   "workload.heads", "workload.N",   "workload.d"};
  if (tiles) cols.insert(cols.end(), {"mapping.br", "mapping.bc"});
  if (per_sm) cols.emplace_back("mapping.blocks_per_sm");
  return cols;
}

std::string point_key(const SweepSpec& s, const SweepPoint& p, bool tiles, bool per_sm) {
  const Workload& w = p.workload;
  std::string k = s.devices.at(p.device).name + '\n' + std::string(name(p.algo)) + '\n' +
                  std::string(name(w.dtype)) + '\n' + std::to_string(w.batch) + '\n' + std::to_string(w.heads) +
                  '\n' + std::to_string(w.N) + '\n' + std::to_string(w.d);
  if (tiles) k += '\n' + std::to_string(p.br.value_or(0)) + '\n' + std::to_string(p.bc.value_or(0));
  if (per_sm) k += '\n' + std::to_string(p.blocks_per_sm);
  return k;
}

std::string row_key(const SweepTable& t, std::size_t r, const std::vector<std::string>& cols) {
  std::string k;
  for (std::size_t c = 0; c < cols.size(); ++c) k += (c ? "\n" : "") + t.text(r, cols[c]);
  return k;
}

// "N=4096 d=64 flash2 fp16 h100": the row's settings, for a message.
std::string describe_row(const SweepTable& t, std::size_t r) {
  return "N=" + t.text(r, "workload.N") + " d=" + t.text(r, "workload.d") + " batch=" + t.text(r, "workload.batch") +
         " heads=" + t.text(r, "workload.heads") + " " + t.text(r, "mapping.algo") + " " +
         t.text(r, "workload.dtype") + " " + t.text(r, "device");
}

}  // namespace

FlatRow row_of(const SweepTable& t, std::size_t r) {
  FlatRow row;
  for (const std::string& c : t.columns())
    if (const nlohmann::json& v = t.at(r, c); !v.is_null()) row.cells.emplace_back(c, v);
  return row;
}

std::vector<std::optional<FlatRow>> match_done_rows(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                                    const SweepTable& done, const std::string& path) {
  const std::string file = "--resume: '" + path + "'";
  const bool tiles = !spec.br.empty() || !spec.bc.empty();
  const bool per_sm = spec.blocks_per_sm != std::vector<std::int64_t>{0};
  const std::vector<std::string> cols = key_columns(tiles, per_sm);
  for (const std::string& c : key_columns(false, per_sm))
    if (!done.has(c))
      throw UserError(file + " is not a file of this sweep: its header has no column '" + c + "'; " + kFix);

  // Numerics columns: a successful row has them exactly when the sweep computes values.
  for (std::size_t r = 0; r < done.size(); ++r) {
    if (!done.at(r, "error").is_null()) continue;
    // (numerics.reference, not max_abs_error: an overflowed point's error is
    // Inf, which JSON and the CSV write as null.)
    const bool has = !done.at(r, "numerics.reference").is_null();
    if (has != spec.options.numerics)
      throw UserError(file + " was written " + (has ? "with" : "without") + " --numerics; resume " +
                      (has ? "with" : "without") + " --numerics, as the interrupted sweep ran");
    break;
  }

  std::unordered_map<std::string, std::size_t> index;  // point key -> point
  for (std::size_t i = 0; i < points.size(); ++i) index.emplace(point_key(spec, points[i], tiles, per_sm), i);
  std::vector<std::optional<FlatRow>> rows(points.size());
  for (std::size_t r = 0; r < done.size(); ++r) {
    auto it = index.find(row_key(done, r, cols));
    if (it == index.end())
      throw UserError(file + " holds a point this sweep does not have (" + describe_row(done, r) + "); " + kFix);
    if (rows[it->second])
      throw UserError(file + " holds the point " + describe_row(done, r) + " twice; " + kFix);
    rows[it->second] = row_of(done, r);
  }
  return rows;
}

SweepTable table_of(const std::vector<std::optional<FlatRow>>& rows) {
  SweepTable t;
  for (const auto& r : rows)
    if (r) t.add(*r);
  return t;
}

}  // namespace fasim
