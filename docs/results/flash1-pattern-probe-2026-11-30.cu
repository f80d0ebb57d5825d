// flash1-pattern probe (2026-11-30): does flash1's own access pattern,
// with no arithmetic, miss as flash1 does near the L2's edge, and does it
// matter that flash1 runs all its passes in one kernel?
//
// With the GPU full (132 heads, one block per SM) flash1 fp16 at N = 512,
// d = 128 reads 73 to 114 MB from DRAM over 32 placements (median 85),
// fasim predicts 63; the rmw probe (rmw-probe-2026-11-30.cu) with the same
// footprint misses little. That probe differs from flash1 in three ways:
// one buffer (flash1: Q, K, V, O, l, m apart), one kernel per pass (flash1:
// one kernel for all key blocks, so blocks drift apart over 5 ms), and no
// time between steps (flash1: about 80 us a step). Here each can be toggled.
//
// Sequences (NAME then the launch style):
//  F1 N=.. d=.. br=.. bc=..: flash1's loop order over its own buffers, one
//    block a head: for each key block j, read K_j and V_j; then for each
//    query block i read Q_i, O_i, l_i, m_i (not O, l, m when j = 0), wait
//    `spin` ns (flash1's arithmetic), write O_i, l_i, m_i. fp16 rows (d x 2
//    bytes), l and m fp32;
//  R132 / H132 F=..: the rmw probe's read-only and half-written patterns.
// Launch styles: `launch` one kernel a pass (pass = key block for F1, as
// the rmw probe); `loop` one kernel for all passes, blocks free to drift;
// `sync` one kernel with a grid barrier between passes (no drift, no
// launch). Each sequence starts after a flush. ncu counts each kernel's DRAM
// bytes; the SKEW line gives, per pass, how far apart the blocks started it
// (max - min of %globaltimer, us) and the mean pass time.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o f1p flash1-pattern-probe-2026-11-30.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name-base mangled \
//            --kernel-name regex:'ILi1E' --metrics dram__bytes_read.sum,dram__bytes_write.sum \
//            --csv --print-units base ./f1p PLACEMENTS [quick]
// `quick`: the launch style only, no spin (for many placements or metrics);
// `variants`: flash1's pattern changed one way at a time (variant_sequences);
// `edge`: flash1's pattern at N = 384 to 640 and R132 at 36 to 48 MiB
// (edge_sequences); `grid`: 16 heads against 132 (grid_sequences);
// `shift`: O, K and V moved within their pages (shift_sequences); `split
// MAP`: 16 heads split 16/0 to 0/16 over the halves (split_sequences);
// `many MAP`: more blocks or more streamed a pass (many_sequences); `bits
// MAP`: each head's half chosen by a bit of its number (bits_sequences);
// `layout`: K and V laid out by key block (layout_sequences); `parts`:
// without l and m, or without V (parts_sequences); `lm`: l and m read
// only, or a head's on its own 4 KiB (lm_sequences); `grain`: 2 or 4
// bytes a thread instead of 16 (grain_sequences).
// Only kernels instantiated with <1> are profiled, in the order of the PROBE
// lines. Each placement allocates new buffers, the earlier ones still held.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "probe_common.cuh"

__device__ unsigned long long g_sink;
__device__ unsigned g_block_sm[1024];  // the SM each block of the last kernel ran on

namespace {
constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kChunkWords = 4096 / 16;  // one 4 KiB chunk of uint4
constexpr int kMaxPasses = 128;  // stamps kept per block (N = 4608 with Bc = 64 runs 72 passes)
}  // namespace

struct Flash {  // one head per block: n rows of `row` uint4 words per tensor
  uint4 *q, *k, *v, *o;
  float *l, *m;
  int n, row, br, bc;
  int qo_head_rows;    // rows from one head's Q (and O) to the next: n, or 2n with Q and O together
  bool kv = true;      // read K_j and V_j (else only Q, O, l, m)
  bool write = true;   // write O, l and m back (else they are only read)
  int kv_heads = 0;    // > 0: K and V laid out by key block, then head (all heads' K_j one run; N a multiple of Bc)
  bool lm = true;      // read and write l and m (else neither)
  bool lm_write = true;  // write l and m back (else only read)
  int lm_stride = 0;   // floats from one head's l (and m) to the next: 0 is n
  bool read_v = true;  // read V_j as well as K_j (else K_j only)
  int grain_in = 16;   // bytes a thread loads at once from Q, K and V: 16 (a warp: 512 B), 4 or 2 (64 B, as flash1 fp16)
  int grain_o = 16;    // the same for O's loads and stores
};
struct Plain {  // the rmw probe: each block its own contiguous chunks
  uint4* p;
  size_t per_block;
  bool half;  // odd chunks written back too (H); else read only (R)
};
struct Run {
  int first, last;  // passes first .. last - 1
  bool sync;        // grid barrier between passes
  long long spin_ns;
  unsigned* barrier;             // zeroed before the launch
  unsigned long long* stamps;    // [block][kMaxPasses + 1]: each pass's start, then the end
};

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ void spin(long long ns) {
  if (ns <= 0) return;
  const unsigned long long until = now_ns() + ns;
  while (now_ns() < until) {
  }
}

// The block reads (and writes back changed) `words` uint4 from `at`.
__device__ void touch(uint4* at, size_t words, bool read, bool write, unsigned& acc) {
  for (size_t i = threadIdx.x; i < words; i += blockDim.x) {
    uint4 x = make_uint4(i, 0, 0, 0);
    if (read) {
      x = __ldcg(at + i);
      acc ^= x.x ^ x.y ^ x.z ^ x.w;
    }
    if (write) {
      x.x += 1;
      __stcg(at + i, x);
    }
  }
}

// As touch, `grain` bytes a thread at a time (16: touch; 4 or 2: one
// float or one fp16 element, as flash1's fp32 and fp16 kernels load and
// store, a warp then covering 128 or 64 bytes).
template <class W>
__device__ void touch_as(W* at, size_t n, bool read, bool write, unsigned& acc) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    W x = static_cast<W>(i);
    if (read) {
      x = __ldcg(at + i);
      acc ^= static_cast<unsigned>(x);
    }
    if (write) __stcg(at + i, static_cast<W>(x + 1));
  }
}
__device__ void touch(uint4* at, size_t words, int grain, bool read, bool write, unsigned& acc) {
  if (grain == 4) touch_as(reinterpret_cast<unsigned*>(at), words * 4, read, write, acc);
  else if (grain == 2) touch_as(reinterpret_cast<unsigned short*>(at), words * 8, read, write, acc);
  else touch(at, words, read, write, acc);
}

__device__ void touch_f(float* at, int n, bool read, bool write, unsigned& acc) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float x = 1.0f;
    if (read) {
      x = __ldcg(at + i);
      acc ^= __float_as_uint(x);
    }
    if (write) __stcg(at + i, x + 1.0f);
  }
}

// Every block waits until all `gridDim.x` have arrived `round` times.
__device__ void grid_barrier(unsigned* count, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    while (*reinterpret_cast<volatile unsigned*>(count) < round * gridDim.x) {
    }
    __threadfence();
  }
  __syncthreads();
}

__device__ void stamp(const Run& r, int slot) {
  if (threadIdx.x == 0) r.stamps[blockIdx.x * (kMaxPasses + 1) + slot] = now_ns();
  if (threadIdx.x == 0 && blockIdx.x < 1024) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    g_block_sm[blockIdx.x] = sm;
  }
}

// Pass j of flash1's order for head h, query rows r0 .. r1 - 1.
__device__ void flash_pass(const Flash& f, int j, long long spin_ns, unsigned& acc, int h, int r0, int r1) {
  const size_t head = static_cast<size_t>(h) * f.n, qo = static_cast<size_t>(h) * f.qo_head_rows;
  const size_t lm = static_cast<size_t>(h) * (f.lm_stride > 0 ? f.lm_stride : f.n);
  const int kv_rows = min(f.bc, f.n - j * f.bc);
  const size_t kv_at = f.kv_heads > 0 ? (static_cast<size_t>(j) * f.kv_heads + h) * f.bc : head + j * f.bc;
  touch(f.k + kv_at * f.row, static_cast<size_t>(kv_rows) * f.row, f.grain_in, f.kv, false, acc);
  touch(f.v + kv_at * f.row, static_cast<size_t>(kv_rows) * f.row, f.grain_in, f.kv && f.read_v, false, acc);
  __syncthreads();
  for (int i0 = r0; i0 < r1; i0 += f.br) {
    const int rows = min(f.br, r1 - i0);
    const size_t at = (qo + i0) * f.row, words = static_cast<size_t>(rows) * f.row;
    touch(f.q + at, words, f.grain_in, true, false, acc);
    touch(f.o + at, words, f.grain_o, j > 0, false, acc);
    touch_f(f.l + lm + i0, rows, j > 0 && f.lm, false, acc);
    touch_f(f.m + lm + i0, rows, j > 0 && f.lm, false, acc);
    __syncthreads();
    spin(spin_ns);
    touch(f.o + at, words, f.grain_o, false, f.write, acc);
    touch_f(f.l + lm + i0, rows, false, f.write && f.lm && f.lm_write, acc);
    touch_f(f.m + lm + i0, rows, false, f.write && f.lm && f.lm_write, acc);
    __syncthreads();
  }
}

__device__ void plain_pass(const Plain& p, unsigned& acc) {
  for (size_t k = 0; k < p.per_block; ++k) {
    const size_t c = blockIdx.x * p.per_block + k;
    touch(p.p + c * kChunkWords, kChunkWords, true, p.half && (k & 1), acc);
  }
}

template <int K>
__global__ void flash_k(Flash f, Run r) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  for (int j = r.first; j < r.last; ++j) {
    if (r.sync && j > r.first) grid_barrier(r.barrier, j - r.first);
    stamp(r, j);
    flash_pass(f, j, r.spin_ns, acc, blockIdx.x, 0, f.n);
  }
  stamp(r, kMaxPasses);
  if (threadIdx.x == 0) keep[0] = acc;
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

// Who does what: worker_of_sm[smid] >= 0 gives an SM's block a worker
// number w, the others stamp and leave. With `slices` > 1 worker w takes
// slice w % slices of head w / slices (its share of whole query tiles, as
// even as they allow: the heads' K and V are read by every slice); else
// heads w, w + workers, ... one after the other in each pass.
struct Work {
  const int* worker_of_sm;
  int workers, heads, slices;
};

// One block an SM (132 blocks), each doing the work Work gives its SM.
template <int K>
__global__ void flash_work_k(Flash f, Run r, Work w) {
  extern __shared__ unsigned keep[];
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  const int me = w.worker_of_sm[sm];
  unsigned acc = 0;
  for (int j = r.first; j < r.last; ++j) {
    stamp(r, j);
    if (me < 0) continue;
    if (w.slices > 1) {
      const int tiles = (f.n + f.br - 1) / f.br, s = me % w.slices;
      const int t0 = s * tiles / w.slices, t1 = (s + 1) * tiles / w.slices;
      flash_pass(f, j, r.spin_ns, acc, me / w.slices, t0 * f.br, min(f.n, t1 * f.br));
    } else {
      for (int h = me; h < w.heads; h += w.workers) flash_pass(f, j, r.spin_ns, acc, h, 0, f.n);
    }
  }
  stamp(r, kMaxPasses);
  if (threadIdx.x == 0) keep[0] = acc;
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

template <int K>
__global__ void plain_k(Plain p, Run r) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  for (int j = r.first; j < r.last; ++j) {
    if (r.sync && j > r.first) grid_barrier(r.barrier, j - r.first);
    stamp(r, j);
    plain_pass(p, acc);
  }
  stamp(r, kMaxPasses);
  if (threadIdx.x == 0) keep[0] = acc;
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

__global__ void rd_k(const uint4* __restrict__ p, size_t n) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

namespace {
constexpr int kShared = 115968;  // flash1 fp16 d = 128's shared memory: one block an SM
int sms = 0, probes = 0;
char* scratch = nullptr;
unsigned* barrier = nullptr;
unsigned long long* stamps = nullptr;

void flush() {  // two reads of 240 MiB: nothing of the probe left in L2, nothing dirty
  for (int pass = 0; pass < 2; ++pass) rd_k<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(scratch), 240 * kMiB / 16);
  CK(cudaDeviceSynchronize());
}

template <class T>
T* fresh(size_t bytes) {
  void* p = nullptr;
  CK(cudaMalloc(&p, bytes));
  CK(cudaMemset(p, 1, bytes));
  return static_cast<T*>(p);
}

// One sequence: flush, then `passes` passes as `style` says. Prints a PROBE
// line per kernel and a SKEW line: per pass, how far apart the blocks
// started it and the mean time a block spent in it (us; in launch style a
// pass ends at its kernel's end).
template <class Launch>
void sequence(const std::string& name, const std::string& style, int passes, long long spin_ns, Launch launch,
              int blocks = sms) {
  flush();
  std::vector<unsigned long long> st(static_cast<size_t>(blocks) * (kMaxPasses + 1));
  std::string line = "SKEW " + name;
  auto run = [&](int first, int last, bool sync, const std::string& label) {
    CK(cudaMemset(barrier, 0, sizeof(unsigned)));
    std::printf("PROBE %d %s pass=%s\n", probes++, name.c_str(), label.c_str());
    launch(Run{first, last, sync, spin_ns, barrier, stamps});
    CK(cudaGetLastError());  // a launch that never ran (too much shared memory, ...) stops the probe
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(st.data(), stamps, st.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    for (int j = first; j < last; ++j) {
      unsigned long long lo = ~0ull, hi = 0;
      double dur = 0;
      for (int b = 0; b < blocks; ++b) {
        const unsigned long long* s = &st[b * (kMaxPasses + 1)];
        lo = std::min(lo, s[j]);
        hi = std::max(hi, s[j]);
        dur += static_cast<double>((j + 1 < last ? s[j + 1] : s[kMaxPasses]) - s[j]) / blocks;
      }
      char part[48];
      std::snprintf(part, sizeof part, " %d:%.1f/%.1f", j + 1, (hi - lo) / 1e3, dur / 1e3);
      line += part;
    }
  };
  if (style == "launch") {
    for (int j = 0; j < passes; ++j) run(j, j + 1, false, std::to_string(j + 1));
  } else {
    run(0, passes, style == "sync", "all");
  }
  std::printf("%s\n", line.c_str());
}

struct FlashBuffers {
  Flash f;
  // Q and O apart (as flash1), or `together`: one buffer, each head's Q rows then its O rows.
  // `shift` (bytes): O, K and V start that far, twice and three times that
  // far into their allocations (cudaMalloc starts each on a 2 MiB page), so
  // a head's Q_i, O_i, K_j and V_j no longer sit at the same page offsets.
  static FlashBuffers make(int heads, int n, int d, int br, int bc, bool together = false, size_t shift = 0) {
    const size_t rows = static_cast<size_t>(heads) * n, bytes = rows * d * 2;
    FlashBuffers b;
    uint4* q = fresh<uint4>(together ? 2 * bytes : bytes);
    uint4* o = together ? q + static_cast<size_t>(n) * d * 2 / 16 : fresh<uint4>(bytes + shift) + shift / 16;
    uint4* k = fresh<uint4>(bytes + 2 * shift) + 2 * shift / 16;
    uint4* v = fresh<uint4>(bytes + 3 * shift) + 3 * shift / 16;
    b.f = Flash{q, k, v, o, fresh<float>(rows * 4), fresh<float>(rows * 4),
                n, d * 2 / 16, br, bc, together ? 2 * n : n};
    return b;
  }
};

bool quick = false;  // `quick`: launch style only, no spin

void flash_sequences(const FlashBuffers& b, int placement, long long spin_ns) {
  const Flash& f = b.f;
  const int passes = (f.n + f.bc - 1) / f.bc;
  char base[96];
  std::snprintf(base, sizeof base, "F1/N%d/d%d/br%d/bc%d/p%d", f.n, f.row * 8, f.br, f.bc, placement);
  auto launch = [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(f, r); };
  for (const char* style : {"launch", "loop", "sync"}) {
    if (quick && std::string(style) != "launch") continue;
    sequence(std::string(base) + "/" + style + "/spin0", style, passes, 0, launch);
  }
  if (quick) return;
  for (const char* style : {"launch", "loop"})
    sequence(std::string(base) + "/" + style + "/spin" + std::to_string(spin_ns / 1000) + "us", style, passes,
             spin_ns, launch);
}

// `variants`: flash1 fp16 N 512 d 128's pattern, launch style, no spin, as
// flash1 (F1) and changed one way at a time: no K and V reads (F1-nokv),
// O, l and m only read (F1-ro), Q and O of a head in one buffer
// (F1-together). Which part of the pattern makes the extra misses?
void variant_sequences(int placement) {
  FlashBuffers apart = FlashBuffers::make(sms, 512, 128, 64, 64);
  const FlashBuffers together = FlashBuffers::make(sms, 512, 128, 64, 64, true);
  CK(cudaDeviceSynchronize());
  Flash nokv = apart.f, ro = apart.f;
  nokv.kv = false;
  ro.write = false;
  for (const auto& [tag, f] : {std::pair{"F1", apart.f}, std::pair{"F1-nokv", nokv}, std::pair{"F1-ro", ro},
                               std::pair{"F1-together", together.f}}) {
    char name[96];
    std::snprintf(name, sizeof name, "%s/N512/d128/br64/bc64/p%d/launch/spin0", tag, placement);
    const Flash g = f;
    sequence(name, "launch", 8, 0, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
  }
}

// Prints the BLOCKS line of sequence `name`: the SM of each of the last
// kernel's first `blocks` blocks.
void print_blocks(const char* name, int blocks) {
  unsigned bs[1024];
  CK(cudaMemcpyFromSymbol(bs, g_block_sm, blocks * sizeof(unsigned)));
  std::printf("BLOCKS %s %d:", name, blocks);
  for (int i = 0; i < blocks; ++i) std::printf(" %u", bs[i]);
  std::printf("\n");
}

// `edge`: the L2's edge, finer. flash1's pattern (fp16, d = 128, Br = Bc =
// 64, launch style, no spin) as F1, F1-nokv and F1-ro at N = 384 to 640,
// and R132 (each block its own rows, read only) at F = 36 to 48 MiB.
// `grid`: flash1's pattern (fp16, d = 128, Br = Bc = 64, launch style, no
// spin) with 16 heads (one block each, where the GPU puts a grid of 16) at
// N = 3072 to 4608, the footprint of 132 heads at N = 384 to 576, and 132
// heads at N = 512 beside them. Prints a BLOCKS line (each block's SM) per
// sequence, for the replay.
void grid_sequences(int placement) {
  for (const auto& [h, n] : {std::pair{16, 3072}, std::pair{16, 3584}, std::pair{16, 4096}, std::pair{16, 4608},
                             std::pair{132, 512}}) {
    const int heads = h;  // (a lambda cannot capture a structured binding before C++20)
    FlashBuffers b = FlashBuffers::make(heads, n, 128, 64, 64);
    CK(cudaDeviceSynchronize());
    Flash ro = b.f;
    ro.write = false;
    for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-ro", ro}}) {
      char name[96];
      std::snprintf(name, sizeof name, "%s/N%d/d128/br64/bc64/h%d/p%d/launch/spin0", tag, n, heads, placement);
      const Flash g = f;
      sequence(
          name, "launch", (n + 63) / 64, 0, [&](const Run& r) { flash_k<1><<<heads, 256, kShared>>>(g, r); }, heads);
      print_blocks(name, heads);
    }
  }
}

// `shift`: do a head's tiles of Q, O, K and V collide in the L2's sets
// because they sit at the same offsets of their 2 MiB pages? flash1's
// pattern (fp16, d = 128, Br = Bc = 64, 132 heads, launch style, no spin)
// at N = 512 and 576, as F1 and F1-nokv, with O, K and V shifted by 0,
// 64 KiB or 1 MiB (times 1, 2, 3) in their allocations.
void shift_sequences(int placement) {
  for (const int n : {512, 576})
    for (const size_t shift : {size_t{0}, size_t{64} << 10, size_t{1} << 20}) {
      FlashBuffers b = FlashBuffers::make(sms, n, 128, 64, 64, false, shift);
      CK(cudaDeviceSynchronize());
      Flash nokv = b.f;
      nokv.kv = false;
      for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-nokv", nokv}}) {
        char name[96];
        std::snprintf(name, sizeof name, "%s/N%d/d128/br64/bc64/s%zu/p%d/launch/spin0", tag, n, shift >> 10, placement);
        const Flash g = f;
        sequence(name, "launch", (n + 63) / 64, 0, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
      }
    }
}

std::vector<int> half_of_sm;  // from the map: 0 next to the reference SM's half, else 1
int* worker_of_sm = nullptr;  // on the device, 1024 entries

// Runs `g` with worker w on the next free SM of half half_of_worker[w]
// (the lowest-numbered first), as the sequence `name`, and prints its
// BLOCKS line (each worker's SM, in worker order).
void worker_sequence(const std::string& name, const Flash& g, const std::vector<int>& half_of_worker, int heads,
                     int slices) {
  std::vector<int> worker(1024, -1), sm_of_worker;
  std::vector<int> next = {0, 0};  // per half, the next SM to look at
  for (const int half : half_of_worker) {
    int& sm = next[half];
    while (sm < sms && (half_of_sm[sm] != half || worker[sm] >= 0)) ++sm;
    if (sm == sms) {
      std::printf("cannot place the workers of %s: half %d has too few SMs\n", name.c_str(), half);
      std::exit(1);
    }
    worker[sm] = static_cast<int>(sm_of_worker.size());
    sm_of_worker.push_back(sm);
  }
  CK(cudaMemcpy(worker_of_sm, worker.data(), worker.size() * sizeof(int), cudaMemcpyHostToDevice));
  const Work w{worker_of_sm, static_cast<int>(half_of_worker.size()), heads, slices};
  sequence(name, "launch", (g.n + g.bc - 1) / g.bc, 0,
           [&](const Run& r) { flash_work_k<1><<<sms, 256, kShared>>>(g, r, w); });
  std::printf("BLOCKS %s %zu:", name.c_str(), sm_of_worker.size());
  for (const int sm : sm_of_worker) std::printf(" %d", sm);
  std::printf("\n");
}

// `on0` workers next to half 0, then `on1` next to half 1.
void worker_sequence(const std::string& name, const Flash& g, int on0, int on1, int heads, int slices) {
  std::vector<int> halves(on0, 0);
  halves.resize(on0 + on1, 1);
  worker_sequence(name, g, halves, heads, slices);
}

// `split MAP`: 16 heads at N = 3584 and 4096 (fp16, d = 128, Br = Bc = 64,
// launch style, no spin) on 16 SMs chosen by the L2 half next to them (the
// SM map MAP, the output of h200-2026-11-22-sm-partition-probe.cu): 16 and
// 0, 12 and 4, 8 and 8, 0 and 16 on halves 0 and 1. The same pattern and
// footprint, only the split of the blocks over the halves changes.
void split_sequences(int placement) {
  for (const int n : {3584, 4096}) {
    FlashBuffers b = FlashBuffers::make(16, n, 128, 64, 64);
    CK(cudaDeviceSynchronize());
    for (const int on0 : {16, 12, 8, 0}) {
      char name[96];
      std::snprintf(name, sizeof name, "F1-a%d/N%d/d128/br64/bc64/h16/p%d/launch/spin0", on0, n, placement);
      worker_sequence(name, b.f, on0, 16 - on0, 16, 1);
    }
  }
}

// `many MAP`: is it the number of blocks, or how much each pass streams
// past the re-read data? All even over the halves, launch style, no spin,
// fp16, d = 128, Br = 64:
//  - 16 heads at N = 4096 (Q and O 32 MiB): 16 blocks with Bc = 64 (as
//    split's 8 and 8; 0.5 MB of K and V a pass), the same with Bc = 512
//    (4.2 MB a pass, as 132 heads at N = 512), and 128 blocks with Bc = 64,
//    each head's query rows split over 8 (F1-q8);
//  - 132 heads at N = 512 (Q and O 33 MiB): 132 blocks with Bc = 64 (4.3
//    MB a pass), the same with Bc = 8 (0.5 MB a pass, as 16 heads), and 16
//    blocks taking 8 or 9 heads each (F1-w16); at N = 576 without K and V
//    (F1-nokv, the edge with no stream) with 132 and with 16 blocks.
void many_sequences(int placement) {
  {
    FlashBuffers b = FlashBuffers::make(16, 4096, 128, 64, 64);
    CK(cudaDeviceSynchronize());
    Flash wide = b.f;
    wide.bc = 512;
    char name[96];
    std::snprintf(name, sizeof name, "F1-a8/N4096/d128/br64/bc64/h16/p%d/launch/spin0", placement);
    worker_sequence(name, b.f, 8, 8, 16, 1);
    std::snprintf(name, sizeof name, "F1-a8/N4096/d128/br64/bc512/h16/p%d/launch/spin0", placement);
    worker_sequence(name, wide, 8, 8, 16, 1);
    std::snprintf(name, sizeof name, "F1-q8/N4096/d128/br64/bc64/h16/p%d/launch/spin0", placement);
    worker_sequence(name, b.f, 64, 64, 16, 8);
  }
  for (const int n : {512, 576}) {
    FlashBuffers b = FlashBuffers::make(sms, n, 128, 64, 64);
    CK(cudaDeviceSynchronize());
    Flash narrow = b.f, nokv = b.f;
    narrow.bc = 8;
    nokv.kv = false;
    const char* tag = n == 512 ? "F1" : "F1-nokv";
    const Flash& f = n == 512 ? b.f : nokv;
    char name[96];
    std::snprintf(name, sizeof name, "%s/N%d/d128/br64/bc64/h%d/p%d/launch/spin0", tag, n, sms, placement);
    worker_sequence(name, f, sms / 2, sms - sms / 2, sms, 1);
    std::snprintf(name, sizeof name, "%s-w16/N%d/d128/br64/bc64/h%d/p%d/launch/spin0", tag, n, sms, placement);
    worker_sequence(name, f, 8, 8, sms, 1);
    if (n == 512) {
      std::snprintf(name, sizeof name, "F1/N512/d128/br64/bc8/h%d/p%d/launch/spin0", sms, placement);
      worker_sequence(name, narrow, sms / 2, sms - sms / 2, sms, 1);
    }
  }
}

// `bits MAP`: do the lines a half holds copies of fall evenly on its sets
// whichever heads they are? One block a head, the head's half chosen by
// bit k of the head's number, so each half copies a strided set of
// addresses: 16 heads at N = 4096 (1 MiB a head: k = 0 .. 3 is address
// bit 20 .. 23 of the offset in the tensor; k = 3 is split's 8 and 8) and
// 132 heads at N = 512 (128 KiB a head: k = 0 .. 6 is bit 17 .. 23; a half
// with more than 66 heads gives the rest to the other), and the 132 heads
// as the GPU places them (flash_k). fp16, d = 128, Br = Bc = 64, launch
// style, no spin. The model, with no addresses, predicts the same for all.
void bits_sequences(int placement) {
  for (const auto& [heads, n, bits] : {std::tuple{16, 4096, 4}, std::tuple{sms, 512, 7}}) {
    FlashBuffers b = FlashBuffers::make(heads, n, 128, 64, 64);
    CK(cudaDeviceSynchronize());
    for (int k = 0; k < bits; ++k) {
      std::vector<int> halves(heads);
      int on[2] = {0, 0};
      for (int h = 0; h < heads; ++h) halves[h] = (h >> k) & 1, ++on[halves[h]];
      for (int h = heads - 1; h >= 0; --h)  // a half with more than its SMs gives the last heads to the other
        if (on[halves[h]] > (sms + 1) / 2) --on[halves[h]], halves[h] ^= 1, ++on[halves[h]];
      char name[96];
      std::snprintf(name, sizeof name, "F1-b%d/N%d/d128/br64/bc64/h%d/p%d/launch/spin0", k, n, heads, placement);
      worker_sequence(name, b.f, halves, heads, 1);
    }
    if (heads == sms) {
      char name[96];
      std::snprintf(name, sizeof name, "F1/N%d/d128/br64/bc64/h%d/p%d/launch/spin0", n, heads, placement);
      const Flash g = b.f;
      sequence(name, "launch", (n + 63) / 64, 0, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
      print_blocks(name, heads);
    }
  }
}

// `layout`: is it the K and V stream's addresses? Each pass flash1 reads
// K_j and V_j of every head: Bc rows every N rows, a strided subset of the
// addresses. F1-kvj lays K and V out by key block, then head, so all heads'
// K_j are one run: the same bytes in the same order at other addresses.
// fp16, d = 128, Br = Bc = 64 (Bc = 512 for 16 heads), launch style, no
// spin, blocks where the GPU puts them (flash_k); 132 heads at N = 512 and
// 576, 16 heads at N = 4096 with Bc = 512. The model predicts the same for
// both layouts.
void layout_sequences(int placement) {
  for (const auto& [h, n, bc] : {std::tuple{sms, 512, 64}, std::tuple{sms, 576, 64}, std::tuple{16, 4096, 512}}) {
    const int heads = h;  // (a lambda cannot capture a structured binding before C++20)
    FlashBuffers b = FlashBuffers::make(heads, n, 128, 64, bc);
    CK(cudaDeviceSynchronize());
    Flash byj = b.f;
    byj.kv_heads = heads;
    for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-kvj", byj}}) {
      char name[96];
      std::snprintf(name, sizeof name, "%s/N%d/d128/br64/bc%d/h%d/p%d/launch/spin0", tag, n, bc, heads, placement);
      const Flash g = f;
      sequence(
          name, "launch", n / bc, 0, [&](const Run& r) { flash_k<1><<<heads, 256, kShared>>>(g, r); }, heads);
      print_blocks(name, heads);
    }
  }
}

// `parts`: which of flash1's parts beside Q and O costs the extra reads
// with 132 heads? fp16, d = 128, Br = Bc = 64, N = 512 and 576, launch
// style, no spin, blocks where the GPU puts them: F1, without l and m
// (F1-nolm), with K_j but no V_j (F1-konly), and both (F1-nolm-konly).
void parts_sequences(int placement) {
  for (const int n : {512, 576}) {
    FlashBuffers b = FlashBuffers::make(sms, n, 128, 64, 64);
    CK(cudaDeviceSynchronize());
    Flash nolm = b.f, konly = b.f, both = b.f;
    nolm.lm = both.lm = false;
    konly.read_v = both.read_v = false;
    for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-nolm", nolm}, std::pair{"F1-konly", konly},
                                 std::pair{"F1-nolm-konly", both}}) {
      char name[96];
      std::snprintf(name, sizeof name, "%s/N%d/d128/br64/bc64/h%d/p%d/launch/spin0", tag, n, sms, placement);
      const Flash g = f;
      sequence(name, "launch", (n + 63) / 64, 0, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
      print_blocks(name, sms);
    }
  }
}

// `lm`: why do l and m cost the GPU more than their bytes? 132 heads,
// N = 512 (fp16, d = 128, Br = Bc = 64, launch style, no spin, blocks where
// the GPU puts them): F1 and F1-nolm again; l and m only read, never
// written (F1-lmro); each head's l and m on its own 4 KiB (F1-lmpad: 2 KiB
// used of 4, so no 4 KiB chunk holds two heads' rows); both (F1-lmro-lmpad).
void lm_sequences(int placement) {
  FlashBuffers b = FlashBuffers::make(sms, 512, 128, 64, 64);
  float* l_pad = fresh<float>(static_cast<size_t>(sms) * 1024 * 4);
  float* m_pad = fresh<float>(static_cast<size_t>(sms) * 1024 * 4);
  CK(cudaDeviceSynchronize());
  Flash nolm = b.f, ro = b.f, pad = b.f, ro_pad = b.f;
  nolm.lm = false;
  ro.lm_write = ro_pad.lm_write = false;
  for (Flash* f : {&pad, &ro_pad}) f->l = l_pad, f->m = m_pad, f->lm_stride = 1024;
  for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-nolm", nolm}, std::pair{"F1-lmro", ro},
                               std::pair{"F1-lmpad", pad}, std::pair{"F1-lmro-lmpad", ro_pad}}) {
    char name[96];
    std::snprintf(name, sizeof name, "%s/N512/d128/br64/bc64/h%d/p%d/launch/spin0", tag, sms, placement);
    const Flash g = f;
    sequence(name, "launch", 8, 0, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
    print_blocks(name, sms);
  }
}

// `grain`: does the size of a thread's loads and stores matter? flash1's
// fp16 kernel moves one 2-byte element a thread (a warp: 64 bytes, half a
// line), the probe 16 bytes (a warp: four lines). 132 heads, N = 512 (fp16,
// d = 128, Br = Bc = 64, blocks where the GPU puts them): F1 (16 bytes),
// F1-e2 (2 bytes for Q, K, V and O), F1-e4 (4 bytes, as the fp32 kernel),
// F1-e2o (2 bytes for O only), F1-e2in (2 bytes for Q, K and V only), in
// the launch style with no spin; then F1 and F1-e2 in one kernel with
// flash1's 80 us a step (loop style), as flash1 runs.
void grain_sequences(int placement) {
  FlashBuffers b = FlashBuffers::make(sms, 512, 128, 64, 64);
  CK(cudaDeviceSynchronize());
  Flash e2 = b.f, e4 = b.f, e2o = b.f, e2in = b.f;
  e2.grain_in = e2.grain_o = 2;
  e4.grain_in = e4.grain_o = 4;
  e2o.grain_o = 2;
  e2in.grain_in = 2;
  for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-e2", e2}, std::pair{"F1-e4", e4},
                               std::pair{"F1-e2o", e2o}, std::pair{"F1-e2in", e2in}}) {
    char name[96];
    std::snprintf(name, sizeof name, "%s/N512/d128/br64/bc64/h%d/p%d/launch/spin0", tag, sms, placement);
    const Flash g = f;
    sequence(name, "launch", 8, 0, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
    print_blocks(name, sms);
  }
  for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-e2", e2}}) {
    char name[96];
    std::snprintf(name, sizeof name, "%s/N512/d128/br64/bc64/h%d/p%d/loop/spin80us", tag, sms, placement);
    const Flash g = f;
    sequence(name, "loop", 8, 80000, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
  }
}

void edge_sequences(int placement) {
  for (const int n : {384, 448, 512, 576, 640}) {
    FlashBuffers b = FlashBuffers::make(sms, n, 128, 64, 64);
    CK(cudaDeviceSynchronize());
    Flash nokv = b.f, ro = b.f;
    nokv.kv = false;
    ro.write = false;
    for (const auto& [tag, f] : {std::pair{"F1", b.f}, std::pair{"F1-nokv", nokv}, std::pair{"F1-ro", ro}}) {
      char name[96];
      std::snprintf(name, sizeof name, "%s/N%d/d128/br64/bc64/p%d/launch/spin0", tag, n, placement);
      const Flash g = f;
      sequence(name, "launch", (n + 63) / 64, 0, [&](const Run& r) { flash_k<1><<<sms, 256, kShared>>>(g, r); });
    }
  }
  uint4* pool = fresh<uint4>(128 * kMiB);
  for (const int f_mib : {36, 38, 40, 42, 44, 46, 48}) {
    const Plain p{pool, static_cast<size_t>(f_mib) * kMiB / 4096 / sms, false};
    char name[64];
    std::snprintf(name, sizeof name, "R%d/F%d/p%d/launch", sms, f_mib, placement);
    sequence(name, "launch", 6, 0, [&](const Run& r) { plain_k<1><<<sms, 256, kShared>>>(p, r); });
  }
}

void plain_sequences(uint4* pool, int placement) {
  for (const auto& [half, f_mib] : {std::pair{false, 44}, std::pair{true, 40}}) {
    const Plain p{pool, static_cast<size_t>(f_mib) * kMiB / 4096 / sms, half};
    auto launch = [&](const Run& r) { plain_k<1><<<sms, 256, kShared>>>(p, r); };
    for (const char* style : {"launch", "loop", "sync"}) {
      if (quick && std::string(style) != "launch") continue;
      char name[64];
      std::snprintf(name, sizeof name, "%c%d/F%d/p%d/%s", half ? 'H' : 'R', sms, f_mib, placement, style);
      sequence(name, style, 6, 0, launch);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const int placements = argc > 1 ? std::atoi(argv[1]) : 1;
  quick = argc > 2 && std::string(argv[2]) == "quick";
  const bool variants = argc > 2 && std::string(argv[2]) == "variants";
  const bool edge = argc > 2 && std::string(argv[2]) == "edge";
  const bool grid = argc > 2 && std::string(argv[2]) == "grid";
  const bool shifted = argc > 2 && std::string(argv[2]) == "shift";
  const bool layout = argc > 2 && std::string(argv[2]) == "layout";
  const bool parts = argc > 2 && std::string(argv[2]) == "parts";
  const bool lm_mode = argc > 2 && std::string(argv[2]) == "lm";
  const bool grain = argc > 2 && std::string(argv[2]) == "grain";
  const bool split = argc > 3 && std::string(argv[2]) == "split";
  const bool many = argc > 3 && std::string(argv[2]) == "many";
  const bool bits = argc > 3 && std::string(argv[2]) == "bits";
  if (split || many || bits) {  // the SM map: the last "SM rep=" line of each SM
    half_of_sm.assign(1024, 0);
    FILE* in = std::fopen(argv[3], "r");
    if (!in) {
      std::printf("cannot read the SM map %s\n", argv[3]);
      return 1;
    }
    char line[512];
    while (std::fgets(line, sizeof line, in)) {
      int rep, sm, cycles;
      double slow;
      if (std::sscanf(line, "SM rep=%d smid=%d mean_cycles=%d slow_share=%lf", &rep, &sm, &cycles, &slow) == 4 &&
          sm >= 0 && sm < 1024)
        half_of_sm[sm] = slow < 0.5 ? 0 : 1;
    }
    std::fclose(in);
  }
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::printf("SMS %d L2 %d\n", sms, l2);
  CK(cudaFuncSetAttribute(flash_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  CK(cudaFuncSetAttribute(plain_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  CK(cudaFuncSetAttribute(flash_work_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  CK(cudaMalloc(&worker_of_sm, 1024 * sizeof(int)));
  scratch = fresh<char>(240 * kMiB);
  barrier = fresh<unsigned>(sizeof(unsigned));
  stamps = fresh<unsigned long long>(1024 * (kMaxPasses + 1) * sizeof(unsigned long long));
  for (int placement = 0; placement < placements; ++placement) {
    // New buffers each placement, the earlier ones still held: new pages.
    if (variants || edge || grid || shifted || split || many || bits || layout || parts || lm_mode || grain) {
      if (split) split_sequences(placement);
      else if (grain) grain_sequences(placement);
      else if (lm_mode) lm_sequences(placement);
      else if (parts) parts_sequences(placement);
      else if (layout) layout_sequences(placement);
      else if (bits) bits_sequences(placement);
      else if (many) many_sequences(placement);
      else if (variants) variant_sequences(placement);
      else if (edge) edge_sequences(placement);
      else if (grid) grid_sequences(placement);
      else shift_sequences(placement);
      continue;
    }
    const FlashBuffers a = FlashBuffers::make(sms, 512, 128, 64, 64);
    const FlashBuffers b = FlashBuffers::make(sms, 1024, 64, 64, 227);
    uint4* pool = fresh<uint4>(128 * kMiB);
    CK(cudaDeviceSynchronize());
    flash_sequences(a, placement, 80000);   // flash1 fp16 N 512 d 128: about 80 us a step
    flash_sequences(b, placement, 96000);   // N 1024 d 64 Bc 227: about 96 us a step
    plain_sequences(pool, placement);
  }
  std::printf("DONE %d probes\n", probes);
  return 0;
}
