// The stepper's picture of one simulation step, at most 80 columns wide:
//
//   step 7 of 96 | kernel 1/1 flash2 forward | block 2 on SM 2 | 1.602 us
//   load V rows 0-3 (4x4): +32 B from HBM (L2 hit 32 B, DRAM 0 B)
//
//     bh 0      K/V block j
//             0   1   2   3
//         0  [o] [ ] [ ] [ ]
//         1  [o] [ ] [ ] [ ]
//         2  [#] [ ] [ ] [ ]
//     >   3  [=] [=] [=] [=]     (a step on a whole Q row: load Q_i, store O_i)
//   [#] this tile  [=] this row/col  [o] others  [x] done  [ ] to do
//
//   SRAM of block 2: Q rows 8-11, K rows 0-3, V rows 0-3
//     reserved for all its tiles, loaded or not: shared 96 B of 4,096 B (2.3%),
//     registers 160 B of 8,192 B (2.0%)
//   HBM  read 352 B, written 0 B   L2 hits 224 B   DRAM read 128 B
//   row 5: m = 0.77, l = 2.979 (changed at step 61)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fasim/simulation.hpp"
#include "lesson_text.hpp"

namespace fasim::cli {

/// @brief Follows a Simulation step by step and draws each step.
class StepView {
 public:
  /// @brief `total` is the run's number of steps (for "step k of total").
  StepView(const Simulation& sim, std::int64_t total, TextStyle style);

  /// @brief Takes in the step the simulation just made (call after next()).
  void absorb(const Simulation& sim);
  /// @brief The picture of the last absorbed step.
  std::string frame(const Simulation& sim) const;
  /// @brief Steps absorbed so far.
  std::int64_t count() const { return count_; }

 private:
  struct TileRef {
    std::int64_t bh = 0, qb = -1, kb = -1;
  };
  struct Loaded {
    std::int64_t row0 = 0, rows = 0;
  };
  enum Cell : char { todo = ' ', done = 'x', other = 'o', now = '#', whole = '=', masked = '.' };

  std::vector<std::string> grid(const Simulation& sim, std::int64_t bh) const;
  Cell cell(const Simulation& sim, std::int64_t bh, std::int64_t qb, std::int64_t kb) const;
  std::string describe(const Step& s) const;
  std::string sram_line(const Simulation& sim) const;

  std::int64_t total_;
  TextStyle style_;
  std::int64_t Tr_ = 1, Tc_ = 1;
  std::int64_t count_ = 0;
  std::int32_t kernel_ = -1;
  Step step_{};
  std::map<std::int64_t, std::vector<char>> touched_;                   // bh -> Tr x Tc, this kernel
  std::map<std::int64_t, TileRef> latest_;                              // block -> its current tile
  std::map<std::int64_t, std::map<TensorId, Loaded>> loaded_;           // block -> last tile per tensor
  bool row_seen_ = false;
  float row_m_ = 0, row_l_ = 0;
  std::int64_t row_step_ = 0;
};

}  // namespace fasim::cli
