// The CUDA backend's host API: runs one attention forward pass on the GPU
// with the simulator's shape, tiles and inputs, and reads back O and the
// kernels' own HBM byte counters (which equal the simulator's Ledger). Plain
// or causal attention (N_kv = N, no window, no GQA, no pages).
//
//   if (auto why = fasim::cuda::gpu_unavailable()) { say *why; stop; }
//   const auto in = fasim::cuda::random_inputs(w, seed);   // as the simulator's
//   const auto r = fasim::cuda::run(w, m, in, {.version = default_version(w, m),
//                                              .rows_fit = naive::softmax_rows_fit(w, m, dev)});
//   r.o, r.hbm[index(TensorId::K)].read_bytes, ...
//
// DeviceRun keeps the buffers for repeated launches (timing, profiler ranges).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/ledger.hpp"
#include "fasim/mapping.hpp"
#include "fasim/tensor.hpp"
#include "fasim/workload.hpp"

namespace fasim::cuda {

/// @brief The kernel versions; cuda/src/kernels.hpp says what each changes.
enum class KernelVersion : int {
  naive = 1,       ///< three kernels, S and P through HBM, fp32 arithmetic
  flash2 = 2,      ///< FlashAttention-2, fp32 arithmetic, any tiles
  flash1 = 3,      ///< FlashAttention (paper Algorithm 1), fp32 arithmetic
  flash2_mma = 4,  ///< FlashAttention-2 on tensor cores: fp16/bf16, Br, Bc, d in {64, 128}
  naive_cublas = 5,  ///< standard attention by cuBLAS GEMMs and a softmax kernel (PyTorch eager's way)
  flash2_fast = 6,   ///< version 4 tuned: 32 query rows per warp, two blocks per SM (the one to time)
  flash2_hopper = 7,  ///< Hopper only: TMA copies, wgmma, warp specialisation (sm_90a)
};

/// @brief Every version, in order.
inline constexpr KernelVersion kAllVersions[] = {KernelVersion::naive, KernelVersion::flash2, KernelVersion::flash1,
                                                 KernelVersion::flash2_mma, KernelVersion::naive_cublas,
                                                 KernelVersion::flash2_fast, KernelVersion::flash2_hopper};

/// @brief "naive", "flash2-fp32", "flash1-fp32", "flash2-mma", "naive-cublas", "flash2-fast" or
/// "flash2-hopper".
std::string_view name(KernelVersion v);
/// @brief The version named `text`: its number ("5"), its name ("naive-cublas")
/// or "cublas"; nullopt if none.
std::optional<KernelVersion> parse_version(std::string_view text);
/// @brief False for version 5: cuBLAS moves bytes the kernel cannot count, so
/// its RunResult::hbm is the closed form naive_cublas_hbm(), not a count.
bool counts_own_bytes(KernelVersion v);
/// @brief The algorithm (tile program of sim/) a version runs.
Algo algo_of(KernelVersion v);
/// @brief The version for a mapping's algorithm: flash2 runs on tensor cores
/// when the dtype and tiles allow it, else in fp32.
KernelVersion default_version(const Workload& w, const Mapping& m);

/// @brief A CUDA call failed (a bug or a broken device, not bad input).
class CudaError : public std::runtime_error {
 public:
  /// @brief `message` names the call that failed and its CUDA error.
  explicit CudaError(const std::string& message) : std::runtime_error(message) {}
};

/// @brief HBM bytes per tensor (index with fasim::index(TensorId)).
using ByteCounts = std::array<Traffic, kTensorCount>;

/// @brief Why the kernels cannot compute this workload's variant (they run
/// plain or causal attention with N_kv = N, K/V heads = heads, no window, no
/// pages), as one line naming the flags to drop; nullopt if they can. Needs no GPU.
std::optional<std::string> unsupported_variant(const Workload& w);

/// @brief HBM bytes of version 5 in closed form, each tensor once per step
/// (e = element bytes, bh = batch * heads): GEMM 1 reads Q and K (bh N d e
/// each) and writes S (bh N^2 e); the softmax reads S and writes P (bh N^2 e
/// each); GEMM 2 reads P and V and writes O. The least the three steps can
/// move; cuBLAS's real traffic is not counted (causal or not: S is computed in full).
ByteCounts naive_cublas_hbm(const Workload& w);

/// @brief Why no GPU can run the kernels: no CUDA device, a driver or runtime
/// error, or no kernel image for the GPU's architecture, as one line that ends
/// in the fix (install the driver, run on a GPU, rebuild). nullopt if one can.
std::optional<std::string> gpu_unavailable();
/// @brief The GPU used (device 0), e.g. "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs,
/// 227 KiB shared memory per block)". Needs !gpu_unavailable().
std::string gpu_description();

/// @brief Why version v cannot run this shape and tiling (tiles or dtype it has
/// no instance for, more shared memory than the GPU gives a block), as one line
/// that names the fix; nullopt if it can. The shared-memory check needs a GPU
/// and is skipped without one.
std::optional<std::string> unsupported(KernelVersion v, const Workload& w, const Mapping& m,
                                       bool rows_fit);

/// @brief Q, K, V of all heads, row-major (bh, N, d), rounded to the dtype.
struct Inputs {
  /** @var k
   *  K, (batch * kv_heads, N_kv, d). */
  /** @var v
   *  V, same shape as K. */
  /// Q, (bh, N, d).
  std::vector<float> q, k, v;
};
/// @brief The simulator's random inputs for `seed`: std::mt19937_64(seed),
/// N(0, 1) floats, Q then K then V, each rounded to the dtype.
Inputs random_inputs(const Workload& w, std::uint64_t seed);

/// @brief The pad between two placements of the buffers (RunOptions::pad_bytes,
/// MeasureOptions::placements): 2 MiB, the GPU's large page.
inline constexpr std::size_t kPlacementStep = std::size_t{2} << 20;

/// @brief How to run.
struct RunOptions {
  /// which kernel version runs
  KernelVersion version = KernelVersion::flash2;
  /// naive only: the softmax keeps a block's Br full rows of S in shared memory
  /// (one pass). Pass fasim::naive::softmax_rows_fit(w, m, simulated device).
  bool rows_fit = true;
  bool count = true;  ///< tally the kernels' own byte counters
  /// bytes allocated (and left unused) before the tensors, so that they land
  /// on other physical pages: the L2 places lines by physical address, and
  /// near its size that moves DRAM bytes (docs/results/h200-2026-11-23-flash1-placement.md)
  std::size_t pad_bytes = 0;
};

/// @brief What a run gives back.
struct RunResult {
  std::vector<float> o;    ///< (bh, N, d) as stored, widened to float
  std::vector<float> lse;  ///< flash2 versions: L = m + log l, (bh, N); else empty
  ByteCounts hbm{};        ///< the kernels' own counters (zeros unless counting); version 5: the closed form
  bool hbm_counted = true;  ///< false: hbm is naive_cublas_hbm(), not counted (version 5)
  /// blocks one SM held of each kernel of the last counting launch, in launch
  /// order (the CUDA occupancy calculator, for the launch's threads and shared
  /// memory, after Mapping::blocks_per_sm's padding); empty for cuBLAS's GEMMs
  std::vector<int> blocks_per_sm;
};

/// @brief The GPU buffers of one workload: upload once, launch many times.
class DeviceRun {
 public:
  /// @brief Allocates Q, K, V, O and the version's other tensors. Throws
  /// UserError if unsupported(...) says why not, CudaError if CUDA fails.
  DeviceRun(const Workload& w, const Mapping& m, const RunOptions& options);
  ~DeviceRun();
  DeviceRun(const DeviceRun&) = delete;
  DeviceRun& operator=(const DeviceRun&) = delete;

  /// @brief Copies Q, K, V (rounded to the dtype) to the GPU, poisons every
  /// output and intermediate with NaN, and zeroes the counters.
  void upload(const Inputs& in);
  /// @brief Enqueues the version's kernel(s) on the default stream; with
  /// count, they add to the counters (zeroed by upload and reset_counters).
  void launch(bool count);
  /// @brief Zeroes the byte counters.
  void reset_counters();
  /// @brief Waits for the GPU and checks for asynchronous errors.
  void synchronize();
  /// @brief Synchronizes, then copies O, L and the counters back.
  RunResult read();

 private:
  struct Buffers;
  std::unique_ptr<Buffers> b_;
};

/// @brief One pass: allocate, upload, poison, launch (counting if asked), read.
RunResult run(const Workload& w, const Mapping& m, const Inputs& in, const RunOptions& options);

}  // namespace fasim::cuda
