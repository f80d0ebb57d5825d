// Figures: the charts `fasim plot` draws from the rows of a sweep.
//   bytes-vs-n  HBM bytes (read + written) against N, one line per algorithm,
//               log-log: naive grows as N^2, FlashAttention as N^2 d^2 / M.
//   block-size  the FlashAttention paper's Figure 2 (middle): HBM bytes, and
//               predicted time when the sweep has it, against the block size.
//   roofline    the device's roofline, min(peak, intensity x HBM bandwidth),
//               with each run placed at its arithmetic intensity.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fasim/svg_plot.hpp"
#include "fasim/sweep_table.hpp"

namespace fasim {

/// @brief The figures fasim can draw.
enum class Figure { bytes_vs_n, block_size, roofline };

/// @brief Every figure name, for messages: "bytes-vs-n, block-size, roofline".
inline constexpr std::string_view kFigureNames = "bytes-vs-n, block-size, roofline";

/// @brief "bytes-vs-n", "block-size" or "roofline"; nullopt otherwise.
std::optional<Figure> parse_figure(std::string_view s);

/// @brief Builds a figure from sweep rows (rows with an "error" cell are left
/// out). `origin` names the file in messages; `device` (a name or .toml path)
/// sets the roofline's device, empty: the device named in the rows. Throws
/// UserError when the rows cannot make the figure (no usable rows, a
/// block-size sweep with one block size, several devices and no `device`).
Chart make_figure(Figure figure, const SweepTable& rows, const std::string& origin, const std::string& device = "");

}  // namespace fasim
