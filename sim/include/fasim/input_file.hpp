// Reading one input file whole: a device or scenario TOML, a lesson, a sweep
// or a recorded run. Every reader goes through read_input_file, so a missing
// file, a directory or a file without read permission gets the same one-line
// error everywhere, naming what was asked for, the OS's reason and the fix.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fasim {

/// @brief The largest input file read: a sweep of 100,000 points is well
/// under it, and a path to something endless (a huge log) fails fast.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{256} << 20;

/// @brief The UTF-8 byte order mark, which some editors and spreadsheets
/// write before the text.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// @brief The bytes of file `path`, all of them, less a leading UTF-8 byte
/// order mark (kUtf8Bom): a CSV or TOML saved with one reads as without.
///
/// @param what names the kind of file in the error, e.g. "device file".
/// @param fix ends the error, e.g. "check the path".
/// @throws UserError "cannot read <what> '<path>': <reason>; <fix>" when the
/// file cannot be opened or read; <reason> is the OS's ("No such file or
/// directory", "Permission denied"), "it is a directory", "it is not a
/// regular file" (/dev/zero, a FIFO) or "it is larger than 256 MiB".
std::string read_input_file(const std::string& path, std::string_view what, std::string_view fix);

}  // namespace fasim
