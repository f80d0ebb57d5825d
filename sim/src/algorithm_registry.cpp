// The table from algorithm names to their functions. Add a new algorithm here.
#include "fasim/algorithms/decode.hpp"
#include "fasim/algorithms/flash1.hpp"
#include "fasim/algorithms/flash2.hpp"
#include "fasim/algorithms/naive.hpp"
#include "fasim/program.hpp"

#include <stdexcept>
#include <string>

namespace fasim {

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = {
      {Algo::naive, "naive", "standard attention: S and P written to HBM (3 kernels)",
       &naive::need, &naive::declare, &naive::build},
      {Algo::flash1, "flash1", "FlashAttention (Algorithm 1): K/V blocks outer, Q blocks inner; O, l, m to HBM each step",
       &flash1::need, &flash1::declare, &flash1::build},
      {Algo::flash2, "flash2", "FlashAttention-2: Q blocks outer, K/V blocks inner, online softmax",
       &flash2::need, &flash2::declare, &flash2::build},
      {Algo::decode, "decode", "Flash-Decoding: keys split over blocks (split-KV), partials combined by a second kernel",
       &decode::need, &decode::declare, &decode::build},
  };
  return table;
}

const AlgorithmInfo& algorithm(Algo a) {
  for (const AlgorithmInfo& info : algorithms())
    if (info.algo == a) return info;
  // Every Algo value has a row above; reaching here means one was added to the
  // enum without its row, a programming error rather than bad input.
  throw std::logic_error("algorithm(): no registry row for Algo " + std::to_string(static_cast<int>(a)));
}

}  // namespace fasim
