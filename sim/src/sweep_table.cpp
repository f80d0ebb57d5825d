#include "fasim/sweep_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "fasim/error.hpp"
#include "fasim/input_file.hpp"

namespace fasim {

namespace {

const nlohmann::json kAbsent;  // null

// Unquoted CSV text -> a typed value (null: empty cell). Integers stay
// integers so byte counts read back exactly.
nlohmann::json typed_cell(std::string_view s) {
  if (s.empty()) return nullptr;
  if (s == "true") return true;
  if (s == "false") return false;
  const char* end = s.data() + s.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(s.data(), end, i); ec == std::errc() && p == end) return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(s.data(), end, d); ec == std::errc() && p == end) return d;
  return std::string(s);
}

std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float() && !std::isfinite(v.get<double>())) {
    const double d = v.get<double>();
    return std::isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf");
  }
  if (!v.is_string()) return v.dump();
  const std::string& s = v.get_ref<const std::string&>();
  // Quote what would not read back as this same string.
  if (s.find_first_of(",\"\r\n") == std::string::npos && typed_cell(s).is_string()) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

[[noreturn]] void bad_line(const std::string& origin, std::size_t line, const std::string& what) {
  throw UserError(origin + ":" + std::to_string(line) + ": " + what +
                  "; a sweep file is what `fasim sweep --out FILE.csv` (or .jsonl) writes");
}

struct CsvCell {
  std::string text;
  bool quoted = false;
};

// One CSV record starting at `pos` (advanced past its line break); `line` is
// the physical line counter, advanced over quoted line breaks too.
std::vector<CsvCell> next_record(std::string_view text, std::size_t& pos, std::size_t& line,
                                 const std::string& origin) {
  std::vector<CsvCell> cells(1);
  const std::size_t start_line = line;
  while (pos < text.size()) {
    const char c = text[pos++];
    CsvCell& cell = cells.back();
    if (c == '"' && cell.text.empty() && !cell.quoted) {
      cell.quoted = true;
      for (;;) {
        if (pos >= text.size()) bad_line(origin, start_line, "a quoted cell is never closed");
        const char q = text[pos++];
        if (q == '"' && pos < text.size() && text[pos] == '"') {
          cell.text += '"';
          ++pos;
        } else if (q == '"') {
          break;
        } else {
          if (q == '\n') ++line;
          cell.text += q;
        }
      }
      if (pos < text.size() && text[pos] != ',' && text[pos] != '\n' && text[pos] != '\r')
        bad_line(origin, line, "text after a closing quote");
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
      ++line;
      return cells;
    } else if (c == '"' || cell.quoted) {
      bad_line(origin, line, "a quote inside an unquoted cell (write \"\" inside a quoted cell)");
    } else {
      cell.text += c;
    }
  }
  ++line;
  return cells;
}

// ---- checks on the cells that figures read as numbers ----
// A corrupt cell (1e308 for N, nan bytes, -5 bytes) would otherwise be drawn
// as -nan coordinates or "inf EiB", or cast to int out of range.

constexpr double kMaxShape = 16777216;  // N, d, heads, batch, Br, Bc: 1..2^24 (fasim's largest N)
constexpr double kMaxQuantity = 1e18;   // bytes, seconds, FLOPs, TFLOP/s: far beyond any run

bool is_shape_column(std::string_view c) {
  for (std::string_view s : {"workload.N", "workload.d", "workload.heads", "workload.batch", "mapping.br",
                             "mapping.bc", "N", "d", "heads", "batch", "br", "bc"})
    if (c == s) return true;
  return false;
}

// Non-negative amounts: byte counts, times, FLOP counts and rates, and the
// predicted/measured figures of `fasim compare` CSVs (bytes or seconds).
bool is_quantity_column(std::string_view c) {
  if (c.find("bytes") != std::string_view::npos || c.starts_with("flops.")) return true;
  for (std::string_view s : {"time.seconds", "time.tflops", "time.cycles", "time_s", "tflops", "predicted",
                             "measured", "measured_min", "measured_max"})
    if (c == s) return true;
  return false;
}

std::string format_bound(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return v >= 1e15 ? "1e18" : buf;
}

// Throws if a known numeric column holds something no real run writes.
// `raw`: the cell as the file spells it.
void check_cell(const std::string& origin, std::size_t line, const std::string& column, const nlohmann::json& v,
                const std::string& raw) {
  auto refuse = [&](const std::string& want) {
    const bool sweep_column = column.find('.') != std::string::npos;
    throw UserError(origin + ":" + std::to_string(line) + ": column '" + column + "' value '" + raw + "' is " +
                    want + "; fix the row or " + (sweep_column ? "sweep again" : "write the file again"));
  };
  const bool number = v.is_number();
  const double x = number ? v.get<double>() : 0;
  if (is_shape_column(column)) {
    if (!number || !std::isfinite(x) || x != std::floor(x) || x < 1 || x > kMaxShape)
      refuse("not an integer in 1.." + format_bound(kMaxShape));
  } else if (column == "causal") {
    if (v.is_boolean()) return;
    if (!number || (x != 0 && x != 1)) refuse("not 0 or 1");
  } else if (is_quantity_column(column)) {
    if (!number || !std::isfinite(x) || x < 0 || x > kMaxQuantity)
      refuse("not a number in 0.." + format_bound(kMaxQuantity));
  }
}

// Checks every cell of a row, unless the row records an error: such rows
// carry no results and every reader skips them.
void check_row(const std::string& origin, std::size_t line, const FlatRow& row,
               const std::vector<std::string>* raw = nullptr) {
  if (const nlohmann::json* e = row.find("error"); e && !e->is_null()) return;
  for (std::size_t i = 0; i < row.cells.size(); ++i) {
    const auto& [k, v] = row.cells[i];
    check_cell(origin, line, k, v, raw ? (*raw)[i] : (v.is_string() ? v.get<std::string>() : v.dump()));
  }
}

}  // namespace

const std::vector<std::string>& sweep_setting_columns() {
  static const std::vector<std::string> cols = {"device",         "mapping.algo", "workload.dtype",
                                                "workload.batch", "workload.heads", "workload.N",
                                                "workload.d",     "mapping.br",   "mapping.bc"};
  return cols;
}

void FlatRow::set(std::string_view column, nlohmann::json value) {
  for (auto& [k, v] : cells)
    if (k == column) {
      v = std::move(value);
      return;
    }
  cells.emplace_back(std::string(column), std::move(value));
}

const nlohmann::json* FlatRow::find(std::string_view column) const {
  for (const auto& [k, v] : cells)
    if (k == column) return &v;
  return nullptr;
}

void flatten_into(FlatRow& row, const nlohmann::json& j, const std::string& prefix) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten_into(row, v, prefix.empty() ? k : prefix + "." + k);
  } else if (j.is_array() || j.is_null() || prefix.empty()) {
    return;
  } else if (j.is_number_unsigned() && j.get<std::uint64_t>() <= INT64_MAX) {
    row.set(prefix, j.get<std::int64_t>());  // one integer type, whichever file it came from
  } else {
    row.set(prefix, j);
  }
}

void SweepTable::add(const FlatRow& row) {
  std::vector<nlohmann::json> cells(names_.size());
  for (const auto& [k, v] : row.cells) {
    auto [it, fresh] = index_.try_emplace(k, names_.size());
    if (fresh) names_.push_back(k);
    if (it->second >= cells.size()) cells.resize(it->second + 1);
    cells[it->second] = v;
  }
  rows_.push_back(std::move(cells));
}

std::vector<std::string> SweepTable::columns() const {
  std::vector<std::string> out;
  for (const std::string& s : sweep_setting_columns())
    if (has(s)) out.push_back(s);
  if (has("error")) out.push_back("error");
  std::vector<std::string> rest;
  for (const std::string& n : names_)
    if (n != "error" && std::find(out.begin(), out.end(), n) == out.end()) rest.push_back(n);
  std::sort(rest.begin(), rest.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

const nlohmann::json& SweepTable::at(std::size_t row, std::string_view column) const {
  auto it = index_.find(std::string(column));
  if (it == index_.end() || it->second >= rows_.at(row).size()) return kAbsent;
  return rows_[row][it->second];
}

std::optional<double> SweepTable::number(std::size_t row, std::string_view column) const {
  const nlohmann::json& v = at(row, column);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::string SweepTable::text(std::size_t row, std::string_view column) const {
  const nlohmann::json& v = at(row, column);
  if (v.is_null()) return "";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::optional<TableFormat> parse_table_format(std::string_view s) {
  if (s == "csv") return TableFormat::csv;
  if (s == "jsonl") return TableFormat::jsonl;
  return std::nullopt;
}

TableFormat table_format_for(std::string_view path) {
  auto ends = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.substr(path.size() - suffix.size()) == suffix;
  };
  return ends(".jsonl") || ends(".json") ? TableFormat::jsonl : TableFormat::csv;
}

void write_csv(std::ostream& os, const SweepTable& t) {
  const std::vector<std::string> cols = t.columns();
  std::string line;
  for (std::size_t c = 0; c < cols.size(); ++c) line += (c ? "," : "") + csv_cell(cols[c]);
  os << line << "\n";
  for (std::size_t r = 0; r < t.size(); ++r) {
    line.clear();
    for (std::size_t c = 0; c < cols.size(); ++c) line += (c ? "," : "") + csv_cell(t.at(r, cols[c]));
    os << line << "\n";
  }
}

void write_jsonl(std::ostream& os, const SweepTable& t) {
  const std::vector<std::string> cols = t.columns();
  for (std::size_t r = 0; r < t.size(); ++r) {
    std::string line = "{";  // by hand: keys in column order, not sorted
    for (const std::string& c : cols) {
      const nlohmann::json& v = t.at(r, c);
      if (v.is_null()) continue;
      if (line.size() > 1) line += ',';
      line += nlohmann::json(c).dump() + ":" + v.dump();
    }
    os << line << "}\n";
  }
}

void write_table(std::ostream& os, const SweepTable& t, TableFormat format) {
  if (format == TableFormat::jsonl) write_jsonl(os, t);
  else write_csv(os, t);
}

SweepTable parse_csv(std::string_view text, const std::string& origin) {
  std::size_t pos = 0, line = 1;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) bad_line(origin, 1, "the file is empty");
  const std::vector<CsvCell> header = next_record(text, pos, line, origin);
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i].text.empty()) bad_line(origin, 1, "column " + std::to_string(i + 1) + " of the header has no name");
    for (std::size_t j = 0; j < i; ++j)
      if (header[j].text == header[i].text) bad_line(origin, 1, "column '" + header[i].text + "' appears twice");
  }
  SweepTable t;
  while (pos < text.size()) {
    const std::size_t at_line = line;
    const std::vector<CsvCell> cells = next_record(text, pos, line, origin);
    if (cells.size() == 1 && cells[0].text.empty() && !cells[0].quoted) continue;  // blank line
    if (cells.size() != header.size())
      bad_line(origin, at_line, std::to_string(cells.size()) + " cells, but the header has " +
                                    std::to_string(header.size()) + " columns");
    FlatRow row;
    std::vector<std::string> raw;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      nlohmann::json v = cells[i].quoted ? nlohmann::json(cells[i].text) : typed_cell(cells[i].text);
      if (!v.is_null()) row.cells.emplace_back(header[i].text, std::move(v)), raw.push_back(cells[i].text);
    }
    check_row(origin, at_line, row, &raw);
    t.add(row);
  }
  return t;
}

SweepTable parse_jsonl(std::string_view text, const std::string& origin) {
  SweepTable t;
  std::size_t pos = 0, line = 0;
  while (pos < text.size()) {
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view s = text.substr(pos, end - pos);
    pos = end + 1;
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(s);
    } catch (const nlohmann::json::parse_error& e) {
      std::string why = e.what();
      if (auto p = why.find("] "); p != std::string::npos) why = why.substr(p + 2);
      bad_line(origin, line, "not valid JSON (" + why + ")");
    }
    if (!j.is_object()) bad_line(origin, line, "expected one JSON object per line, got " + std::string(j.type_name()));
    FlatRow row;
    flatten_into(row, j);
    check_row(origin, line, row);
    t.add(row);
  }
  if (line == 0) bad_line(origin, 1, "the file is empty");
  return t;
}

SweepTable read_table(const std::string& path) {
  const std::string text =
      read_input_file(path, "sweep file", "give a file written by `fasim sweep --out FILE.csv`");
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  const bool jsonl = table_format_for(path) == TableFormat::jsonl || (first != std::string::npos && text[first] == '{');
  return jsonl ? parse_jsonl(text, path) : parse_csv(text, path);
}

}  // namespace fasim
