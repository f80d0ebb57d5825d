#include "flag_pairs.hpp"

#include <algorithm>

#include "fasim/error.hpp"

namespace fasim {

std::vector<std::pair<std::string, std::string>> flag_pairs(
    const std::vector<std::string>& words, std::size_t first, const std::function<void(const std::string&)>& check,
    const std::function<std::string(const std::string&)>& example) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = first; i < words.size(); i += 2) {
    const std::string& flag = words[i];
    check(flag);
    if (i + 1 >= words.size() || words[i + 1].rfind("--", 0) == 0)
      throw UserError(flag + " needs a value; write e.g. " + flag + " " + example(flag));
    if (std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) { return p.first == flag; }))
      throw UserError(flag + " is given twice; keep one (a filter takes one value)");
    pairs.emplace_back(flag, words[i + 1]);
  }
  return pairs;
}

}  // namespace fasim
