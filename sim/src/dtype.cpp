// Storage rounding through Eigen's half and bfloat16 types (round to nearest even).
#include "fasim/dtype.hpp"

#include <Eigen/Core>

namespace fasim {

std::string_view name(DType t) {
  switch (t) {
    case DType::fp32: return "fp32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp32") return DType::fp32;
  if (s == "fp16") return DType::fp16;
  if (s == "bf16") return DType::bf16;
  return std::nullopt;
}

float round_to(DType t, float x) {
  switch (t) {
    case DType::fp32: return x;
    case DType::fp16: return static_cast<float>(Eigen::half(x));
    case DType::bf16: return static_cast<float>(Eigen::bfloat16(x));
  }
  return x;
}

void round_in_place(DType t, std::span<float> values) {
  if (t == DType::fp32) return;
  for (float& v : values) v = round_to(t, v);
}

}  // namespace fasim
