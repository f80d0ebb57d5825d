// Ledger: running totals of what the Steps moved and computed.
// HBM traffic per tensor and direction (and per kernel), FLOPs by kind, peak on-chip use.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "fasim/step.hpp"
#include "fasim/tensor.hpp"

namespace fasim {

/// @brief Bytes read and written for one tensor (or in total).
struct Traffic {
  std::int64_t read_bytes = 0;  ///< bytes read from HBM
  std::int64_t write_bytes = 0;  ///< bytes written to HBM
  /// @brief Bytes read plus bytes written.
  std::int64_t total() const { return read_bytes + write_bytes; }
  /// @brief Equal when both counts are.
  bool operator==(const Traffic&) const = default;
};

/// @brief FLOPs: matmul (2 per multiply-add) and everything else.
struct Flops {
  std::int64_t matmul = 0;  ///< matmul FLOPs: 2 per multiply-add
  std::int64_t other = 0;  ///< includes exp
  std::int64_t exp = 0;    ///< exponentials and logarithms (part of other)
  /// @brief Every FLOP: matmul + other.
  std::int64_t total() const { return matmul + other; }
};

/// @brief What reached L2 and DRAM for one tensor (or in total).
struct CacheTraffic {
  std::int64_t l2_read_bytes = 0;    ///< sector-rounded reads asked of L2
  std::int64_t l2_write_bytes = 0;   ///< sector-rounded writes into L2
  std::int64_t l2_hit_bytes = 0;     ///< reads served by L2
  std::int64_t dram_read_bytes = 0;  ///< reads that missed: DRAM reads
  std::int64_t dram_write_bytes = 0; ///< dirty bytes evicted to DRAM (charged to the evicting step's tensor)
  std::int64_t l2_fabric_bytes = 0;  ///< bytes that crossed between the L2 partitions

  /// @brief The L2 and DRAM bytes of one step.
  static CacheTraffic of(const Step& s) {
    return {s.l2_read_bytes, s.l2_write_bytes, s.l2_hit_bytes, s.dram_read_bytes, s.dram_write_bytes, s.l2_fabric_bytes};
  }
  /// @brief Adds every count of `o`.
  CacheTraffic& operator+=(const CacheTraffic& o) {
    l2_read_bytes += o.l2_read_bytes;
    l2_write_bytes += o.l2_write_bytes;
    l2_hit_bytes += o.l2_hit_bytes;
    dram_read_bytes += o.dram_read_bytes;
    dram_write_bytes += o.dram_write_bytes;
    l2_fabric_bytes += o.l2_fabric_bytes;
    return *this;
  }
  /// @brief Equal when every count is.
  bool operator==(const CacheTraffic&) const = default;
};

/// @brief What one kernel of the program moved: its steps' HBM, L2 and DRAM
/// bytes (its last step, a writeback, has the L2 model's write-backs that
/// no other step counted).
struct KernelTraffic {
  Traffic hbm;         ///< bytes between HBM and SRAM (requests)
  CacheTraffic cache;  ///< what reached L2 and DRAM
};

/// @brief Sum of all Steps recorded so far.
class Ledger {
 public:
  /// @brief Adds one Step's bytes and FLOPs; raises the peaks.
  void record(const Step& s) {
    Traffic& t = hbm_[index(s.tensor)];
    t.read_bytes += s.hbm_read_bytes;
    t.write_bytes += s.hbm_write_bytes;
    const CacheTraffic c = CacheTraffic::of(s);
    cache_[index(s.tensor)] += c;
    KernelTraffic& k = kernel(s.kernel);
    k.hbm.read_bytes += s.hbm_read_bytes;
    k.hbm.write_bytes += s.hbm_write_bytes;
    k.cache += c;
    flops_.matmul += s.flops_matmul;
    flops_.other += s.flops_other;
    flops_.exp += s.exps;
    peak_sram_ = std::max(peak_sram_, s.sram_bytes);
    peak_registers_ = std::max(peak_registers_, s.register_bytes);
    ++steps_;
  }

  /// @brief HBM traffic of one tensor.
  const Traffic& hbm(TensorId t) const { return hbm_[index(t)]; }
  /// @brief HBM traffic of all tensors together.
  Traffic hbm_total() const {
    Traffic sum;
    for (const Traffic& t : hbm_) {
      sum.read_bytes += t.read_bytes;
      sum.write_bytes += t.write_bytes;
    }
    return sum;
  }
  /// @brief L2 and DRAM traffic of one tensor's steps.
  const CacheTraffic& cache(TensorId t) const { return cache_[index(t)]; }
  /// @brief L2 and DRAM traffic of all steps.
  CacheTraffic cache_total() const {
    CacheTraffic sum;
    for (const CacheTraffic& c : cache_) sum += c;
    return sum;
  }
  /// @brief Traffic of each kernel so far, by its index in the program (a
  /// kernel that has not run yet has no entry). They sum to the totals.
  const std::vector<KernelTraffic>& kernels() const { return kernels_; }
  /// @brief FLOPs of every step so far.
  const Flops& flops() const { return flops_; }
  /// @brief Most shared memory any block held at once.
  std::int64_t peak_sram_bytes() const { return peak_sram_; }
  /// @brief Most register-tile bytes any block held at once.
  std::int64_t peak_register_bytes() const { return peak_registers_; }
  /// @brief Steps recorded.
  std::int64_t steps() const { return steps_; }

 private:
  KernelTraffic& kernel(std::int32_t k) {
    if (static_cast<std::size_t>(k) >= kernels_.size()) kernels_.resize(static_cast<std::size_t>(k) + 1);
    return kernels_[static_cast<std::size_t>(k)];
  }

  std::array<Traffic, kTensorCount> hbm_{};
  std::array<CacheTraffic, kTensorCount> cache_{};
  std::vector<KernelTraffic> kernels_;
  Flops flops_{};
  std::int64_t peak_sram_ = 0;
  std::int64_t peak_registers_ = 0;
  std::int64_t steps_ = 0;
};

}  // namespace fasim
