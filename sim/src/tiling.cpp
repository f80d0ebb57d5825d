#include "fasim/tiling.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "fasim/algorithms/flash1.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"

namespace fasim {

namespace {

OnChipBytes need_of(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  return algorithm(m.algo).need(w, m, dev);
}


// Largest x in [1, start) for which fits(make(x)), preferring multiples of 16
// (what tensor-core kernels use); 0 if none. Linear from the top: needs are
// not monotone for naive (its softmax switches to two passes).
template <typename F>
std::int64_t largest_fitting(std::int64_t start, const DeviceSpec& dev, F make) {
  for (std::int64_t x = (start - 1) / 16 * 16; x >= 16; x -= 16)
    if (fits(make(x), dev)) return x;
  for (std::int64_t x = std::min<std::int64_t>(start - 1, 15); x >= 1; --x)
    if (fits(make(x), dev)) return x;
  return 0;
}

// Largest power of two <= limit.
std::int64_t floor_pow2(std::int64_t limit) {
  return static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(limit)));
}

}  // namespace

bool fits(const OnChipBytes& need, const DeviceSpec& dev) {
  return need.shared <= dev.sram_bytes_per_block && need.registers <= dev.register_bytes_per_block;
}

Mapping default_tiles(Algo algo, const Workload& w, const DeviceSpec& dev) {
  if (algo == Algo::flash1) {
    // The paper's choice, Bc = ceil(M / 4d) and Br = min(Bc, d), shrunk
    // until it fits (the paper counts only Q, K, V, O tiles in SRAM).
    Mapping m = flash1::paper_tiles(w, dev);
    for (std::int64_t bc = m.bc; bc >= 1; --bc) {
      const Mapping t{algo, std::min(bc, w.d), bc};
      if (fits(need_of(w, t, dev), dev)) return t;
    }
  }
  const std::int64_t cap = std::min<std::int64_t>(
      128, static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(w.N, 1)))));
  for (std::int64_t t = floor_pow2(cap); t >= 1; t /= 2) {
    Mapping m{algo, t, t};
    if (fits(need_of(w, m, dev), dev)) return m;
  }
  throw UserError(std::string(name(algo)) + " with d=" + std::to_string(w.d) + " " +
                  std::string(name(w.dtype)) + " does not fit " + dev.name +
                  " even with Br=Bc=1; use a smaller --d or a device with more SRAM");
}

namespace {
void positive(std::int64_t v, const char* flag, const char* what) {
  if (v <= 0)
    throw UserError(std::string(what) + " must be a positive integer, got " + std::to_string(v) +
                    "; pass e.g. " + flag);
}
}  // namespace

void validate_workload(const Workload& w) {
  positive(w.N, "--N 1024", "N (sequence length)");
  positive(w.d, "--d 64", "d (head dimension)");
  positive(w.batch, "--batch 1", "batch");
  positive(w.heads, "--heads 1", "heads");
  // Keep every byte and FLOP count far inside int64: N <= 2^24, d <= 2^16, bh <= 2^20.
  if (w.N > (std::int64_t{1} << 24))
    throw UserError("N=" + std::to_string(w.N) + " is too large; fasim supports N up to 16,777,216");
  if (w.d > 65536) throw UserError("d=" + std::to_string(w.d) + " is too large; use d <= 65536");
  if (w.bh() > (std::int64_t{1} << 20))
    throw UserError("batch*heads=" + std::to_string(w.bh()) + " is too large; use at most 1,048,576");
  // The largest count, matmul FLOPs 4*N^2*d*bh, must stay below 2^62 (int64 with room).
  const double matmul_flops = 4.0 * static_cast<double>(w.N) * static_cast<double>(w.N) *
                              static_cast<double>(w.d) * static_cast<double>(w.bh());
  if (matmul_flops >= 0x1p62)
    throw UserError("this shape needs 4*N^2*d*batch*heads = " + std::to_string(matmul_flops) +
                    " FLOPs, more than fasim's 64-bit counters hold (2^62); use a smaller N, d, batch or heads");
}

void validate(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  validate_workload(w);
  positive(m.br, "--br 64", "Br (query rows per tile)");
  positive(m.bc, "--bc 64", "Bc (key rows per tile)");

  const OnChipBytes need = need_of(w, m, dev);
  if (fits(need, dev)) return;
  const std::int64_t br_fit = largest_fitting(m.br, dev, [&](std::int64_t x) {
    return need_of(w, Mapping{m.algo, x, m.bc}, dev);
  });
  const std::int64_t bc_fit = largest_fitting(m.bc, dev, [&](std::int64_t x) {
    return need_of(w, Mapping{m.algo, m.br, x}, dev);
  });
  const std::int64_t sq_fit = largest_fitting(std::max(m.br, m.bc), dev, [&](std::int64_t x) {
    return need_of(w, Mapping{m.algo, x, x}, dev);
  });
  std::string msg = std::string(name(m.algo)) + " tiles Br=" + std::to_string(m.br) +
                    ", Bc=" + std::to_string(m.bc) + " (d=" + std::to_string(w.d) + ", " +
                    std::string(name(w.dtype)) + ") do not fit " + dev.name + ": need " +
                    with_commas(need.shared) + " B of SRAM per block (capacity " +
                    with_commas(dev.sram_bytes_per_block) + " B) and " +
                    with_commas(need.registers) + " B of registers (capacity " +
                    with_commas(dev.register_bytes_per_block) + " B); ";
  std::string fixes;
  auto add = [&](const std::string& s) { fixes += (fixes.empty() ? "" : ", or ") + s; };
  if (br_fit > 0) add("--br " + std::to_string(br_fit) + " with --bc " + std::to_string(m.bc));
  if (bc_fit > 0) add("--bc " + std::to_string(bc_fit) + " with --br " + std::to_string(m.br));
  if (sq_fit > 0) add("--br " + std::to_string(sq_fit) + " --bc " + std::to_string(sq_fit));
  if (fixes.empty()) fixes = "no tile size fits; use a smaller --d or a device with more SRAM";
  else fixes = "largest that fit: " + fixes;
  throw UserError(msg + fixes);
}

double execute_bytes(const Workload& w, const Mapping& m) {
  // Q, K, V, O as float, the fp64 reference output, one block of reference
  // scores (128 rows of N doubles), plus S and P for naive. In double: the
  // point is to refuse shapes whose product would not fit anyway.
  const double n = static_cast<double>(w.N), d = static_cast<double>(w.d);
  const double bh = static_cast<double>(w.bh());
  double bytes = 4 * bh * n * d * 4 + bh * n * d * 8 + 128 * n * 8;
  if (m.algo == Algo::naive) bytes += 2 * bh * n * n * 4;
  return bytes;
}

}  // namespace fasim
