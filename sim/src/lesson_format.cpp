// The formats of checked numbers ({{ ... | FORMAT }}), listed in
// lesson_numbers.hpp. Each keeps a number readable at a glance.
#include <cmath>
#include <cstdio>
#include <string>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/lesson_numbers.hpp"

namespace fasim {
namespace {

constexpr const char* kFormats = "int, .N (e.g. .2), bytes, ns, us, ms, s, %, si, sci, raw";

// Thousands separators in the integer part of a plain decimal ("-1234.5").
std::string group(const std::string& s) {
  const std::size_t sign = (!s.empty() && s[0] == '-') ? 1 : 0;
  const std::size_t end = std::min(s.find('.'), s.size());
  std::string out = s.substr(0, sign);
  for (std::size_t i = sign; i < end; ++i) {
    if (i > sign && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(end);
}

std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  std::string s = buf;
  if (s == "-0" || s.rfind("-0.", 0) == 0) {
    if (s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);  // no "-0.00"
  }
  return group(s);
}

// `digits` significant digits, trailing zeros dropped; scientific outside [1e-4, 1e15).
std::string significant(double x, int digits) {
  if (x == 0) return "0";
  const double a = std::abs(x);
  if (a < 1e-4 || a >= 1e15) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
    return buf;
  }
  const int decimals = std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(a))));
  std::string s = fixed(x, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

bool is_integer(double x) { return std::abs(x) < 1e15 && x == std::round(x); }

}  // namespace

std::string format_value(const nlohmann::json& value, std::string_view format) {
  if (format == "raw") return value.is_string() ? value.get<std::string>() : value.dump();
  if (value.is_string() || value.is_boolean()) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (!format.empty())
      throw UserError("this value is the word '" + text + "', which takes no format; remove '| " +
                      std::string(format) + "'");
    return text;
  }
  if (!value.is_number()) throw UserError("this value is not a number; pick a key that holds one");
  const double x = value.get<double>();

  if (format.empty()) return is_integer(x) ? with_commas(static_cast<std::int64_t>(x)) : significant(x, 4);
  if (format == "int") return with_commas(std::llround(x));
  if (format.size() == 2 && format[0] == '.' && format[1] >= '0' && format[1] <= '9') return fixed(x, format[1] - '0');
  if (format == "bytes") return human_bytes(x);
  if (format == "si") return human_count(x);
  if (format == "sci") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2e", x);
    return buf;
  }
  if (format == "%") return significant(x * 100, 3) + "%";
  if (format == "s") return group_thousands(significant(x, 4)) + " s";
  if (format == "ms") return group_thousands(significant(x * 1e3, 4)) + " ms";
  if (format == "us") return group_thousands(significant(x * 1e6, 4)) + " us";
  if (format == "ns") return group_thousands(significant(x * 1e9, 4)) + " ns";
  throw UserError("unknown format '" + std::string(format) + "'; formats: " + kFormats);
}

}  // namespace fasim
