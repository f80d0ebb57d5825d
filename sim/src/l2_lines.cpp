#include "fasim/l2_lines.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "fasim/error.hpp"

namespace fasim {
namespace detail {
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_l2_set_files();
}  // namespace detail

namespace {

constexpr std::int64_t kLine = 128;
constexpr std::int64_t kPage = 2 << 20;  // tensors start on 2 MiB pages
constexpr std::uint8_t kDirty = 1, kRewritten = 2;

std::int64_t pages(std::int64_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

}  // namespace

L2SetSample parse_l2_set_sample(std::string_view text, const std::string& origin) {
  L2SetSample s;
  std::istringstream in{std::string(text)};
  int lineno = 0;
  auto fail = [&](const std::string& what) {
    throw UserError(origin + ":" + std::to_string(lineno) + ": " + what);
  };
  std::vector<std::vector<std::uint32_t>> sets;
  for (std::string line; std::getline(in, line);) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "window_bytes" || key == "sets_per_half" || key == "ways") {
      std::int64_t v = 0;
      if (!(words >> v) || v <= 0) fail(key + " needs a positive integer");
      if (key == "window_bytes") s.window_bytes = v;
      if (key == "sets_per_half") s.sets_per_half = v;
      if (key == "ways") {
        if (v > 64) fail("ways must be at most 64");
        s.ways = static_cast<int>(v);
      }
    } else if (key == "home_bits") {
      for (int b; words >> b;) {
        if (b < 7 || b > 63) fail("home_bits are address bits from 7 to 63");
        s.home_mask |= std::uint64_t{1} << b;
      }
    } else {
      if (s.window_bytes <= 0 || s.window_bytes % kLine != 0 || s.ways <= 0 || s.sets_per_half <= 0)
        fail("window_bytes (a multiple of 128), sets_per_half and ways come before the sets");
      if (s.set_of_line.empty()) s.set_of_line.assign(static_cast<std::size_t>(s.window_bytes / kLine), -1);
      words.clear();
      words.str(line);
      for (std::string w; words >> w;) {
        std::size_t used = 0;
        unsigned long long v = 0;
        try {
          v = std::stoull(w, &used, 16);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != w.size()) fail("'" + w + "' is not a line number (hex)");
        if (v >= s.set_of_line.size()) fail("line " + w + " lies past window_bytes");
        if (s.set_of_line[v] >= 0) fail("line " + w + " is in two sets");
        s.set_of_line[v] = static_cast<std::int32_t>(s.sets);
      }
      ++s.sets;
    }
  }
  if (s.sets == 0) throw UserError(origin + ": no sets; each line after the header lists one set's lines");
  s.sampled.assign((s.set_of_line.size() + 63) / 64, 0);
  for (std::size_t x = 0; x < s.set_of_line.size(); ++x)
    if (s.set_of_line[x] >= 0) s.sampled[x / 64] |= std::uint64_t{1} << (x % 64);
  return s;
}

std::vector<std::string> builtin_l2_set_sample_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : detail::builtin_l2_set_files()) names.emplace_back(name);
  return names;
}

std::shared_ptr<const L2SetSample> builtin_l2_set_sample(std::string_view name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const L2SetSample>, std::less<>> parsed;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = parsed.find(name); it != parsed.end()) return it->second;
  for (const auto& [stem, text] : detail::builtin_l2_set_files())
    if (stem == name) {
      auto s = std::make_shared<L2SetSample>(parse_l2_set_sample(text, "configs/l2-sets/" + std::string(stem) + ".txt"));
      s->name = std::string(stem);
      parsed.emplace(std::string(stem), s);
      return s;
    }
  return nullptr;
}

bool fits_window(const L2SetSample& s, const std::array<std::int64_t, kTensorCount>& bytes) {
  std::int64_t total = 0;
  for (std::int64_t b : bytes) total += pages(b);
  return total <= s.window_bytes;
}

LineL2::LineL2(std::shared_ptr<const L2SetSample> sample, const std::array<std::int64_t, kTensorCount>& bytes,
               int layouts)
    : s_(std::move(sample)) {
  if (!s_ || !fits_window(*s_, bytes)) throw std::invalid_argument("LineL2: the tensors do not fit the sample's window");
  if (layouts < 1) throw std::invalid_argument("LineL2: at least one layout");
  const auto set_lines = static_cast<std::size_t>(s_->sets * s_->ways);
  const auto window_pages = static_cast<std::int32_t>(std::max<std::int64_t>(1, s_->window_bytes / kPage));
  for (int k = 0; k < layouts; ++k) {
    Layout l;
    // The tensors one after another, each from a 2 MiB boundary, in TensorId
    // order: the order the CUDA backend allocates them (cuda/src/runner.cpp:
    // Q, K, V, O, then S and P, or m and l, or L). Layout k starts at page
    // k x window_pages / layouts of the window and wraps past its end. The
    // GPU's placements move the whole run (a pad before it, new pages); they
    // never reorder it. (Until 2026-12-01: 21 random orders packed from page
    // 0, whose median moved with the seed: flash1 N 512 d 128 drained -9 to
    // -21% over 4 seeds; l2-layouts-2026-12-01.md. Pages scattered at random,
    // each tensor's no longer in one run, miss far more: flash1 N 896 d 64
    // with 132 heads 62 to 131 MB over 9 layouts, the GPU 46 to 77.)
    std::int32_t next = static_cast<std::int32_t>(static_cast<std::int64_t>(k) * window_pages / layouts);
    for (int t = 0; t < kTensorCount; ++t) {
      const auto ti = static_cast<std::size_t>(t);
      const std::int64_t n_pages = pages(bytes[ti]) / kPage;
      std::int64_t sampled = 0;
      for (std::int64_t j = 0; j < n_pages; ++j) {
        const std::int32_t wp = next++ % window_pages;
        l.page[ti].push_back(wp);
        const std::int64_t in_page = std::min(kPage, bytes[ti] - j * kPage);
        const std::int64_t first = wp * kPage / kLine, end = first + (in_page + kLine - 1) / kLine;
        for (std::int64_t x = first; x < end; ++x) sampled += s_->set_of_line[static_cast<std::size_t>(x)] >= 0;
      }
      const std::int64_t lines = (bytes[ti] + kLine - 1) / kLine;
      // A tensor with no sampled line is not seen (its traffic counts 0).
      l.weight[ti] = sampled > 0 ? static_cast<double>(lines) / static_cast<double>(sampled) : 0.0;
    }
    for (Half& h : l.half) {
      h.tag.assign(set_lines, 0);
      h.flags.assign(set_lines, 0);
      h.n.assign(static_cast<std::size_t>(s_->sets), 0);
    }
    layouts_.push_back(std::move(l));
  }
}

int LineL2::home(std::uint64_t addr) const { return std::popcount(addr & s_->home_mask) & 1; }

bool LineL2::in(Layout& l, int half, std::uint32_t line, int set, int tensor, bool write) {
  Half& h = l.half[half];
  const int ways = s_->ways;
  const std::size_t at = static_cast<std::size_t>(set) * static_cast<std::size_t>(ways);
  std::uint32_t* tag = &h.tag[at];
  std::uint8_t* fl = &h.flags[at];
  const int k = h.n[static_cast<std::size_t>(set)];
  const int last = ways - 1;  // a rewritten line is written back here (early) and stays, clean
  auto weight = [&](std::uint8_t f) { return l.weight[static_cast<std::size_t>(f >> 2)]; };
  auto age = [&] {
    if (h.n[static_cast<std::size_t>(set)] > last && (fl[last] & kDirty) && (fl[last] & kRewritten)) {
      fl[last] = static_cast<std::uint8_t>(fl[last] & ~kDirty);
      l.wb += weight(fl[last]);
    }
  };
  for (int i = 0; i < k; ++i)
    if (tag[i] == line) {
      std::uint8_t f = fl[i];
      if (write) f |= kDirty | kRewritten;
      std::memmove(tag + 1, tag, static_cast<std::size_t>(i) * sizeof(std::uint32_t));
      std::memmove(fl + 1, fl, static_cast<std::size_t>(i));
      tag[0] = line;
      fl[0] = f;
      if (i >= last) age();
      return true;
    }
  if (k == ways && (fl[last] & kDirty)) l.wb += weight(fl[last]);  // the oldest line leaves
  const int keep = std::min(k, last);
  std::memmove(tag + 1, tag, static_cast<std::size_t>(keep) * sizeof(std::uint32_t));
  std::memmove(fl + 1, fl, static_cast<std::size_t>(keep));
  tag[0] = line;
  fl[0] = static_cast<std::uint8_t>((tensor << 2) | (write ? kDirty : 0));
  if (k < ways) ++h.n[static_cast<std::size_t>(set)];
  age();
  return false;
}

int LineL2::touch(Layout& l, int near, std::uint32_t line, int set, int tensor, bool write) {
  const int h = home(static_cast<std::uint64_t>(line) * kLine);
  if (write) {
    in(l, h, line, set, tensor, true);
    if (h != near) in(l, near, line, set, tensor, false);  // a clean copy near the writer
    return 0;
  }
  if (h == near) return in(l, h, line, set, tensor, false) ? 0 : 1;
  if (in(l, near, line, set, tensor, false)) return 0;  // the copy (kept on a miss)
  return in(l, h, line, set, tensor, false) ? 0 : 1;
}

template <class F>
void LineL2::each_line(const LineRequest& req, F f) {
  const auto ti = static_cast<std::size_t>(index(req.tensor));
  const std::int64_t first = req.first, stride = req.stride;
  std::int64_t len = req.len, rows = req.rows;
  // Rows with no gap between them are one run. Where rows share a line (a
  // column of l or m: 32 rows a line) each row touches it: the first touch
  // counts, and a second one, for a write, makes the line one written again.
  // Further touches change nothing, so a line is touched at most twice.
  const std::int64_t row_len = len, row0 = first, run_rows = rows;
  const bool shared = rows > 1 && stride == len && (len % kLine != 0 || first % kLine != 0);
  if (rows > 1 && stride == len) len *= rows, rows = 1;
  auto touches = [&](std::int64_t a) {  // rows of the run that touch the line from byte a
    if (!shared) return 1;
    const std::int64_t lo = std::max<std::int64_t>(0, (a - row0) / row_len);
    const std::int64_t hi = std::min(run_rows - 1, (a + kLine - row0 + row_len - 1) / row_len - 1);
    return hi > lo ? 2 : 1;
  };
  const std::vector<std::uint64_t>& sampled = s_->sampled;
  for (Layout& l : layouts_) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t a1 = first + r * stride + len;
      std::int64_t a = (first + r * stride) / kLine * kLine;
      while (a < a1) {  // one page of the tensor at a time: its lines lie in a run of the window
        const std::int64_t page = a / kPage;
        const std::int64_t end = std::min((a1 + kLine - 1) / kLine * kLine, (page + 1) * kPage);
        const std::int64_t moved = (l.page[ti][static_cast<std::size_t>(page)] - page) * kPage;
        // The sampled lines of the run, a word of the bit map at a time (1 line in 29 is sampled).
        const auto x1 = static_cast<std::size_t>((end + moved) / kLine);
        for (auto x = static_cast<std::size_t>((a + moved) / kLine); x < x1;) {
          const std::uint64_t bits = sampled[x / 64] >> (x % 64);
          if (bits == 0) {
            x = (x / 64 + 1) * 64;
            continue;
          }
          x += static_cast<std::size_t>(std::countr_zero(bits));
          if (x >= x1) break;
          for (int k = touches(static_cast<std::int64_t>(x) * kLine - moved); k > 0; --k)
            f(l, static_cast<std::uint32_t>(x), s_->set_of_line[x]);
          ++x;
        }
        a = end;
      }
    }
  }
}

template <class F>
double LineL2::median(F f) const {
  std::vector<double> v;
  v.reserve(layouts_.size());
  for (const Layout& l : layouts_) v.push_back(f(l));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

L2Access LineL2::read(const LineRequest& r, std::int64_t sectors) {
  const int ti = index(r.tensor);
  each_line(r, [&](Layout& l, std::uint32_t line, int set) {
    const double b = l.weight[static_cast<std::size_t>(ti)] * touch(l, r.near, line, set, ti, false) * kLine;
    l.read += b;
  });
  L2Access a;
  a.writeback_bytes = take_writebacks();
  // The reads reported so far follow the layouts' median: this read reports
  // what brings them up to it, at most the request's bytes (the rest is
  // owed to later reads) and never less than 0.
  const auto target = std::llround(median([](const Layout& l) { return l.read; }));
  a.miss_bytes = std::clamp<std::int64_t>(target - reported_read_, 0, sectors);
  reported_read_ += a.miss_bytes;
  a.hit_bytes = sectors - a.miss_bytes;
  return a;
}

std::int64_t LineL2::take_writebacks() {
  bool any = false;
  for (Layout& l : layouts_) {
    any = any || l.wb > 0;
    l.written += l.wb * kLine;
    l.wb = 0;
  }
  if (!any) return 0;  // no layout's write-backs moved, so neither did their median
  const auto target = std::llround(median([](const Layout& l) { return l.written; }));
  const std::int64_t bytes = std::max<std::int64_t>(0, target - reported_written_);
  reported_written_ += bytes;
  return bytes;
}

L2Access LineL2::write(const LineRequest& r) {
  const int ti = index(r.tensor);
  each_line(r, [&](Layout& l, std::uint32_t line, int set) { touch(l, r.near, line, set, ti, true); });
  L2Access a;
  a.writeback_bytes = take_writebacks();
  return a;
}

double LineL2::dirty(const Layout& l) const {
  double lines = 0;
  for (const Half& h : l.half)
    for (std::size_t set = 0; set < h.n.size(); ++set)
      for (std::size_t i = 0; i < h.n[set]; ++i) {
        const std::uint8_t f = h.flags[set * static_cast<std::size_t>(s_->ways) + i];
        if (f & kDirty) lines += l.weight[static_cast<std::size_t>(f >> 2)];
      }
  return lines * kLine;
}

std::int64_t LineL2::dirty_bytes() const {
  // Written back so far plus dirty now is what a drain would write: its
  // median over the layouts, less the write-backs already reported.
  const double drained = median([this](const Layout& l) { return l.written + dirty(l); });
  return std::max<std::int64_t>(0, std::llround(drained) - reported_written_);
}

}  // namespace fasim
