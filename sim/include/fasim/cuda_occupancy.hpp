// How many thread blocks of fasim's CUDA teaching kernels (cuda/, versions
// 1-3) one SM holds: what the cuda-simt compute model runs side by side.
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
};

/// @brief Kernel `kernel` (0, 1, 2 in the Program's order) of `m.algo` at
/// this shape: the shared memory its launch asks for (cuda/src/naive.cu,
/// flash1.cu, flash2.cu: shared_*) and its registers per thread.
CudaBlockNeed cuda_simt_block_need(const Workload& w, const Mapping& m, const DeviceSpec& dev, std::size_t kernel);

/// @brief Blocks of 256 threads one SM holds: the least of what its shared
/// memory (with 1 KiB the driver keeps per block), its register file and its
/// 64 warps allow; at least 1.
std::int64_t cuda_simt_blocks_per_sm(const Workload& w, const Mapping& m, const DeviceSpec& dev, std::size_t kernel);

}  // namespace fasim
