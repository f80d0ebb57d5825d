// Occupancy on the GPU: how many blocks of a kernel one SM holds at once, and
// how `--blocks-per-sm K` holds a kernel to at most K. The simulator caps its
// own count (Simulation::blocks_per_sm); here the launch asks for more dynamic
// shared memory than the kernel uses, so that K + 1 blocks no longer fit in
// an SM's shared memory. The extra bytes are never touched: the same loads,
// stores and arithmetic run, only fewer blocks at a time.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "kernels.hpp"

namespace fasim::cuda::kernels {

/// The dynamic shared memory a launch asks for: `smem`, or, with cap > 0,
/// at least enough that cap + 1 blocks (each with the driver's reserve) do
/// not fit in one SM: smem + reserve > SM bytes / (cap + 1). It runs before
/// every timed launch, so the device's figures are read once (the runner
/// uses device 0 only).
inline std::size_t shared_for_cap(std::size_t smem, int cap) {
  if (cap <= 0) return smem;
  struct Figures {
    int per_sm = 0, reserved = 0;
    bool ok = false;
  };
  static const Figures f = [] {
    Figures x;
    int device = 0;
    x.ok = cudaGetDevice(&device) == cudaSuccess &&
           cudaDeviceGetAttribute(&x.per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) == cudaSuccess &&
           cudaDeviceGetAttribute(&x.reserved, cudaDevAttrReservedSharedMemoryPerBlock, device) == cudaSuccess;
    return x;
  }();
  if (!f.ok) return smem;  // the launch that follows reports the error
  const int per_sm = f.per_sm, reserved = f.reserved;
  const std::size_t share = static_cast<std::size_t>(per_sm) / static_cast<std::size_t>(cap + 1);
  const std::size_t least = share + 1 > static_cast<std::size_t>(reserved) ? share + 1 - reserved : 0;
  return smem > least ? smem : least;
}

/// Adds the blocks per SM `kernel` gets with `threads` threads and `smem`
/// bytes of dynamic shared memory to `log` (launch order; the first
/// Occupancy::kMaxKernels kernels).
template <class Kernel>
cudaError_t log_occupancy(Kernel kernel, int threads, std::size_t smem, Occupancy* log) {
  if (log == nullptr || log->kernels >= Occupancy::kMaxKernels) return cudaSuccess;
  int blocks = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem);
  if (e == cudaSuccess) log->blocks_per_sm[log->kernels++] = blocks;
  return e;
}

}  // namespace fasim::cuda::kernels
