// TensorId: the named tensors whose bytes the ledger counts.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace fasim {

/// @brief Every tensor that can cross the HBM <-> SRAM boundary.
/// Q, K, V are inputs; O is the output; S = scale * Q K^T and P = softmax(S)
/// exist in HBM only for the naive algorithm; m (row max), l (row sum) and
/// L = m + log(l) (log-sum-exp) are the softmax statistics, one fp32 per row.
/// Opart and Lpart exist only for decode (split-KV): each split's normalised
/// partial output (fp32) and its log-sum-exp, read back by the reduction.
enum class TensorId : std::uint8_t { Q, K, V, O, S, P, m, l, L, Opart, Lpart };

inline constexpr int kTensorCount = 11;

inline constexpr std::array<TensorId, kTensorCount> kAllTensors = {
    TensorId::Q, TensorId::K, TensorId::V, TensorId::O, TensorId::S, TensorId::P,
    TensorId::m, TensorId::l, TensorId::L, TensorId::Opart, TensorId::Lpart};

/// @brief "Q", "K", ..., "L", "Opart", "Lpart".
constexpr std::string_view name(TensorId t) {
  constexpr std::array<std::string_view, kTensorCount> names = {
      "Q", "K", "V", "O", "S", "P", "m", "l", "L", "Opart", "Lpart"};
  return names[static_cast<int>(t)];
}

constexpr int index(TensorId t) { return static_cast<int>(t); }

}  // namespace fasim
