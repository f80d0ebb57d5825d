// Tensor-core building blocks shared by versions 4 and 6: asynchronous
// HBM -> shared copies (cp.async), ldmatrix fragment loads, the m16n8k16
// mma.sync with fp32 accumulators, packing fp32 pairs to fp16/bf16, and the
// counted tile copy. Each wraps one PTX instruction or one loop.
#pragma once

#include <type_traits>

#include "tiles.cuh"

namespace fasim::cuda::kernels {

// 16 bytes global -> shared, asynchronously. Two cache policies, and they
// differ in the L2 sectors the SMs read when the rows in shared memory are
// padded (version 4's, version 6's), measured on an H200 with copies of the
// same contiguous tiles (docs/results/h200-2026-11-21-l2-read-probe.md):
//   .cg (L2 only):  1.5 sectors read per 32 B copied into padded rows, 1.0 into
//                   unpadded rows;
//   .ca (L1 too):   1.0 into padded rows, but version 6 ran 8-9% slower with it
//                   at d = 128 (its blocks then also hit in L1).
// Version 4 copies with .ca so its L2 reads are the bytes it asks for, as the
// simulator counts them; version 6 keeps .cg, the faster.
__device__ inline void cp_async16(void* smem, const void* gmem) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ inline void cp_async16_ca(void* smem, const void* gmem) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ inline void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ inline void ldmatrix_x4(unsigned (&r)[4], const void* smem) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ inline void ldmatrix_x4_trans(unsigned (&r)[4], const void* smem) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

// acc (16x8, fp32) += a (16x16) * b (16x8), a row-major, b column-major.
template <class T>
__device__ inline void mma(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Two floats rounded to the storage type, packed low-first into 32 bits.
template <class T>
__device__ inline unsigned pack(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const unsigned*>(&h);
  }
}

// HBM -> shared with cp.async.ca (see cp_async16): `rows` real rows of D
// elements (row stride D in HBM, LD in shared memory); rows rows..R-1 are
// zeroed. Counted as one tile. Version 4's copy.
template <class T, int R, int D, int LD, int THREADS>
__device__ void copy_tile_async(T* dst, const T* src, int rows, unsigned long long* counters,
                                int tensor) {
  constexpr int kChunks = D * static_cast<int>(sizeof(T)) / 16;  // 16 B copies per row
  for (int idx = threadIdx.x; idx < R * kChunks; idx += THREADS) {
    const int r = idx / kChunks, ch = idx % kChunks;
    T* to = dst + r * LD + ch * 8;
    if (r < rows) cp_async16_ca(to, src + static_cast<std::size_t>(r) * D + ch * 8);
    else *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
  }
  tally(counters, tensor, kRead, rows, D, sizeof(T));
}

// 2^x by the special function unit (ex2.approx, flush-to-zero): what
// exp2f becomes under --use_fast_math. 2^-inf = 0.
__device__ inline float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace fasim::cuda::kernels
