// Hopper (sm_90) building blocks of version 7, one PTX instruction each:
// mbarriers (a shared-memory barrier that also counts bytes landing), TMA
// (the copy engine: one thread asks for a whole tile, described by a tensor
// map) and wgmma's shared-memory matrix descriptors.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: no driver library is linked)

#include <cstdint>

namespace fasim::cuda::kernels::hopper {

__device__ inline std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarrier -----------------------------------------------------------
// A phase completes when `count` threads have arrived and every byte announced
// with expect_tx has landed. Waiters name the phase parity they wait for.
__device__ inline void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count));
}
/// Makes the initialised barriers visible to the copy engine and other threads.
__device__ inline void mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
/// Arrives once and announces `bytes` that copies will deliver to this phase.
__device__ inline void mbar_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}
__device__ inline void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
/// Spins until the phase of parity `parity` has completed.
__device__ inline void mbar_wait(std::uint64_t* bar, int parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n}\n" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}

// ---- TMA ----------------------------------------------------------------
/// One box of a 3-D tensor (coordinates innermost first) into shared memory;
/// the bytes complete on `bar`. Elements outside the tensor arrive as zeros
/// and are not read from memory.
__device__ inline void tma_load_3d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(bar))
      : "memory");
}

// ---- registers ----------------------------------------------------------
/// Gives registers back (the producer warpgroup needs few) or takes them (the
/// consumers); the kernel must start with a register cap (__launch_bounds__
/// with min blocks 1).
template <int N>
__device__ inline void regs_release() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N)); }
template <int N>
__device__ inline void regs_take() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N)); }

/// Pins a register after a wgmma wait, so the compiler cannot read it earlier.
__device__ inline void pin(float& x) { asm volatile("" : "+f"(x)::"memory"); }

// ---- wgmma descriptors --------------------------------------------------
/// A shared-memory operand in the 128-byte swizzle layout that TMA writes:
/// rows of 128 bytes (64 16-bit elements), 8 rows to a 1024-byte atom, the
/// tile 1024-byte aligned. `sbo`: bytes from one 8-row group to the next;
/// `lbo`: bytes from one 64-element column panel to the next, used only when
/// the operand is read N-major (V in P V); K-major reads ignore it.
__device__ inline std::uint64_t sw128_desc(const void* smem, std::uint32_t lbo, std::uint32_t sbo) {
  const std::uint64_t addr = smem_u32(smem);
  return ((addr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
         (static_cast<std::uint64_t>((sbo & 0x3FFFF) >> 4) << 32) | (std::uint64_t{1} << 62);
}

}  // namespace fasim::cuda::kernels::hopper
