// Grading: tolerances, learners' answers, verdicts.
#include "fasim/lesson_exercise.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/lesson_calc.hpp"

namespace fasim {
namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "12", "0.5", ".5", "3.": digits with at most one '.'.
bool plain_number(const std::string& t) {
  const auto digits = std::count_if(t.begin(), t.end(), digit);
  const auto dots = std::count(t.begin(), t.end(), '.');
  return digits > 0 && dots <= 1 && static_cast<std::size_t>(digits + dots) == t.size();
}

// Thousands separators: "1,024" or "-12,345.5" (not "max(1,2)" or "1,02").
bool grouped_number(const std::string& t) {
  std::size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
  const std::size_t end = std::min(t.find('.'), t.size());
  std::size_t lead = 0;
  while (i + lead < end && digit(t[i + lead])) ++lead;
  if (lead < 1 || lead > 3 || i + lead == end) return false;
  for (i += lead; i < end; i += 4)
    if (i + 4 > end || t[i] != ',' || !digit(t[i + 1]) || !digit(t[i + 2]) || !digit(t[i + 3])) return false;
  if (end == t.size()) return true;
  return end + 1 < t.size() && std::all_of(t.begin() + static_cast<long>(end) + 1, t.end(), digit);
}

}  // namespace

double Tolerance::allowed(double expected) const { return relative ? value * std::abs(expected) : value; }

std::string Tolerance::describe() const {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", relative ? value * 100 : value);
  return std::string(buf) + (relative ? "%" : "");
}

Tolerance parse_tolerance(std::string_view text) {
  std::string t = trim(text);
  Tolerance tol;
  if (!t.empty() && t.back() == '%') {
    tol.relative = true;
    t = trim(std::string_view(t).substr(0, t.size() - 1));
  }
  if (!plain_number(t))
    throw UserError("tolerance '" + trim(text) + "' is not a number; write 1% (relative) or 0.5 (absolute)");
  tol.value = std::stod(t) / (tol.relative ? 100.0 : 1.0);
  return tol;
}

std::optional<double> parse_answer(std::string_view text, std::string_view unit) {
  std::string t = trim(text);
  const std::string u = trim(unit);
  if (!u.empty() && t.size() > u.size() && lower(t.substr(t.size() - u.size())) == lower(u))
    t = trim(std::string_view(t).substr(0, t.size() - u.size()));
  if (t.empty()) return std::nullopt;
  if (grouped_number(t)) t.erase(std::remove(t.begin(), t.end(), ','), t.end());
  try {
    return eval_calc(t);
  } catch (const CalcError&) {
    return std::nullopt;
  }
}

Grade grade(double given, double expected, const Tolerance& tolerance) {
  Grade g;
  g.given = given;
  g.expected = expected;
  g.error = std::abs(given - expected);
  const double slack = 1e-12 * std::max(std::abs(expected), std::abs(given));
  g.right = g.error <= tolerance.allowed(expected) + slack;
  return g;
}

}  // namespace fasim
