#include "fasim/paged_kv.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace fasim {

std::int64_t pages_per_sequence(const Workload& w) {
  return w.page_size > 0 ? (w.n_keys() + w.page_size - 1) / w.page_size : 0;
}

KvShape kv_shape(const Workload& w) {
  if (w.page_size == 0) return {w.bh_kv(), w.n_keys(), w.d};
  return {w.batch * pages_per_sequence(w) * w.n_kv_heads(), w.page_size, w.d};
}

std::vector<std::int64_t> make_block_table(const Workload& w, std::uint64_t seed) {
  std::vector<std::int64_t> table(static_cast<std::size_t>(w.batch * pages_per_sequence(w)));
  std::iota(table.begin(), table.end(), 0);
  // A seed of its own, so paging does not change the random Q, K, V values.
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::shuffle(table.begin(), table.end(), rng);
  return table;
}

KvPiece kv_piece(const Workload& w, const std::vector<std::int64_t>& block_table, std::int64_t bkv,
                 std::int64_t row, std::int64_t rows) {
  if (w.page_size == 0) return {bkv, row, rows};
  const std::int64_t P = w.page_size;
  const std::int64_t kvh = w.n_kv_heads();
  const std::int64_t b = bkv / kvh;
  const std::int64_t page = block_table[static_cast<std::size_t>(b * pages_per_sequence(w) + row / P)];
  return {page * kvh + bkv % kvh, row % P, std::min(rows, P - row % P)};
}

std::int64_t kv_pieces(const Workload& w, std::int64_t row0, std::int64_t rows) {
  if (w.page_size == 0 || rows <= 0) return rows > 0 ? 1 : 0;
  return (row0 + rows - 1) / w.page_size - row0 / w.page_size + 1;
}

std::int64_t kv_offset(const Workload& w, const Hbm& hbm, TensorId t, std::int64_t bkv, std::int64_t row,
                       std::int64_t col) {
  const KvPiece p = kv_piece(w, hbm.block_table, bkv, row, 1);
  return hbm.at(t).offset(p.slot, p.row0, col);
}

}  // namespace fasim
