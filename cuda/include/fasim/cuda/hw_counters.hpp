// Hardware counters of the GPU, read inside the program through the CUPTI
// Range Profiler (cupti_range_profiler.h) and the Profiler Host API
// (cupti_profiler_host.h): no ncu, no change to clocks or GPU settings.
//
// One user range is measured around a launch, or around a sequence of
// launches (naive's three kernels are one range). The metrics need several
// passes (3 on Hopper), so the launch is repeated once per pass (user replay).
// Before each pass L2 is flushed (cold, the default), and in warm mode the
// launch then runs once unmeasured, so every pass sees the same start. The
// flush comes after cuptiRangeProfilerStart, which leaves dirty data of its
// own in L2 that a measured kernel would otherwise write back. A second
// range follows the kernel's in every pass: the same read-only flush, which
// drains the dirty data the kernel left in L2 to DRAM, so that
// dram_write_drained_bytes counts every byte the kernel makes DRAM write.
//
//   const fasim::cuda::HwCounters hw = fasim::cuda::profile_range([&] { dr.launch(false); });
//   hw.dram_read_bytes, hw.l2_read_bytes(), hw.l2_hit_rate(), ...
//
// libcupti is opened at run time (dlopen), so a CUDA build of fasim starts
// and runs the simulator where CUPTI is missing; only these functions fail,
// with one line that says what to put on LD_LIBRARY_PATH. CUPTI itself loads
// libnvperf_host.so and libnvperf_target.so, which sit next to libcupti.
//
// The host API needs no GPU: profiler_passes("GH100", metrics) checks metric
// names and counts passes on any machine that has libcupti.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/machine.hpp"  // fasim::L2Start

namespace fasim::cuda {

/// @brief The metrics read (Hopper names), in the order of HwCounters' fields.
inline constexpr std::array<const char*, 12> kHwMetrics = {
    "dram__bytes_read.sum",                               // DRAM (HBM) bytes read
    "dram__bytes_write.sum",                              // DRAM bytes written
    "l1tex__m_xbar2l1tex_read_sectors.sum",               // sectors the SMs received from L2
    "l1tex__m_l1tex2xbar_write_sectors.sum",              // sectors the SMs sent to L2
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",  // of the reads: hits
    "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", // of the reads: misses
    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",       // global load bytes (LSU)
    "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum",       // global store bytes (LSU)
    "gpu__time_duration.sum",                             // the range's duration (profiled: inflated)
    "lts__t_sectors_srcunit_ltcfabric_op_read.sum",       // sectors one L2 half read from the other
    "lts__t_sectors_srcunit_ltcfabric_op_write.sum",      // sectors one L2 half wrote to the other
    "lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum",   // of those, the far half lacked them (DRAM)
};

/// @brief Bytes of one L2 sector: the unit of the lts__t_sectors metrics.
inline constexpr double kL2SectorBytes = 32;

/// @brief The counters of one range. Sums over every kernel in the range.
struct HwCounters {
  /// bytes read from DRAM
  double dram_read_bytes = 0;
  /// bytes written to DRAM
  double dram_write_bytes = 0;
  /// Bytes written to DRAM by the end of a second range right after the
  /// kernel's, in which a read-only pass over 2x the L2 evicts every line:
  /// dram_write_bytes plus the dirty data the kernel left in L2. L2 writes
  /// back, so what a kernel stores reaches DRAM during it or after it; when
  /// depends on the L2's timing, this total does not.
  double dram_write_drained_bytes = 0;
  /// Read at the SMs (l1tex__m_xbar2l1tex): what crossed the crossbar from L2.
  /// Not lts__t_sectors_srcunit_tex, which is counted at the L2 slices and on
  /// the H200 gave 2.9x fewer sectors than the SMs received when many SMs read
  /// the same tiles (flash2 fp32). Both count 1.5 sectors per sector asked
  /// for when cp.async.cg copies into padded shared rows
  /// (docs/results/h200-2026-11-21-l2-read-probe.md).
  double l2_read_sectors = 0;
  /// sectors the SMs wrote to L2
  double l2_write_sectors = 0;
  /// of the SMs' L2 reads, sectors that hit
  double l2_read_hit_sectors = 0;
  /// of the SMs' L2 reads, sectors that missed
  double l2_read_miss_sectors = 0;
  double global_load_bytes = 0;     ///< LSU global loads (cp.async and TMA copies are not in it)
  /// LSU global stores
  double global_store_bytes = 0;
  double range_seconds = 0;         ///< gpu__time_duration of the profiled range; NOT a timing
  /// Sectors one L2 half asked of the other for reads: an SM's own half
  /// lacked a copy of a sector homed in the far half
  /// (docs/results/fabric-2026-11-24.md). 0 on a GPU with one L2.
  double l2_fabric_read_sectors = 0;
  /// Sectors one L2 half sent to the other for writes: stores of far-homed sectors.
  double l2_fabric_write_sectors = 0;
  /// Of the fabric sectors, those the far half did not hold either (it read DRAM).
  double l2_fabric_miss_sectors = 0;
  std::size_t passes = 0;           ///< replays the metrics needed
  L2Start l2_start = L2Start::cold; ///< how L2 started each pass
  std::string chip;                 ///< e.g. "GH100"

  /// @brief L2 read sectors in bytes.
  double l2_read_bytes() const { return l2_read_sectors * kL2SectorBytes; }
  /// @brief L2 write sectors in bytes.
  double l2_write_bytes() const { return l2_write_sectors * kL2SectorBytes; }
  /// @brief Bytes that crossed between the L2 halves, reads and writes:
  /// what fasim's `l2.fabric_bytes` predicts.
  double l2_fabric_bytes() const { return (l2_fabric_read_sectors + l2_fabric_write_sectors) * kL2SectorBytes; }
  /// @brief hit / (hit + miss) of the SMs' L2 reads; 0 if there were none.
  double l2_hit_rate() const {
    const double all = l2_read_hit_sectors + l2_read_miss_sectors;
    return all > 0 ? l2_read_hit_sectors / all : 0;
  }
};

/// @brief The median of each counter over several ranges of the same work
/// (the lower middle value for an even count); chip, passes and l2_start from
/// the first. Near the L2's size the GPU writes back and reads again a
/// different amount each run, so one range is one sample. Needs no GPU.
/// Throws std::invalid_argument on an empty list.
HwCounters median_of(const std::vector<HwCounters>& runs);

/// @brief "cold" or "warm".
std::string_view l2_start_name(L2Start s);

/// @brief Why CUPTI cannot be used here: libcupti cannot be loaded (the line
/// says where to look). nullopt if it loads. Needs no GPU.
std::optional<std::string> cupti_unavailable();

/// @brief Passes the Range Profiler needs to collect `metrics` on `chip`
/// ("GH100" for H100 and H200), from the host API alone: no GPU needed.
/// Throws CudaError with one line naming every metric the chip does not know.
std::size_t profiler_passes(std::string_view chip, const std::vector<std::string>& metrics);

/// @brief How to profile.
struct ProfileOptions {
  L2Start l2 = L2Start::cold;         ///< cold: flush L2 before each pass; warm: flush, then launch once
  std::string range_name = "fasim";   ///< the user range's name
};

/// @brief Measures kHwMetrics over one user range around `launch`, which
/// enqueues its kernel(s) on the default stream; `launch` runs once per pass
/// (and once more before each pass when warm). The flush and warm-up run
/// outside the range, after cuptiRangeProfilerStart. Throws CudaError with
/// one line if a CUDA or CUPTI call fails (the line names the call, the error
/// and, for missing privileges, the fix). The GPU must be usable (gpu_unavailable() is nullopt).
HwCounters profile_range(const std::function<void()>& launch, const ProfileOptions& options = {});

}  // namespace fasim::cuda
