// reuse line sim (2026-11-24): the reuse probe's sequences
// (reuse-probe-2026-11-24.cu) through a line-by-line L2, to try replacement
// policies that fasim's tile model cannot express. Not fasim: an experiment.
//
// The L2: two halves of `l2` / 2 bytes, 128-byte lines, `ways`-way sets,
// lines hashed at random to a home half and a set. Chunk c (4 KiB, 32 lines)
// is touched by block c mod (8 x 132), on SM block mod 132, next to half
// SM mod 2 (as fasim deals them). A read of a line homed in the far half
// looks for a copy in the near half, else asks home (a DRAM read if home
// lacks it), and the near half keeps a clean copy. A write goes home, dirty;
// the writer's half keeps a clean copy (wc=1) or not (wc=0). Each half keeps
// at most 47% of itself dirty (the oldest written go back and stay, clean).
// The victim in a full set is the least recently used line, unless:
//   q=P     a dirty victim is taken with chance P, else the oldest clean line
//           of the set (if there is one);
//   sc=1    a dirty victim is written back, made clean and most recent, and
//           the search goes on (with scp=P, only with chance P);
//   protect=K  the oldest clean line among the K oldest, else the oldest.
// Prints, per B, the DRAM MiB read by the last read of A in U1 to U4 and
// the DRAM MiB written while B and then A are read in U3 and U4 (the GPU's
// are in reuse-2026-11-24.md).
// Build: g++ -std=c++20 -O2 -o /tmp/reuse-line-sim docs/results/reuse-line-sim-2026-11-24.cpp
// Run:   /tmp/reuse-line-sim [l2=62914560] [ways=32] [wc=1] [q=0.3] [sc=1 [scp=0.5]] [protect=4]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

using u64 = std::uint64_t;

namespace {

u64 mix(u64 x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

struct Options {
  long long l2 = 62914560;
  int ways = 32, wc = 1, sc = 0, protect = 0;
  double scp = 1, q = -1, dirty_share = 0.47;
};

constexpr u64 kEmpty = ~0ULL;
struct Line {
  u64 tag = kEmpty, used = 0, written = 0;
  bool dirty = false;
};

struct Half {
  int ways, sets;
  std::vector<Line> lines;
  long long dirty = 0, limit;
  std::deque<std::pair<u64, u64>> writes;  // (tag, when written), oldest first
  Half(int w, int s, double share)
      : ways(w), sets(s), lines(static_cast<size_t>(w) * s), limit(static_cast<long long>(share * w * s)) {}
};

struct L2 {
  Options o;
  std::vector<Half> halves;
  u64 now = 0, write_clock = 0, draws = 12345;
  double read_bytes = 0, written_bytes = 0;

  explicit L2(const Options& opt) : o(opt) {
    const int sets = static_cast<int>(o.l2 / 128 / 2 / o.ways);
    for (int i = 0; i < 2; ++i) halves.emplace_back(o.ways, sets, o.dirty_share);
  }
  static int home(u64 line) { return static_cast<int>(mix(line * 7 + 3) % 2); }
  Line* set_of(Half& h, u64 line) { return &h.lines[static_cast<size_t>(mix(line) % h.sets) * h.ways]; }
  Line* find(Half& h, u64 tag, u64 line) {
    Line* s = set_of(h, line);
    for (int i = 0; i < h.ways; ++i)
      if (s[i].tag == tag) return &s[i];
    return nullptr;
  }
  bool chance(double p) { return static_cast<double>(mix(++draws) % 100000) < p * 100000; }
  void write_back(Half& h, Line& l) {
    written_bytes += 128;
    l.dirty = false;
    --h.dirty;
  }
  Line* victim(Half& h, u64 line) {
    Line* s = set_of(h, line);
    for (int i = 0; i < h.ways; ++i)
      if (s[i].tag == kEmpty) return &s[i];
    for (int round = 0;; ++round) {
      Line* v = nullptr;
      if (o.protect > 0) {
        std::vector<int> order(static_cast<size_t>(h.ways));
        for (int i = 0; i < h.ways; ++i) order[static_cast<size_t>(i)] = i;
        std::sort(order.begin(), order.end(), [&](int a, int b) { return s[a].used < s[b].used; });
        for (int j = 0; j < o.protect && j < h.ways; ++j)
          if (!s[order[static_cast<size_t>(j)]].dirty) {
            v = &s[order[static_cast<size_t>(j)]];
            break;
          }
      }
      if (v == nullptr)
        for (int i = 0; i < h.ways; ++i)
          if (v == nullptr || s[i].used < v->used) v = &s[i];
      if (o.q >= 0 && v->dirty && !chance(o.q)) {
        Line* clean = nullptr;
        for (int i = 0; i < h.ways; ++i)
          if (!s[i].dirty && (clean == nullptr || s[i].used < clean->used)) clean = &s[i];
        if (clean != nullptr) v = clean;
      }
      if (v->dirty) {
        write_back(h, *v);
        if (o.sc && round < h.ways && chance(o.scp)) {
          v->used = ++now;  // a second chance, clean
          continue;
        }
      }
      return v;
    }
  }
  void limit_dirty(Half& h) {
    while (h.dirty > h.limit && !h.writes.empty()) {
      const auto [tag, when] = h.writes.front();
      h.writes.pop_front();
      Line* l = find(h, tag, tag >> 1);
      if (l != nullptr && l->dirty && l->written == when) write_back(h, *l);
    }
  }
  bool touch(Half& h, u64 tag, u64 line, bool write) {  // true on a hit
    Line* l = find(h, tag, line);
    const bool hit = l != nullptr;
    if (!hit) {
      l = victim(h, line);
      l->tag = tag;
      l->dirty = false;
    }
    l->used = ++now;
    if (write) {
      if (!l->dirty) ++h.dirty;
      l->dirty = true;
      l->written = ++write_clock;
      h.writes.emplace_back(tag, l->written);
      limit_dirty(h);
    }
    return hit;
  }
  void drop(Half& h, u64 tag, u64 line) {
    if (Line* l = find(h, tag, line)) {
      if (l->dirty) --h.dirty;
      *l = Line{};
    }
  }
  void read(u64 line, int sm) {
    const int near = sm % 2, at = home(line);
    const u64 home_tag = line << 1, copy_tag = home_tag | 1;
    if (near == at) {
      if (!touch(halves[at], home_tag, line, false)) read_bytes += 128;
      return;
    }
    if (Line* c = find(halves[near], copy_tag, line)) {
      c->used = ++now;
      return;
    }
    if (!touch(halves[at], home_tag, line, false)) read_bytes += 128;
    touch(halves[near], copy_tag, line, false);
  }
  void write(u64 line, int sm) {
    const int near = sm % 2, at = home(line);
    const u64 home_tag = line << 1, copy_tag = home_tag | 1;
    touch(halves[at], home_tag, line, true);
    if (near != at) {
      if (o.wc) touch(halves[near], copy_tag, line, false);
      else drop(halves[near], copy_tag, line);
    }
  }
};

constexpr u64 kLinesPerMiB = 8192;
constexpr int kSms = 132;

// One probe kernel over `mib` MiB from line `base`; returns (MiB read, MiB written).
std::pair<double, double> kernel(L2& l2, u64 base, int mib, bool write) {
  l2.read_bytes = l2.written_bytes = 0;
  const u64 chunks = static_cast<u64>(mib) * 256;
  for (u64 c = 0; c < chunks; ++c) {
    const int sm = static_cast<int>((c % (8 * kSms)) % kSms);
    for (u64 k = 0; k < 32; ++k) {
      const u64 line = base + c * 32 + k;
      if (write) l2.write(line, sm);
      else l2.read(line, sm);
    }
  }
  const double mib_bytes = 1 << 20;
  return {l2.read_bytes / mib_bytes, l2.written_bytes / mib_bytes};
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "usage: %s [l2=BYTES] [ways=W] [wc=0|1] [q=P] [sc=0|1] [scp=P] [protect=K]\n", argv[0]);
      return 2;
    }
    const std::string k = a.substr(0, eq), v = a.substr(eq + 1);
    if (k == "l2") o.l2 = std::atoll(v.c_str());
    else if (k == "ways") o.ways = std::atoi(v.c_str());
    else if (k == "wc") o.wc = std::atoi(v.c_str());
    else if (k == "q") o.q = std::atof(v.c_str());
    else if (k == "sc") o.sc = std::atoi(v.c_str());
    else if (k == "scp") o.scp = std::atof(v.c_str());
    else if (k == "protect") o.protect = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "unknown option '%s'\n", k.c_str());
      return 2;
    }
  }
  const u64 A = 0, B = 32 * kLinesPerMiB;
  std::printf("last read of A (16 MiB): DRAM MiB read; DRAM MiB written while B and A are read (U3, U4)\n");
  std::printf("   B     U1     U2     U3     U4   wr U3  wr U4\n");
  for (int b = 0; b <= 48; b += 4) {
    double last[5] = {}, wrote[5] = {};
    for (int u = 1; u <= 4; ++u) {
      L2 l2(o);
      kernel(l2, A, 16, u >= 3);
      if (u == 2 || u == 4) kernel(l2, A, 16, false);
      wrote[u] = kernel(l2, B, b, false).second;
      const auto [read, written] = kernel(l2, A, 16, false);
      last[u] = read;
      wrote[u] += written;
    }
    std::printf("  %2d  %5.1f  %5.1f  %5.1f  %5.1f  %6.1f %6.1f\n", b, last[1], last[2], last[3], last[4], wrote[3],
                wrote[4]);
  }
  return 0;
}
