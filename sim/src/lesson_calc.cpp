// A recursive-descent evaluator for the grammar in lesson_calc.hpp. It
// evaluates while it parses; there is no tree, since every expression is
// evaluated once.
#include "fasim/lesson_calc.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace fasim {
namespace {

class Calc {
 public:
  Calc(std::string_view s, const CalcLookup& lookup) : s_(s), lookup_(lookup) {}

  double run() {
    skip();
    if (at_end()) fail("the expression is empty; write a number or arithmetic such as 4 * 16");
    const double v = sum();
    if (!at_end()) fail(std::string("unexpected '") + s_[pos_] + "'; join numbers with + - * / ^");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& msg, std::size_t at) const {
    throw CalcError(msg, static_cast<int>(at) + 1);
  }
  [[noreturn]] void fail(const std::string& msg) const { fail(msg, pos_); }

  bool at_end() const { return pos_ >= s_.size(); }
  void skip() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (!at_end() && s_[pos_] == c) {
      ++pos_;
      skip();
      return true;
    }
    return false;
  }

  double finite(double v, std::size_t at) const {
    if (!std::isfinite(v)) fail("the result is not a finite number", at);
    return v;
  }

  double sum() {
    double v = product();
    for (;;) {
      const std::size_t at = pos_;
      if (eat('+')) v = finite(v + product(), at);
      else if (eat('-')) v = finite(v - product(), at);
      else return v;
    }
  }

  double product() {
    double v = unary();
    for (;;) {
      const std::size_t at = pos_;
      if (eat('*')) {
        v = finite(v * unary(), at);
      } else if (eat('/')) {
        const double d = unary();
        if (d == 0) fail("division by zero", at);
        v = finite(v / d, at);
      } else {
        return v;
      }
    }
  }

  double unary() {
    if (eat('-')) return -unary();
    if (eat('+')) return unary();
    return power();
  }

  double power() {
    const double base = primary();
    const std::size_t at = pos_;
    if (eat('^')) return finite(std::pow(base, unary()), at);
    return base;
  }

  double primary() {
    skip();
    if (at_end()) fail("the expression ends too early; something is missing after the last operator");
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (c == '(') {
      const std::size_t open = pos_;
      eat('(');
      const double v = sum();
      if (!eat(')')) fail("this '(' is never closed; add a ')'", open);
      return v;
    }
    if (c == '[') return reference();
    if (std::isalpha(static_cast<unsigned char>(c))) return call();
    fail(std::string("expected a number, '(', a function or [KEY of FLAGS], got '") + c + "'");
  }

  double number() {
    const std::size_t start = pos_;
    std::string digits;
    auto take_digits = [&] {
      while (!at_end() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) ||
                           (s_[pos_] == '_' && !digits.empty() && std::isdigit(static_cast<unsigned char>(digits.back())) &&
                            pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1]))))) {
        if (s_[pos_] != '_') digits += s_[pos_];
        ++pos_;
      }
    };
    take_digits();
    if (!at_end() && s_[pos_] == '.') {
      digits += s_[pos_++];
      take_digits();
    }
    if (digits == ".") fail("'.' is not a number; write 0.5 or .5", start);
    if (!at_end() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      std::size_t p = pos_ + 1;
      if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
      if (p < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p]))) {
        digits += 'e';
        digits.append(s_.substr(pos_ + 1, p - pos_ - 1));
        pos_ = p;
        while (!at_end() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) digits += s_[pos_++];
      }
    }
    skip();
    return finite(std::strtod(digits.c_str(), nullptr), start);
  }

  double reference() {
    const std::size_t open = pos_;
    const std::size_t close = s_.find(']', pos_);
    if (close == std::string_view::npos) fail("this '[' is never closed; write [KEY of FLAGS]", open);
    if (!lookup_) fail("[...] needs a scenario to look the number up in, and there is none here", open);
    const double v = lookup_(s_.substr(open + 1, close - open - 1));
    pos_ = close + 1;
    skip();
    return finite(v, open);
  }

  double call() {
    const std::size_t start = pos_;
    std::string name;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) name += s_[pos_++];
    static const char* known = "ceil, floor, round, abs, sqrt, exp, log, log2, log10, min, max";
    const bool variadic = name == "min" || name == "max";
    const bool unary_fn = name == "ceil" || name == "floor" || name == "round" || name == "abs" || name == "sqrt" ||
                          name == "exp" || name == "log" || name == "log2" || name == "log10";
    if (!variadic && !unary_fn) fail("unknown function '" + name + "'; known: " + known, start);
    if (!eat('(')) fail("'" + name + "' needs its argument in parentheses, like " + name + "(2)");
    std::vector<double> args{sum()};
    while (eat(',')) args.push_back(sum());
    if (!eat(')')) fail("expected ')' to close " + name + "(");
    if (unary_fn && args.size() != 1) fail(name + " takes one argument, got " + std::to_string(args.size()), start);

    const double x = args[0];
    auto domain = [&](bool ok, const char* why) {
      if (!ok) fail(name + " of " + std::to_string(x) + " is undefined: " + why, start);
    };
    double v = x;
    if (name == "min") for (double a : args) v = std::min(v, a);
    else if (name == "max") for (double a : args) v = std::max(v, a);
    else if (name == "ceil") v = std::ceil(x);
    else if (name == "floor") v = std::floor(x);
    else if (name == "round") v = std::round(x);
    else if (name == "abs") v = std::abs(x);
    else if (name == "sqrt") { domain(x >= 0, "the argument must not be negative"); v = std::sqrt(x); }
    else if (name == "exp") v = std::exp(x);
    else { domain(x > 0, "the argument must be positive"); v = name == "log" ? std::log(x) : name == "log2" ? std::log2(x) : std::log10(x); }
    return finite(v, start);
  }

  std::string_view s_;
  const CalcLookup& lookup_;
  std::size_t pos_ = 0;
};

}  // namespace

double eval_calc(std::string_view expr, const CalcLookup& lookup) { return Calc(expr, lookup).run(); }

}  // namespace fasim
