// A line-level L2 on the evset probe's facts (2026-11-30, 2026-12-01): two
// halves of 30 MiB, each 16-way (or WAYS) LRU sets of 128-byte lines; a
// line's home half by the measured XOR hash (l2-home-map-2026-11-30.md); a
// read from the far half looks for a copy in the near half, then the home,
// and the near half keeps a copy (as fasim's PartitionedL2, and as measured:
// l2-window-2026-12-01.md); writes go home, dirty, and leave a clean copy
// near (lru_halves.hpp). The set index, one of four:
//   r  a random hash of the line (the model's assumption, per line);
//   m  the line's rank among its half's lines, modulo the sets (a run
//      fills every set in turn: perfectly even);
//   p  as m within each 2 MiB page, each page at a random rotation;
//   s  (2026-12-01) the sets the evset probe found, as measured: the 521
//      sets of h200-2026-11-30-l2-evset-sets*.txt (535 targets), each with
//      every line of the probe's first 128 MiB that falls in it (homes and
//      copies). Only lines in those sets are simulated, both halves holding
//      the same 521 sets (one index for both halves, measured), and DRAM
//      bytes are scaled by 15,360 / 521. The buffers lie in the 128 MiB,
//      one after the other on 2 MiB pages, in an order each seed shuffles.
// Else each buffer starts at a random 2 MiB page.
// Blocks drift apart (J=x, default 0: lock step; drift_order).
// What it runs:
//   stride            the stride probe (l2-stride-2026-11-30.md): 132 blocks
//                     re-read F = 32 or 40 MiB, one run, every other 2^b bytes,
//                     or a random half; DRAM MB of passes 2 to 4 (3 seeds)
//   window FILE       the window probe's re-reads (h200-2026-12-01-l2-window.txt),
//                     against its DRAM bytes, pass by pass (index s)
//   NAME FILE.csv     the flash1-pattern recordings whose name holds NAME,
//                     each on its call's SM map when one lies beside it
//   point TOML ALGO DTYPE HEADS N d BR BC [BLOCKS_PER_SM]
//                     fasim's own Simulation of one recorded point, as
//                     `fasim compare --recorded` runs it, its loads and stores
//                     fed to the line-level L2 in fasim's order (index s;
//                     SEEDS=n layouts, SMMAP=dealt|measured|gpu|gpu-shifted,
//                     DRIFT=J: each block at its own pace, 1 + J z)
// Session 60 (l2-lines-2026-12-01.md), in the environment: DIRTY=k, at most
// k dirty lines a set (the least recently written goes back, stays clean);
// CLEANAT=k, a line written again while held goes back early at way k and
// stays, clean (15: fasim's LineL2); PERTENSOR=1, each tensor's sampled
// lines stand for its own lines (point mode) instead of 15,360 / 521.
// ALL=1 (point mode): print every layout's DRAM MB read and their mean.
// Build (from the repository root, after the CPU build; lru_halves.hpp and replay_point.hpp beside it):
//   g++ -std=c++20 -O2 -I sim/include -I /usr/include/eigen3 docs/results/l2-line-sim-2026-11-30.cpp
//       build/default/sim/libfasim_sim.a -ltomlplusplus -o line-sim   (one line)
// Run:  ./line-sim s 16 window docs/results/h200-2026-12-01-l2-window.txt J=0.15
//       ./line-sim s 16 / docs/results/h200-2026-11-30-flash1-pattern-parts.csv J=0.15
//       ./line-sim s 16 point docs/results/h200-2026-11-22-measured.toml flash1 fp16 132 512 128 64 64
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/l2_flash1_pattern.hpp"
#include "fasim/l2_probes.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/simulation.hpp"
#include "lru_halves.hpp"
#include "replay_point.hpp"
using namespace fasim;
static char g_mode = 'm';
static int g_ways = 16;
// Blocks drift apart (2026-12-01): each pass, block b runs at 1 + J z_b of
// the common speed (z_b normal), and its accesses are played in the order
// of their times. J = 0: lock step, every block's k-th step before any
// (k+1)-th. The window probe measured the blocks' spread: a standard
// deviation of 1% of a pass without misses, 5 to 30% with them.
static double g_jitter = 0;

// Step k of block b at time (k + 1/2) speed_b; the (step, block) pairs in
// the order they run.
std::vector<std::pair<u64, int>> drift_order(u64 steps, int blocks, std::mt19937_64& r) {
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<double> speed(blocks);
  for (double& v : speed) v = 1.0 + g_jitter * z(r);
  std::vector<std::pair<double, std::pair<u64, int>>> t;
  for (u64 k = 0; k < steps; ++k)
    for (int b = 0; b < blocks; ++b) t.push_back({(k + 0.5) * speed[b], {k, b}});
  std::stable_sort(t.begin(), t.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::pair<u64, int>> out;
  for (const auto& e : t) out.push_back(e.second);
  return out;
}

// Mode s: the measured sets, line number -> set (0 .. g_sampled_sets - 1).
static std::unordered_map<u64, u64> g_sample;
static u64 g_sampled_sets = 0;
constexpr u64 kHalfSets = 15360, kWindow = 128ull << 20;

// Reads the evset probe's sets (TARGET x, then its MEMBER lines, kept once
// the target is done; a target found twice, or a set met again through
// another target, counts once).
void read_sample(const std::vector<std::string>& paths) {
  const std::regex target(R"(TARGET \d+ x=(0x[0-9a-f]+))"), member(R"(MEMBER (0x[0-9a-f]+))");
  for (const std::string& path : paths) {
    std::string text;
    if (path.ends_with(".gz")) {
      FILE* f = popen(("gzip -dc " + path).c_str(), "r");
      char buf[1 << 16];
      for (size_t k; f && (k = fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, k);
      if (f) pclose(f);
    } else {
      std::ifstream in(path);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    std::istringstream in(text);
    std::vector<u64> cur;
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, target)) {
        cur = {std::stoull(m[1], nullptr, 16) / 128};
      } else if (std::regex_search(line, m, member)) {
        cur.push_back(std::stoull(m[1], nullptr, 16) / 128);
      } else if (line.find(" done: ") != std::string::npos && !cur.empty()) {
        u64 id = g_sampled_sets;
        for (u64 l : cur)
          if (auto it = g_sample.find(l); it != g_sample.end()) id = it->second;  // met before
        if (id == g_sampled_sets) ++g_sampled_sets;
        for (u64 l : cur) g_sample[l] = id;
        cur.clear();
      }
    }
  }
  std::fprintf(stderr, "sample: %llu sets, %zu lines\n", static_cast<unsigned long long>(g_sampled_sets),
               g_sample.size());
}
bool simulated(u64 a) { return g_mode != 's' || g_sample.count(a / 128) > 0; }
double scale() { return g_mode == 's' ? double(kHalfSets) / double(g_sampled_sets) : 1.0; }

// Home half: the measured XOR hash; set: one of the guesses (g_mode).
struct GuessIndex {
  u64 salt;
  int home(u64 a) const {
    const u64 mask = (1ull << 12) | (1ull << 13) | (1ull << 15) | (1ull << 17) | (1ull << 19) | ~((1ull << 21) - 1);
    return __builtin_popcountll(a & mask) & 1;
  }
  u64 set(u64 a, int half, u64 sets) const {
    const u64 line = a >> 7;
    if (g_mode == 'r') return mix((line * 2 + half) ^ salt) % sets;
    if (g_mode == 's') return g_sample.at(line);
    const u64 idx = ((a >> 13) << 5) | (line & 31);  // a line's rank among its half's lines (every 8 KiB splits in two)
    if (g_mode == 'm') return idx % sets;
    return (idx + mix((a >> 21) ^ salt)) % sets;  // 'p': as m within 2 MiB pages, pages at random rotations
  }
};
struct L2 : LruHalves<GuessIndex> {
  // Mode s: only the sampled sets, in each half.
  L2(u64 bytes, u64 seed)
      : LruHalves(g_mode == 's' ? 2 * g_sampled_sets * g_ways * 128 : bytes, g_ways, GuessIndex{mix(seed)}) {
    const int dm = getenv("DIRTY") ? std::atoi(getenv("DIRTY")) : 0;
    p[0].dirty_max = p[1].dirty_max = dm;
    p[0].clean_at = p[1].clean_at = getenv("CLEANAT") ? std::atoi(getenv("CLEANAT")) : 0;
  }
};
constexpr u64 MiB = 1ull << 20, Page = 2 * MiB;
// Where buffers start: a random 2 MiB page; in mode s, `lay` places them
// in the sampled window instead.
struct Rng {
  std::mt19937_64 r;
  u64 base() { return (r() % (1 << 16)) * Page; }
  // Mode s: buffers of these sizes one after the other on 2 MiB pages from
  // 0, in a shuffled order; their starts, in the order given.
  std::vector<u64> lay(const std::vector<u64>& bytes) {
    std::vector<size_t> order(bytes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), r);
    std::vector<u64> at(bytes.size());
    u64 next = 0;
    for (size_t i : order) { at[i] = next; next += (bytes[i] + Page - 1) / Page * Page; }
    if (next > kWindow) { std::fprintf(stderr, "mode s: the buffers need %llu MiB, past the 128 MiB sampled\n", static_cast<unsigned long long>(next / MiB)); std::exit(2); }
    return at;
  }
};

// flash1 pattern: blocks in lock step per op. Returns MB read per pass.
std::vector<double> flash1(const Flash1Pattern& p, const std::vector<int>& half_of_block, u64 seed) {
  Rng rg{std::mt19937_64(seed)};
  L2 l2(60 * MiB, seed + 1);
  const int heads = static_cast<int>(half_of_block.size());
  const u64 n = p.n, d = p.d, row = d * 2, head = n * row;
  u64 Q = rg.base(), O = rg.base(), K = rg.base(), V = rg.base(), L = rg.base(), M = rg.base();
  if (g_mode == 's') {
    const u64 t = heads * head, lm = heads * n * 4;
    const std::vector<u64> at = rg.lay({t, t, t, t, lm, lm});
    Q = at[0]; O = at[1]; K = at[2]; V = at[3]; L = at[4]; M = at[5];
  }
  std::vector<double> per;
  struct Op { u64 buf, off, bytes; bool w; };
  for (u64 c0 = 0; c0 < n; c0 += p.bc) {
    long rd = 0;
    std::vector<std::vector<Op>> steps(1);  // this pass, step by step, the same for every head: K_j and V_j, then row blocks
    const u64 cols = std::min<u64>(p.bc, n - c0);
    if (p.kv) { steps[0].push_back({K, c0 * row, cols * row, false}); if (p.read_v) steps[0].push_back({V, c0 * row, cols * row, false}); }
    for (u64 r0 = 0; r0 < n; r0 += p.br) {
      const u64 rows = std::min<u64>(p.br, n - r0);
      std::vector<Op> st{{Q, r0 * row, rows * row, false}};
      if (c0 > 0) {
        st.push_back({O, r0 * row, rows * row, false});
        if (p.lm) { st.push_back({L, r0 * 4, rows * 4, false}); st.push_back({M, r0 * 4, rows * 4, false}); }
      }
      if (p.write) {
        st.push_back({O, r0 * row, rows * row, true});
        if (p.lm && p.lm_write) { st.push_back({L, r0 * 4, rows * 4, true}); st.push_back({M, r0 * 4, rows * 4, true}); }
      }
      steps.push_back(st);
    }
    for (const auto& [k, b] : drift_order(steps.size(), heads, rg.r))
      for (const Op& o : steps[k]) {
        const u64 a0 = o.buf + b * (o.buf == L || o.buf == M ? n * 4 : head) + o.off;
        for (u64 a = a0 & ~127ull; a < a0 + o.bytes; a += 128) {
          if (!simulated(a)) continue;
          if (o.w) l2.write(a, half_of_block[b]);
          else rd += l2.read(a, half_of_block[b]);
        }
      }
    per.push_back(rd * 128 / 1e6 * scale());
  }
  return per;
}

// stride probe: 132 blocks re-read their share of a subset of 4 KiB units, 4 passes; MB of passes 2-4
// (`per_pass`: each pass's). half_of_block: the half next to each block's SM.
double stride(int fmib, int bit, u64 rmask, u64 seed, const std::vector<int>& half_of_block,
              std::vector<double>* per_pass = nullptr) {
  Rng rg{std::mt19937_64(seed)};
  L2 l2(60 * MiB, seed + 1);
  const u64 P = g_mode == 's' ? rg.lay({2 * u64(fmib) * MiB})[0] : rg.base();
  std::vector<u64> units;  // 4 KiB units of the footprint
  const u64 want = u64(fmib) * MiB / 4096;
  if (bit == 0 && rmask == 0) { for (u64 u = 0; u < want; ++u) units.push_back(u); }
  else if (rmask == 0) { for (u64 u = 0; units.size() < want; ++u) if (!(((u * 4096) >> bit) & 1)) units.push_back(u); }
  else { for (u64 u = 0; u < 2 * want; ++u) if (mix(u ^ rmask) & 1) units.push_back(u); }
  const int blocks = 132; const u64 share = units.size() / blocks;
  double after1 = 0;
  for (int pass = 0; pass < 4; ++pass) {
    long rd = 0;
    for (const auto& [k, b] : drift_order(share, blocks, rg.r)) {
      const u64 a0 = P + units[b * share + k] * 4096;
      for (u64 a = a0; a < a0 + 4096; a += 128)
        if (simulated(a)) rd += l2.read(a, half_of_block[b]);
    }
    if (per_pass) per_pass->push_back(rd * 128 / 1e6 * scale());
    if (pass > 0) after1 += rd * 128 / 1e6 * scale();
  }
  return after1;
}

// The window probe's re-reads (h200-2026-12-01-l2-window.txt, mode s): the
// GPU's DRAM MB a pass (WINDOW) against the simulation's, the blocks on the
// SMs the probe's BLOCKS line gives.
int window(const std::string& path, const std::vector<int>& half) {
  std::ifstream in(path);
  if (!in) { std::fprintf(stderr, "cannot read %s\n", path.c_str()); return 2; }
  const std::regex measured(R"(^WINDOW F(\d+) b(\d+) DRAM MB read a pass: (\S+) (\S+) (\S+) (\S+))");
  const std::regex blocks(R"(^BLOCKS W/F(\d+)/b(\d+):(.*))");
  std::vector<std::array<double, 4>> gpu;
  std::vector<std::pair<int, int>> cfg;
  std::vector<std::vector<int>> hb;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, measured)) {
      cfg.push_back({std::stoi(m[1]), std::stoi(m[2])});
      gpu.push_back({std::stod(m[3]), std::stod(m[4]), std::stod(m[5]), std::stod(m[6])});
    } else if (std::regex_search(line, m, blocks)) {
      std::istringstream sms(m[3].str());
      std::vector<int> h;
      for (int sm; sms >> sm;) h.push_back(half.at(static_cast<size_t>(sm)));
      hb.push_back(h);
    }
  }
  if (cfg.empty() || hb.size() != cfg.size()) { std::fprintf(stderr, "%s: no WINDOW and BLOCKS pairs\n", path.c_str()); return 2; }
  std::printf("window re-reads, DRAM MB of passes 2 to 4 (each pass), jitter %.2f:\n", g_jitter);
  for (size_t i = 0; i < cfg.size(); ++i) {
    std::vector<double> tot, per0;
    for (u64 seed = 1; seed <= 3; ++seed) tot.push_back(stride(cfg[i].first, cfg[i].second, 0, seed, hb[i], seed == 1 ? &per0 : nullptr));
    std::sort(tot.begin(), tot.end());
    std::printf("F%d b%-2d GPU %5.1f (%.1f %.1f %.1f)  sim %5.1f (%.1f-%.1f; seed 1: %.1f %.1f %.1f)\n", cfg[i].first,
                cfg[i].second, gpu[i][1] + gpu[i][2] + gpu[i][3], gpu[i][1], gpu[i][2], gpu[i][3], tot[1], tot[0], tot[2],
                per0[1], per0[2], per0[3]);
  }
  return 0;
}

// The SMs the H200 gave the blocks of a 132-block grid, block by block (the
// window probe's BLOCKS line): runs of 16 SMs of one half. SMMAP=gpu deals
// block b to SM kGpuDeal[b mod 132]; gpu-shifted starts each layout's grid
// at a random place in that order.
const std::vector<int> kGpuDeal = {124, 125, 126, 127, 128, 129, 130, 131, 0,   1,   16,  17,  32,  33,  48,  49,  2,
                                   3,   18,  19,  34,  35,  50,  51,  64,  65,  78,  79,  92,  93,  106, 107, 4,   5,
                                   20,  21,  36,  37,  52,  53,  66,  67,  80,  81,  94,  95,  108, 109, 6,   7,   22,
                                   23,  38,  39,  54,  55,  68,  69,  82,  83,  96,  97,  110, 111, 8,   9,   24,  25,
                                   40,  41,  56,  57,  70,  71,  84,  85,  98,  99,  112, 113, 10,  11,  26,  27,  42,
                                   43,  58,  59,  72,  73,  86,  87,  100, 101, 114, 115, 12,  13,  28,  29,  44,  45,
                                   60,  61,  74,  75,  88,  89,  102, 103, 116, 117, 120, 121, 14,  15,  30,  31,  46,
                                   47,  62,  63,  76,  77,  90,  91,  104, 105, 118, 119, 122, 123};

// One recorded point as `fasim compare --recorded` predicts it (the device
// profile given, the CUDA kernel's compute model, cold L2): fasim's
// Simulation runs and its load and store steps, in the order it takes them,
// go through the line-level L2 too, at the tensors' own offsets
// (HbmTensor::offset), the tensors laid out in the window. SMs next to
// half sm mod 2 (SMMAP=measured: the measured map). One line: fasim's DRAM
// MB read and drained, the line-level model's (3 seeds: median, range).
int point(const std::string& device_path, const std::vector<std::string>& a, const std::vector<int>& half_of_sm) {
  const bool measured_map = getenv("SMMAP") && std::string(getenv("SMMAP")) == "measured";
  const std::string smmap = getenv("SMMAP") ? getenv("SMMAP") : "dealt";
  const bool gpu_deal = smmap == "gpu" || smmap == "gpu-shifted";
  auto [w, m] = replay_point(a);
  if (a.size() > 7) m.blocks_per_sm = std::stoll(a[7]);
  const DeviceSpec device = load_device(device_path);
  std::vector<double> rd, drained;
  double fasim_read = 0, fasim_drained = 0;
  const u64 seeds = getenv("SEEDS") ? std::strtoull(getenv("SEEDS"), nullptr, 10) : 3;  // odd: a median
  // fasim's run is the same for every layout: simulate once, keep its loads
  // and stores in its order, then replay them through each layout.
  Simulation sim(device, w, m, {.numerics = false, .l2 = L2Start::cold, .compute = cuda_compute_model(w, m)});
  struct Step1 { double t; std::int64_t who, block, sm; TensorId tensor; std::int64_t bh, row0, rows, col0, cols; bool store; };
  std::vector<Step1> steps;
  while (sim.next()) {
    const Step& st = sim.step();
    if (st.kind == StepKind::load || st.kind == StepKind::store)
      steps.push_back({st.start_s, (static_cast<std::int64_t>(st.kernel) << 32) + st.block, st.block, st.sm, st.tensor,
                       st.bh, st.row0, st.rows, st.col0, st.cols, st.kind == StepKind::store});
  }
  const CacheTraffic c = sim.ledger().cache_total();
  fasim_read = static_cast<double>(c.dram_read_bytes) / 1e6;
  fasim_drained = static_cast<double>(c.dram_write_bytes + sim.l2_dirty_bytes()) / 1e6;
  std::vector<u64> bytes(kTensorCount, 0);
  for (TensorId t : kAllTensors)
    if (sim.hbm().has(t)) {
      const HbmTensor& x = sim.hbm().at(t);
      bytes[static_cast<size_t>(index(t))] = static_cast<u64>(x.bh * x.rows * x.cols * x.elem_bytes());
    }
  const double drift = getenv("DRIFT") ? std::atof(getenv("DRIFT")) : 0.0;
  for (u64 seed = 1; seed <= seeds; ++seed) {
    Rng rg{std::mt19937_64(seed)};
    const std::vector<u64> at = rg.lay(bytes);
    // gpu-shifted: each layout's grid starts at another place in the H200's
    // deal order (the GPU's runs differ from launch to launch).
    const size_t shift = smmap == "gpu-shifted" ? static_cast<size_t>(rg.r() % kGpuDeal.size()) : 0;
    L2 l2(60 * MiB, seed + 1);
    double lines = 0;
    // PERTENSOR=1: each tensor's sampled lines stand for its own lines
    // (lines / sampled lines of that tensor in this layout), not 15,360 / 521.
    static std::vector<std::pair<u64, double>> g_ranges;  // (end line, weight), by start
    static std::vector<u64> g_starts;
    const bool per_tensor = getenv("PERTENSOR") && std::atoi(getenv("PERTENSOR")) == 1;
    g_ranges.clear(); g_starts.clear();
    if (per_tensor) {
      std::vector<size_t> ord;
      for (size_t t = 0; t < bytes.size(); ++t) if (bytes[t]) ord.push_back(t);
      std::sort(ord.begin(), ord.end(), [&](size_t x, size_t y) { return at[x] < at[y]; });
      for (size_t t : ord) {
        const u64 l0 = at[t] / 128, l1 = (at[t] + bytes[t] + 127) / 128;
        u64 c = 0;
        for (u64 l = l0; l < l1; ++l) c += g_sample.count(l);
        g_starts.push_back(l0);
        g_ranges.push_back({l1, c ? double(l1 - l0) / double(c) : 0.0});
      }
      g_line_weight = [](u64 line) {
        auto it = std::upper_bound(g_starts.begin(), g_starts.end(), line);
        if (it == g_starts.begin()) return 0.0;
        const size_t i = static_cast<size_t>(it - g_starts.begin()) - 1;
        return line < g_ranges[i].first ? g_ranges[i].second / scale() : 0.0;
      };
    }
    // With DRIFT=J, block b of each kernel runs at 1 + J z_b of fasim's pace
    // all along (z_b normal), so blocks drift apart as the run goes on, and
    // the accesses are replayed in the order of those times.
    std::normal_distribution<double> z(0.0, 1.0);
    std::unordered_map<std::int64_t, double> pace;  // kernel * 2^32 + block
    std::vector<std::pair<double, size_t>> order;
    for (size_t i = 0; i < steps.size(); ++i) {
      if (!pace.count(steps[i].who)) pace[steps[i].who] = 1.0 + drift * z(rg.r);
      order.push_back({steps[i].t * pace[steps[i].who], i});
    }
    if (drift > 0)
      std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [t, i] : order) {
      const Step1& st = steps[i];
      const size_t dealt_to = (static_cast<size_t>(st.block) + shift) % kGpuDeal.size();
      const int half = gpu_deal  ? half_of_sm.at(static_cast<size_t>(kGpuDeal[dealt_to]))
                       : measured_map ? half_of_sm.at(static_cast<size_t>(st.sm))
                                      : static_cast<int>(st.sm % 2);
      const HbmTensor& x = sim.hbm().at(st.tensor);
      const u64 e = static_cast<u64>(x.elem_bytes()), base = at[static_cast<size_t>(index(st.tensor))];
      for (std::int64_t row = st.row0; row < st.row0 + st.rows; ++row) {
        const u64 a0 = base + static_cast<u64>(x.offset(st.bh, row, st.col0)) * e;
        for (u64 ad = a0 & ~127ull; ad < a0 + static_cast<u64>(st.cols) * e; ad += 128) {
          if (!simulated(ad)) continue;
          if (st.store) l2.write(ad, half);
          else lines += l2.read(ad, half) * line_weight(ad / 128);
        }
      }
    }
    rd.push_back(lines * 128 / 1e6 * scale());
    drained.push_back(static_cast<double>(l2.written_back() + l2.dirty_lines()) * 128 / 1e6 * scale());
  }
  std::sort(rd.begin(), rd.end());
  std::sort(drained.begin(), drained.end());
  const size_t mid = rd.size() / 2;
  if (getenv("ALL")) { for (double x : rd) std::printf("%.1f ", x); double m = 0; for (double x : rd) m += x; std::printf("mean %.1f\n", m / rd.size()); }
  std::printf("read fasim %.1f line %.1f (%.1f-%.1f) drained fasim %.1f line %.1f (%.1f-%.1f)\n", fasim_read, rd[mid],
              rd.front(), rd.back(), fasim_drained, drained[mid], drained.front(), drained.back());
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 4 && std::string(argv[argc - 1]).rfind("J=", 0) == 0) g_jitter = std::atof(argv[--argc] + 2);
  const bool needs_file = argc > 3 && std::string(argv[3]) != "stride";
  if (argc < 4 || (needs_file && argc < 5)) {
    std::fprintf(stderr, "usage: %s r|m|p|s WAYS stride [J=x] | %s s WAYS window FILE [J=x] | %s r|m|p|s WAYS NAME PATTERN.csv [J=x]\n",
                 argv[0], argv[0], argv[0]);
    return 2;
  }
  g_mode = argv[1][0]; g_ways = std::atoi(argv[2]);
  if (g_mode == 's')
    read_sample({"docs/results/h200-2026-11-30-l2-evset-sets.txt", "docs/results/h200-2026-11-30-l2-evset-sets455.txt.gz"});
  const std::string what = argv[3];
  const SmLayout layout = read_sm_layout("docs/results/h200-2026-11-30-sm-map.txt");
  std::vector<int> half(layout.half_of_sm.begin(), layout.half_of_sm.end());
  if (what == "window") return window(argv[4], half);
  if (what == "point") {
    if (argc < 12) { std::fprintf(stderr, "usage: %s s WAYS point DEVICE.toml ALGO DTYPE HEADS N d BR BC [BLOCKS_PER_SM]\n", argv[0]); return 2; }
    return point(argv[4], std::vector<std::string>(argv + 5, argv + argc), half);
  }
  if (what == "stride") {
    for (int f : {32, 40}) {
      std::printf("F%d:", f);
      for (int b : {0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}) {
        double s = 0; for (u64 seed = 1; seed <= 3; ++seed) s += stride(f, b, 0, seed, half);
        std::printf(" b%d %.1f", b, s / 3);
      }
      double s = 0; for (u64 seed = 1; seed <= 3; ++seed) s += stride(f, 1, seed * 7919, seed, half);
      std::printf(" rand %.1f\n", s / 3);
    }
    return 0;
  }
  // A recording made on another board comes with its own SM map beside it.
  const std::string csv = argv[4], own_map = csv.substr(0, csv.size() - 4) + "-sm-map.txt";
  if (csv.ends_with(".csv") && std::ifstream(own_map)) {
    const SmLayout own = read_sm_layout(own_map);
    half.assign(own.half_of_sm.begin(), own.half_of_sm.end());
    std::printf("SM map: %s\n", own_map.c_str());
  }
  for (const Flash1Pattern& p : read_flash1_pattern(argv[4])) {
    if (p.name.find(what) == std::string::npos || p.slices > 1 || p.workers > 0) continue;
    if (p.name.find("kvj") != std::string::npos || p.name.find("together") != std::string::npos) continue;
    std::vector<int> hb;
    // The first calls recorded neither heads nor SMs: 132 heads, block b on SM b.
    const int heads = p.heads > 0 ? static_cast<int>(p.heads)
                      : p.sm_of_block.empty() ? 132 : static_cast<int>(p.sm_of_block.size());
    for (int b = 0; b < heads; ++b) hb.push_back(half[p.sm_of_block.empty() ? b : p.sm_of_block[b]]);
    std::vector<double> tot;
    std::vector<double> per0;
    for (u64 seed = 1; seed <= 3; ++seed) {
      auto per = flash1(p, hb, seed);
      double t = 0; for (double x : per) t += x; tot.push_back(t);
      if (seed == 1) per0 = per;
    }
    std::sort(tot.begin(), tot.end());
    std::vector<double> g = p.gpu_mb; std::sort(g.begin(), g.end());
    const double med = g.size() % 2 ? g[g.size() / 2] : (g[g.size() / 2 - 1] + g[g.size() / 2]) / 2;
    std::printf("%-40s GPU %6.1f (%5.1f-%5.1f)  sim %6.1f (%5.1f-%5.1f)  pass4 %.2f\n", p.name.c_str(), med,
                g.front(), g.back(), tot[1], tot[0], tot[2], per0.size() > 3 ? per0[3] : 0.0);
  }
}
