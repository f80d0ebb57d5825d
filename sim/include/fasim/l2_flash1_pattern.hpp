// The flash1-pattern probe (docs/results/flash1-pattern-probe-2026-11-30.cu):
// flash1's loop order over its own buffers with no arithmetic, one block a
// head, recorded on a GPU in several placements, and the same steps played
// through fasim's L2 model, so the model can be checked against it.
//
// Per key block j a block reads K_j and V_j; then per query block i it reads
// Q_i, O_i, l_i, m_i (not O, l, m when j = 0) and writes O_i, l_i, m_i.
// Variants change it one way at a time: F1-nokv reads no K or V, F1-ro
// never writes O, l or m (only reads them), F1-together keeps each head's
// Q and O side by side in one buffer and F1-kvj lays K and V out by key
// block, then head (the same steps to the model, which has no addresses);
// F1-nolm leaves out l and m, F1-lmro only reads them, F1-lmpad puts each
// head's on its own 4 KiB (the same steps), F1-konly reads K_j but not V_j.
// F1-e2 and F1-e4 move 2 or 4 bytes a thread at a time instead of 16,
// F1-e2o only for O, F1-e2in only for Q, K and V (the same steps: the
// model counts lines, not instructions).
// Others change who does the work: F1-aK puts K of 16 heads' blocks next
// to one L2 half, F1-bK puts each head next to the half bit K of its
// number names (for both, only the SMs listed differ), F1-qK
// splits each head's query rows over K blocks (they share the head's K and
// V), F1-wK runs all heads on K blocks, block b taking heads b, b + K, ...
// one after the other in each pass. The replay runs the blocks in lock
// step, one step of each in turn (the probe's launch style: a kernel per key
// block), each on the SM given, each SM next to the half the SM layout says.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/l2_probes.hpp"

namespace fasim {

/// @brief One recorded sequence of the flash1-pattern probe.
struct Flash1Pattern {
  std::string name;             ///< "F1/N512/d128/br64/bc64", "F1-nokv/N512/d128/br64/bc64", ...
  std::int64_t n = 0;           ///< rows of Q, K, V and O per head
  std::int64_t d = 0;           ///< head dimension (fp16 rows of 2 d bytes)
  std::int64_t br = 0;          ///< query rows per tile
  std::int64_t bc = 0;          ///< key rows per tile: one pass per key block
  std::int64_t heads = 0;       ///< heads (from a /hH part; 0: one an SM)
  std::int64_t slices = 1;      ///< blocks a head, each a share of its query rows (F1-qK)
  std::int64_t workers = 0;     ///< blocks for all heads, each several (F1-wK; 0: as slices says)
  bool kv = true;               ///< K_j and V_j read (not F1-nokv)
  bool write = true;            ///< O, l and m written back (not F1-ro)
  bool lm = true;               ///< l and m read and written (not F1-nolm)
  bool lm_write = true;         ///< l and m written back (not F1-lmro: only read)
  bool read_v = true;           ///< V_j read beside K_j (not F1-konly)
  std::vector<double> gpu_mb;   ///< DRAM MB read over all passes, one per placement
  std::vector<std::int64_t> sm_of_block;  ///< the SM of each block, where the probe recorded it
};

/// @brief Reads the probe's long form (flash1-pattern-table-2026-11-30.py
/// --long: sequence,placement,style,spin,pass,dram_read_bytes,
/// dram_write_bytes,sms,skew_us), the launch-style runs with no spin (the
/// rmw probe's R132 and H132 rows are passed over): each sequence's reads
/// summed over its passes, per placement, and its blocks' SMs (placement
/// 0's) where given. A sequence is F1[-variant]/N../d../br../bc.. with an
/// optional /hH (H heads), the variant one or more of nokv, ro, together,
/// kvj, nolm, lmro, lmpad, konly, e2, e4, e2o, e2in, aK, bK, qK and wK. Throws UserError naming the file and line of anything else.
std::vector<Flash1Pattern> read_flash1_pattern(const std::string& path);

/// @brief DRAM MB (10^6 bytes, as the probe's tables) of one pass.
struct PatternPass {
  double read_mb = 0;     ///< MB read from DRAM
  double written_mb = 0;  ///< MB written to DRAM (dirty data written back)
};

/// @brief The blocks `p` runs with `heads` heads: workers, else heads x slices.
std::int64_t pattern_blocks(const Flash1Pattern& p, std::int64_t heads);

/// @brief DRAM bytes of each pass (key block) through fasim's L2 model of
/// `device`, block b on SM `sm_of_block[b]`, each SM next to the half
/// `layout` says. With no /hH part one block a head, as many heads as SMs
/// listed; else as many SMs as the pattern's blocks (pattern_blocks).
std::vector<PatternPass> replay_flash1_pattern(const Flash1Pattern& p, const DeviceSpec& device,
                                               const SmLayout& layout, const std::vector<std::int64_t>& sm_of_block);

}  // namespace fasim
