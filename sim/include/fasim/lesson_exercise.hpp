// Grading exercises: a learner's answer against the lesson's answer, within
// the exercise's tolerance.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fasim {

/// @brief How far an answer may be from the expected one and still be right.
struct Tolerance {
  bool relative = false;  ///< true: `value` is a fraction of |expected|
  double value = 0;       ///< >= 0

  /// @brief The largest |answer - expected| that is still right.
  double allowed(double expected) const;
  /// @brief "1%" or "0.5", as the lesson wrote it.
  std::string describe() const;
};

/// @brief Parses "1%", "0.5%" (relative) or "0.5", "0" (absolute). Throws
/// UserError (without a location) if it is neither or negative.
Tolerance parse_tolerance(std::string_view text);

/// @brief A learner's answer as a number: "1024", "1,024", "2.5e6", "-0.4",
/// or arithmetic such as "4 * 16 * 2" or "exp(-3)"; a trailing `unit`
/// (e.g. "B" or "KiB" when the exercise's unit is that) is ignored.
/// nullopt if it is none of these.
std::optional<double> parse_answer(std::string_view text, std::string_view unit = {});

/// @brief The verdict on one answer.
struct Grade {
  bool right = false;  ///< within the tolerance (the boundary included)
  double given = 0;  ///< the answer given
  double expected = 0;  ///< the exercise's answer
  double error = 0;  ///< |given - expected|
};

/// @brief Right when |given - expected| <= tolerance.allowed(expected) (the
/// boundary counts as right; a relative margin of 1e-12 absorbs rounding).
Grade grade(double given, double expected, const Tolerance& tolerance);

}  // namespace fasim
