#include "fasim/timing.hpp"

namespace fasim {

std::string_view name(Bound b) {
  switch (b) {
    case Bound::hbm: return "HBM";
    case Bound::l2: return "L2";
    case Bound::sram: return "SRAM";
    case Bound::matmul: return "matmul";
    case Bound::fp32: return "FP32";
    case Bound::exp: return "exp";
    case Bound::latency: return "latency";
    case Bound::launch: return "launch";
  }
  return "?";
}

std::string_view name(ComputeModel m) {
  switch (m) {
    case ComputeModel::ideal: return "ideal";
    case ComputeModel::cuda_simt: return "cuda-simt";
    case ComputeModel::cuda_mma: return "cuda-mma";
  }
  return "?";
}

int warps_per_block(ComputeModel m, std::int64_t br) {
  switch (m) {
    case ComputeModel::ideal: return 0;
    case ComputeModel::cuda_simt: return 8;  // kThreads = 256
    case ComputeModel::cuda_mma: return static_cast<int>(std::max<std::int64_t>(br / 16, 1));  // Br * 2 threads
  }
  return 0;
}

Bound classify(const KernelTime& k) {
  Bound best = Bound::hbm;
  for (int i = 0; i <= static_cast<int>(Bound::exp); ++i)
    if (k.busy[i] > k.busy[static_cast<int>(best)]) best = static_cast<Bound>(i);
  if (k.utilization(best) >= 0.5) return best;
  if (k.launch_s >= 0.5 * k.seconds()) return Bound::launch;
  return Bound::latency;
}

}  // namespace fasim
