// Block: what one thread block's tile program sees. It allocates tiles on chip,
// loads and stores tiles between HBM and SRAM (counting every byte), and turns
// each action into a Step. With numerics, a load of Q, K or V copies nothing:
// the tile refers to the rows in HBM (on_chip.hpp says why).
//
// A block writes each Step into one Step that the simulation owns (`out`) and
// returns it for the program to co_yield: every block of a run writes the same
// few cache lines, instead of a Step of its own in its coroutine frame, which
// would be cold by the time the block runs again (hundreds of blocks take
// turns). So a Step a method returns is valid until the block's next load,
// store or compute: co_yield it at once, or copy it (`Step s = blk.load(..)`).
#pragma once

#include <cstdint>
#include <string_view>

#include "fasim/hbm.hpp"
#include "fasim/ledger.hpp"
#include "fasim/on_chip.hpp"
#include "fasim/step.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief The row whose softmax state steps report (global row of one head).
struct WatchedRow {
  std::int64_t bh = 0;  ///< (batch * head) index of the watched row
  std::int64_t row = 0;  ///< row within that head, 0 .. N-1
};

/// @brief Execution context of one thread block.
class Block {
 public:
  /// @brief A block of `kernel` with index `block`, reading and writing `hbm`; it reports the
  /// softmax state of `watch`, computes values only if `numerics` (reading its shared tiles'
  /// rows that stay in HBM through `scratch`), and writes its steps to `out`.
  Block(Hbm& hbm, TileScratch& scratch, const Workload& w, bool numerics, WatchedRow watch,
        std::int32_t kernel, std::int64_t block, Step& out)
      : hbm_(hbm), scratch_(scratch), w_(w), numerics_(numerics), watch_(watch), kernel_(kernel), block_(block),
        out_(&out) {}

  /// @brief The attention shape the block works on.
  const Workload& workload() const { return w_; }
  /// @brief True when real values are computed (execute mode).
  bool numerics() const { return numerics_; }
  /// @brief The block's index within its kernel's grid.
  std::int64_t id() const { return block_; }
  /// @brief The HBM tensors the block loads from and stores to.
  Hbm& hbm() { return hbm_; }

  /// @brief Sets the (batch*head, query block, key block) of the next steps.
  void at(std::int64_t bh, std::int64_t qb, std::int64_t kb) {
    bh_ = bh;
    qb_ = qb;
    kb_ = kb;
  }

  /// @brief A tile in shared memory of `dtype`; the block's nth such tile
  /// reads rows that stay in HBM through scratch slot n.
  Tile shared(std::int64_t rows, std::int64_t cols, DType dtype) {
    TileMatrix* slot = numerics_ ? &scratch_.slot(shared_tiles_++) : nullptr;
    return Tile(&chip_, Placement::shared, rows, cols, dtype, numerics_, slot);
  }
  /// @brief Shared memory held but never read by the program: with double
  /// buffering, the buffers the next tile's loads fill while this one is
  /// computed (the Machine overlaps the loads; this holds the bytes).
  Tile shared_reserve(std::int64_t rows, std::int64_t cols, DType dtype) {
    return Tile(&chip_, Placement::shared, rows, cols, dtype, false);
  }
  /// @brief An fp32 tile held in registers (accumulators, scores, statistics).
  Tile registers(std::int64_t rows, std::int64_t cols) {
    return Tile(&chip_, Placement::registers, rows, cols, DType::fp32, numerics_);
  }
  /// @brief A register tile like registers(), counted the same, whose values
  /// the program computes and uses up within one turn of the block (between
  /// two co_yields). Its values (Tile::step_values) live in one matrix that
  /// all blocks share, as only one block runs at a time: hundreds of resident
  /// blocks then do not each keep one on the host.
  Tile step_registers(std::int64_t rows, std::int64_t cols) {
    TileMatrix* values = numerics_ ? &scratch_.step_registers() : nullptr;
    return Tile(&chip_, Placement::registers, rows, cols, DType::fp32, numerics_, values);
  }

  /// @brief Reads rows [row0, row0+rows) x cols [col0, col0+cols) of tensor t
  /// (head bh) into dst at (0, dst_col0). Counts rows*cols*elem bytes read.
  /// Whole rows of Q, K or V are not copied: dst refers to them (Tile::refer).
  Step& load(Tile& dst, TensorId t, std::int64_t row0, std::int64_t rows, std::int64_t col0,
             std::int64_t cols, std::int64_t dst_col0 = 0);

  /// @brief Writes src rows [0, rows) x cols [src_col0, src_col0+cols) to tensor
  /// t at (row0, col0), rounding to the tensor's dtype. Counts bytes written.
  /// With numerics, t must not be an input (Q, K, V): tiles refer to their rows.
  Step& store(TensorId t, std::int64_t row0, std::int64_t rows, std::int64_t col0,
              std::int64_t cols, const Tile& src, std::int64_t src_col0 = 0);

  /// @brief load() from head `head` of the tensor (not the block's bh) into
  /// dst rows from dst_row0: a K/V head under GQA, a page slot when paged.
  /// Rows past the head's last row continue into the next head, which is
  /// adjacent in memory (decode loads a GQA group's query rows at once).
  /// The Step's bh is `head`: the head of the tensor the bytes came from.
  Step& load_from(Tile& dst, TensorId t, std::int64_t head, std::int64_t row0, std::int64_t rows,
                  std::int64_t col0, std::int64_t cols, std::int64_t dst_row0 = 0,
                  std::int64_t dst_col0 = 0);
  /// @brief store() to head `head` of the tensor from src rows from src_row0.
  Step& store_to(TensorId t, std::int64_t head, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                 std::int64_t cols, const Tile& src, std::int64_t src_row0 = 0, std::int64_t src_col0 = 0);

  /// @brief A compute step (no HBM traffic) that produced `produced`.
  Step& compute(StepKind kind, std::string_view what, TensorId produced, std::int64_t rows,
                std::int64_t cols, const Flops& flops) {
    Step& s = make(kind, what, produced, rows, cols);
    s.flops_matmul = flops.matmul;
    s.flops_other = flops.other;
    s.exps = flops.exp;
    return s;
  }

  /// @brief Local row index of the watched row within a tile starting at global
  /// row `row0` with `rows` rows of head bh; -1 if not inside.
  std::int64_t watched_local_row(std::int64_t row0, std::int64_t rows) const {
    if (watch_.bh != bh_ || watch_.row < row0 || watch_.row >= row0 + rows) return -1;
    return watch_.row - row0;
  }

  /// @brief The block's shared memory and register tiles, as bytes in use.
  const OnChip& chip() const { return chip_; }
  /// @brief The row whose softmax state steps report.
  const WatchedRow& watched() const { return watch_; }

 private:
  // A fresh Step in out_ with what every step of this block says.
  Step& make(StepKind kind, std::string_view what, TensorId t, std::int64_t rows, std::int64_t cols) {
    static constexpr Step kBlank{};  // copied, not built: Step{} here compiles to a slow `rep stos`
    Step& s = *out_;
    s = kBlank;
    s.kind = kind;
    s.what = what;
    s.kernel = kernel_;
    s.block = block_;
    s.bh = bh_;
    s.qb = qb_;
    s.kb = kb_;
    s.tensor = t;
    s.rows = rows;
    s.cols = cols;
    s.sram_bytes = chip_.in_use(Placement::shared);
    s.register_bytes = chip_.in_use(Placement::registers);
    return s;
  }

  Hbm& hbm_;
  TileScratch& scratch_;
  const Workload& w_;
  bool numerics_;
  WatchedRow watch_;
  std::int32_t kernel_;
  std::int64_t block_;
  std::int64_t bh_ = 0, qb_ = -1, kb_ = -1;
  std::size_t shared_tiles_ = 0;  // shared tiles made so far: the next one's scratch slot
  Step* out_;  // where the steps are written (see the top of this file)
  OnChip chip_;
};

}  // namespace fasim
