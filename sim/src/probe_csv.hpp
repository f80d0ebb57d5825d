// Reading the probe CSVs of docs/results (l2_probes.cpp,
// l2_flash1_pattern.cpp): rows after a fixed header, and checked numbers,
// each bad field one line naming the file, the line and the field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fasim::probe_csv {

/// A whole number from 0 to `most`, else one line naming the field.
std::int64_t whole(const std::string& text, std::int64_t most, const std::string& what, const std::string& where);
/// A number from 0 to 1 (a slow share), else one line naming it.
double fraction(const std::string& text, const std::string& where);

/// One row of a probe CSV: its fields and where it stands ("path:line").
struct Row {
  std::string where;
  std::vector<std::string> f;
};

/// A probe CSV's rows after its header line. Blank lines and Windows line
/// ends are read past; a first line other than `header`, or a row with
/// another number of fields, is one line naming the file (`kind`, and
/// `example` as the fix).
std::vector<Row> csv_rows(const std::string& path, const std::string& kind, const std::string& example,
                          const std::string& header);

}  // namespace fasim::probe_csv
