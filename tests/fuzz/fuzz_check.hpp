// Shared by the fuzz targets: what every error fasim reports must look like.
// A UserError is one line that names the problem and the fix: "problem; fix",
// or "X must be Y, got Z" (the rule is the fix);
// anything else escaping a parser is a bug, and the fuzzer reports it as a
// crash (uncaught exception -> abort).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fasim/error.hpp"

namespace fasim::fuzz {

/// @brief Aborts, printing the message, unless `message` is one non-empty
/// line holding "; " (the problem, then the fix) or " must " (the rule).
inline void check_one_line(std::string_view message) {
  const bool ok = !message.empty() && message.find_first_of("\n\r") == std::string_view::npos &&
                  (message.find("; ") != std::string_view::npos || message.find(" must ") != std::string_view::npos);
  if (ok) return;
  std::fprintf(stderr, "fuzz: malformed error message (want one line 'problem; fix' or 'X must be Y'): [%.*s]\n",
               static_cast<int>(message.size()), message.data());
  std::abort();
}

/// @brief Aborts, printing `what`, if `cond` is false.
inline void require(bool cond, const char* what) {
  if (cond) return;
  std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
  std::abort();
}

}  // namespace fasim::fuzz
