// The fp64 reference: softmax(scale * Q K^T + mask) V computed in double
// precision from the same stored inputs, to measure the simulated algorithm's
// error. Plain attention, not the tiled algorithms: whole rows of scores, a
// max, exponentials, a sum, a division and a product with V.
//
// It is computed a block of query rows at a time, reading Q, K and V from
// their storage (every fp16, bf16 or fp32 value is exactly a double) 1024
// keys at a time, so it holds one block of scores and output rows, never a
// head's Q, K, V or output in double: the check after a run adds little to
// the run's memory. Summing P V a chunk of keys at a time groups the sums
// differently from one product over all keys: results may differ from such
// a product in the last bits of a double (tests/test_reference.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fasim/hbm.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief Rows [row0, row0 + rows) of O_ref of head bh: (rows, d) row-major
/// doubles at `values`, valid during the call that hands them over.
struct ReferenceRows {
  std::int64_t bh = 0;    ///< the query head (batch * heads index)
  std::int64_t row0 = 0;  ///< first query row of the block
  std::int64_t rows = 0;  ///< query rows in the block
  std::int64_t d = 0;     ///< columns (head dimension)
  const double* values = nullptr;  ///< rows * d values, row-major
  /// @brief O_ref(row0 + r, c).
  double at(std::int64_t r, std::int64_t c) const { return values[r * d + c]; }
};

/// @brief O_ref for query head bh of workload w, one block of query rows at a
/// time, in order; `use` gets each block. Reads K/V head w.kv_head_of(bh)
/// (through the block table when paged) and applies the causal or window
/// mask; a row that sees no key gets 0. Each row uses only the keys it sees:
/// a NaN or Inf in Q row i, or in the K or V row of a key that row i sees,
/// makes row i NaN or Inf (as IEEE arithmetic gives); a non-finite value in a
/// hidden key's row does not reach it (docs/variants.md, "Non-finite inputs").
/// Holds at most reference_rows_per_block(w) rows of N_kv scores at a time.
void reference_attention(const Hbm& hbm, const Workload& w, std::int64_t bh,
                         const std::function<void(const ReferenceRows&)>& use);

/// @brief The same O_ref for query head bh as one (N, d) row-major vector.
std::vector<double> reference_attention(const Hbm& hbm, const Workload& w, std::int64_t bh);

/// @brief Query rows per block of the reference: 128, fewer when keys are so
/// many that 128 rows of scores would pass 6 MiB (at least 16). Each block
/// reads all of K and V again: fewer rows would cost time.
std::int64_t reference_rows_per_block(const Workload& w);

/// @brief Bytes the reference holds at a time: one block of rows (its N_kv
/// scores, Q and output rows, in double) and K and V chunks of at most 1024
/// keys in double: 8.0 to 8.2 MiB at d = 128 for N_kv = 8192 to 32768.
double reference_bytes(const Workload& w);

}  // namespace fasim
