// Reading CSV traces (RFC 4180: quoted fields may hold commas, doubled
// quotes and newlines). Every field is checked; errors name line and column.
#include <charconv>
#include <climits>
#include <cmath>
#include <system_error>

#include "trace_columns.hpp"
#include "trace_reader_detail.hpp"

namespace fasim::trace_detail {
namespace {

using trace_columns::kAll;

struct Field {
  std::string text;
  std::int64_t line = 0;
  std::int64_t column = 0;  ///< where the field starts, from 1
};

bool next_line(std::istream& in, std::string& line, std::int64_t& number) {
  if (!std::getline(in, line)) return false;
  ++number;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

// Reads one record into fields; false at the end of input. Blank lines are skipped.
bool read_record(const std::string& path, std::istream& in, std::int64_t& number,
                 std::vector<Field>& fields) {
  std::string line;
  do {
    if (!next_line(in, line, number)) return false;
  } while (line.empty());
  fields.assign(1, Field{"", number, 1});
  enum class State { start, plain, quoted, after_quote } state = State::start;
  for (;;) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      const auto column = static_cast<std::int64_t>(i) + 1;
      std::string& text = fields.back().text;
      switch (state) {
        case State::start:
          if (c == '"') {
            state = State::quoted;
            break;
          }
          state = State::plain;
          [[fallthrough]];
        case State::plain:
          if (c == ',') {
            fields.push_back(Field{"", number, column + 1});
            state = State::start;
          } else {
            text += c;
          }
          break;
        case State::quoted:
          if (c != '"') {
            text += c;
          } else if (i + 1 < line.size() && line[i + 1] == '"') {
            text += '"';
            ++i;
          } else {
            state = State::after_quote;
          }
          break;
        case State::after_quote:
          if (c != ',') fail_at(path, number, column, "unexpected character after a closing quote");
          fields.push_back(Field{"", number, column + 1});
          state = State::start;
          break;
      }
    }
    if (state != State::quoted) return true;
    // A newline inside quotes belongs to the field; the record goes on.
    const Field& open = fields.back();
    const std::int64_t open_line = open.line;
    const std::int64_t open_column = open.column;
    if (!next_line(in, line, number)) {
      fail_at(path, open_line, open_column, "a quoted field is never closed");
    }
    fields.back().text += '\n';
  }
}

class Row {
 public:
  Row(const std::string& path, const std::vector<Field>& fields) : path_(path), f_(fields) {}

  const std::string& text(std::size_t k) const { return f_[k].text; }

  std::int64_t integer(std::size_t k) const {
    const std::string& s = f_[k].text;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) fail(k, "is out of range");
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) fail(k, "is not an integer");
    return v;
  }

  double real(std::size_t k, bool finite) const {
    const std::string& s = f_[k].text;
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) fail(k, "is not a number");
    if (finite && !std::isfinite(v)) fail(k, "is not a finite number");
    return v;
  }

  template <class Check>
  void check(std::size_t k, Check check_name) const {
    try {
      check_name(f_[k].text);
    } catch (const Malformed& m) {
      fail_at(path_, f_[k].line, f_[k].column, m.problem);
    }
  }

  [[noreturn]] void fail(std::size_t k, const std::string& problem) const {
    fail_at(path_, f_[k].line, f_[k].column,
            "column '" + std::string(kAll[k]) + "' " + problem + ": " + printable(f_[k].text));
  }

 private:
  const std::string& path_;
  const std::vector<Field>& f_;
};

void check_header(const std::string& path, const std::vector<Field>& names) {
  if (names.empty() || names[0].text != kAll[0]) {
    fail_at(path, 1, 0,
            "not a fasim trace: expected a Chrome trace JSON object, JSON lines starting with "
            "{\"type\":\"meta\"}, or a CSV header starting with 'index,kernel,block'");
  }
  for (std::size_t k = 0; k < kAll.size(); ++k) {
    if (k >= names.size()) {
      fail_at(path, 1, 0, "the CSV header has " + std::to_string(names.size()) +
                              " columns; column '" + std::string(kAll[k]) + "' is missing");
    }
    if (names[k].text != kAll[k]) {
      const bool older = kAll[k] == trace_columns::kNewestColumn && k + 1 < kAll.size() && names[k].text == kAll[k + 1];
      fail_at(path, 1, names[k].column,
              "CSV header column " + std::to_string(k + 1) + " is " + printable(names[k].text) + ", expected '" +
                  std::string(kAll[k]) + "'" + std::string(older ? trace_columns::kOlderTraceNote : ""));
    }
  }
  if (names.size() > kAll.size()) {
    fail_at(path, 1, names[kAll.size()].column,
            "the CSV header has " + std::to_string(names.size()) + " columns, expected " +
                std::to_string(kAll.size()));
  }
}

}  // namespace

std::vector<TraceRecord> read_csv(const std::string& path, std::istream& in) {
  std::int64_t number = 0;
  std::vector<Field> fields;
  if (!read_record(path, in, number, fields)) fail_at(path, 1, 0, "the file is empty");
  check_header(path, fields);

  std::vector<TraceRecord> out;
  while (read_record(path, in, number, fields)) {
    if (fields.size() != kAll.size()) {
      fail_at(path, fields.front().line, 0, "expected " + std::to_string(kAll.size()) +
                                                " fields, found " + std::to_string(fields.size()));
    }
    const Row row(path, fields);
    TraceRecord r;
    std::size_t k = 0;
    r.index = row.integer(k++);
    const std::int64_t kernel = row.integer(k);
    if (kernel < INT_MIN || kernel > INT_MAX) row.fail(k, "is out of range");
    r.kernel = static_cast<int>(kernel);
    ++k;
    r.block = row.integer(k++);
    row.check(k, check_kind);
    r.kind = row.text(k++);
    row.check(k, check_tensor);
    r.tensor = row.text(k++);
    r.what = row.text(k++);
    for (const auto& c : trace_columns::kIntColumns) r.*c.record = row.integer(k++);
    const std::string& has_row = row.text(k);
    if (has_row != "0" && has_row != "1") row.fail(k, "is not 0 or 1");
    r.has_row = has_row == "1";
    ++k;
    for (double* v : {&r.row_m, &r.row_l}) {
      if (r.has_row) {
        *v = row.real(k, false);
      } else if (!row.text(k).empty()) {
        row.fail(k, "must be empty when has_row is 0");
      }
      ++k;
    }
    r.cum_hbm_read_bytes = row.integer(k++);
    r.cum_hbm_write_bytes = row.integer(k++);
    r.ts_us = row.real(k++, true);
    r.dur_us = row.real(k++, true);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace fasim::trace_detail
