// The one test helper for library errors: the message of the UserError that
// f throws, or "(no error)" when it throws none.
#pragma once

#include <functional>
#include <string>

#include "fasim/error.hpp"

namespace fasim::test {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace fasim::test
