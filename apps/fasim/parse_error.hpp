// CLI11's parse errors ("--N: At Most 1 required but received 2", "A
// subcommand is required") as fasim's one line: the problem and the fix.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace fasim::cli {

/// @brief `e`, thrown while `app` parsed the words of `command` ("fasim run"),
/// as one line that names the problem and the fix, without the "fasim:
/// error: " in front.
std::string parse_error_line(const CLI::ParseError& e, const CLI::App& app, const std::string& command);

}  // namespace fasim::cli
