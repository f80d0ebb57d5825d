#include "fasim/mapping.hpp"

namespace fasim {

std::string_view name(Algo a) {
  switch (a) {
    case Algo::naive: return "naive";
    case Algo::flash1: return "flash1";
    case Algo::flash2: return "flash2";
    case Algo::decode: return "decode";
  }
  return "?";
}

std::optional<Algo> parse_algo(std::string_view s) {
  if (s == "naive") return Algo::naive;
  if (s == "flash1") return Algo::flash1;
  if (s == "flash2") return Algo::flash2;
  if (s == "decode") return Algo::decode;
  return std::nullopt;
}

}  // namespace fasim
