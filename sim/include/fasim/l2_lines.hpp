// LineL2: an L2 of 128-byte lines in the GPU's own sets, for the H200,
// on the sets that were measured.
//
// Model (stated, and measured against a GPU in docs/results):
//  - two halves, each `sets_per_half` sets of `ways` lines, least recently
//    used out first: plain LRU for reads, whole-line writes, write hits and
//    copies (H200: 15,360 sets of 16 ways a half; l2-evset-2026-11-30.md,
//    "Replacement, finer");
//  - a line's home half is the XOR of some of its address bits
//    (l2-home-map-2026-11-30.md); a read from an SM next to the other half
//    looks for a copy in its own half first, then asks home, and its half
//    keeps a copy; a write goes home, dirty, and leaves a clean copy near
//    (the same rules as PartitionedL2, measured on the H200:
//    l2-window-2026-12-01.md);
//  - a line's set is the GPU's own, but only a sample of it is known: the
//    eviction-set probe found 521 sets and every line of one 128 MiB buffer
//    (the window) that falls in them (configs/l2-sets/h200.txt). Both halves
//    use one index. Only those lines are simulated; the others are not seen
//    at all. Each sampled line stands for (its tensor's lines / its
//    tensor's sampled lines) lines, in its reads and its write-backs, so a
//    tensor read once from a cold L2 reads its own bytes;
//  - the tensors lie in the window one after another, each from a 2 MiB
//    page boundary, in the order the CUDA backend allocates them (TensorId
//    order). Each of `layouts` layouts starts that run at another page of
//    the window (by default every second page), wrapping past its end: the
//    GPU gives each run other pages, and its DRAM bytes then spread
//    widely near the L2's size, mostly low with a long tail (flash1 N 896
//    d 64, 132 heads: 46 to 77 MB over 32 placements, median 48); the
//    layouts spread the same way. Every access runs through every layout.
//    The GPU's recorded figures are each metric's median over its
//    placements, so fasim's are each metric's median over the layouts: DRAM
//    reads reported so far follow the layouts' median reads, write-backs
//    their median write-backs, and the drain their median written-back-
//    plus-dirty (l2-layouts-2026-12-01.md);
//  - a line written again while still in L2 (flash1's O, l and m) is
//    written back to DRAM once it becomes the oldest line of its set, and
//    stays, clean (the count model's kL2RewrittenCleanShare, 0.05 of a set:
//    here the last of 16 ways). Lines written once go back only as they
//    leave. A dirty line that leaves is a write-back.
// It is sound only where its sample is: tensors that fit in the window,
// grids that fill the GPU (on small grids which SMs a run gets, and so which
// half each block reads through, decides more than the sets; fasim's count
// model does better there). Simulation uses it only then
// (line_l2_applies()).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fasim/hbm.hpp"
#include "fasim/l2_cache.hpp"
#include "fasim/tensor.hpp"

namespace fasim {

/// @brief A sample of a GPU's L2 sets: which lines of a window of memory
/// fall in each sampled set, and how the GPU picks a line's home half.
struct L2SetSample {
  std::string name;                ///< the sample's name (configs/l2-sets/NAME.txt)
  std::int64_t window_bytes = 0;   ///< the buffer the sets were found in
  std::int64_t sets_per_half = 0;  ///< sets in one half of the GPU's L2
  int ways = 0;                    ///< lines of one set
  std::uint64_t home_mask = 0;     ///< address bits whose XOR is a line's home half
  std::int64_t sets = 0;           ///< sampled sets
  std::vector<std::int32_t> set_of_line;  ///< each line of the window: its sampled set, or -1
  std::vector<std::uint64_t> sampled;     ///< bit x: line x is in a sampled set (1 in 29 on the H200; 128 KiB to scan, not 4 MiB)
};

/// @brief Parses a sample's text (the format of configs/l2-sets/h200.txt);
/// `origin` names it in errors (UserError).
L2SetSample parse_l2_set_sample(std::string_view text, const std::string& origin);
/// @brief A built-in sample by name (configs/l2-sets/NAME.txt, built into the
/// library), parsed once; nullptr if there is none of that name.
std::shared_ptr<const L2SetSample> builtin_l2_set_sample(std::string_view name);
/// @brief The names of the built-in samples.
std::vector<std::string> builtin_l2_set_sample_names();

/// @brief Whether tensors of these sizes (bytes, by TensorId index; 0: none),
/// each from a 2 MiB boundary, fit in the sample's window.
bool fits_window(const L2SetSample& s, const std::array<std::int64_t, kTensorCount>& bytes);

/// @brief What one load or store asks of the line-level L2: `rows` runs of
/// `len` bytes, `stride` bytes apart, from byte `first` of tensor `tensor`,
/// moved by an SM next to L2 half `near`.
struct LineRequest {
  TensorId tensor = TensorId::Q;  ///< the tensor moved
  std::int64_t first = 0;   ///< byte offset in the tensor of the first row's first byte
  std::int64_t len = 0;     ///< bytes of one row
  std::int64_t rows = 1;    ///< rows
  std::int64_t stride = 0;  ///< bytes from one row to the next
  int near = 0;             ///< the L2 half next to the SM

  /// @brief The tile rows x cols from (row0, col0) of head bh of tensor t, laid out as `x`.
  static LineRequest tile(TensorId t, const HbmTensor& x, std::int64_t bh, std::int64_t row0, std::int64_t col0,
                          std::int64_t rows, std::int64_t cols, int near) {
    const std::int64_t e = x.elem_bytes();
    return {t, x.offset(bh, row0, col0) * e, cols * e, rows, x.cols * e, near};
  }
};

/// @brief A line-level two-half L2 on a sample of the GPU's sets.
class LineL2 {
 public:
  /// @brief An empty (cold) L2 on `sample`, for tensors of `bytes` (by
  /// TensorId index) laid out `layouts` ways, each run of tensors starting
  /// at another page of the window (32: every second page of the H200's
  /// 64, as many layouts as the GPU runs placements). Throws
  /// std::invalid_argument if they do not fit the window (check fits_window
  /// first) or `layouts` < 1.
  LineL2(std::shared_ptr<const L2SetSample> sample, const std::array<std::int64_t, kTensorCount>& bytes,
         int layouts = 32);

  /// @brief A read. hit_bytes + miss_bytes = `sectors` (the request's bytes
  /// as the L2 counts them); miss_bytes: what brings the misses reported so
  /// far up to the layouts' median (l2_lines.hpp), at most `sectors` (the
  /// rest is owed to later reads).
  L2Access read(const LineRequest& r, std::int64_t sectors);
  /// @brief A write; writeback_bytes: what brings the write-backs reported
  /// so far up to the layouts' median.
  L2Access write(const LineRequest& r);
  /// @brief What a drain now would write: the layouts' median of written
  /// back plus dirty, less the write-backs already reported.
  std::int64_t dirty_bytes() const;

 private:
  // One half of one layout: sets * ways lines, most recent first in each set.
  struct Half {
    std::vector<std::uint32_t> tag;  // the line (window offset / 128)
    std::vector<std::uint8_t> flags;  // kDirty | kRewritten | tensor << 2
    std::vector<std::uint8_t> n;      // lines held, per set
  };
  struct Layout {
    std::array<std::vector<std::int32_t>, kTensorCount> page;  // each tensor's 2 MiB pages: their pages in the window
    std::array<double, kTensorCount> weight{};         // its lines / its sampled lines
    Half half[2];
    double wb = 0;       // weighted lines written back, not yet counted
    double read = 0;     // DRAM bytes read so far (weighted)
    double written = 0;  // DRAM bytes written back so far (weighted)
  };
  // One line of layout l: returns the DRAM lines it read (0 or 1) and adds
  // write-backs (weighted) to l.wb.
  int touch(Layout& l, int half, std::uint32_t line, int set, int tensor, bool write);
  bool in(Layout& l, int half, std::uint32_t line, int set, int tensor, bool write);
  int home(std::uint64_t addr) const;
  // Every sampled line of the request in each layout: f(layout, line, set).
  template <class F>
  void each_line(const LineRequest& r, F f);

  // Counts every layout's pending write-backs, then reports the bytes that
  // bring the write-backs reported so far up to the median layout's.
  std::int64_t take_writebacks();
  // The median over the layouts of f(layout), f a layout's bytes so far.
  template <class F>
  double median(F f) const;
  // A layout's dirty bytes (weighted).
  double dirty(const Layout& l) const;

  std::shared_ptr<const L2SetSample> s_;
  std::vector<Layout> layouts_;
  std::int64_t reported_read_ = 0;     // miss bytes reported so far
  std::int64_t reported_written_ = 0;  // write-back bytes reported so far
};

}  // namespace fasim
