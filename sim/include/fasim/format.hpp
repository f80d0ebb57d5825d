// Number formatting shared by messages, tables and lessons.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fasim {

/// @brief 1234567 -> "1,234,567".
std::string with_commas(std::int64_t v);
/// @brief A number as text with commas between the thousands of its whole
/// part: "21456.798" -> "21,456.798", "-3029" -> "-3,029"; text in
/// scientific notation, or that is no number, as it is.
std::string group_thousands(std::string number);
/// @brief Seconds as microseconds with `decimals` places and commas:
/// micros(0.021456798, 3) -> "21,456.798 us".
std::string micros(double seconds, int decimals);
/// @brief Bytes in binary units: "512 B", "16.0 KiB", "1.50 MiB", "2.00 GiB".
std::string human_bytes(double bytes);
/// @brief s without leading and trailing white space.
std::string trim(std::string_view s);
/// @brief Today's date in UTC, "YYYY-MM-DD".
std::string utc_date();
/// @brief A count with SI prefix: "4.29 G", "512", "1.20 T".
std::string human_count(double v);
/// @brief A number for CSV: whole numbers in full ("75497472"), others to 6
/// significant digits ("1.92e-05").
std::string csv_number(double v);
/// @brief s as one CSV cell: quoted (quotes doubled) if it holds a comma, quote or newline.
std::string csv_cell(const std::string& s);
/// @brief s padded with spaces to width bytes, on the left (right = true: right-aligned) or on the
/// right; s as it is if already that wide. Bytes, not display columns: for ASCII tables.
std::string pad(const std::string& s, std::size_t width, bool right = true);
/// @brief `noun` as it goes after the count n: "block" for 1, "blocks" for 0 or 2
/// (for nouns whose plural adds an s: "1 " + plural(1, "wave")).
std::string plural(std::int64_t n, std::string_view noun);
/// @brief s in ASCII lower case ("H100" -> "h100"), for names matched without regard to case.
std::string lower(std::string_view s);

}  // namespace fasim
