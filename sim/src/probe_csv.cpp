#include "probe_csv.hpp"

#include <algorithm>
#include <sstream>

#include "fasim/error.hpp"
#include "fasim/input_file.hpp"

namespace fasim::probe_csv {

std::int64_t whole(const std::string& text, std::int64_t most, const std::string& what, const std::string& where) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
  }
  if (text.empty() || used != text.size() || v < 0 || v > most)
    throw UserError(where + ": " + what + " '" + text + "' is not a whole number from 0 to " + std::to_string(most));
  return v;
}

double fraction(const std::string& text, const std::string& where) {
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (text.empty() || used != text.size() || !(v >= 0 && v <= 1))
    throw UserError(where + ": slow_share '" + text + "' is not a number from 0 to 1");
  return v;
}

std::vector<Row> csv_rows(const std::string& path, const std::string& kind, const std::string& example,
                          const std::string& header) {
  std::istringstream in(read_input_file(path, kind, "give one such as " + example));
  const std::size_t fields = static_cast<std::size_t>(std::count(header.begin(), header.end(), ',')) + 1;
  std::string line;
  if (std::getline(in, line) && !line.empty() && line.back() == '\r') line.pop_back();
  if (line != header) throw UserError("'" + path + "' is not a " + kind + ": its first line must be " + header);
  std::vector<Row> rows;
  for (int n = 2; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved with Windows line ends
    if (line.empty()) continue;
    Row r{path + ":" + std::to_string(n), {}};
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) r.f.push_back(cell);
    if (r.f.size() != fields)
      throw UserError(r.where + ": expected " + std::to_string(fields) + " fields, found " +
                      std::to_string(r.f.size()));
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace fasim::probe_csv
