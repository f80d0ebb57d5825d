// Fidelity: how close the simulator's predictions come to recorded GPU runs.
// A recorded run is a long-form CSV (one row per number) written by
// `fasim compare --sweep` on a GPU machine and committed under docs/results/.
// Here it is read back, every point is predicted again with the current
// simulator, and each metric's error is checked against its bar. This needs
// no GPU, so CI sees a model change that makes the fit worse.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/machine.hpp"
#include "fasim/mapping.hpp"
#include "fasim/simulation.hpp"
#include "fasim/workload.hpp"

namespace fasim {

/// @brief The quantities a comparison reports, in print and CSV order.
enum class Metric : std::uint8_t {
  hbm_read_bytes,    ///< HBM read requests (the kernel's own counters: exact)
  hbm_write_bytes,   ///< HBM write requests (exact)
  l2_read_bytes,     ///< sectors the SMs read from L2, in bytes
  l2_write_bytes,    ///< sectors the SMs wrote to L2, in bytes
  dram_read_bytes,   ///< bytes read from DRAM
  dram_write_bytes,  ///< bytes written to DRAM while the kernel runs
  /// bytes written to DRAM by the time a read-only pass has drained L2 after
  /// the kernel: dram_write_bytes plus the dirty data the kernel left behind
  dram_write_drained_bytes,
  time_s,            ///< seconds
};
/// @brief How many Metric values there are.
inline constexpr std::size_t kMetricCount = 8;
/// @brief The CSV name of m ("dram_read_bytes").
const char* name(Metric m);
/// @brief The metric with CSV name s, if any.
std::optional<Metric> parse_metric(const std::string& s);

/// @brief One number per Metric.
using MetricValues = std::array<double, kMetricCount>;

/// @brief The GPU writes to DRAM on its own in pieces of this size: every
/// count of an idle counter range was a whole number of them (H200 and H100,
/// docs/results/h200-2026-11-22-background-writes.md).
inline constexpr double kBackgroundPieceBytes = 256.0 * 1024;

/// @brief DRAM bytes the GPU writes on its own while the kernel runs, as the
/// median of counter ranges sees them: the device's background rate x the
/// predicted time, in whole pieces (the nearest count). On an H200 that is
/// 256 KiB about every 14 ms with no kernel touching memory. The kernel does
/// not cause them, so the ledger leaves them out.
double background_write_bytes(const Simulation& sim);

/// @brief DRAM bytes a cold run reads that are not data: the kernels' own
/// instructions. The first launch of a kernel after the L2 flush fetches its
/// code through L2 from DRAM, once (code-fetch-2026-11-29.md: four kernels
/// that move the same 64 KiB and run 0.4 to 385 KiB of code read that much
/// more, to within 2%). The bytes per kernel family are the device's
/// DeviceSpec::code_fetch: by default what the recorded cold runs that fit in
/// L2 read beyond their data, the median by family (less than the kernels'
/// .text: only the code a shape runs is fetched); `fasim gpu calibrate`
/// measures them for the build at hand. Zero with a warm L2 (the warm-up
/// launch left the code there) and for the ideal compute model, which runs
/// no CUDA kernel.
double code_fetch_bytes(const Simulation& sim);

/// @brief The GPU's background DRAM writes over the predicted time as an
/// expected value: the rate x the time, fractions of a piece kept. The
/// drained writes take this one. Their count is megabytes, so a piece moves it
/// a little, and whether the median range holds one more piece is close to a
/// coin flip when the time is near half the pace; the expected value is less
/// than one piece from either outcome (sweep-2026-11-30.md).
double background_write_expected_bytes(const Simulation& sim);

/// @brief The predicted value of every metric of a finished simulation, as the
/// GPU's counters would see it: DRAM reads are the kernels' misses plus
/// code_fetch_bytes(sim), DRAM writes their write-backs plus
/// background_write_bytes(sim), and the drained writes the write-backs plus
/// the dirty bytes still in L2 at the end plus
/// background_write_expected_bytes(sim).
MetricValues predicted_metrics(const Simulation& sim);

/// @brief The compute model of the CUDA kernel `fasim gpu run` picks for this
/// shape: the tensor-core version 4 for flash2 in fp16/bf16 with Br, Bc and d
/// each 64 or 128 (as cuda/src/flash2_mma.cu's flash2_mma_supports), else a
/// teaching version (1-3).
ComputeModel cuda_compute_model(const Workload& w, const Mapping& m);

/// @brief The bar a metric's error must stay within, in percent (0: exact).
double bar_pct(Metric m);

/// @brief Error of a prediction in percent: (predicted - measured) / measured.
/// Both zero is 0; measured zero and predicted not is +infinity.
double error_pct(double predicted, double measured);

/// @brief One point of a recorded run: its settings and, per metric, what was
/// predicted then and measured (unset: not recorded, e.g. no counters).
struct RecordedPoint {
  /** @var device
   *  The GPU, as the recorded run names it. */
  /** @var driver
   *  Its driver version. */
  std::string device, driver, date;  ///< the GPU, its driver, the day
  Workload workload;                 ///< the shape
  Mapping mapping;                   ///< algorithm and tiles
  L2Start l2 = L2Start::cold;        ///< L2 at the start of each measured range
  std::array<std::optional<double>, kMetricCount> predicted{};  ///< as recorded
  std::array<std::optional<double>, kMetricCount> measured{};   ///< on the GPU (counters: the median range)
  /// least over the counter ranges or timed runs (unset: one range, or an older CSV)
  std::array<std::optional<double>, kMetricCount> measured_min{};
  /// most over the counter ranges or timed runs (unset as measured_min)
  std::array<std::optional<double>, kMetricCount> measured_max{};
  /// "FILE:LINE" of the point's first row, for errors about the point
  std::string where;
};

/// @brief Reads a long-form recorded CSV (header device,driver,date,algo,
/// dtype,batch,heads,N,d,br,bc,l2_mode,metric,predicted,measured, and
/// optionally measured_min,measured_max after it, and blocks_per_sm after
/// those: Mapping::blocks_per_sm, empty for none). Rows of
/// one point may come in any order. Throws UserError naming the file, the
/// line and the problem.
std::vector<RecordedPoint> read_recorded_csv(const std::string& path);

/// @brief The header `fasim compare --sweep` writes: the 15 columns above,
/// then measured_min,measured_max,blocks_per_sm.
std::string recorded_csv_header();

/// @brief The blocks_per_sm cell of a recorded CSV row: m.blocks_per_sm, or
/// empty when it is 0 (as many as fit).
std::string recorded_csv_occupancy(const Mapping& m);

/// @brief The first 12 cells of a recorded CSV row, device to l2_mode,
/// comma-separated: what names the point (one row per metric follows it).
std::string recorded_csv_key(const std::string& device, const std::string& driver, const std::string& date,
                             const Workload& w, const Mapping& m, L2Start l2);

/// @brief A recorded point predicted again with the current simulator.
struct Reprediction {
  const RecordedPoint* point = nullptr;  ///< what was recorded
  MetricValues predicted{};              ///< the current model's numbers
  std::string bound;                     ///< what bounds the predicted time
  /// bytes between the L2 partitions (not a CSV metric; the fabric recordings use it)
  std::int64_t l2_fabric_bytes = 0;
  /// where the blocks sat next to the L2 halves (placement_name, block_placement.hpp)
  std::string placement;
  double code_fetch_bytes = 0;        ///< of the predicted DRAM reads: the kernels' code
  double background_write_bytes = 0;  ///< of the predicted DRAM writes: the GPU's own
  double background_write_expected_bytes = 0;  ///< of the predicted drained writes: the GPU's own
};

/// @brief Predicts every point again on `device` (counting only). The points
/// are independent simulations, run `jobs` at a time (0: one per hardware
/// thread); the result is the same, in the same order, for any `jobs`. A
/// point that fails throws its error (the first such point's) after the rest
/// have stopped: a UserError (tiles that do not fit `device`, a shape past
/// its HBM) starts with the point's FILE:LINE and ends with a fix for a
/// recorded file, not the flags of a run.
std::vector<Reprediction> repredict(const std::vector<RecordedPoint>& points, const DeviceSpec& device,
                                    unsigned jobs = 0);

/// @brief Writes the points again as a recorded CSV (recorded_csv_header()),
/// each metric the point measured with today's prediction in place of the
/// recorded one; measured values as recorded.
void write_repredicted_csv(std::ostream& os, const std::vector<Reprediction>& reps);

/// @brief "flash2 fp16 B=1 H=16 N=4096 d=64 Br=128 Bc=64 L2 cold", and
/// " at most K per SM" when m.blocks_per_sm is K > 0.
std::string describe(const Workload& w, const Mapping& m, L2Start l2);
/// @brief describe() of a recorded point's settings.
std::string describe(const RecordedPoint& p);

/// @brief A metric of a point whose error is outside its bar.
struct Miss {
  std::string point;   ///< describe() of the point
  Metric metric{};     ///< which number
  double error_pct{};  ///< its error now
};

/// @brief Every (point, metric) outside its bar; HBM rows that are not exact
/// are included (their bar is 0). Metrics not measured are skipped.
std::vector<Miss> find_misses(const std::vector<Reprediction>& reps);

/// @brief Writes misses as CSV (point,metric,error_pct) to os.
void write_misses(std::ostream& os, const std::vector<Miss>& misses);
/// @brief The same to the file `path`, atomically.
void write_misses(const std::string& path, const std::vector<Miss>& misses);
/// @brief Reads a file written by write_misses. Throws UserError if malformed.
std::vector<Miss> read_misses(const std::string& path);

/// @brief The ratchet CI applies to recorded runs. Every miss found now must
/// be on the `known` list, with an error no larger than listed (0.05 points
/// of slack for rounding); a known miss that now meets its bar must leave
/// the list; HBM is never allowed to miss. Returns one line per problem.
std::vector<std::string> ratchet_problems(const std::vector<Miss>& now, const std::vector<Miss>& known);

/// @brief Mean absolute error in percent of one metric over the points that
/// measured it (0 if none).
double mean_abs_error_pct(const std::vector<Reprediction>& reps, Metric m);

}  // namespace fasim
