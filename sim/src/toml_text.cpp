#include "toml_text.hpp"

#include <algorithm>
#include <sstream>

#include "fasim/error.hpp"

namespace fasim {

std::string toml_where(const std::string& origin, const toml::source_region& r) {
  if (r.begin.line == 0) return origin;
  return origin + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

std::string toml_describe(const toml::node& n) {
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  if (n.is_string()) return "\"" + n.as_string()->get() + "\"";  // toml++ would print 'single quotes'
  std::ostringstream os;
  n.visit([&](const auto& v) { os << v; });
  return os.str();
}

std::string join_names(const std::vector<std::string_view>& items) {
  std::string out;
  for (auto s : items) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

toml::table parse_toml(std::string_view text, const std::string& origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    std::string why(e.description());
    std::replace(why.begin(), why.end(), '\n', ' ');  // keep the message on one line
    throw UserError(toml_where(origin, e.source()) + ": syntax error: " + why + "; fix the TOML syntax there");
  }
}

}  // namespace fasim
