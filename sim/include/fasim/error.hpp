// UserError: bad input that the user can fix. The CLI prints its one-line
// message and exits with code 2; everything else is a bug.
#pragma once

#include <stdexcept>
#include <string>

namespace fasim {

/// @brief `s` with every control character (line breaks, tabs, CR, ...)
/// replaced by '?': text quoted from the user's input, made safe for a
/// one-line message.
inline std::string one_line(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

/// @brief Bad input (flag, file, shape, tiling). what() is one line that names
/// the problem and the fix; the CLI prints it and exits 2.
class UserError : public std::runtime_error {
 public:
  /// @brief `message`: the problem and the fix, in one line. Messages quote
  /// what the user wrote, which may hold line breaks or other control
  /// characters (a TOML string, a CR in a file): one_line() makes those '?',
  /// so what() is always one line.
  explicit UserError(const std::string& message) : std::runtime_error(one_line(message)) {}
};

}  // namespace fasim
