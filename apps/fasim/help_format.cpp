#include "help_format.hpp"

#include <sstream>

namespace fasim::cli {

std::string wrap_words(std::string_view text, std::size_t width, std::size_t indent) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    std::size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;  // a line's own indent is kept
    out.append(line.substr(0, i));
    std::size_t column = i;  // characters on the output line so far
    bool first = true;       // no word on this line yet
    const std::size_t hang = indent + i;  // where a broken line goes on
    while (i < line.size()) {
      std::size_t j = line.find(' ', i);
      if (j == std::string_view::npos) j = line.size();
      const std::string_view word = line.substr(i, j - i);
      if (!word.empty()) {
        if (!first && column + 1 + word.size() > width) {
          out += '\n';
          out.append(hang, ' ');
          column = hang;
          first = true;
        }
        if (!first) {
          out += ' ';
          ++column;
        }
        out.append(word);
        column += word.size();
        first = false;
      }
      i = j + 1;
    }
    if (end == text.size()) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

namespace {
// Room for a description beside a left column of `column` characters.
std::size_t beside(std::size_t column) { return kHelpWidth > column + 20 ? kHelpWidth - column : 20; }
}  // namespace

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  return wrap_words(CLI::Formatter::make_option_desc(opt), beside(get_column_width()));
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true),
                           wrap_words(sub->get_description(), beside(get_column_width())), get_column_width());
  return out.str();
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return wrap_words(CLI::Formatter::make_description(app), kHelpWidth);
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  return wrap_words(CLI::Formatter::make_footer(app), kHelpWidth, 2);
}

}  // namespace fasim::cli
