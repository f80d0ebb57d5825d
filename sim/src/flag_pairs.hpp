// Flag words as lesson marks and ```recorded``` blocks write them:
// "--FLAG VALUE --FLAG VALUE ...", every flag once and with one value.
// Shared by the recorded-sweep and the recorded-ncu selections.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace fasim {

/// (flag, value) pairs of words[first..], in order. `check` throws UserError
/// for a word that is not an accepted flag (before its value is looked at);
/// `example(flag)` is the value the "needs a value" message suggests. Throws
/// UserError on a flag without a value or a flag given twice.
std::vector<std::pair<std::string, std::string>> flag_pairs(
    const std::vector<std::string>& words, std::size_t first, const std::function<void(const std::string&)>& check,
    const std::function<std::string(const std::string&)>& example);

}  // namespace fasim
