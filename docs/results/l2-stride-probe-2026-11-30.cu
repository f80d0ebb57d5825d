// L2 stride probe (2026-11-30): does holding one address bit fixed shrink
// the L2?
//
// The flash1-pattern probe's `bits` call read up to twice as much when a
// half's copies came from every other MiB of the tensors; the home map
// (l2-home-map-probe-2026-11-30.cu) showed that where a line sits in a half
// follows address bits 8 to at least 20. If the set a line goes to follows
// bit b, lines that all have bit b = 0 can use only part of the sets, and
// the cache looks smaller to them.
// Each sequence: 132 blocks (one an SM) re-read their own share of a
// footprint of F MiB, 4 KiB at a time, one kernel a pass, 4 passes, after a
// flush (the rmw probe's R132, read only). The footprint is every 4 KiB of
// a 2F MiB buffer whose address bit b is 0 (chunks of 2^b bytes, every
// other one), or, with b = 0, the first F MiB as one run. If the L2 is
// as big for every subset, passes 2 to 4 read the same for every b.
// Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o stride l2-stride-probe-2026-11-30.cu
// Run:   ncu --cache-control none --clock-control none --kernel-name regex:read_k \
//            --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base \
//            ./stride PLACEMENTS
// PROBE lines name each kernel: S/F<MiB>/b<bit>/p<placement> pass=<1..4>.
// `./stride PLACEMENTS subsets`: instead, F = 36 and 40 MiB as subsets of
// the 4 KiB units u of a 2F buffer given by a mask M over u's bits (u in the
// subset when the parity of u & M is 0: M = 1 << (b - 12) is bit b held at
// 0; two bits, their XOR held at 0), or at random (a hash of u and a seed):
// S/F<MiB>/x<M, hex>/p<placement> or S/F<MiB>/r<seed>/p<placement>. Is it
// any subset but a run that the L2 holds less well, or the bits?
// `./stride PLACEMENTS mix`: F = 24 to 40 MiB as one run (S/F<MiB>/run),
// a random half of a 2F buffer's units (r1), and half and half: F/2 as one
// run, then F/2 as a random half of the next F (m1). Does a run mixed with
// a scattered subset add as two kinds of data?
// `./stride PLACEMENTS stream`: 132 blocks re-read R = 33 MiB as one run
// (24.75 MiB a half with the copies, as flash1's Q and O at N = 512 with
// 132 heads), and before that, each pass, read S MiB never read again: one
// run a pass (S/F33/s<S>c), or 16 KiB every 128 KiB as flash1's K_j of
// every head (S/F33/s<S>k). 6 passes. Does a read-once stream cost the
// re-read run more than its bytes, and does its layout matter? Then, as
// flash1's Q and O, the 33 MiB as two tensors of 16.5 MiB read unit by unit
// in turn (S/F33/s<S><c|k>/two), and with the second moved 1 MiB + 68 KiB
// within its allocation (.../shift): do two tensors at the same page
// offsets beside a stream lose more?
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe_common.cuh"

namespace {
constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kUnit = 4096;
constexpr int kShared = 115968;  // one block an SM
}  // namespace

__device__ unsigned long long g_sink;

// Pass `pass`: block k reads its share of the stream (`stream_per` 4 KiB
// units, new ones every pass; `strided`: 16 KiB of every 128 KiB), then its
// own `per` units of the run at `base`.
__global__ void stream_k(const char* base, size_t per, const char* stream, size_t stream_per, bool strided,
                         int pass, const char* second) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  for (size_t k = 0; k < stream_per; ++k) {
    const size_t u = (static_cast<size_t>(pass) * gridDim.x + blockIdx.x) * stream_per + k;
    const size_t at = strided ? (u / 4) * 128 * 1024 + (u % 4) * kUnit : u * kUnit;
    const uint4 x = __ldcg(reinterpret_cast<const uint4*>(stream + at) + threadIdx.x);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  // With `second`, the run is two tensors of per / 2 units a block, read in turn.
  const size_t own = second ? per / 2 : per;
  for (size_t k = 0; k < own; ++k)
    for (const char* t : {base, second}) {
      if (!t) continue;
      const uint4 x = __ldcg(reinterpret_cast<const uint4*>(t + (blockIdx.x * own + k) * kUnit) + threadIdx.x);
      acc ^= x.x ^ x.y ^ x.z ^ x.w;
    }
  if (threadIdx.x == 0) keep[0] = acc;
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

// Block k reads units [k * per, (k + 1) * per) of the subset listed in `units`.
__global__ void list_k(const char* base, size_t per, const unsigned* units) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  for (size_t k = 0; k < per; ++k) {
    const uint4* p = reinterpret_cast<const uint4*>(base + size_t{units[blockIdx.x * per + k]} * kUnit);
    const uint4 x = __ldcg(p + threadIdx.x);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (threadIdx.x == 0) keep[0] = acc;
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

// Block k reads units [k * per, (k + 1) * per) of the subset: unit u lies in
// chunk u / per_chunk (every other chunk of 2^bit bytes), or runs on with bit 0.
__global__ void read_k(const char* base, size_t per, int bit) {
  extern __shared__ unsigned keep[];
  unsigned acc = 0;
  const size_t chunk = bit > 0 ? size_t{1} << bit : 0, per_chunk = bit > 0 ? chunk / kUnit : 1;
  for (size_t k = 0; k < per; ++k) {
    const size_t u = blockIdx.x * per + k;
    const size_t at = bit > 0 ? (u / per_chunk) * 2 * chunk + (u % per_chunk) * kUnit : u * kUnit;
    const uint4* p = reinterpret_cast<const uint4*>(base + at);
    const uint4 x = __ldcg(p + threadIdx.x);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (threadIdx.x == 0) keep[0] = acc;
  if (acc == 0x9E3779B9u) g_sink = acc + keep[0];
}

__global__ void flush_k(const uint4* p, size_t n) {
  unsigned acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 x = __ldcg(p + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9E3779B9u) g_sink = acc;
}

unsigned mix_hash(unsigned x) {  // a 32-bit finaliser: every input bit moves every output bit
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

int main(int argc, char** argv) {
  const int placements = argc > 1 ? std::atoi(argv[1]) : 1;
  const bool subsets = argc > 2 && std::string(argv[2]) == "subsets";
  const bool mix = argc > 2 && std::string(argv[2]) == "mix";
  const bool streams = argc > 2 && std::string(argv[2]) == "stream";
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaFuncSetAttribute(read_k, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  CK(cudaFuncSetAttribute(list_k, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  CK(cudaFuncSetAttribute(stream_k, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  unsigned* units = nullptr;
  CK(cudaMalloc(&units, 2 * 40 * kMiB / kUnit * sizeof(unsigned)));
  char* scratch = nullptr;
  CK(cudaMalloc(&scratch, 240 * kMiB));
  CK(cudaMemset(scratch, 1, 240 * kMiB));
  std::printf("SMS %d\n", sms);
  for (int placement = 0; placement < placements; ++placement) {
    char* buf = nullptr;  // new pages each placement, the earlier ones still held
    CK(cudaMalloc(&buf, 2 * 40 * kMiB));
    CK(cudaMemset(buf, 1, 2 * 40 * kMiB));
    auto flush = [&] {
      for (int pass = 0; pass < 2; ++pass) flush_k<<<sms * 8, 256>>>(reinterpret_cast<uint4*>(scratch), 240 * kMiB / 16);
      CK(cudaDeviceSynchronize());
    };
    // Reads the listed units of buf (the first per * sms of them) as the sequence `name`.
    auto run_list = [&](const std::vector<unsigned>& list, size_t per, const char* name) {
      CK(cudaMemcpy(units, list.data(), per * sms * sizeof(unsigned), cudaMemcpyHostToDevice));
      flush();
      for (int pass = 1; pass <= 4; ++pass) {
        std::printf("PROBE %s pass=%d\n", name, pass);
        list_k<<<sms, 256, kShared>>>(buf, per, units);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      }
    };
    if (streams) {
      char* stream = nullptr;  // 6 passes of at most 8 MiB, strided over 8 times that
      CK(cudaMalloc(&stream, 6 * 8 * 8 * kMiB));
      CK(cudaMemset(stream, 1, 6 * 8 * 8 * kMiB));
      const size_t per = 33 * kMiB / kUnit / sms;
      char* second = nullptr;  // the second tensor: 16.5 MiB, and room to move it
      CK(cudaMalloc(&second, 18 * kMiB));
      CK(cudaMemset(second, 1, 18 * kMiB));
      struct Kind {
        int s_mib;
        bool strided;
        int tensors;  // 1: one run; 2: two tensors at the same page offsets; 3: the second moved
      };
      for (const Kind& k : {Kind{0, false, 1}, Kind{1, false, 1}, Kind{2, false, 1}, Kind{4, false, 1},
                            Kind{8, false, 1}, Kind{4, true, 1}, Kind{8, true, 1}, Kind{0, false, 2},
                            Kind{4, false, 2}, Kind{4, true, 2}, Kind{4, true, 3}}) {
        const size_t stream_per = static_cast<size_t>(k.s_mib) * kMiB / kUnit / sms;
        const char* two = k.tensors == 1 ? nullptr : second + (k.tensors == 3 ? kMiB + 68 * 1024 : 0);
        char name[64];
        std::snprintf(name, sizeof name, "S/F33/s%d%c%s/p%d", k.s_mib, k.strided ? 'k' : 'c',
                      k.tensors == 1 ? "" : k.tensors == 2 ? "/two" : "/shift", placement);
        flush();
        for (int pass = 1; pass <= 6; ++pass) {
          std::printf("PROBE %s pass=%d\n", name, pass);
          stream_k<<<sms, 256, kShared>>>(buf, per, stream, stream_per, k.strided, pass - 1, two);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        }
      }
      continue;
    }
    if (mix) {
      for (const int f : {24, 28, 32, 36, 40}) {
        const size_t per = static_cast<size_t>(f) * kMiB / kUnit / sms, all = 2 * static_cast<size_t>(f) * kMiB / kUnit;
        for (const char* kind : {"run", "r1", "m1"}) {
          std::vector<unsigned> list;
          const std::string k = kind;
          for (unsigned u = 0; u < all && list.size() < per * sms; ++u) {
            const bool random_half = (mix_hash(u * 4 + 1) & 1) == 0;
            if (k == "run") list.push_back(u);
            else if (k == "r1" && random_half) list.push_back(u);
            else if (k == "m1" && (u < per * sms / 2 || (u >= all / 4 && random_half))) list.push_back(u);
          }
          if (list.size() < per * sms) continue;
          char name[64];
          std::snprintf(name, sizeof name, "S/F%d/%s/p%d", f, kind, placement);
          run_list(list, per, name);
        }
      }
      continue;
    }
    if (subsets) {
      // masks over u's bits (bit 0 of u is address bit 12): single bits, pairs, a run of them
      const unsigned masks[] = {0x1, 0x10, 0x100, 0x3, 0x5, 0x11, 0x101, 0x110, 0x30, 0x300, 0x7, 0x1ff};
      for (const int f : {36, 40}) {
        const size_t per = static_cast<size_t>(f) * kMiB / kUnit / sms, all = 2 * static_cast<size_t>(f) * kMiB / kUnit;
        for (int k = 0; k < 16; ++k) {  // 12 masks, then seeds 1 to 4
          std::vector<unsigned> list;
          for (unsigned u = 0; u < all; ++u) {
            const bool in = k < 12 ? __builtin_parity(u & masks[k]) == 0 : (mix_hash(u * 4 + (k - 11)) & 1) == 0;
            if (in) list.push_back(u);
          }
          if (list.size() < per * sms) continue;  // (a random half may fall a little short)
          char name[64];
          if (k < 12) std::snprintf(name, sizeof name, "S/F%d/x%x/p%d", f, masks[k], placement);
          else std::snprintf(name, sizeof name, "S/F%d/r%d/p%d", f, k - 11, placement);
          run_list(list, per, name);
        }
      }
      continue;
    }
    for (const int f : {24, 32, 40})
      for (const int bit : {0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}) {
        const size_t per = static_cast<size_t>(f) * kMiB / kUnit / sms;
        for (int pass = 0; pass < 2; ++pass) flush_k<<<sms * 8, 256>>>(reinterpret_cast<uint4*>(scratch), 240 * kMiB / 16);
        CK(cudaDeviceSynchronize());
        for (int pass = 1; pass <= 4; ++pass) {
          std::printf("PROBE S/F%d/b%d/p%d pass=%d\n", f, bit, placement, pass);
          read_k<<<sms, 256, kShared>>>(buf, per, bit);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        }
      }
  }
  std::printf("DONE\n");
  return 0;
}
