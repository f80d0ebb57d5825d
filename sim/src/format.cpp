#include "fasim/format.hpp"

#include <cctype>
#include <cmath>
#include <ctime>
#include <cstdio>

namespace fasim {

std::string with_commas(std::int64_t v) { return group_thousands(std::to_string(v)); }

std::string group_thousands(std::string number) {
  if (number.find_first_of("eE") != std::string::npos) return number;
  const std::size_t start = !number.empty() && (number[0] == '-' || number[0] == '+') ? 1 : 0;
  std::size_t end = start;
  while (end < number.size() && std::isdigit(static_cast<unsigned char>(number[end]))) ++end;
  for (std::size_t at = end; at > start + 3; at -= 3) number.insert(at - 3, ",");
  return number;
}

std::string micros(double seconds, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, seconds * 1e6);
  return group_thousands(buf) + " us";
}

std::string human_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (std::abs(bytes) >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  else std::snprintf(buf, sizeof buf, "%.2f %s", bytes, units[u]);
  return buf;
}

std::string human_count(double v) {
  static const char* prefixes[] = {"", " k", " M", " G", " T", " P", " E"};
  int p = 0;
  while (std::abs(v) >= 1000 && p < 6) {
    v /= 1000;
    ++p;
  }
  char buf[32];
  if (p == 0) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.2f%s", v, prefixes[p]);
  return buf;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string csv_number(double v) {
  if (v == std::floor(v) && std::abs(v) < 9e15) return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string plural(std::int64_t n, std::string_view noun) {
  return std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace fasim
