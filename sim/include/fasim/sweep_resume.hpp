// Resuming a sweep: the rows an interrupted `fasim sweep --out FILE` left in
// FILE are matched to the points of the grid, so `--resume` runs only the
// points that are missing and writes the file again, whole, in grid order
// (the same file an uninterrupted run writes).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fasim/sweep.hpp"
#include "fasim/sweep_table.hpp"

namespace fasim {

/// @brief Row `r` of `t` as a FlatRow: its present cells, in column order.
FlatRow row_of(const SweepTable& t, std::size_t r);

/// @brief Places the rows of `done` (a sweep file read back; `path` names it
/// in errors) at the points they hold: result[i] is the row of points[i], or
/// nullopt if the file lacks that point. A point is recognised by its
/// settings: device, algo, dtype, batch, heads, N, d, and Br and Bc when the
/// sweep gives them.
/// @throws UserError, one line naming the fix, if the file was not written by
/// this sweep: a settings column is missing, its numerics columns disagree
/// with spec.options.numerics, or a row is not a point of the grid, or
/// repeats one.
std::vector<std::optional<FlatRow>> match_done_rows(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                                    const SweepTable& done, const std::string& path);

/// @brief The rows present, in order, as one table.
SweepTable table_of(const std::vector<std::optional<FlatRow>>& rows);

}  // namespace fasim
