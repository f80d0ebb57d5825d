// Figures: the charts `fasim plot` draws from the rows of a sweep.
//   bytes-vs-n  HBM bytes (read + written) against N, one line per algorithm,
//               log-log: naive grows as N^2, FlashAttention as N^2 d^2 / M.
//   block-size  the FlashAttention paper's Figure 2 (middle): HBM bytes, and
//               predicted time when the sweep has it, against the block size.
//   roofline    the device's roofline, min(peak, intensity x HBM bandwidth),
//               with each run placed at its arithmetic intensity.
//   predicted-vs-measured
//               from `fasim compare --sweep` CSVs (long form: one row per run
//               and metric): predicted against measured, with y = x and the
//               bands within 10% and 2x; one panel of bytes (a marker per
//               counter) and one of time (a marker per algorithm).
//   gpu-bench   from scripts/gpu-bench.sh's CSV: TFLOP/s against N, a line per
//               implementation (fasim's kernels, PyTorch's), a panel per d and mask.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fasim/svg_plot.hpp"
#include "fasim/sweep_table.hpp"

namespace fasim {

/// @brief The figures fasim can draw.
enum class Figure { bytes_vs_n, block_size, roofline, predicted_vs_measured, gpu_bench };

/// @brief Every figure name, for messages.
inline constexpr std::string_view kFigureNames =
    "bytes-vs-n, block-size, roofline, predicted-vs-measured, gpu-bench";

/// @brief "bytes-vs-n", "block-size", "roofline", "predicted-vs-measured" or
/// "gpu-bench"; nullopt otherwise.
std::optional<Figure> parse_figure(std::string_view s);

/// @brief Builds a figure from sweep rows (rows with an "error" cell are left
/// out). `origin` names the file in messages; `device` (a name or .toml path)
/// sets the roofline's device, empty: the device named in the rows. Throws
/// UserError when the rows cannot make the figure (no usable rows, a
/// block-size sweep with one block size, several devices and no `device`).
Chart make_figure(Figure figure, const SweepTable& rows, const std::string& origin, const std::string& device = "");

/// @brief Every panel of a figure (render them with render_svg(panels)):
/// predicted-vs-measured has one panel of bytes and one of time, when the
/// rows have both; gpu-bench one per (d, causal); the other figures have
/// one, make_figure's.
std::vector<Chart> make_figure_panels(Figure figure, const SweepTable& rows, const std::string& origin,
                                      const std::string& device = "");

/// @brief The panels of predicted-vs-measured from the long-form rows of
/// `fasim compare --sweep` (columns device, algo, dtype, ..., metric,
/// predicted, measured): x = measured, y = predicted, both log. Metrics
/// ending in _bytes share the bytes panel (colour by level: HBM requests, L2,
/// DRAM; circle read, triangle written); time_s gets the time panel (colour
/// by algorithm). Points with a value <= 0 cannot sit on log axes: the
/// subtitle counts them. Throws UserError when no row has metric, predicted
/// and measured.
std::vector<Chart> predicted_vs_measured(const SweepTable& rows, const std::string& origin);

/// @brief The panels of gpu-bench from the rows scripts/gpu-bench.sh writes
/// (columns impl, causal, N, d, tflops; device when present): one panel per
/// (d, causal) in increasing order, x = N (log 2), y = TFLOP/s from 0, a line
/// per known implementation in a fixed legend order (fasim's solid, PyTorch's
/// dashed); rows of unknown implementations are left out and named. Throws
/// UserError when a column is missing or no row is usable.
std::vector<Chart> gpu_bench_panels(const SweepTable& rows, const std::string& origin);

}  // namespace fasim
