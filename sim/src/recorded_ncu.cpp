// Recorded ncu CSVs (see recorded_ncu.hpp): split into parts at their
// comment lines, each part's metrics collected over its launches.
#include "fasim/recorded_ncu.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/input_file.hpp"
#include "fasim/lesson.hpp"
#include "fasim/median.hpp"
#include "flag_pairs.hpp"

namespace fasim {
namespace {

// The cells of one CSV row; "" inside quotes is one '"'. An unclosed quote
// sets `ok` to false.
std::vector<std::string> csv_cells(std::string_view line, bool& ok) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  ok = true;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (quoted) ok = false;
  cells.push_back(std::move(cell));
  return cells;
}

// A number written as ncu writes one ("25208832", "3199410357.20"), else nullopt.
std::optional<double> number_of(const std::string& s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// One part while it is read: its comment line, and each metric's values per launch.
struct Part {
  std::string run;
  int line = 0;
  std::string kernel;
  std::set<std::string> launches;
  std::vector<std::string> order;  // metric paths in file order
  std::map<std::string, std::vector<std::string>> values;
};

nlohmann::json part_json(const Part& p) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const std::string& path : p.order) {
    const std::vector<std::string>& vals = p.values.at(path);
    std::vector<double> nums;
    for (const std::string& v : vals)
      if (const auto x = number_of(v)) nums.push_back(*x);
    nlohmann::json value = nums.size() == vals.size() ? nlohmann::json(median(nums)) : nlohmann::json(vals.front());
    std::string ptr = "/" + path;  // dots become levels; keys hold no '~' or '/'
    std::replace(ptr.begin(), ptr.end(), '.', '/');
    metrics[nlohmann::json::json_pointer(ptr)] = value;
  }
  return {{"run", p.run}, {"kernel", p.kernel}, {"launches", p.launches.size()}, {"metrics", metrics}};
}

std::string joined_runs(const std::vector<nlohmann::json>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "'" : ", '") + p.at("run").get<std::string>() + "'";
  return out;
}

// The value of `flag` in a comment line's words, or "" if it has none.
std::string flag_value(const std::string& run, const std::string& flag) {
  const std::vector<std::string> words = split_words(run);
  for (std::size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == flag) return words[i + 1];
  return "";
}

}  // namespace

std::string ncu_key(std::string_view name) {
  std::string out;
  bool gap = false;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (gap && !out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      gap = false;
    } else {
      gap = true;
    }
  }
  return out;
}

NcuSelection parse_ncu_selection(const std::vector<std::string>& words) {
  const auto check = [](const std::string& flag) {
    if (flag.rfind("--", 0) != 0 || flag.size() < 3)
      throw UserError("'" + flag + "' is not a flag; write --ncu FILE.csv, then filters such as --algo flash2");
  };
  NcuSelection sel;
  for (auto& [flag, value] : flag_pairs(words, 0, check, [](const std::string& flag) {
         return flag == "--ncu" ? "FILE-ncu.csv" : "VALUE";
       })) {
    if (flag == "--ncu") sel.csv = value;
    else sel.filters.emplace_back(flag, value);
  }
  if (sel.csv.empty()) throw UserError("no profiler run named; add --ncu FILE-ncu.csv");
  return sel;
}

std::vector<nlohmann::json> parse_ncu_csv(std::string_view text, const std::string& origin) {
  std::vector<nlohmann::json> out;
  std::vector<Part> parts;
  std::vector<std::string> header;
  std::size_t c_id = 0, c_kernel = 0, c_section = 0, c_name = 0, c_value = 0;
  int n = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++n;
    const std::string where = origin + ":" + std::to_string(n) + ": ";
    if (trim(line).empty()) continue;
    if (line.front() == '#') {
      Part part;
      part.run = trim(line.substr(1));
      part.line = n;
      parts.push_back(std::move(part));
      header.clear();
      continue;
    }
    if (parts.empty())
      throw UserError(where + "ncu rows before any '# --algo ...' line; start each part with a comment line naming "
                      "the configuration profiled");
    bool ok = true;
    std::vector<std::string> cells = csv_cells(line, ok);
    if (!ok) throw UserError(where + "a quote is never closed; close it with \"");
    if (header.empty()) {
      header = std::move(cells);
      auto col = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
          throw UserError(where + "the header has no column '" + name + "'; write the CSV with ncu --csv");
        return static_cast<std::size_t>(it - header.begin());
      };
      c_id = col("ID");
      c_kernel = col("Kernel Name");
      c_section = col("Section Name");
      c_name = col("Metric Name");
      c_value = col("Metric Value");
      continue;
    }
    // ncu leaves a metric row's trailing rule columns out: only the columns read must be there.
    const std::size_t needed = std::max({c_id, c_kernel, c_section, c_name, c_value}) + 1;
    if (cells.size() < needed || cells.size() > header.size())
      throw UserError(where + "this row has " + std::to_string(cells.size()) + " cells, the header " +
                      std::to_string(header.size()) + "; a row needs a cell for each column up to 'Metric Value' (" +
                      std::to_string(needed) + ")");
    if (cells[c_name].empty()) continue;  // a rule's advice, not a metric
    Part& p = parts.back();
    if (p.kernel.empty()) p.kernel = cells[c_kernel];
    p.launches.insert(cells[c_id]);
    const std::string path = cells[c_section] == "Command line profiler metrics"
                                 ? cells[c_name]
                                 : ncu_key(cells[c_section]) + "." + ncu_key(cells[c_name]);
    auto [it, fresh] = p.values.try_emplace(path);
    if (fresh) p.order.push_back(path);
    it->second.push_back(cells[c_value]);
  }
  for (const Part& p : parts) {
    if (p.order.empty()) {
      out.push_back({{"run", p.run}, {"line", p.line}});  // profiled nothing: an error only if picked
      continue;
    }
    try {
      out.push_back(part_json(p));
    } catch (const nlohmann::json::exception&) {
      throw UserError(origin + ":" + std::to_string(p.line) +
                      ": two metrics of this part clash as keys (one is a prefix of the other); rename one");
    }
  }
  return out;
}

const nlohmann::json& RecordedProfiles::get(const NcuSelection& sel) {
  auto it = files_.find(sel.csv);
  if (it == files_.end()) {
    const std::string text = read_input_file(sel.csv, "ncu CSV", "check the path after --ncu");
    it = files_.emplace(sel.csv, parse_ncu_csv(text, sel.csv)).first;
  }
  const std::vector<nlohmann::json>& parts = it->second;
  std::vector<const nlohmann::json*> kept;
  for (const nlohmann::json& p : parts) {
    const std::string run = p.at("run").get<std::string>();
    if (std::all_of(sel.filters.begin(), sel.filters.end(),
                    [&](const auto& f) { return flag_value(run, f.first) == f.second; }))
      kept.push_back(&p);
  }
  if (kept.empty())
    throw UserError("no profiled part of '" + sel.csv + "' has these flags; its parts are " + joined_runs(parts));
  if (kept.size() > 1) {
    std::vector<nlohmann::json> several;
    for (const auto* p : kept) several.push_back(*p);
    throw UserError("these flags keep " + std::to_string(kept.size()) + " profiled parts (" + joined_runs(several) +
                    "); add flags that keep one");
  }
  if (!kept.front()->contains("metrics"))
    throw UserError("the part '" + kept.front()->at("run").get<std::string>() + "' of '" + sel.csv +
                    "' holds no ncu rows (nothing was profiled there); pick another part");
  return *kept.front();
}

}  // namespace fasim
