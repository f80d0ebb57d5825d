// Workload: the attention shape being computed (what, not how), with the
// variants lessons need: causal and sliding-window masks, grouped K/V heads
// (GQA, MQA), a key length other than the query length (decode), and K/V kept
// in pages (paged KV cache).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "fasim/dtype.hpp"

namespace fasim {

/// @brief One attention forward pass: O = softmax(scale * Q K^T + mask) V for
/// every (batch, head). Per head Q and O are (N, d), K and V are (N_kv, d);
/// scale = 1 / sqrt(d).
///
/// Fields after `dtype` are the variants; their defaults give plain attention,
/// so `Workload{batch, heads, N, d, dtype}` still means what it always did.
///
/// **Masks.** Query row i (0 <= i < N) sees key j (0 <= j < N_kv) when
///   lo(i) <= j <= hi(i), with off = N_kv - N (the diagonal aligned to the end,
///   as FlashAttention does: the last query row sees the last key), and
///   hi(i) = i + off   if causal or window > 0, else N_kv - 1 (clamped to N_kv - 1),
///   lo(i) = i + off - window + 1   if window > 0, else 0 (clamped to 0).
/// A window is Mistral's sliding window: the W keys ending at the diagonal,
/// i - W < j <= i when N_kv = N. It includes the causal bound, so window > 0
/// implies causal. A row with hi(i) < 0 sees nothing (only causal with
/// N > N_kv); its output is 0 and its log-sum-exp L is -inf.
///
/// **GQA / MQA.** K and V have kv_heads heads per sequence; query head h reads
/// K/V head h / (heads / kv_heads). kv_heads = heads is multi-head attention,
/// 1 < kv_heads < heads grouped-query, kv_heads = 1 multi-query.
///
/// **Paged K/V.** With page_size > 0, K and V live in a pool of pages of
/// page_size rows, found through a block table (see paged_kv.hpp).
struct Workload {
  std::int64_t batch = 1;   ///< sequences
  std::int64_t heads = 1;   ///< query heads per sequence
  std::int64_t N = 1024;    ///< query rows per head (decode: 1, or a few when speculating)
  std::int64_t d = 64;      ///< head dimension
  DType dtype = DType::fp16;  ///< storage type of Q, K, V and O
  std::int64_t kv_heads = 0;   ///< K/V heads per sequence; 0 means heads (no grouping)
  std::int64_t N_kv = 0;       ///< key rows per head; 0 means N
  bool causal = false;         ///< query i sees keys j <= i + N_kv - N
  std::int64_t window = 0;     ///< sliding window W (implies causal); 0 means none
  std::int64_t page_size = 0;  ///< rows per K/V page; 0 means contiguous K and V

  /// @brief batch * heads: independent attention problems (query heads).
  std::int64_t bh() const { return batch * heads; }
  /// @brief K/V heads per sequence (kv_heads, or heads when 0).
  std::int64_t n_kv_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  /// @brief Key rows per head (N_kv, or N when 0).
  std::int64_t n_keys() const { return N_kv > 0 ? N_kv : N; }
  /// @brief batch * K/V heads: the heads of the K and V tensors.
  std::int64_t bh_kv() const { return batch * n_kv_heads(); }
  /// @brief Query heads that share one K/V head: heads / kv_heads.
  std::int64_t group() const { return heads / n_kv_heads(); }
  /// @brief The K/V head (index into batch * kv_heads) that query head bh reads.
  std::int64_t kv_head_of(std::int64_t bh) const {
    return (bh / heads) * n_kv_heads() + (bh % heads) / group();
  }
  /// @brief Elements of one (N, d) tensor of one head.
  std::int64_t head_elems() const { return N * d; }
  /// @brief Bytes per stored element.
  std::int64_t elem_bytes() const { return bytes_of(dtype); }
  /// @brief Softmax scale 1 / sqrt(d).
  double scale() const { return 1.0 / std::sqrt(static_cast<double>(d)); }

  /// @brief True if any key is hidden from some query (causal or window).
  bool masked() const { return causal || window > 0; }
  /// @brief First key query row i sees (see the mask rule above).
  std::int64_t key_lo(std::int64_t i) const {
    return window > 0 ? std::max<std::int64_t>(0, i + n_keys() - N - window + 1) : 0;
  }
  /// @brief Last key query row i sees; < 0 when it sees none.
  std::int64_t key_hi(std::int64_t i) const {
    return masked() ? std::min(n_keys() - 1, i + n_keys() - N) : n_keys() - 1;
  }
  /// @brief True if query row i sees key j.
  bool visible(std::int64_t i, std::int64_t j) const { return key_lo(i) <= j && j <= key_hi(i); }
  /// @brief True for plain attention: no mask, no grouping, N_kv = N, contiguous.
  bool plain() const { return !masked() && n_kv_heads() == heads && n_keys() == N && page_size == 0; }
};

}  // namespace fasim
