// Where the test fixtures live: tests/data, beside the test sources.
#pragma once

#include <filesystem>
#include <string>

/// @brief The fixture folder (tests/data), found from this header's own path.
inline std::string data_dir() { return (std::filesystem::path(__FILE__).parent_path() / "data").string(); }
