// DType: the storage type of tensors in HBM and of tiles in SRAM.
// Arithmetic always accumulates in fp32, as GPU tensor cores do; fp16 and bf16
// only change how values are rounded when stored and how many bytes move.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fasim {

/// @brief Element type of a stored tensor.
enum class DType : std::uint8_t { fp32, fp16, bf16 };

/// @brief Bytes per element: 4 for fp32, 2 for fp16 and bf16.
constexpr std::int64_t bytes_of(DType t) { return t == DType::fp32 ? 4 : 2; }

/// @brief "fp32", "fp16" or "bf16".
std::string_view name(DType t);

/// @brief Parses "fp32" | "fp16" | "bf16"; nullopt for anything else.
std::optional<DType> parse_dtype(std::string_view s);

/// @brief Rounds x to the nearest value representable in t (round to nearest
/// even), returned as float. Identity for fp32.
float round_to(DType t, float x);

/// @brief Rounds every value in place (see round_to).
void round_in_place(DType t, std::span<float> values);

}  // namespace fasim
