// L2 eviction-set probe (2026-11-30): which lines share an L2 set with a
// given line, and how many ways does a set have?
//
// fasim's L2 model gives each half's sets a random (Poisson) share of the
// lines; the GPU places them by a hash of the address, so a contiguous run
// fills every set alike and other subsets unevenly (l2-stride-2026-11-30.md).
// This probe finds the hash's sets directly, from one SM (one block):
//  1. Calibration: the latency of a line just read (a hit) and of one read
//     again after 96 MiB of other lines (DRAM); `evicted` below means
//     slower than halfway.
//  2. A test: read target x; read a list of candidate lines (1024 threads,
//     each load consumed before the barrier); time one dependent load of x.
//     Three launches; evicted if at least two were slow.
//  3. Reduction (group elimination, as in Vila et al., "Theory and Practice
//     of Finding Eviction Sets", 2019): start from every line of a 96 MiB
//     region (it evicts x), halve while a half still evicts, then drop one
//     of G chunks at a time while the rest still evicts, then single lines.
//     What is left evicts x and no line of it can go: a minimal eviction set
//     E. Under LRU within a set, |E| is the ways.
//  4. Members: with E less one line (E'), a group of lines G evicts x exactly
//     when G holds a line of x's set. Splitting groups that do, from all of
//     the 128 MiB around x, finds every line of x's set there; their address
//     differences from x show which address bits the set index reads and
//     whether it is linear (differences closed under XOR).
//  5. Evenness: x's set's lines homed in its half, counted per window of
//     2 to 32 MiB (EVEN).
//  6. Replacement: from one thread, cyclic reads of n lines of x's set
//     homed in x's half (hits per round), and LRU against FIFO.
//  7. (mode `replacement`, 2026-12-01) Scan resistance: lines hit once
//     against lines hit twice, pushed by m other lines (SCAN); stores
//     (whole lines, 4 bytes, hits, to lines homed in the other half:
//     WRITE); and whether cyclic reads start to hit after every SM
//     thrashed the L2 (THRASH): LRU against RRIP-like policies, which the
//     cyclic test cannot tell apart (both miss every read of 17 lines in
//     turn).
// Output: CAL, then per target TARGET, SIZE (the reduction), E, MEMBER
// (differences from x, in bytes), BITS (single-bit differences tested
// beyond the 128 MiB), a summary, EVEN, POLICY, CYCLIC and ORDER; with
// `replacement` also REPLACEMENT, SCAN, WRITE and THRASH.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o evset l2-evset-probe-2026-11-30.cu
//   Mode `window` also needs fasim's CUPTI code: from the repository root,
//   after the cuda preset's build (cmake --build build/cuda --target fasim_cuda),
//   `bash docs/results/l2-evset-2026-11-30.sh --build-window` links it in
//   (-DEVSET_CUPTI, evset_window_counters.cpp) to build/gpu-carry/evset-window.
// Run:   ./evset [targets]   (no ncu; caches and clocks left as they are)
//        ./evset N sets      N targets at random, each's set only (SIZE, E, MEMBER)
//        ./evset N replacement  as ./evset N, then the scan and thrash tests
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "probe_common.cuh"
#ifdef EVSET_CUPTI  // mode `window`: fasim's CUPTI range profiler, in evset_window_counters.cpp
#include <functional>
double dram_read_bytes_of(const std::function<void()>& launches);
#endif

namespace {
constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kLine = 128;
constexpr size_t kBuffer = 1024 * kMiB;         // lines are 32-bit indices into it
constexpr size_t kMemberRegion = 128 * kMiB;    // x's set searched here (x inside, aligned)
constexpr size_t kPoolStart = 512 * kMiB;       // the first candidates
constexpr size_t kPoolBytes = 96 * kMiB;
constexpr int kThreads = 1024;
constexpr int kReps = 3;
}  // namespace

// One block: read line x, then every candidate line, then time a dependent read of x.
__global__ void test_k(const char* buf, unsigned x, const unsigned* cand, unsigned n, long long* cycles,
                       unsigned* sm) {
  __shared__ volatile unsigned keep[kThreads];
  if (threadIdx.x == 0) keep[0] = __ldcg(reinterpret_cast<const unsigned*>(buf + size_t{x} * kLine));
  __syncthreads();
  unsigned acc = 0;
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
    acc ^= __ldcg(reinterpret_cast<const unsigned*>(buf + size_t{cand[i]} * kLine));
  keep[threadIdx.x] = acc;  // waits for this thread's loads
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned dep = keep[1] & 0x80000000u;  // 0: buffer is zero, but the compiler cannot know
  long long t0, t1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
  const unsigned v = __ldcg(reinterpret_cast<const unsigned*>(buf + size_t{x} * kLine + dep));
  keep[0] = v;  // waits for the load
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
  *cycles = t1 - t0;
  *sm = smid();
}

// Thread 0 reads lines[0..n) in order, one dependent load each, and times
// each. An entry's top bits make it something else (cycles 0): kStore4, a
// 4-byte store to the line; kStore128, a store of the whole line; kFence,
// a __threadfence() (the line is ignored).
constexpr unsigned kStore4 = 0x80000000u, kStore128 = 0x40000000u, kFence = 0x20000000u;
// With want_sm >= 0 only the first block to start on SM want_sm runs it
// (claim: 0 before the launch; the block writes its SM there, plus 1).
__global__ void seq_k(char* buf, const unsigned* lines, unsigned n, unsigned* cycles, int want_sm,
                      unsigned* claim) {
  __shared__ volatile unsigned keep[2];
  if (threadIdx.x != 0) return;
  if (want_sm >= 0 && (smid() != static_cast<unsigned>(want_sm) || atomicCAS(claim, 0u, smid() + 1) != 0)) return;
  unsigned dep = 0;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned op = lines[i] & (kStore4 | kStore128 | kFence);
    const size_t off = size_t{lines[i] & ~(kStore4 | kStore128 | kFence)} * kLine;
    cycles[i] = 0;
    if (op == kFence) {
      __threadfence();
    } else if (op == kStore4) {
      __stcg(reinterpret_cast<unsigned*>(buf + off + (dep & 0x80000000u)), dep);
    } else if (op == kStore128) {
      for (int q = 0; q < 8; ++q)
        __stcg(reinterpret_cast<int4*>(buf + off) + q, make_int4(static_cast<int>(dep), 0, 0, 0));
    } else {
      long long t0, t1;
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0)::"memory");
      const unsigned v = __ldcg(reinterpret_cast<const unsigned*>(buf + off + (dep & 0x80000000u)));
      keep[0] = v;  // waits for the load
      asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1)::"memory");
      dep = v;
      cycles[i] = static_cast<unsigned>(t1 - t0);
    }
  }
}

// Every block reads its share of [buf, buf + bytes) `passes` times: with
// bytes past the L2, every set thrashes (a policy that adapts to thrashing
// would switch now).
__global__ void thrash_k(const char* buf, size_t bytes, int passes, unsigned* sink) {
  unsigned acc = 0;
  const size_t lines = bytes / kLine;
  for (int p = 0; p < passes; ++p)
    for (size_t l = blockIdx.x * size_t{blockDim.x} + threadIdx.x; l < lines; l += size_t{gridDim.x} * blockDim.x)
      acc ^= __ldcg(reinterpret_cast<const unsigned*>(buf + l * kLine));
  if (acc == 0x12345678u) *sink = acc;  // never: keeps the loads
}

// Mode `window`: block k re-reads units [k * per, (k + 1) * per) of the
// subset of [base, ...) made of every other 2^bit-byte chunk (bit 0: one
// run), 256 threads a 4 KiB unit, as the stride probe's read_k; it notes
// its SM. One block an SM (the shared memory asked for).
constexpr size_t kUnit = 4096;
[[maybe_unused]] constexpr int kOneBlockAnSm = 115968;  // used with EVSET_CUPTI
__global__ void reread_k(const char* base, size_t per, int bit, unsigned* sm_of_block,
                         unsigned long long* span = nullptr) {
  extern __shared__ unsigned big[];
  unsigned long long t0 = 0, t1 = 0;
  if (span && threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  unsigned acc = 0;
  const size_t chunk = bit > 0 ? size_t{1} << bit : 0, per_chunk = bit > 0 ? chunk / kUnit : 1;
  for (size_t k = 0; k < per; ++k) {
    const size_t u = blockIdx.x * per + k;
    const size_t at = bit > 0 ? (u / per_chunk) * 2 * chunk + (u % per_chunk) * kUnit : u * kUnit;
    const uint4 x = __ldcg(reinterpret_cast<const uint4*>(base + at) + threadIdx.x);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (threadIdx.x == 0) { big[0] = acc; sm_of_block[blockIdx.x] = smid(); }
  if (acc == 0x9E3779B9u) sm_of_block[0] = acc + big[0];  // never: keeps the loads
  __syncthreads();
  if (span && threadIdx.x == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    span[2 * blockIdx.x] = t0;
    span[2 * blockIdx.x + 1] = t1;
  }
}

namespace {
char* g_buf = nullptr;
unsigned* g_cand = nullptr;
long long* g_cycles = nullptr;
unsigned* g_sm = nullptr;
long long g_threshold = 0;
long long g_tests = 0;

// Puts the candidate list on the device.
void upload(const std::vector<unsigned>& c) {
  if (!c.empty()) CK(cudaMemcpy(g_cand, c.data(), c.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
}

// One test of x against the first n uploaded candidates: x's cycles.
long long launch_once(unsigned x, size_t n) {
  test_k<<<1, kThreads>>>(g_buf, x, g_cand, static_cast<unsigned>(n), g_cycles, g_sm);
  CK(cudaGetLastError());
  long long t = 0;
  CK(cudaMemcpy(&t, g_cycles, sizeof t, cudaMemcpyDeviceToHost));
  return t;
}

// x evicted by the lines c: at least two of three launches slow.
bool evicts(unsigned x, const std::vector<unsigned>& c) {
  ++g_tests;
  upload(c);
  int slow = 0;
  for (int r = 0; r < kReps; ++r) {
    slow += launch_once(x, c.size()) > g_threshold;
    if (slow >= 2 || slow + (kReps - 1 - r) < 2) break;  // decided
  }
  return slow >= 2;
}

std::vector<unsigned> without(const std::vector<unsigned>& c, size_t from, size_t to) {
  std::vector<unsigned> out(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(from));
  out.insert(out.end(), c.begin() + static_cast<std::ptrdiff_t>(to), c.end());
  return out;
}

// A minimal eviction set for x out of c (which must evict x), or empty.
std::vector<unsigned> reduce(unsigned x, std::vector<unsigned> c, std::mt19937& rng) {
  std::printf("SIZE start %zu\n", c.size());
  bool halved = false;
  while (c.size() > 4096) {  // halve while a half evicts
    std::shuffle(c.begin(), c.end(), rng);
    const size_t h = c.size() / 2;
    std::vector<unsigned> a(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(h));
    if (evicts(x, a)) { c.swap(a); halved = true; continue; }
    std::vector<unsigned> b(c.begin() + static_cast<std::ptrdiff_t>(h), c.end());
    if (evicts(x, b)) { c.swap(b); halved = true; continue; }
    break;
  }
  std::printf("SIZE halved %zu tests %lld\n", c.size(), g_tests);
  if (c.size() > 4096 && !halved) return c;  // no half evicts x: it is homed in the other half
  size_t groups = 128;
  int stuck = 0;
  const long long budget = g_tests + 4000;  // a target homed in the other half never reduces
  while (c.size() > groups && g_tests < budget) {
    std::shuffle(c.begin(), c.end(), rng);
    bool dropped = false;
    for (size_t g = 0; g < groups && !dropped; ++g) {
      const size_t from = c.size() * g / groups, to = c.size() * (g + 1) / groups;
      std::vector<unsigned> rest = without(c, from, to);
      if (evicts(x, rest)) { c.swap(rest); dropped = true; }
    }
    if (!dropped) {
      if (++stuck > 3) { groups *= 2; stuck = 0; }
      if (groups > 1024) break;
    }
  }
  std::printf("SIZE grouped %zu tests %lld\n", c.size(), g_tests);
  for (size_t i = 0; i < c.size() && c.size() <= 4 * groups;) {  // single lines
    std::vector<unsigned> rest = without(c, i, i + 1);
    if (evicts(x, rest)) c.swap(rest); else ++i;
  }
  std::printf("SIZE minimal %zu tests %lld\n", c.size(), g_tests);
  return c;
}

// Lines of g that share x's set (with e_less, one line short of evicting x).
void members(unsigned x, const std::vector<unsigned>& e_less, const std::vector<unsigned>& g,
             std::vector<unsigned>& found) {
  if (g.empty()) return;
  std::vector<unsigned> c = e_less;
  c.insert(c.end(), g.begin(), g.end());
  if (!evicts(x, c)) return;
  if (g.size() == 1) { found.push_back(g[0]); return; }
  const size_t h = g.size() / 2;
  members(x, e_less, std::vector<unsigned>(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(h)), found);
  members(x, e_less, std::vector<unsigned>(g.begin() + static_cast<std::ptrdiff_t>(h), g.end()), found);
}

// The cycles of each read of `lines`, in order (one launch, one thread).
// On SM `sm` when given (one block on each SM, four times over; the first
// on `sm` runs it), else in one block wherever it lands (SM 124 so far).
std::vector<unsigned> run_seq(const std::vector<unsigned>& lines, int sm = -1) {
  unsigned* cyc = nullptr;
  CK(cudaMalloc(&cyc, lines.size() * sizeof(unsigned)));
  CK(cudaMemcpy(g_cand, lines.data(), lines.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CK(cudaMemset(g_sm, 0, sizeof(unsigned)));
  static const int sms = [] {
    int n = 1;
    CK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0));
    return n;
  }();
  seq_k<<<sm < 0 ? 1 : 4 * sms, 32>>>(g_buf, g_cand, static_cast<unsigned>(lines.size()), cyc, sm, g_sm);
  CK(cudaGetLastError());
  if (sm >= 0) {
    unsigned ran = 0;
    CK(cudaMemcpy(&ran, g_sm, sizeof ran, cudaMemcpyDeviceToHost));
    if (ran != static_cast<unsigned>(sm) + 1) { std::printf("no block ran on SM %d\n", sm); std::exit(1); }
  }
  std::vector<unsigned> out(lines.size());
  CK(cudaMemcpy(out.data(), cyc, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaFree(cyc));
  return out;
}

// Home-half parity of a byte offset (l2-home-map-2026-11-30.md): bits 12,
// 13, 15, 17, 19 and every bit above 20 of the address.
int home_parity(size_t addr) {
  const size_t mask = (size_t{1} << 12) | (size_t{1} << 13) | (size_t{1} << 15) | (size_t{1} << 17) |
                      (size_t{1} << 19) | ~((size_t{1} << 21) - 1);
  return __builtin_popcountll(addr & mask) & 1;
}

// Replacement within x's set, from one thread, lines all homed in x's half
// (`same`, x first): cyclic reads of n of them (LRU misses every read once
// n > ways); then LRU against FIFO (fill, re-read the first, one new line:
// LRU evicts the second, FIFO the first).
void policy(const std::vector<unsigned>& same, size_t ways) {
  const size_t have = same.size();
  std::printf("POLICY %zu lines of x's set homed in x's half, %zu ways\n", have, ways);
  auto hit = [](unsigned c) { return static_cast<long long>(c) <= g_threshold; };
  for (size_t n : {ways / 2, ways - 1, ways, ways + 1, ways + 2, ways + 4, ways + 8, have}) {
    if (n > have || n == 0) continue;
    std::vector<unsigned> seq;
    const int rounds = 8;
    for (int r = 0; r < rounds; ++r) seq.insert(seq.end(), same.begin(), same.begin() + static_cast<std::ptrdiff_t>(n));
    const std::vector<unsigned> c = run_seq(seq);
    std::printf("CYCLIC n=%zu hits per round:", n);
    for (int r = 0; r < rounds; ++r) {
      int h = 0;
      for (size_t i = 0; i < n; ++i) h += hit(c[static_cast<size_t>(r) * n + i]);
      std::printf(" %d", h);
    }
    std::printf("  (last round cycles:");
    for (size_t i = 0; i < std::min<size_t>(n, 24); ++i) std::printf(" %u", c[(rounds - 1) * n + i]);
    std::printf(")\n");
  }
  if (have < 2 * ways + 2) return;
  // Reset: ways other lines; then a0..a(w-1), a0 again, a(w); then time a0 (trial A) or a1 (trial B).
  for (int trial = 0; trial < 2; ++trial) {
    int slow = 0;
    for (int rep = 0; rep < 5; ++rep) {
      std::vector<unsigned> seq(same.begin() + static_cast<std::ptrdiff_t>(ways + 1),
                                same.begin() + static_cast<std::ptrdiff_t>(2 * ways + 1));  // reset
      for (size_t i = 0; i < ways; ++i) seq.push_back(same[i]);
      seq.push_back(same[0]);
      seq.push_back(same[ways]);
      seq.push_back(same[static_cast<size_t>(trial)]);
      const std::vector<unsigned> c = run_seq(seq);
      slow += !hit(c.back());
    }
    std::printf("ORDER a%d missed in %d of 5 (LRU: a0 stays, a1 leaves; FIFO: a0 leaves, a1 stays)\n", trial, slow);
  }
}

// The 96 MiB pool read once from one block: every set full of pool lines.
void flush() {
  thrash_k<<<1, kThreads>>>(g_buf + kPoolStart, kPoolBytes, 1, g_sm);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

// Hits among the last k reads of a sequence.
int tail_hits(const std::vector<unsigned>& c, size_t k) {
  int h = 0;
  for (size_t i = c.size() - k; i < c.size(); ++i) h += static_cast<long long>(c[i]) <= g_threshold;
  return h;
}

// Does a line that was hit outlive one that was not? After a flush, P = 8
// lines of x's set are read (or written) once or twice, then m other lines
// of the set once (homed in x's half, or copies of lines homed in the other
// half), then P is timed newest first (LRU's survivors are the newest P
// lines, so a miss cannot push out one still to be timed). The flush
// leaves 8 pool lines older than P, so LRU keeps min(8, 16 - m) of P
// whether P was read once or twice; an RRIP policy
// (hits promoted, new lines inserted far) keeps P read twice through longer
// scans than P read once.
void scan_tests(const std::vector<unsigned>& same, const std::vector<unsigned>& copies) {
  struct Case { const char* name; int p_touches; bool p_store; bool scan_copies; bool scan_store; };
  const Case cases[] = {{"P-read2-scan-homes", 2, false, false, false},
                        {"P-read1-scan-homes", 1, false, false, false},
                        {"P-read2-scan-copies", 2, false, true, false},
                        {"P-store2-scan-homes", 2, true, false, false},
                        {"P-read2-scan-homes-stored", 2, false, false, true}};
  const size_t p = 8;
  for (const Case& cs : cases) {
    const std::vector<unsigned>& scan_from = cs.scan_copies ? copies : same;
    for (size_t m : {0, 4, 8, 9, 10, 12, 14, 16, 20, 24, 32, 40}) {
      const size_t avail = cs.scan_copies ? scan_from.size() : scan_from.size() - p;
      if (m > avail) continue;
      std::printf("SCAN %s m=%zu hits:", cs.name, m);
      for (size_t rep = 0; rep < 3; ++rep) {
        std::vector<unsigned> pl, sl;  // rotate which lines play P and the scan
        for (size_t i = 0; i < p; ++i) pl.push_back(same[(i + rep * 5) % same.size()]);
        const size_t s0 = cs.scan_copies ? rep * 3 : p;
        for (size_t i = 0; i < m; ++i) {
          const unsigned l = cs.scan_copies ? scan_from[(s0 + i) % scan_from.size()]
                                            : same[(i + rep * 5 + p) % same.size()];
          sl.push_back(l);
        }
        std::vector<unsigned> seq;
        for (int t = 0; t < cs.p_touches; ++t)
          for (unsigned l : pl) seq.push_back(cs.p_store && t == 0 ? (l | kStore4) : l);
        for (unsigned l : sl) seq.push_back(cs.scan_store ? (l | kStore4) : l);
        for (size_t i = p; i-- > 0;) seq.push_back(pl[i]);
        flush();
        std::printf(" %d", tail_hits(run_seq(seq), p));
      }
      std::printf("\n");
    }
  }
}

// Sequences for write_tests: `from` appended with an op, and appended newest first.
using V = std::vector<unsigned>;
void add(V& v, const V& from, unsigned op) { for (unsigned l : from) v.push_back(l | op); }
void newest_first(V& v, const V& from) { for (size_t i = from.size(); i-- > 0;) v.push_back(from[i]); }
// P read twice, the scan lines stored (4 bytes), a fence, P timed newest first.
V p_twice_then_stored4(const V& pl, const V& sl) {
  V v;
  add(v, pl, 0);
  add(v, pl, 0);
  add(v, sl, kStore4);
  v.push_back(kFence);
  newest_first(v, pl);
  return v;
}
// P read twice, each scan line read then stored (4 bytes), a fence, P timed newest first.
V p_twice_then_read_stored4(const V& pl, const V& sl) {
  V v;
  add(v, pl, 0);
  add(v, pl, 0);
  for (unsigned l : sl) {
    v.push_back(l);
    v.push_back(l | kStore4);
  }
  v.push_back(kFence);
  newest_first(v, pl);
  return v;
}

// Stores (mode `replacement`). Each trial: a flush, a sequence, then the
// hits among its last k reads. P: 8 lines of x's set homed in x's half;
// S: m other such lines; C: m lines of the set homed in the other half
// (copies when read from here). LRU in which every access takes a way
// and makes its line the newest keeps min(8, 16 - m) of P where m lines
// enter the set after it (scan_tests).
void write_tests(const std::vector<unsigned>& same, const std::vector<unsigned>& copies) {
  const size_t p = 8;
  struct Case {
    const char* name;
    bool scan_copies;
    std::vector<unsigned> (*build)(const std::vector<unsigned>& pl, const std::vector<unsigned>& sl);
    size_t timed;  // hits counted among the last `timed` reads
  };
  const Case cases[] = {
      // Does a store that hits make its line the newest? Read P, read S
      // (m = 8), store P, read 8 more lines (the rest of S's list), time P.
      {"store-hit-recency", false, [](const V& pl, const V& sl) {
         V v; add(v, pl, 0); V a(sl.begin(), sl.begin() + std::min<size_t>(8, sl.size())); add(v, a, 0);
         add(v, pl, kStore4); V b(sl.begin() + std::min<size_t>(8, sl.size()), sl.end()); add(v, b, 0);
         newest_first(v, pl); return v; }, 8},
      {"scan-store4-fence", false, p_twice_then_stored4, 8},
      {"scan-store128", false, [](const V& pl, const V& sl) {
         V v; add(v, pl, 0); add(v, pl, 0); add(v, sl, kStore128); v.push_back(kFence); newest_first(v, pl); return v; }, 8},
      {"scan-read-store4", false, p_twice_then_read_stored4, 8},
      {"stored-then-read-back", false, [](const V&, const V& sl) {
         V v; add(v, sl, kStore4); v.push_back(kFence); newest_first(v, sl); return v; }, 0},
      {"copies-store4", true, p_twice_then_stored4, 8},
      {"copies-read-store4", true, p_twice_then_read_stored4, 8},
      {"copies-read-store4-read", true, [](const V& pl, const V& sl) {
         V v; add(v, pl, 0); add(v, pl, 0);
         for (unsigned l : sl) { v.push_back(l); v.push_back(l | kStore4); v.push_back(kFence); v.push_back(l); }
         newest_first(v, pl); return v; }, 8},
      {"copies-read-store4-then-time-copies", true, [](const V&, const V& sl) {
         V v; for (unsigned l : sl) { v.push_back(l); v.push_back(l | kStore4); }
         v.push_back(kFence); newest_first(v, sl); return v; }, 0},
  };
  for (const Case& cs : cases) {
    for (size_t m : {4, 8, 12, 16, 20, 24, 32}) {
      const size_t avail = cs.scan_copies ? copies.size() : same.size() - p;
      if (m > avail) continue;
      const size_t timed = cs.timed ? cs.timed : m;
      std::printf("WRITE %s m=%zu hits of %zu:", cs.name, m, timed);
      for (size_t rep = 0; rep < 3; ++rep) {
        V pl, sl;
        for (size_t i = 0; i < p; ++i) pl.push_back(same[(i + rep * 5) % same.size()]);
        for (size_t i = 0; i < m; ++i)
          sl.push_back(cs.scan_copies ? copies[(rep * 3 + i) % copies.size()] : same[(i + rep * 5 + p) % same.size()]);
        flush();
        std::printf(" %d", tail_hits(run_seq(cs.build(pl, sl)), timed));
      }
      std::printf("\n");
    }
  }
}

// The other half (mode `replacement`), from SM `far_sm` in it (SM 6 on
// the H200s measured: h200-2026-11-30-sm-map.txt). HALFSET: are the lines
// of x's set homed in the other half a set there too? y, one of them, then
// 15 or 16 more of them (or 16 lines at 4 KiB steps from y, homed with y:
// a control), all from far_sm, then y timed: evicted means one set.
// HALFCOPY: the same with 16 lines homed in x's half (copies there).
// REMOTE: does a read from the other half make a line the newest at home?
// From x's half read P, then Q (8 lines each); from far_sm read P (or
// nothing, or P again from x's half); from x's half read 8 more; time P.
// LRU that counts the remote read: 8 hits; one that does not: 0.
// REMOTEFILL and FARHIT: below.
void half_tests(const std::vector<unsigned>& same, const std::vector<unsigned>& copies, int far_sm) {
  if (copies.size() < 20 || same.size() < 24) return;
  auto evicted = [&](const V& others, int sm, unsigned y) {
    int slow = 0;
    for (int rep = 0; rep < 3; ++rep) {
      flush();
      V seq{y};
      seq.insert(seq.end(), others.begin(), others.end());
      seq.push_back(y);
      slow += static_cast<long long>(run_seq(seq, sm).back()) > g_threshold;
    }
    return slow;
  };
  for (int k = 0; k < 3; ++k) {
    const unsigned y = copies[static_cast<size_t>(k)];
    V set16, set15, control, homes16;
    for (size_t i = 0; set16.size() < 16; ++i)
      if (copies[(k + 1 + i) % copies.size()] != y) set16.push_back(copies[(k + 1 + i) % copies.size()]);
    set15.assign(set16.begin(), set16.begin() + 15);
    for (unsigned step = 1; control.size() < 16; ++step) {
      const unsigned l = y + step * 32;  // 4 KiB steps
      if (home_parity(size_t{l} * kLine) == home_parity(size_t{y} * kLine)) control.push_back(l);
    }
    homes16.assign(same.begin(), same.begin() + 16);
    std::printf("HALFSET y=0x%zx from SM %d: evicted in 3 tries by 16 of its set %d, 15 %d, 16 at 4 KiB steps %d\n",
                size_t{y} * kLine, far_sm, evicted(set16, far_sm, y), evicted(set15, far_sm, y),
                evicted(control, far_sm, y));
    std::printf("HALFCOPY y=0x%zx from SM %d: evicted in 3 tries by 16 lines of the set homed in x's half %d\n",
                size_t{y} * kLine, far_sm, evicted(homes16, far_sm, y));
  }
  const V pl(same.begin(), same.begin() + 8), ql(same.begin() + 8, same.begin() + 16),
      rl(same.begin() + 16, same.begin() + 24);
  const char* names[] = {"P read from the other half", "nothing", "P read again from x's half"};
  for (int variant = 0; variant < 3; ++variant) {
    std::printf("REMOTE %s: hits of P:", names[variant]);
    for (int rep = 0; rep < 3; ++rep) {
      flush();
      V first = pl;
      first.insert(first.end(), ql.begin(), ql.end());
      run_seq(first);
      if (variant == 0) run_seq(pl, far_sm);
      if (variant == 2) run_seq(pl);
      V last = rl;
      newest_first(last, pl);
      std::printf(" %d", tail_hits(run_seq(last), 8));
    }
    std::printf("\n");
  }
  // REMOTEFILL: where does a line read from the other half, missing in
  // both, go at home? (a) From x's half read Q; from far_sm read P (from
  // DRAM); from x's half read 8 more; time P. (b) From far_sm read P; from
  // x's half time P. (c) From far_sm read P, then time P there (its
  // copies). Newest at home: (a) 8, (b) 8; oldest: (a) 0, (b) 1; not at all: 0, 0.
  // FARHIT: does a read that finds its line at home in the other half
  // leave a copy here? C: 8 lines of x's set homed in the other half. (a)
  // From far_sm read C (their homes); from here read C twice, timing both
  // (far hits, then near hits if copies were made). (b) From here read C
  // twice (from DRAM: copies made, as SCAN found). Cycles of each read.
  const V cl(copies.begin(), copies.begin() + 8);
  for (int variant = 0; variant < 2; ++variant) {
    flush();
    if (variant == 0) run_seq(cl, far_sm);
    V twice = cl;
    twice.insert(twice.end(), cl.begin(), cl.end());
    const std::vector<unsigned> c = run_seq(twice);
    std::printf("FARHIT (%c) %s: first reads", variant == 0 ? 'a' : 'b',
                variant == 0 ? "C there, C here twice" : "C here twice");
    for (size_t i = 0; i < 8; ++i) std::printf(" %u", c[i]);
    std::printf("; second reads");
    for (size_t i = 8; i < 16; ++i) std::printf(" %u", c[i]);
    std::printf("; hits of the second %d\n", tail_hits(c, 8));
  }
  const char* fills[] = {"(a) Q here, P there, 8 more here, P here", "(b) P there, P here", "(c) P there, P there"};
  for (int variant = 0; variant < 3; ++variant) {
    std::printf("REMOTEFILL %s: hits of P:", fills[variant]);
    for (int rep = 0; rep < 3; ++rep) {
      flush();
      if (variant == 0) run_seq(ql);
      run_seq(pl, far_sm);
      V last;
      if (variant == 0) last = rl;
      newest_first(last, pl);
      std::printf(" %d", tail_hits(run_seq(last, variant == 2 ? far_sm : -1), 8));
    }
    std::printf("\n");
  }
}

// Does the policy change when the whole L2 thrashes? Cyclic reads of n
// lines of x's set, 16 rounds, after a flush; then after every SM re-read
// the 96 MiB pool 8 times (thrash_k, one block an SM); then the first
// scan case again.
void thrash_tests(const std::vector<unsigned>& same, int sms) {
  auto cyclic = [&](size_t n, const char* when) {
    if (n > same.size()) return;
    std::vector<unsigned> seq;
    const int rounds = 16;
    for (int r = 0; r < rounds; ++r) seq.insert(seq.end(), same.begin(), same.begin() + static_cast<std::ptrdiff_t>(n));
    const std::vector<unsigned> c = run_seq(seq);
    std::printf("THRASH %s cyclic n=%zu hits per round:", when, n);
    for (int r = 0; r < rounds; ++r) {
      int h = 0;
      for (size_t i = 0; i < n; ++i) h += static_cast<long long>(c[static_cast<size_t>(r) * n + i]) <= g_threshold;
      std::printf(" %d", h);
    }
    std::printf("\n");
  };
  for (size_t n : {17, 18, 20, 24, 32}) { flush(); cyclic(n, "quiet"); }
  for (size_t n : {17, 18, 20, 24, 32}) {
    thrash_k<<<sms, kThreads>>>(g_buf + kPoolStart, kPoolBytes, 8, g_sm);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cyclic(n, "after-thrash");
  }
}

// Mode `window`: the stride probe's one run and strided halves, re-read 4
// times by one block an SM, on the very window whose sets were sampled
// (offset 0 of this buffer), so that a model fed those sets can be checked
// against DRAM bytes measured there. Not under ncu: ncu's own allocations
// move the buffer to other pages (under ncu target 0 no longer reduced).
// The DRAM bytes come from fasim's CUPTI range profiler instead, which
// starts after the buffer is placed: one range a flush (the pool, twice,
// by every SM) and the first k passes, k = 0 to 4; pass k's bytes are the
// difference of ranges k and k - 1. WINDOW gives them; DRIFT how far the
// blocks drift apart in each pass (an unprofiled run); BLOCKS each block's SM.
void window_rereads(int sms) {
#ifdef EVSET_CUPTI
  CK(cudaFuncSetAttribute(reread_k, cudaFuncAttributeMaxDynamicSharedMemorySize, kOneBlockAnSm));
  unsigned* sm_of_block = nullptr;
  unsigned long long* span = nullptr;
  CK(cudaMalloc(&sm_of_block, static_cast<size_t>(sms) * sizeof(unsigned)));
  CK(cudaMalloc(&span, 2 * static_cast<size_t>(sms) * sizeof(unsigned long long)));
  for (int f : {32, 36, 40})
    for (int bit : {0, 14, 16, 21, 22}) {
      const size_t per = static_cast<size_t>(f) * kMiB / kUnit / static_cast<size_t>(sms);
      std::vector<double> upto;  // DRAM bytes read by the flush and the first k passes
      for (int k = 0; k <= 4; ++k)
        upto.push_back(dram_read_bytes_of([&] {
          thrash_k<<<sms, kThreads>>>(g_buf + kPoolStart, kPoolBytes, 2, g_sm);
          for (int pass = 1; pass <= k; ++pass) reread_k<<<sms, 256, kOneBlockAnSm>>>(g_buf, per, bit, sm_of_block);
        }));
      std::printf("WINDOW F%d b%d DRAM MB read a pass:", f, bit);
      for (int k = 1; k <= 4; ++k) std::printf(" %.2f", (upto[static_cast<size_t>(k)] - upto[static_cast<size_t>(k) - 1]) / 1e6);
      std::printf("  (flush %.1f)\n", upto[0] / 1e6);
      // The same once more, unprofiled, each block's start and end noted:
      // how far the blocks drift apart within a pass.
      thrash_k<<<sms, kThreads>>>(g_buf + kPoolStart, kPoolBytes, 2, g_sm);
      for (int pass = 1; pass <= 4; ++pass) {
        reread_k<<<sms, 256, kOneBlockAnSm>>>(g_buf, per, bit, sm_of_block, span);
        CK(cudaGetLastError());
        std::vector<unsigned long long> t(2 * static_cast<size_t>(sms));
        CK(cudaMemcpy(t.data(), span, t.size() * sizeof(t[0]), cudaMemcpyDeviceToHost));
        const unsigned long long first = *std::min_element(t.begin(), t.end());
        double mean = 0, var = 0, last_start = 0;
        for (int b = 0; b < sms; ++b) {
          mean += static_cast<double>(t[2 * b + 1] - t[2 * b]) / sms;
          last_start = std::max(last_start, static_cast<double>(t[2 * b] - first));
        }
        for (int b = 0; b < sms; ++b) {
          const double dur = static_cast<double>(t[2 * b + 1] - t[2 * b]);
          var += (dur - mean) * (dur - mean) / sms;
        }
        std::printf("DRIFT W/F%d/b%d pass %d: a block's time %.1f us mean, sd %.1f us (%.3f of the mean); "
                    "last block started %.1f us after the first\n",
                    f, bit, pass, mean / 1e3, std::sqrt(var) / 1e3, std::sqrt(var) / mean, last_start / 1e3);
      }
      std::vector<unsigned> at(static_cast<size_t>(sms));
      CK(cudaMemcpy(at.data(), sm_of_block, at.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
      std::printf("BLOCKS W/F%d/b%d:", f, bit);
      for (unsigned a : at) std::printf(" %u", a);
      std::printf("\n");
    }
  CK(cudaFree(sm_of_block));
  CK(cudaFree(span));
#else
  (void)sms;
  std::printf("WINDOW: built without EVSET_CUPTI; no re-reads\n");
#endif
}

// Rank over GF(2) of the differences (as line numbers).
int rank2(std::vector<unsigned> v) {
  int r = 0;
  for (int bit = 31; bit >= 0; --bit) {
    auto it = std::find_if(v.begin() + r, v.end(), [bit](unsigned a) { return (a >> bit) & 1u; });
    if (it == v.end()) continue;
    std::swap(*it, v[static_cast<size_t>(r)]);
    for (size_t i = 0; i < v.size(); ++i)
      if (i != static_cast<size_t>(r) && ((v[i] >> bit) & 1u)) v[i] ^= v[static_cast<size_t>(r)];
    ++r;
  }
  return r;
}
}  // namespace

int main(int argc, char** argv) {
  const int targets = argc > 1 ? std::atoi(argv[1]) : 3;
  // `sets`: targets at random in the first 64 MiB, only their sets (no
  // bits, evenness or replacement tests): a sample of sets.
  const bool sample = argc > 2 && std::string(argv[2]) == "sets";
  // `replacement`: each target's set as without a mode, then the scan and
  // thrash tests of the replacement policy (scan_tests, thrash_tests).
  const bool replacement = argc > 2 && std::string(argv[2]) == "replacement";
  // `window`: the targets' sets as without a mode (so the output shows the
  // window maps as before), then window_rereads.
  const bool window = argc > 2 && std::string(argv[2]) == "window";
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time: a run cut short keeps what it found
  CK(cudaMalloc(&g_buf, kBuffer));
  CK(cudaMemset(g_buf, 0, kBuffer));
  CK(cudaMalloc(&g_cand, (kBuffer / kLine) * sizeof(unsigned)));
  CK(cudaMalloc(&g_cycles, sizeof(long long)));
  CK(cudaMalloc(&g_sm, sizeof(unsigned)));
  CK(cudaDeviceSynchronize());
  std::printf("BUF va=%p\n", static_cast<void*>(g_buf));

  // Calibration: hits (x just read, nothing after) and x read again after
  // the 96 MiB pool (from DRAM).
  std::vector<long long> hit, cold;
  const unsigned cold0 = static_cast<unsigned>((900 * kMiB) / kLine);
  for (int i = 0; i < 64; ++i) hit.push_back(launch_once(static_cast<unsigned>(i * 977), 0));
  // Evicted: x read, then the whole 96 MiB pool, then x timed.
  std::vector<unsigned> pool;
  for (size_t off = kPoolStart; off < kPoolStart + kPoolBytes; off += kLine)
    pool.push_back(static_cast<unsigned>(off / kLine));
  upload(pool);
  for (int i = 0; i < 16; ++i) cold.push_back(launch_once(cold0 + static_cast<unsigned>(i) * 977u, pool.size()));
  std::sort(hit.begin(), hit.end());
  std::sort(cold.begin(), cold.end());
  unsigned sm = 0;
  CK(cudaMemcpy(&sm, g_sm, sizeof sm, cudaMemcpyDeviceToHost));
  // DRAM reads take 460 cycles and up (an open HBM page) to over 1000: a
  // threshold halfway to the median DRAM read would call the quick ones hits.
  g_threshold = hit.back() + (cold.front() - hit.back()) / 3;
  std::printf("CAL sm=%u hit min %lld median %lld max %lld; "
              "evicted by 96 MiB: min %lld median %lld max %lld; threshold %lld\n",
              sm, hit.front(), hit[hit.size() / 2], hit.back(), cold.front(), cold[cold.size() / 2], cold.back(),
              g_threshold);

  std::mt19937 rng(12345);
  for (int t = 0; t < targets; ++t) {
    // Targets in the first 128 MiB, each homed where line 0 is (a line homed
    // in the other half is evicted only from both; the pool cannot be halved).
    size_t xoff = t == 0 ? 0 : t == 1 ? 0x3000 : (static_cast<size_t>(t) * 1234567 % (kMemberRegion / kLine)) * kLine;
    if (sample) xoff = (rng() % (64 * kMiB / kLine)) * kLine;
    if (home_parity(xoff) != home_parity(0)) xoff ^= 4096;
    const unsigned x = static_cast<unsigned>(xoff / kLine);
    const long long tests0 = g_tests;
    std::printf("TARGET %d x=0x%zx\n", t, xoff);
    if (!evicts(x, pool)) { std::printf("TARGET %d: the 96 MiB pool does not evict x; skipped\n", t); continue; }
    std::vector<unsigned> e = reduce(x, pool, rng);
    if (e.size() > 64) {  // no minimal set: every line would pass as a member below
      std::printf("E %zu lines: not minimal (x is probably homed in the other half); skipped\n", e.size());
      continue;
    }
    std::printf("E %zu lines:", e.size());
    std::vector<unsigned> sorted = e;
    std::sort(sorted.begin(), sorted.end());
    for (unsigned l : sorted) std::printf(" 0x%zx", size_t{l} * kLine);
    std::printf("\n");
    if (e.empty() || !evicts(x, e)) { std::printf("E does not evict x again; skipped\n"); continue; }
    int kept = 0;  // E less one line should not evict
    for (size_t i = 0; i < std::min<size_t>(e.size(), 8); ++i) kept += !evicts(x, without(e, i, i + 1));
    std::printf("CHECK E evicts; E less one line keeps x in %d of %zu tries\n", kept, std::min<size_t>(e.size(), 8));
    const std::vector<unsigned> e_less = without(e, 0, 1);
    // Every line of the 128 MiB around x but x and E less one.
    std::vector<unsigned> region;
    const unsigned r0 = static_cast<unsigned>((xoff / kMemberRegion) * kMemberRegion / kLine);
    for (unsigned l = r0; l < r0 + kMemberRegion / kLine; ++l)
      if (l != x && std::find(e_less.begin(), e_less.end(), l) == e_less.end()) region.push_back(l);
    std::vector<unsigned> found;
    members(x, e_less, region, found);
    std::sort(found.begin(), found.end());
    std::vector<unsigned> diffs;
    for (unsigned l : found) {
      diffs.push_back(l ^ x);
      std::printf("MEMBER 0x%zx diff 0x%zx\n", size_t{l} * kLine, size_t{l ^ x} * kLine);
    }
    // Closed under XOR? Every pair's XOR (as a difference) should be a member too.
    size_t pairs = 0, closed = 0;
    for (size_t i = 0; i < diffs.size(); ++i)
      for (size_t j = i + 1; j < diffs.size(); ++j) {
        ++pairs;
        closed += std::find(diffs.begin(), diffs.end(), diffs[i] ^ diffs[j]) != diffs.end();
      }
    std::printf("LINEAR pairs %zu closed %zu rank %d\n", pairs, closed, rank2(diffs));
    if (sample) {
      std::printf("TARGET %d done: %zu ways, %zu members in 128 MiB, %lld tests\n", t, e.size(), found.size(),
                  g_tests - tests0);
      continue;
    }
    // Single-bit differences beyond the region: x ^ 2^b lines for b = 27..29.
    for (int b = 27; b < 30; ++b) {
      const unsigned y = x ^ static_cast<unsigned>((size_t{1} << b) / kLine);
      std::vector<unsigned> c = e_less;
      c.push_back(y);
      std::printf("BITS bit %d same set %d\n", b, evicts(x, c) ? 1 : 0);
    }
    std::printf("TARGET %d done: %zu ways, %zu members in 128 MiB, %lld tests\n", t, e.size(), found.size(),
                g_tests - tests0);
    // How evenly x's set takes the lines of a run: members homed in x's half
    // per window of w bytes (a hash that spreads runs evenly: the same count
    // in every window; random: Poisson, variance = mean).
    for (size_t w : {2 * kMiB, 4 * kMiB, 8 * kMiB, 16 * kMiB, 32 * kMiB}) {
      std::vector<int> per(kMemberRegion / w, 0);
      for (unsigned l : found)
        if (home_parity(size_t{l} * kLine) == home_parity(xoff)) ++per[(size_t{l} * kLine % kMemberRegion) / w];
      ++per[(xoff % kMemberRegion) / w];  // x itself
      double m = 0, v = 0;
      for (int c : per) m += c;
      m /= static_cast<double>(per.size());
      for (int c : per) v += (c - m) * (c - m);
      v /= static_cast<double>(per.size());
      std::printf("EVEN window %zu MiB: mean %.2f variance %.2f counts", w / kMiB, m, v);
      for (int c : per) std::printf(" %d", c);
      std::printf("\n");
    }
    std::vector<unsigned> same{x};  // x's set, homed in x's half
    for (unsigned l : e) found.push_back(l);
    for (unsigned l : found)
      if (home_parity(size_t{l} * kLine) == home_parity(xoff)) same.push_back(l);
    policy(same, e.size());
    if (!replacement) continue;
    std::vector<unsigned> copies;  // x's set's lines homed in the other half (copies here)
    for (unsigned l : found)
      if (home_parity(size_t{l} * kLine) != home_parity(xoff)) copies.push_back(l);
    std::printf("REPLACEMENT %zu homes, %zu copies\n", same.size(), copies.size());
    scan_tests(same, copies);
    write_tests(same, copies);
    half_tests(same, copies, 6);
    thrash_tests(same, sms);
  }
  if (window) window_rereads(sms);
  return 0;
}
