#include "fasim/tiling.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "fasim/algorithms/decode.hpp"
#include "fasim/algorithms/flash1.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/hbm.hpp"
#include "fasim/paged_kv.hpp"
#include "fasim/reference.hpp"

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

// Smallest power of two >= n (1 for n < 1): the default tiles' cap for n rows.
std::int64_t ceil_pow2(std::int64_t n) {
  return static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 1))));
}

// Largest x in [1, hi] with ok(x), for an ok that holds up to some x and
// not above it; 0 if ok(1) fails. Bisection: hi may be hundreds of millions.
template <typename F>
std::int64_t largest_while(std::int64_t hi, F ok) {
  std::int64_t lo = 0;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace

bool fits(const OnChipBytes& need, const DeviceSpec& dev) {
  return need.shared <= dev.sram_bytes_per_block && need.registers <= dev.register_bytes_per_block;
}

namespace {
// `m` with other tiles: double_buffer, splits and the rest stay, since they
// change what the tiles need.
Mapping with_tiles(const Mapping& m, std::int64_t br, std::int64_t bc) {
  Mapping t = m;
  t.br = br;
  t.bc = bc;
  return t;
}
}  // namespace

Mapping default_tiles(Algo algo, const Workload& w, const DeviceSpec& dev) {
  return default_tiles(Mapping{.algo = algo}, w, dev);
}

Mapping default_tiles(const Mapping& base, const Workload& w, const DeviceSpec& dev) {
  const Algo algo = base.algo;
  if (algo == Algo::flash1) {
    // The paper's choice, Bc = ceil(M / 4d) and Br = min(Bc, d), but no more
    // keys than there are (nor query rows), rounded up to a power of two as
    // the other algorithms' caps are: a 454-row key tile for 64 keys modelled
    // SRAM and occupancy for keys that do not exist. Then the largest Bc
    // that fits (the paper counts only Q, K, V, O tiles in SRAM); the need
    // grows with Bc, so bisection finds it.
    const std::int64_t cap_r = ceil_pow2(w.N);
    auto tile = [&](std::int64_t bc) { return with_tiles(base, std::min({bc, w.d, cap_r}), bc); };
    const std::int64_t hi = std::min(flash1::paper_tiles(w, dev).bc, ceil_pow2(w.n_keys()));
    const std::int64_t bc = largest_while(hi, [&](std::int64_t x) { return fits(need_of(w, tile(x), dev), dev); });
    if (bc > 0) return tile(bc);
  }
  // Br is capped by the query rows (decode: a GQA group's packed rows), Bc by
  // the keys; with N_kv = N both caps are the same and the tile is square.
  auto cap = [](std::int64_t n) { return std::min<std::int64_t>(128, ceil_pow2(n)); };
  const std::int64_t cap_r = cap(algo == Algo::decode ? decode::packed_rows(w) : w.N);
  const std::int64_t cap_c = cap(w.n_keys());
  for (std::int64_t t = floor_pow2(std::max(cap_r, cap_c)); t >= 1; t /= 2) {
    Mapping m = with_tiles(base, std::min(t, cap_r), std::min(t, cap_c));
    // Paged K/V: a Bc that is a multiple of the page size (or divides it)
    // never splits a page between two tiles, so no tile takes an extra load.
    if (const std::int64_t P = w.page_size; P > 0) {
      if (P <= m.bc) m.bc = m.bc / P * P;
      else
        while (P % m.bc != 0) --m.bc;
    }
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

void non_negative(std::int64_t v, const char* flag, const char* what) {
  if (v < 0)
    throw UserError(std::string(what) + " must be a non-negative integer, got " + std::to_string(v) +
                    "; pass e.g. " + flag);
}
}  // namespace

void validate_workload(const Workload& w) {
  positive(w.N, "--N 1024", "N (sequence length)");
  positive(w.d, "--d 64", "d (head dimension)");
  positive(w.batch, "--batch 1", "batch");
  positive(w.heads, "--heads 1", "heads");
  non_negative(w.kv_heads, "--kv-heads 1", "kv_heads (K/V heads; 0 means as many as heads)");
  non_negative(w.N_kv, "--N-kv 4096", "N_kv (key length; 0 means N)");
  non_negative(w.window, "--window 256", "window (sliding window; 0 means none)");
  non_negative(w.page_size, "--page-size 16", "page_size (rows per K/V page; 0 means contiguous)");
  const std::string heads = std::to_string(w.heads);
  if (w.kv_heads > w.heads)
    throw UserError("--kv-heads " + std::to_string(w.kv_heads) + " is more than --heads " + heads +
                    "; query heads share K/V heads, so use a divisor of " + heads + ", e.g. --kv-heads " + heads);
  if (w.kv_heads > 0 && w.heads % w.kv_heads != 0) {
    std::int64_t divisor = w.kv_heads;
    while (w.heads % divisor != 0) --divisor;
    throw UserError("--heads " + heads + " is not a multiple of --kv-heads " + std::to_string(w.kv_heads) +
                    "; use a divisor of " + heads + ", e.g. --kv-heads " + std::to_string(divisor));
  }
  // Keep every byte and FLOP count far inside int64: N, N_kv <= 2^24, d <= 2^16, bh <= 2^20.
  // N first: with N_kv left out (0) the key length is N, and the flag to change is --N.
  if (w.N > (std::int64_t{1} << 24))
    throw UserError("N=" + std::to_string(w.N) + " is too large; fasim supports N up to 16,777,216, use a smaller --N");
  if (w.N_kv > (std::int64_t{1} << 24))
    throw UserError("N_kv=" + std::to_string(w.N_kv) +
                    " is too large; fasim supports N_kv up to 16,777,216, use a smaller --N-kv");
  if (w.d > 65536) throw UserError("d=" + std::to_string(w.d) + " is too large; use d <= 65536");
  if (w.bh() > (std::int64_t{1} << 20))
    throw UserError("batch*heads=" + std::to_string(w.bh()) + " is too large; use at most 1,048,576");
  // The largest count, matmul FLOPs 4*N*N_kv*d*bh, must stay below 2^62 (int64 with room).
  const double matmul_flops = 4.0 * static_cast<double>(w.N) * static_cast<double>(w.n_keys()) *
                              static_cast<double>(w.d) * static_cast<double>(w.bh());
  if (matmul_flops >= 0x1p62)
    throw UserError("this shape needs 4*N*N_kv*d*batch*heads = " + std::to_string(matmul_flops) +
                    " FLOPs, more than fasim's 64-bit counters hold (2^62); use a smaller N, N_kv, d, batch or heads");
  // The block table is held in memory: one entry per page of every sequence.
  const double pages = w.page_size > 0 ? static_cast<double>(w.batch) *
                                             std::ceil(static_cast<double>(w.n_keys()) / static_cast<double>(w.page_size))
                                       : 0.0;
  if (pages > static_cast<double>(std::int64_t{1} << 24))
    throw UserError("--page-size " + std::to_string(w.page_size) + " makes " + std::to_string(static_cast<std::int64_t>(pages)) +
                    " K/V pages (batch * ceil(N_kv / page_size)); fasim allows up to 16,777,216; use a larger --page-size");
}

double hbm_footprint_bytes(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  Mapping mm = m;
  if (mm.algo == Algo::decode && mm.splits == 0) mm.splits = decode::default_splits(w, m, dev);
  Hbm hbm;  // shapes only, no values: what the Simulation would declare
  const KvShape kv = kv_shape(w);
  for (TensorId t : {TensorId::Q, TensorId::O}) hbm.add(t, w.bh(), w.N, w.d, w.dtype, false);
  for (TensorId t : {TensorId::K, TensorId::V}) hbm.add(t, kv.heads, kv.rows, kv.cols, w.dtype, false);
  algorithm(mm.algo).declare(w, mm, hbm, false);
  double bytes = 0;
  for (const auto& t : hbm.tensors)
    if (t)
      bytes += static_cast<double>(t->bh) * static_cast<double>(t->rows) * static_cast<double>(t->cols) *
               static_cast<double>(t->elem_bytes());
  return bytes;
}

namespace {

// A shape whose tensors could not be allocated on the device is refused
// rather than simulated: its numbers would describe no possible run.
void check_hbm_capacity(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  const double bytes = hbm_footprint_bytes(w, m, dev);
  const auto capacity = static_cast<double>(dev.hbm_bytes);
  if (bytes <= capacity) return;
  std::string fix = "use a smaller --N, --N-kv, --batch or --heads, or a device with more HBM";
  if (m.algo == Algo::naive) {
    Mapping flash = m;
    flash.algo = Algo::flash2;
    if (hbm_footprint_bytes(w, flash, dev) <= capacity)
      fix = "use --algo flash2, which never stores S and P, or " + fix.substr(4);
  }
  throw UserError("the tensors of this shape need " + human_bytes(bytes) + " of HBM (" +
                  (m.algo == Algo::naive ? "Q, K, V, O, and S and P of N x N_kv per head" : "Q, K, V, O and statistics") +
                  "), more than " + dev.name + " has (" + human_bytes(capacity) + "); " + fix);
}

}  // namespace

void validate_mapping(const Workload& w, const Mapping& m) {
  positive(m.br, "--br 64", "Br (query rows per tile)");
  positive(m.bc, "--bc 64", "Bc (key rows per tile)");
  non_negative(m.splits, "--splits 8", "splits (key chunks of decode; 0 means automatic)");
  if (m.splits > 0 && m.algo != Algo::decode)
    throw UserError("--splits " + std::to_string(m.splits) + " applies only to --algo decode, not " +
                    std::string(name(m.algo)) + "; drop --splits or use --algo decode");
  if (const std::int64_t Tc = ceil_div(w.n_keys(), m.bc); m.splits > Tc)
    throw UserError("--splits " + std::to_string(m.splits) + " is more than the " + std::to_string(Tc) + " " + plural(Tc, "key tile") +
                    " (N_kv=" + std::to_string(w.n_keys()) + ", Bc=" + std::to_string(m.bc) +
                    "); use --splits " + std::to_string(Tc) + " or fewer, or a smaller --bc");
}

void validate(const Workload& w, const Mapping& m, const DeviceSpec& dev) {
  validate_workload(w);
  validate_mapping(w, m);
  check_hbm_capacity(w, m, dev);
  const OnChipBytes need = need_of(w, m, dev);
  if (fits(need, dev)) return;
  const std::int64_t br_fit =
      largest_fitting(m.br, dev, [&](std::int64_t x) { return need_of(w, with_tiles(m, x, m.bc), dev); });
  const std::int64_t bc_fit =
      largest_fitting(m.bc, dev, [&](std::int64_t x) { return need_of(w, with_tiles(m, m.br, x), dev); });
  const std::int64_t sq_fit =
      largest_fitting(std::max(m.br, m.bc), dev, [&](std::int64_t x) { return need_of(w, with_tiles(m, x, x), dev); });
  std::string msg = std::string(name(m.algo)) + " tiles Br=" + std::to_string(m.br) +
                    ", Bc=" + std::to_string(m.bc) + " (d=" + std::to_string(w.d) + ", " +
                    std::string(name(w.dtype)) + ") do not fit " + dev.name + ": need " +
                    with_commas(need.shared) + " B of SRAM per block" +
                    (!m.double_buffer ? ""
                     : m.algo == Algo::naive ? " with --double-buffer's second tiles"
                                             : " with --double-buffer's second K and V tiles") + " (capacity " +
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
  // Q, O and K, V as stored (HbmValues: e bytes an element), what the fp64
  // reference holds at a time (reference.hpp), plus S and P (as stored) for
  // naive and decode's fp32 partials Opart and Lpart, one set per split when
  // there are two or more (the Simulation resolves splits = 0 before asking;
  // unresolved, every key tile is counted, the most there can be). In
  // double: the point is to refuse shapes whose product would not fit anyway.
  const double n = static_cast<double>(w.N), nk = static_cast<double>(w.n_keys()), d = static_cast<double>(w.d);
  const double bh = static_cast<double>(w.bh()), bh_kv = static_cast<double>(w.bh_kv());
  const double e = static_cast<double>(w.elem_bytes());
  double bytes = 2 * bh * n * d * e + 2 * bh_kv * nk * d * e + reference_bytes(w);
  if (m.algo == Algo::naive) bytes += 2 * bh * n * nk * e;
  const std::int64_t splits = m.splits > 0 ? m.splits : ceil_div(w.n_keys(), m.bc);
  if (m.algo == Algo::decode && splits > 1) bytes += bh * n * (d + 1) * 4 * static_cast<double>(splits);
  return bytes;
}

RunSize estimate_run_size(const Workload& w, const Mapping& m) {
  // Query rows per head as the blocks take them: decode packs a K/V head's
  // query heads into one sequence of rows (decode.hpp).
  const bool decode = m.algo == Algo::decode;
  const std::int64_t rows = decode ? decode::packed_rows(w) : w.N;
  const double heads = static_cast<double>(decode ? w.bh_kv() : w.bh());
  const std::int64_t Tr = ceil_div(rows, m.br);
  // Key tiles per query block: the same for all without a mask; with one
  // they change along the diagonal, and an even sample follows them.
  const std::int64_t samples = w.masked() ? std::min<std::int64_t>(Tr, 4096) : 1;
  double tiles = 0;
  for (std::int64_t k = 0; k < samples; ++k) {
    const std::int64_t p0 = (samples == Tr ? k : k * (Tr / samples)) * m.br;
    std::int64_t n_min = p0 % w.N, n_max = n_min + std::min(m.br, rows - p0) - 1;
    if (n_max >= w.N) n_min = 0, n_max = w.N - 1;  // decode: a block across query heads
    const std::int64_t hi = w.key_hi(n_max);
    if (hi >= 0) tiles += static_cast<double>(hi / m.bc - w.key_lo(n_min) / m.bc + 1);
  }
  RunSize s;
  const double blocks = heads * static_cast<double>(Tr);  // query blocks, all heads
  const double all_tiles = static_cast<double>(ceil_div(w.n_keys(), m.bc));
  // naive computes every tile of S, masked or not.
  s.key_tile_visits = blocks * (m.algo == Algo::naive ? all_tiles : tiles / static_cast<double>(samples));
  // Steps: each visit loads a K and a V tile (one load per page run when
  // paged), then S, the softmax and PV; each query block loads Q, finishes
  // and stores. flash1 loads K and V once per key block, and Q, O, m, l and
  // stores O, m, l each visit (not O, m, l at a row's first). naive stores S,
  // then reads S and P back in two more kernels. decode runs each query block
  // as `splits` blocks, then a kernel that combines their partials.
  const double loads =
      w.page_size > 0 ? std::ceil(static_cast<double>(m.bc) / static_cast<double>(w.page_size)) : 1.0;
  const double kv_loads = 2 * loads, v = s.key_tile_visits;
  switch (m.algo) {
    case Algo::flash2: s.steps = v * (3 + kv_loads) + 4 * blocks; break;
    case Algo::flash1: s.steps = v * 10 - 3 * blocks + kv_loads * heads * all_tiles; break;
    case Algo::naive: s.steps = v * (9 + kv_loads) + 2 * blocks; break;
    case Algo::decode: {
      const double splits = static_cast<double>(std::max<std::int64_t>(m.splits, 1));
      s.steps = v * (3 + kv_loads) + 4 * blocks * splits + 3 * blocks * splits + 4 * blocks;
      break;
    }
  }
  s.matmul_flops = v * 4.0 * static_cast<double>(m.br) * static_cast<double>(m.bc) * static_cast<double>(w.d);
  return s;
}

double estimated_seconds(const RunSize& s, bool numerics) {
  return s.steps * kSecondsPerStep + (numerics ? s.matmul_flops / kMatmulFlopsPerSecond : 0.0);
}

}  // namespace fasim
