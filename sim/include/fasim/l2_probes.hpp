// L2 churn probes (docs/results/h200-2026-11-22-churn-probe.cu): simple
// kernel sequences recorded on GPUs, and the same accesses played through
// fasim's L2 model, so the model can be checked against them.
//
// The probe kernels touch every 16-byte word of a buffer once, grid-stride,
// 8 blocks of 256 threads per SM: each block touches 4 KiB in a row per
// step, and block b runs on SM b mod (SMs). The replay makes each 4 KiB chunk
// one tile, read or written by its block's SM, and starts from an empty L2
// (the GPU's starts full of clean scratch lines: the same to an LRU).
//  C1: write X MiB, then read R other MiB 12 times;
//  C2: read R MiB 4 times;
//  C3, C4: as C1, C2, but read pass p deals the chunks to the blocks 37 p
//  further on, so each line is read from SMs all over the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"

namespace fasim {

/// @brief DRAM bytes of one probe kernel, MiB.
struct ProbeBytes {
  double read = 0;     ///< MiB read from DRAM
  double written = 0;  ///< MiB written to DRAM
};

/// @brief One recorded probe sequence.
struct ProbeSequence {
  std::string name;           ///< "C1 X=8 R=16", "C2 R=40"
  std::int64_t x_mib = 0;     ///< MiB written first (C1, C3), else 0
  std::int64_t r_mib = 0;     ///< MiB read in each pass
  bool shifted = false;       ///< C3, C4: each pass read from other SMs
  std::vector<ProbeBytes> gpu;  ///< the GPU's kernels, in order
};

/// @brief Reads a churn-probe CSV (probe,sequence,x_mib,r_mib,kernel,
/// dram_read_bytes,dram_write_bytes). Throws UserError naming the file and
/// line of anything else.
std::vector<ProbeSequence> read_churn_probes(const std::string& path);

/// @brief The same kernels through fasim's L2 model of `device`, with the
/// given share for early write-back (kL2CleanShare is fasim's).
std::vector<ProbeBytes> replay_churn_probe(const ProbeSequence& s, const DeviceSpec& device,
                                           double clean_share);

}  // namespace fasim
