// HBM: the tensors that live in device memory, with their values.
// In counting-only mode the tensors have shapes but no values.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "fasim/dtype.hpp"
#include "fasim/tensor.hpp"

namespace fasim {

/// @brief The values of an HBM tensor, held as its storage type: fp32 as
/// float, fp16 and bf16 as their 16-bit patterns, so a tensor takes the
/// memory it would on the GPU (half of float for 16-bit types). Reading gives
/// float, writing rounds to the storage type: a value read back is
/// round_to(dtype, value written).
class HbmValues {
 public:
  HbmValues() = default;
  /// @brief Holds `v` as float (fp32 storage), as given. Implicit, as the
  /// vector of floats the values used to be (tests build tensors from one).
  HbmValues(std::vector<float> v) : f32_(std::move(v)) {}
  /// @brief n zeros held as `t`.
  HbmValues(DType t, std::size_t n) : dtype_(t) {
    if (t == DType::fp32) f32_.assign(n, 0.0f);
    else b16_.assign(n, to_bits(t, 0.0f));
  }

  /// @brief Elements held (0 when counting only).
  std::size_t size() const { return dtype_ == DType::fp32 ? f32_.size() : b16_.size(); }
  /// @brief True when no values are held.
  bool empty() const { return size() == 0; }
  /// @brief The storage type.
  DType dtype() const { return dtype_; }
  /// @brief Bytes the values take in memory.
  std::size_t bytes() const { return f32_.size() * 4 + b16_.size() * 2; }

  /// @brief Element i, as float.
  float operator[](std::size_t i) const { return dtype_ == DType::fp32 ? f32_[i] : from_bits(dtype_, b16_[i]); }
  /// @brief Sets element i to v rounded to the storage type.
  void set(std::size_t i, float v) {
    if (dtype_ == DType::fp32) f32_[i] = v;
    else b16_[i] = to_bits(dtype_, v);
  }
  /// @brief Copies elements [first, first + n) to out, as float.
  void read(std::size_t first, std::size_t n, float* out) const {
    if (dtype_ == DType::fp32) {
      std::copy_n(f32_.data() + first, n, out);
      return;
    }
    const std::uint16_t* in = b16_.data() + first;
    if (dtype_ == DType::fp16) {  // one loop per type, without branches: they vectorise
      for (std::size_t k = 0; k < n; ++k) out[k] = fp16_to_float(in[k]);
    } else {
      for (std::size_t k = 0; k < n; ++k) out[k] = bf16_to_float(in[k]);
    }
  }
  /// @brief Sets elements [first, first + n) to in (rounded to the storage type).
  void write(std::size_t first, std::size_t n, const float* in) {
    for (std::size_t k = 0; k < n; ++k) set(first + k, in[k]);
  }

  /// @brief Reads the elements in order, as float.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;  ///< read once, in order
    using value_type = float;                           ///< elements read as float
    using difference_type = std::ptrdiff_t;             ///< distance between positions
    using pointer = void;                               ///< no addressable element
    using reference = float;                            ///< elements are returned by value
    /// @brief Position i of v.
    const_iterator(const HbmValues* v, std::size_t i) : v_(v), i_(i) {}
    /// @brief The element here, as float.
    float operator*() const { return (*v_)[i_]; }
    /// @brief Next element.
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    /// @brief Next element; returns this one.
    const_iterator operator++(int) { return {v_, i_++}; }
    /// @brief Same position.
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const HbmValues* v_;
    std::size_t i_;
  };
  /// @brief The first element.
  const_iterator begin() const { return {this, 0}; }
  /// @brief Past the last element.
  const_iterator end() const { return {this, size()}; }

  /// @brief All elements as float.
  operator std::vector<float>() const { return {begin(), end()}; }
  /// @brief Equal when they hold as many elements and each reads the same (as float: NaN is never equal).
  friend bool operator==(const HbmValues& a, const HbmValues& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }
  /// @brief As above, against floats.
  friend bool operator==(const std::vector<float>& a, const HbmValues& b) { return HbmValues(a) == b; }

  /// @brief The float an fp16 or bf16 bit pattern stands for, as Eigen::half
  /// and Eigen::bfloat16 convert it (every such value is a float; NaN keeps
  /// its payload); tests/test_hbm.cpp checks all 65536 patterns of each.
  static float from_bits(DType t, std::uint16_t b) { return t == DType::fp16 ? fp16_to_float(b) : bf16_to_float(b); }

 private:
  static std::uint16_t to_bits(DType t, float v) {
    return t == DType::fp16 ? std::bit_cast<std::uint16_t>(Eigen::half(v))
                            : std::bit_cast<std::uint16_t>(Eigen::bfloat16(v));
  }
  // Eigen's conversion without its branches (2 to 4 times faster here, and
  // reads of K and V tiles and the reference's reads convert every element):
  // the exponent and mantissa shifted into place, times 2^112 to move the
  // bias from 15 to 127 (subnormals come out normal, exactly); Inf and NaN
  // set the exponent to all ones instead.
  static float fp16_to_float(std::uint16_t h) {
    const std::uint32_t em = h & 0x7fffu;
    const std::uint32_t finite = std::bit_cast<std::uint32_t>(std::bit_cast<float>(em << 13) * 0x1p112f);
    const std::uint32_t special = (em << 13) | 0x7f800000u;
    const std::uint32_t is_special = 0u - static_cast<std::uint32_t>(em >= 0x7c00u);  // all ones or zero
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    return std::bit_cast<float>((special & is_special) | (finite & ~is_special) | sign);
  }
  static float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

  DType dtype_ = DType::fp32;
  std::vector<float> f32_;          // fp32 storage
  std::vector<std::uint16_t> b16_;  // fp16 or bf16 storage
};

/// @brief One tensor in HBM: bh independent (rows, cols) row-major matrices
/// stored as `dtype` (see HbmValues: a 16-bit type takes 2 bytes an element).
struct HbmTensor {
  std::int64_t bh = 0;  ///< independent matrices: batch * heads (or pages)
  std::int64_t rows = 0;  ///< rows of each matrix
  std::int64_t cols = 0;  ///< columns of each matrix
  DType dtype = DType::fp32;  ///< storage type; it sets the bytes each element moves
  HbmValues values;  ///< empty when counting only

  /// @brief Offset of element (h, r, c) in values.
  std::int64_t offset(std::int64_t h, std::int64_t r, std::int64_t c) const {
    return (h * rows + r) * cols + c;
  }
  /// @brief Bytes of one element as stored.
  std::int64_t elem_bytes() const { return bytes_of(dtype); }
  /// @brief True if values are held (execute mode).
  bool has_values() const { return !values.empty(); }
};

/// @brief All tensors in HBM, indexed by TensorId; absent ones are unused.
struct Hbm {
  std::array<std::optional<HbmTensor>, kTensorCount> tensors;  ///< by index(TensorId); absent if the algorithm does not use it
  /// Paged K/V: physical page of each (sequence, logical page); empty when
  /// K and V are contiguous (see paged_kv.hpp).
  std::vector<std::int64_t> block_table;

  /// @brief The tensor `t`; it must have been declared.
  HbmTensor& at(TensorId t) { return *tensors[index(t)]; }
  /// @brief The tensor `t`; it must have been declared.
  const HbmTensor& at(TensorId t) const { return *tensors[index(t)]; }
  /// @brief True if tensor `t` was declared.
  bool has(TensorId t) const { return tensors[index(t)].has_value(); }

  /// @brief Declares a tensor; allocates (zeroed) values if with_values.
  HbmTensor& add(TensorId t, std::int64_t bh, std::int64_t rows, std::int64_t cols,
                 DType dtype, bool with_values);
};

}  // namespace fasim
