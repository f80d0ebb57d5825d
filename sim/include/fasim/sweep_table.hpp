// SweepTable: the rows of a sweep, one flat row of named cells per point, and
// their two file forms: CSV (a header row, then one line per point) and JSON
// lines (one flat object per line). `fasim sweep` writes them and `fasim plot`
// reads them back.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace fasim {

/// @brief The settings columns, in the order files list them (before all
/// other columns): device, mapping.algo, workload.dtype, workload.batch,
/// workload.heads, workload.N, workload.d, mapping.br, mapping.bc.
const std::vector<std::string>& sweep_setting_columns();

/// @brief One row: (column, value) cells in insertion order. Values are
/// numbers, strings or booleans; a column a row lacks is simply absent.
struct FlatRow {
  std::vector<std::pair<std::string, nlohmann::json>> cells;  ///< (column, value), in insertion order

  /// @brief Sets a cell, replacing the value if the column is present.
  void set(std::string_view column, nlohmann::json value);
  /// @brief The cell's value, or nullptr if absent.
  const nlohmann::json* find(std::string_view column) const;
};

/// @brief Adds every scalar of `j` to `row`, nested keys joined with '.'
/// ("hbm.by_tensor.Q.read_bytes"). Arrays are left out (a list of kernels
/// has no single cell); nulls too.
void flatten_into(FlatRow& row, const nlohmann::json& j, const std::string& prefix = "");

/// @brief Rows with a shared set of columns (the union over all rows).
class SweepTable {
 public:
  /// @brief Appends a row; new columns are added to the table.
  void add(const FlatRow& row);
  /// @brief Number of rows.
  std::size_t size() const { return rows_.size(); }
  /// @brief Every column, in file order: the settings columns, then "error",
  /// then the rest sorted by name. Only columns some row has.
  std::vector<std::string> columns() const;
  /// @brief True if some row has the column.
  bool has(std::string_view column) const { return index_.count(std::string(column)) > 0; }
  /// @brief A cell; a null json if the row lacks the column.
  const nlohmann::json& at(std::size_t row, std::string_view column) const;
  /// @brief A cell as a number, if present and numeric.
  std::optional<double> number(std::size_t row, std::string_view column) const;
  /// @brief A cell as text: strings as they are, numbers as JSON writes them,
  /// "" if absent.
  std::string text(std::size_t row, std::string_view column) const;

 private:
  std::vector<std::string> names_;  // first-seen order
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::vector<nlohmann::json>> rows_;  // cells by names_ index; short rows lack later columns
};

/// @brief The file forms of a table.
enum class TableFormat { csv, jsonl };

/// @brief "csv" or "jsonl"; nullopt for anything else.
std::optional<TableFormat> parse_table_format(std::string_view s);
/// @brief jsonl for paths ending in ".jsonl" or ".json", else csv.
TableFormat table_format_for(std::string_view path);

/// @brief Writes a header and one line per row. Absent cells are empty;
/// strings are quoted when they contain , " or a line break, or would read
/// back as a number; numbers are written as JSON writes them (round-trip).
void write_csv(std::ostream& os, const SweepTable& t);
/// @brief Writes one flat JSON object per row, keys in column order.
void write_jsonl(std::ostream& os, const SweepTable& t);
/// @brief write_csv or write_jsonl.
void write_table(std::ostream& os, const SweepTable& t, TableFormat format);

/// @brief Parses CSV text as write_csv writes it: unquoted cells that are
/// whole numbers become integers, other numbers doubles, true/false
/// booleans, the rest (and every quoted cell) strings; empty cells are
/// absent. Throws UserError "origin:line: problem; fix".
SweepTable parse_csv(std::string_view text, const std::string& origin);
/// @brief Parses JSON lines; nested objects are flattened. Blank lines are
/// skipped. Throws UserError "origin:line: problem; fix".
SweepTable parse_jsonl(std::string_view text, const std::string& origin);
/// @brief Reads a sweep file: JSON lines if the path ends in .jsonl/.json or
/// the text starts with '{', else CSV. Throws UserError if unreadable.
SweepTable read_table(const std::string& path);

}  // namespace fasim
