// TOML parsing and the words for its error messages, shared by the device and
// scenario readers: where a value sits, what the user wrote, and a list of the
// accepted names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace fasim {

/// "origin:line:col" for a position toml++ knows, else just "origin".
std::string toml_where(const std::string& origin, const toml::source_region& r);
/// A value as the user wrote it, for "got ..." (tables and arrays by kind only).
std::string toml_describe(const toml::node& n);
/// "a, b, c".
std::string join_names(const std::vector<std::string_view>& items);
/// The TOML document `text`; a syntax error throws UserError
/// "origin:line:col: syntax error: <what toml++ says>; fix the TOML syntax there", on one line.
toml::table parse_toml(std::string_view text, const std::string& origin);

}  // namespace fasim
