// The point a replay tool takes on its command line, as words:
// ALGO DTYPE HEADS N d BR BC (flash1 fp16 132 512 128 64 64). Shared by
// l2-line-sim-2026-11-30.cpp and flash1-order-replay-2026-12-01.cpp.
#pragma once

#include <string>
#include <vector>

#include "fasim/simulation.hpp"

struct ReplayPoint {
  fasim::Workload w;
  fasim::Mapping m;
};

// The first 7 of `words`; throws (std::bad_optional_access, std::invalid_argument) on a bad one.
inline ReplayPoint replay_point(const std::vector<std::string>& words) {
  ReplayPoint p;
  p.m.algo = fasim::parse_algo(words.at(0)).value();
  p.w.dtype = fasim::parse_dtype(words.at(1)).value();
  p.w.heads = std::stoll(words.at(2));
  p.w.N = std::stoll(words.at(3));
  p.w.d = std::stoll(words.at(4));
  p.m.br = std::stoll(words.at(5));
  p.m.bc = std::stoll(words.at(6));
  return p;
}
