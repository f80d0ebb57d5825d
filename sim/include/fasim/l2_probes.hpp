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
//  further on, so each line is read from SMs all over the GPU;
//  C5, C6 (h200-2026-11-22-shared-read-probe.cu): as C1, C2, but block b
//  reads all of slice b mod 8 of the R MiB, so every line is read by a
//  hundred and more blocks each pass, as flash2's blocks read K and V.
// The reuse probe (reuse-probe-2026-11-24.cu): A (16 MiB) read (U1, U2) or
// written (U3, U4), in U2 and U4 read once more, then B MiB of other data
// read, then A read again, every chunk by the same block each time.
// The readers probe (readers-probe-2026-11-29.cu): F MiB read again and
// again, one block an SM, either each block its own contiguous F / blocks
// (L16: 16 blocks where flash1's go; A132: every SM) or 4 KiB chunks dealt
// in turn (I132: chunk c to block c mod 132, as the churn probe deals them).
// Its replay puts each block on the SM the GPU used. The read-modify-write
// probe (rmw-probe-2026-11-30.cu) is the same with writes: R, M, H or W then
// the blocks (R132, M16, H132, ...), read by the same reader.
// The replay deals blocks to SMs and SMs to L2 halves as fasim does (block
// b on SM b mod SMs, half s mod 2), or as a GPU was measured to
// (h200-2026-11-22-sm-partition-probe.cu; read_sm_layout).
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
  bool shared = false;        ///< C5, C6: each line read by many blocks a pass
  std::vector<ProbeBytes> gpu;  ///< the GPU's kernels, in order
};

/// @brief One recorded sequence of the reuse probe.
struct ReuseSequence {
  std::string name;         ///< "U3 B=32"
  bool written = false;     ///< A written first (U3, U4), else read (U1, U2)
  bool twice = false;       ///< A read once more before B (U2, U4)
  std::int64_t b_mib = 0;   ///< MiB of B read between
  double last_read = 0;     ///< the GPU's DRAM MiB read by the last read of A
  double written_mib = 0;   ///< the GPU's DRAM MiB written while B and then A are read
};

/// @brief One recorded sequence of the readers probe.
struct ReadersSequence {
  std::string name;                       ///< "A132 F=44"
  bool dealt = false;                     ///< I132: chunks dealt in turn, else own contiguous rows
  std::int64_t f_mib = 0;                 ///< MiB read a pass
  std::vector<std::int64_t> sm_of_block;  ///< the SM each block ran on
  std::vector<ProbeBytes> gpu;            ///< the GPU's passes, in order
  /// what a block does to each chunk (rmw-probe-2026-11-30.cu): R reads it;
  /// M reads it and writes it back; H reads even chunks and does M to odd
  /// ones (a block's own count); W writes it, unread
  char mode = 'R';
};

/// @brief Where a GPU ran the probes' thread blocks, as measured.
struct SmLayout {
  std::vector<std::int64_t> half_of_sm;    ///< L2 half next to SM s (0: the reference SM's)
  std::vector<std::int64_t> sm_of_block;   ///< SM of block b of a grid of 8 blocks per SM
};

/// @brief Reads a churn-probe CSV (probe,sequence,x_mib,r_mib,kernel,
/// dram_read_bytes,dram_write_bytes). Throws UserError naming the file and
/// line of anything else.
std::vector<ProbeSequence> read_churn_probes(const std::string& path);

/// @brief Reads a reuse-probe CSV (sequence,b_mib,rep,kernel,dram_read_bytes,
/// dram_write_bytes; reuse-table-2026-11-24.py --long writes it), the first
/// rep of each sequence. Throws UserError naming the file and line of
/// anything else.
std::vector<ReuseSequence> read_reuse_probes(const std::string& path);

/// @brief The same sequence through fasim's L2 model of `device`: `read` is
/// the DRAM MiB of the last read of A, `written` the DRAM MiB written while
/// B and then A are read.
ProbeBytes replay_reuse_probe(const ReuseSequence& s, const DeviceSpec& device);

/// @brief Reads a readers-probe CSV (sequence,f_mib,pass,dram_read_bytes,
/// dram_write_bytes,sms; readers-table-2026-11-29.py --long writes it).
/// Throws UserError naming the file and line of anything else.
std::vector<ReadersSequence> read_readers_probe(const std::string& path);

/// @brief Throws UserError, one line naming the sequence `name` and the
/// device, unless `layout` was measured on a GPU of `device`'s SMs and two
/// L2 halves and every SM in `sm_of_block` is one of them.
void check_probe_layout(const DeviceSpec& device, const SmLayout& layout, const std::vector<std::int64_t>& sm_of_block,
                        const std::string& name);

/// @brief The same passes through fasim's L2 model of `device`, each block
/// on the SM it ran on, each SM next to the half `layout` says.
std::vector<ProbeBytes> replay_readers_probe(const ReadersSequence& s, const DeviceSpec& device,
                                             const SmLayout& layout);

/// @brief Reads the output of the SM-partition probe: the half of every SM
/// (its last "SM rep=" line) and the SMs of the largest "BLOCKS" grid.
/// Throws UserError naming the file and what is missing or unclear.
SmLayout read_sm_layout(const std::string& path);

/// @brief The same kernels through fasim's L2 model of `device`, with the
/// given share for early write-back (kL2CleanShare is fasim's); blocks on
/// SMs and SMs on halves as `layout` says, else as fasim deals them.
std::vector<ProbeBytes> replay_churn_probe(const ProbeSequence& s, const DeviceSpec& device,
                                           double clean_share, const SmLayout* layout = nullptr);

}  // namespace fasim
