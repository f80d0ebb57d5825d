// The arithmetic of lessons: `{{ calc: EXPR }}` and exercise answers. Small
// on purpose, so a lesson author can predict what it does.
//
//   EXPR    := sum
//   sum     := product (("+" | "-") product)*
//   product := unary (("*" | "/") unary)*
//   unary   := ("-" | "+") unary | power
//   power   := primary ("^" unary)?          right-associative: 2^3^2 = 2^9
//   primary := NUMBER | "(" EXPR ")" | FUNC "(" EXPR ("," EXPR)* ")" | "[" REF "]"
//
// NUMBER: 12, 3.5, .5, 1e6, 2.5e-3, 65_536 ("_" between digits is ignored).
// FUNC: ceil floor round abs sqrt exp log (natural) log2 log10 (one argument),
// min max (one or more). Unary minus binds looser than ^: -2^2 = -4.
// REF: text handed to a lookup, e.g. [hbm.read_bytes of --N 16] (see
// lesson_numbers.hpp).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fasim {

/// @brief A malformed expression or an undefined result (division by zero,
/// log2 of a non-positive number). what() says what was expected; column()
/// is the 1-based position in the expression.
class CalcError : public std::runtime_error {
 public:
  /// @brief `message` names what was expected; `column` is 1-based.
  CalcError(const std::string& message, int column) : std::runtime_error(message), column_(column) {}
  /// @brief 1-based column of the problem in the expression.
  int column() const { return column_; }

 private:
  int column_;
};

/// @brief Resolves the text inside `[ ]` to a number; may throw (UserError).
using CalcLookup = std::function<double(std::string_view ref)>;

/// @brief Evaluates `expr` (grammar above). A `[REF]` without a lookup is an
/// error. Throws CalcError; the result is always finite.
double eval_calc(std::string_view expr, const CalcLookup& lookup = {});

}  // namespace fasim
