// CLI11's parse errors in fasim's words (see parse_error.hpp). CLI11 2.1
// keeps the details in the message only, so the message is read; one it does
// not know keeps CLI11's words and points at --help.
#include "parse_error.hpp"

#include <cctype>

#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "sweep_options.hpp"

namespace fasim::cli {
namespace {

// The subcommands of `app`, "run, step, devices".
std::string commands_of(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// How `command` takes several values of `flag`, in brackets; "" for a flag
// that takes one value everywhere.
std::string several(const std::string& command, const std::string& flag) {
  const AxisExample* axis = axis_example(flag);
  if (axis == nullptr) return "";
  const std::string list = flag + " " + std::string(axis->list);
  if (command == "fasim sweep") return ", with every value in one list: " + list;
  if (command == "fasim compare") return " (for several values, add --sweep and give one list: " + list + " --sweep)";
  if (command == "fasim gpu run") return " (to measure several values, `fasim compare --sweep " + list + "` runs each)";
  if (flag == "--l2") return "";  // fasim sweep has no --l2
  return " (for several values, `fasim sweep " + list + "` runs each)";
}

// A flag of `app` spelled as `word` but for case ("--n" for "--N"), or "".
std::string same_but_case(const CLI::App& app, const std::string& word) {
  for (const CLI::Option* o : app.get_options())
    for (const std::string& name : o->get_lnames())
      if (lower("--" + name) == lower(word) && "--" + name != word) return "--" + name;
  return "";
}

}  // namespace

std::string parse_error_line(const CLI::ParseError& e, const CLI::App& app, const std::string& command) {
  const std::string what = one_line(e.what());
  const std::string help = "'" + command + " --help'";
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && what == "A subcommand is required") {
    const std::vector<std::string> words = app.remaining();
    const std::string names = commands_of(app);
    if (!words.empty() && !words.front().starts_with("-"))
      return "unknown command '" + one_line(words.front()) + "' for " + command + "; use one of " + names +
             " (see " + help + ")";
    return command + " needs a command: one of " + names + ", e.g. `" + command + " " +
           names.substr(0, names.find(',')) + "` (see " + help + ")";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && what.ends_with(" is required")) {
    const std::string name = what.substr(0, what.size() - std::string_view(" is required").size());
    if (name.starts_with("-")) return command + " needs " + name + "; add it (see " + help + ")";
    return command + " needs its " + name + " argument; add it (see " + help + ")";  // a positional one
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    // "--N: At Most 1 required but received 2" / "--N: 1 required INT missing"
    const std::size_t colon = what.find(": ");
    const std::string flag = what.substr(0, colon);
    if (colon != std::string::npos && what.find(": At Most 1 required but received ") == colon)
      return flag + " was given " + what.substr(what.rfind(' ') + 1) + " times; give it once" + several(command, flag);
    if (colon != std::string::npos && what.ends_with(" missing")) {
      const AxisExample* axis = axis_example(flag);
      const std::string example = axis ? flag + " " + std::string(axis->list.substr(0, axis->list.find(','))) : "";
      return flag + " needs a value after it" + (example.empty() ? "" : ", e.g. " + example) + " (see " + help + ")";
    }
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const CLI::App* top = &app;
    while (top->get_parent() != nullptr) top = top->get_parent();
    const std::vector<std::string> words = top->remaining(true);
    if (!words.empty()) {
      const std::string& word = words.front();
      const bool flag = word.size() > 1 && word[0] == '-' && !std::isdigit(static_cast<unsigned char>(word[1]));
      if (!flag)
        return "unexpected '" + one_line(word) + "'; remove it, or put the flag it is the value of before it (see " +
               help + ")";
      const std::string meant = same_but_case(app, word);
      if (!meant.empty()) return "unknown flag '" + one_line(word) + "'; flags are case-sensitive: did you mean " + meant + "?";
      return "unknown flag '" + one_line(word) + "' for " + command + "; run " + help + " for its flags";
    }
  }
  return what + "; run " + help + " for the options";
}

}  // namespace fasim::cli
