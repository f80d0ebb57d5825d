// HBM values are held as their storage type: a 16-bit tensor takes 2 bytes an
// element, and reading gives back exactly round_to(dtype, value written);
// every fp16 and bf16 bit pattern reads as the float Eigen makes of it.
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fasim/hbm.hpp"

using namespace fasim;

TEST_CASE("HBM values: 16-bit types take half the memory and read back as round_to", "[hbm]") {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  const float inf = std::numeric_limits<float>::infinity();
  for (DType t : {DType::fp32, DType::fp16, DType::bf16}) {
    CAPTURE(std::string(name(t)));
    HbmValues v(t, 1000);
    CHECK(v.size() == 1000);
    CHECK(v.bytes() == 1000 * static_cast<std::size_t>(bytes_of(t)));
    std::vector<float> written(1000);
    for (std::size_t i = 0; i < 1000; ++i) {
      const float specials[] = {inf, -inf, -0.0f, 1e-8f, 7e4f, -1e30f};
      written[i] = i < 6 ? specials[i] : normal(rng);
      v.set(i, written[i]);
    }
    for (std::size_t i = 0; i < 1000; ++i) {
      const float want = round_to(t, written[i]);
      CHECK(v[i] == want);
      CHECK(std::signbit(v[i]) == std::signbit(want));
    }
    std::vector<float> row(10);
    v.read(100, 10, row.data());
    for (std::size_t k = 0; k < 10; ++k) CHECK(row[k] == v[100 + k]);
    v.set(5, std::nanf(""));
    CHECK(std::isnan(v[5]));
    const std::vector<float> as_floats = v;
    CHECK_FALSE(as_floats == v);  // NaN equals nothing, as in a vector of floats
    v.set(5, 1.0f);
    CHECK(std::vector<float>(v) == v);
  }
}

TEST_CASE("every fp16 and bf16 bit pattern reads as Eigen converts it, bit for bit", "[hbm]") {
  int differ = 0;
  for (std::uint32_t i = 0; i < 65536; ++i) {
    const auto b = static_cast<std::uint16_t>(i);
    const float fp16 = static_cast<float>(std::bit_cast<Eigen::half>(b));
    const float bf16 = static_cast<float>(std::bit_cast<Eigen::bfloat16>(b));
    differ += std::bit_cast<std::uint32_t>(HbmValues::from_bits(DType::fp16, b)) != std::bit_cast<std::uint32_t>(fp16);
    differ += std::bit_cast<std::uint32_t>(HbmValues::from_bits(DType::bf16, b)) != std::bit_cast<std::uint32_t>(bf16);
  }
  CHECK(differ == 0);
  CHECK(HbmValues::from_bits(DType::fp16, 0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(HbmValues::from_bits(DType::fp16, 0x7bff) == 65504.0f);
  CHECK(HbmValues::from_bits(DType::fp16, 0xfc00) == -std::numeric_limits<float>::infinity());
}
