// How many thread blocks of fasim's CUDA kernels one SM holds: the teaching
// versions 1-3 (what the cuda-simt compute model runs side by side) and the
// tensor-core version 4 (cuda-mma). The GPU's own occupancy calculator gives
// the same numbers (tests/cuda/test_kernels.cpp checks them on the GPU).
#pragma once

#include <cstddef>
#include <cstdint>

#include "fasim/device_spec.hpp"
#include "fasim/mapping.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief What one block of a CUDA teaching kernel holds on its SM.
struct CudaBlockNeed {
  std::int64_t shared_bytes = 0;  ///< dynamic shared memory, as the kernel's launch asks for it
  int registers = 0;              ///< registers per thread, as ptxas reports them
  int threads = 256;              ///< threads per block (versions 1-3: 256; version 4: 2 Br)
};

/// @brief Kernel `kernel` (0, 1, 2 in the Program's order) of `m.algo` at
/// this shape: the shared memory its launch asks for (cuda/src/naive.cu,
/// flash1.cu, flash2.cu: shared_*) and its registers per thread.
CudaBlockNeed cuda_simt_block_need(const Workload& w, const Mapping& m, const DeviceSpec& dev, std::size_t kernel);

/// @brief Blocks of 256 threads one SM holds: cuda_blocks_per_sm of
/// cuda_simt_block_need.
std::int64_t cuda_simt_blocks_per_sm(const Workload& w, const Mapping& m, const DeviceSpec& dev, std::size_t kernel);

/// @brief What one block of version 4 (cuda/src/flash2_mma.cu) holds: Q_i,
/// K_j and V_j in the storage type with rows padded by 8 elements, 2 Br
/// threads, and the registers of its (Br, Bc, d) instance.
CudaBlockNeed cuda_mma_block_need(const Workload& w, const Mapping& m);

/// @brief Blocks one SM holds: the least of what its shared memory (with
/// 1 KiB the driver keeps per block), its register file (given to a warp 256
/// registers at a time) and its 64 warps allow; at least 1.
std::int64_t cuda_blocks_per_sm(const CudaBlockNeed& need, const DeviceSpec& dev);

}  // namespace fasim
