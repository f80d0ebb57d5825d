// Words for TOML error messages, shared by the device and scenario readers:
// where a value sits, what the user wrote, and a list of the accepted names.
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

}  // namespace fasim
