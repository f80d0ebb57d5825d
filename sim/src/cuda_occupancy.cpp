#include "fasim/cuda_occupancy.hpp"

#include <algorithm>

#include "fasim/algorithms/naive.hpp"
#include "fasim/timing.hpp"

namespace fasim {

namespace {

constexpr std::int64_t kThreadsPerBlock = 256;      // cuda/src/kernels.hpp kThreads
constexpr std::int64_t kWarpsPerSm = 64;            // sm_80 and sm_90
constexpr std::int64_t kDriverSharedPerBlock = 1024;  // reserved by the driver for each block
constexpr std::int64_t kRegisterUnit = 256;         // registers are given to a warp 256 at a time

// Registers per thread, from `nvcc -O3 -arch=sm_90 -Xptxas -v` (CUDA 13.0):
// flash1 226, flash2 127 (its O tile, 64 floats a thread, lives in
// registers), naive's scores 32, softmax 40 (39 for fp16), output 113.
constexpr int kFlash1Registers = 226, kFlash2Registers = 127;
constexpr int kScoresRegisters = 32, kSoftmaxRegisters = 40, kOutputRegisters = 113;

// Version 4's registers per thread by instance, from the same command on
// cuda/src/flash2_mma.cu (fp16 and bf16 alike): its O and S fragments grow
// with Bc and d, its warps with Br.
int mma_registers(std::int64_t br, std::int64_t bc, std::int64_t d) {
  if (br >= 128) return bc >= 128 ? (d >= 128 ? 228 : 192) : (d >= 128 ? 173 : 100);
  return bc >= 128 ? (d >= 128 ? 228 : 130) : (d >= 128 ? 161 : 118);
}

}  // namespace

CudaBlockNeed cuda_simt_block_need(const Workload& w, const Mapping& m, const DeviceSpec& dev, std::size_t kernel) {
  const std::int64_t f = 4, br = m.br, bc = m.bc, d = w.d;  // tiles widened to fp32 in shared memory
  switch (m.algo) {
    case Algo::naive:
      if (kernel == 0) return {f * (br * d + bc * (d + 1)), kScoresRegisters};  // Q_i, K_j padded
      if (kernel == 1) {  // m, l and S rows, kept in the storage type
        const std::int64_t cols = naive::softmax_rows_fit(w, m, dev) ? w.n_keys() : bc;
        return {2 * f * br + w.elem_bytes() * br * cols, kSoftmaxRegisters};
      }
      return {f * (br * bc + bc * d), kOutputRegisters};  // P_ij, V_j
    case Algo::flash1:  // K_j padded, V_j, Q_i, S, m, l and two more rows
      return {f * (bc * (d + 1) + bc * d + br * d + br * bc + 4 * br), kFlash1Registers};
    default:  // flash2: Q_i, K_j padded, V_j, S, m, l, alpha
      return {f * (br * d + bc * (d + 1) + bc * d + br * bc + 3 * br), kFlash2Registers};
  }
}

CudaBlockNeed cuda_mma_block_need(const Workload& w, const Mapping& m) {
  return {(m.br + 2 * m.bc) * (w.d + 8) * w.elem_bytes(), mma_registers(m.br, m.bc, w.d),
          static_cast<int>(2 * m.br)};
}

std::int64_t cuda_simt_blocks_per_sm(const Workload& w, const Mapping& m, const DeviceSpec& dev, std::size_t kernel) {
  CudaBlockNeed need = cuda_simt_block_need(w, m, dev, kernel);
  need.threads = kThreadsPerBlock;
  return cuda_blocks_per_sm(need, dev);
}

std::int64_t cuda_blocks_per_sm(const CudaBlockNeed& need, const DeviceSpec& dev) {
  const std::int64_t warps = std::max<std::int64_t>(1, need.threads / kWarpSize);
  const std::int64_t per_warp = (need.registers * kWarpSize + kRegisterUnit - 1) / kRegisterUnit * kRegisterUnit;
  const std::int64_t by_registers = dev.register_bytes_per_sm / 4 / (per_warp * warps);
  const std::int64_t by_shared = dev.sram_bytes_per_sm / (need.shared_bytes + kDriverSharedPerBlock);
  return std::max<std::int64_t>(1, std::min({by_registers, by_shared, kWarpsPerSm / warps}));
}

}  // namespace fasim
