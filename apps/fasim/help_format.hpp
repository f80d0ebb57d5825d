// Help text that fits a terminal: CLI11 2.1 prints each flag's description
// on one line however long it is (some of fasim's run past 300 columns).
// HelpFormatter word-wraps descriptions, command summaries and footers to
// kHelpWidth columns; CLI11 indents the lines after the first.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace fasim::cli {

/// Columns that `fasim ... --help` keeps to (a word longer than the room left stays whole).
inline constexpr std::size_t kHelpWidth = 100;

/// `text` with each line broken at spaces into lines of at most `width`
/// characters; its own line breaks stay. A line broken here goes on with
/// `indent` spaces first; they count towards `width`.
std::string wrap_words(std::string_view text, std::size_t width, std::size_t indent = 0);

/// CLI11's formatter, with the text wrapped to kHelpWidth columns.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* opt) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
};

}  // namespace fasim::cli
