// UserError: bad input that the user can fix. The CLI prints its one-line
// message and exits with code 2; everything else is a bug.
#pragma once

#include <stdexcept>
#include <string>

namespace fasim {

/// @brief Bad input (flag, file, shape, tiling). what() is one line that names
/// the problem and the fix; the CLI prints it and exits 2.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace fasim
