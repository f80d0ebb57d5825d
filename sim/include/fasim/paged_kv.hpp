// Where K and V rows live in HBM: contiguous per head, or in pages of a paged
// KV cache (vLLM's PagedAttention) found through a block table.
//
// Contiguous: K and V are (batch * kv_heads, N_kv, d), one matrix per K/V head.
//
// Paged (page_size = P > 0): each sequence's keys are cut into
// pages_per_seq = ceil(N_kv / P) logical pages of P rows. The pool holds
// batch * pages_per_seq physical pages; a page holds P rows of every K/V head,
// vLLM's [pages, kv_heads, P, d] layout. fasim stores the pool as an HbmTensor
// of (pages * kv_heads) "slots" of (P, d): slot = page * kv_heads + kv_head.
// The block table maps (sequence b, logical page lp) to a physical page; it is
// a random permutation drawn from the run's seed, so consecutive logical pages
// are scattered through the pool. The last page of a sequence is padded when
// P does not divide N_kv; its padding rows are never read.
//
// A K or V tile of rows [c0, c0 + Bc) is one load per page it touches:
// pages floor(c0 / P) .. floor((c0 + Bc - 1) / P). The bytes are always those
// of contiguous K/V (every row is read as often); only the number of loads
// (and the latency each costs) changes:
//   P a multiple of Bc: one load per tile, exactly as contiguous;
//   Bc a multiple of P: Bc / P loads per tile, each a whole page;
//   neither: a tile that straddles a page boundary takes one load more.
// The block table's own bytes (4 per page, read once per block) are not counted.
#pragma once

#include <cstdint>
#include <vector>

#include "fasim/hbm.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief One contiguous run of K/V rows in HBM: `rows` rows starting at row
/// `row0` of head (or paged slot) `slot` of the K or V tensor.
struct KvPiece {
  std::int64_t slot = 0;  ///< head of K/V, or page slot when paged
  std::int64_t row0 = 0;  ///< first row within that head or page
  std::int64_t rows = 0;  ///< rows in the run
};

/// @brief Logical pages per sequence: ceil(N_kv / page_size); 0 when contiguous.
std::int64_t pages_per_sequence(const Workload& w);

/// @brief Shape of the K and V tensors: {heads or slots, rows, d}.
struct KvShape {
  std::int64_t heads = 0;  ///< heads, or page slots when paged
  std::int64_t rows = 0;   ///< rows per head or page
  std::int64_t cols = 0;   ///< d
};
/// @brief (batch * kv_heads, N_kv, d) contiguous; (pages * kv_heads, page_size, d) paged.
KvShape kv_shape(const Workload& w);

/// @brief The block table: entry b * pages_per_seq + lp is the physical page
/// of sequence b's logical page lp. Empty when contiguous. A permutation of
/// the pool drawn from `seed`.
std::vector<std::int64_t> make_block_table(const Workload& w, std::uint64_t seed);

/// @brief The first run of at most `rows` rows of K/V head `bkv` (index into
/// batch * kv_heads) starting at logical row `row`, following the block table.
KvPiece kv_piece(const Workload& w, const std::vector<std::int64_t>& block_table, std::int64_t bkv,
                 std::int64_t row, std::int64_t rows);

/// @brief Loads that rows [row0, row0 + rows) of one K/V head take: the pages
/// they touch when paged, else 1 (0 when rows is 0).
std::int64_t kv_pieces(const Workload& w, std::int64_t row0, std::int64_t rows);

/// @brief Offset in the K or V tensor's values of logical element
/// (bkv, row, col), following the block table when paged.
std::int64_t kv_offset(const Workload& w, const Hbm& hbm, TensorId t, std::int64_t bkv, std::int64_t row,
                       std::int64_t col);

}  // namespace fasim
