// How many blocks of each CUDA teaching kernel one SM holds (cuda-simt):
// the least of shared memory, registers and 64 warps, kernel by kernel.
#include <catch2/catch.hpp>

#include "fasim/cuda_occupancy.hpp"
#include <memory>

#include "fasim/simulation.hpp"

using namespace fasim;

// H200 (stock profile): 233,472 B of shared memory and 65,536 registers per
// SM. A block is 256 threads, 8 warps; the driver keeps 1 KiB per block;
// registers go to a warp 256 at a time.

TEST_CASE("cuda occupancy: flash2 fits two blocks at d = 128 with Br = Bc = 64 and flash1 one", "[timing]") {
  const DeviceSpec dev = load_device("h200");
  const Workload w{1, 16, 512, 128, DType::fp32};
  // flash2: 4 B x (Q 64x128 + K 64x129 + V 64x128 + S 64x64 + 3 x 64) =
  // 115,712 B, + 1 KiB = 116,736: 233,472 / 116,736 = 2 exactly. 127
  // registers take 128 x 32 = 4,096 a warp, 32,768 a block: 65,536 / 32,768 = 2.
  const Mapping f2{Algo::flash2, 64, 64};
  CHECK(cuda_simt_block_need(w, f2, dev, 0).shared_bytes == 115712);
  CHECK(cuda_simt_blocks_per_sm(w, f2, dev, 0) == 2);
  // flash1: 226 registers take 232 x 32 = 7,424 a warp, 59,392 a block: one.
  CHECK(cuda_simt_blocks_per_sm(w, Mapping{Algo::flash1, 64, 64}, dev, 0) == 1);
}

TEST_CASE("cuda occupancy: naive's three kernels each hold their own number of blocks", "[timing]") {
  const DeviceSpec dev = load_device("h200");
  const Workload w{1, 16, 4096, 64, DType::fp16};
  const Mapping m{Algo::naive, 128, 128};
  // Scores: 4 B x (Q 128x64 + K 128x65) + 1 KiB = 67,072 B: 3 blocks
  // (3.48); 32 registers allow 8, and so do 64 warps.
  CHECK(cuda_simt_block_need(w, m, dev, 0).shared_bytes == 66048);
  CHECK(cuda_simt_blocks_per_sm(w, m, dev, 0) == 3);
  // Softmax: a row of S (128 x 4096 x 2 B = 1 MiB) does not fit a block, so
  // two passes over (Br, Bc) chunks: 8 B x 128 (m, l) + 2 B x 128 x 128 +
  // 1 KiB = 34,816 B: 6 blocks (6.7); 40 registers, 1,280 a warp: 6 (6.4).
  CHECK(cuda_simt_block_need(w, m, dev, 1).shared_bytes == 33792);
  CHECK(cuda_simt_blocks_per_sm(w, m, dev, 1) == 6);
  // Output: 4 B x (P 128x128 + V 128x64) + 1 KiB = 99,328 B: 2 (2.35); 113
  // registers, 3,840 a warp, 30,720 a block: 2.
  CHECK(cuda_simt_blocks_per_sm(w, m, dev, 2) == 2);
  // At d = 128 the output kernel's V tile is twice as big: 132,096 B, one block.
  CHECK(cuda_simt_blocks_per_sm(Workload{1, 16, 4096, 128, DType::fp16}, m, dev, 2) == 1);
  // At N = 512 the softmax rows fit (128 x 512 x 2 B = 128 KiB): one block.
  CHECK(cuda_simt_block_need(Workload{1, 16, 512, 64, DType::fp16}, m, dev, 1).shared_bytes == 1024 + 131072);
  CHECK(cuda_simt_blocks_per_sm(Workload{1, 16, 512, 64, DType::fp16}, m, dev, 1) == 1);

  // The simulator runs each kernel at its own occupancy.
  Simulation sim(dev, w, m, {.numerics = false, .compute = ComputeModel::cuda_simt});
  sim.run();
  REQUIRE(sim.time().kernels.size() == 3);
  CHECK(sim.time().kernels[0].blocks_per_sm == 3);
  CHECK(sim.time().kernels[1].blocks_per_sm == 6);
  CHECK(sim.time().kernels[2].blocks_per_sm == 2);
}

TEST_CASE("cuda occupancy: --blocks-per-sm caps every kernel and moves no HBM byte", "[timing]") {
  const DeviceSpec dev = load_device("h200");
  const Workload w{1, 16, 2048, 128, DType::fp32};
  Mapping m{Algo::flash2, 64, 64};  // two blocks per SM fit (above)
  auto run = [&](std::int64_t cap) {
    m.blocks_per_sm = cap;
    auto sim = std::make_unique<Simulation>(dev, w, m, SimOptions{.numerics = false, .compute = ComputeModel::cuda_simt});
    sim->run();
    return sim;
  };
  const auto two = run(0), one = run(1), many = run(8);
  REQUIRE(two->time().kernels.size() == 1);
  CHECK(two->time().kernels[0].blocks_per_sm == 2);
  CHECK(one->time().kernels[0].blocks_per_sm == 1);
  CHECK(many->time().kernels[0].blocks_per_sm == 2);  // a cap above what fits changes nothing
  // 16 heads x 32 query blocks = 512 blocks on 132 SMs: 2 waves at two per SM, 4 at one.
  CHECK(two->time().kernels[0].waves == 2);
  CHECK(one->time().kernels[0].waves == 4);
  CHECK(one->ledger().hbm_total() == two->ledger().hbm_total());  // the same tiles load and store
  CHECK(many->ledger().cache_total().dram_write_bytes == two->ledger().cache_total().dram_write_bytes);
  // Half the blocks at a time: more time, and each K/V tile has fewer readers in
  // L2 at once. Measured (docs/results/occupancy-writes-2026-11-24.md, H200):
  // 6.3 -> 10.6 ms and 3.7 -> 5.8 MiB written to DRAM.
  CHECK(one->time().seconds > 1.4 * two->time().seconds);
  CHECK(one->ledger().cache_total().dram_write_bytes > two->ledger().cache_total().dram_write_bytes);

  // Naive: each kernel keeps its own occupancy, held to the cap.
  const Mapping naive{Algo::naive, 128, 128, false, 0, 2};
  Simulation n(dev, Workload{1, 16, 4096, 64, DType::fp16}, naive, {.numerics = false, .compute = ComputeModel::cuda_simt});
  n.run();
  REQUIRE(n.time().kernels.size() == 3);
  CHECK(n.time().kernels[0].blocks_per_sm == 2);  // 3 fit
  CHECK(n.time().kernels[1].blocks_per_sm == 2);  // 6 fit
  CHECK(n.time().kernels[2].blocks_per_sm == 2);  // 2 fit
}

TEST_CASE("cuda occupancy: the tensor-core version 4 holds one to four blocks, by instance", "[timing]") {
  const DeviceSpec dev = load_device("h200");
  // Version 4 has 2 Br threads, Q_i, K_j, V_j in fp16 with rows padded by 8,
  // and ptxas's registers for its instance. Registers decide each instance:
  struct Case {
    std::int64_t br, bc, d;
    int registers;
    std::int64_t blocks;
  };
  for (const Case c : {
           // Br = 128, 8 warps: 228 registers -> 232 x 32 = 7,424 a warp, 59,392 a block: one.
           Case{128, 128, 128, 228, 1}, Case{128, 128, 64, 192, 1}, Case{128, 64, 128, 173, 1},
           // 100 -> 104 x 32 = 3,328 a warp, 26,624 a block: two (shared memory allows six).
           Case{128, 64, 64, 100, 2},
           // Br = 64, 4 warps: 228 -> 29,696 a block: two (and 88,064 B of shared memory: two).
           Case{64, 128, 128, 228, 2},
           // 161 -> 168 x 32 x 4 = 21,504: three; 130 -> 17,408: three; 118 -> 15,360: four.
           Case{64, 64, 128, 161, 3}, Case{64, 128, 64, 130, 3}, Case{64, 64, 64, 118, 4}}) {
    CAPTURE(c.br, c.bc, c.d);
    const Workload w{1, 16, 4096, c.d, DType::fp16};
    const Mapping m{Algo::flash2, c.br, c.bc};
    const CudaBlockNeed need = cuda_mma_block_need(w, m);
    CHECK(need.threads == 2 * c.br);
    CHECK(need.shared_bytes == (c.br + 2 * c.bc) * (c.d + 8) * 2);
    CHECK(need.registers == c.registers);
    CHECK(cuda_blocks_per_sm(need, dev) == c.blocks);
    Simulation sim(dev, w, m, {.numerics = false, .compute = ComputeModel::cuda_mma});
    CHECK(sim.blocks_per_sm() == c.blocks);
  }
}
