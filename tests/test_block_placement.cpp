// Block placement (block_placement.hpp): which L2 partition each SM sits
// next to, dealt in turn, in the GPU's measured first-wave runs or in its
// measured small-grid order, and when the simulator uses which.
#include <catch2/catch.hpp>

#include <algorithm>

#include "fasim/block_placement.hpp"
#include "fasim/fidelity.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

TEST_CASE("block placement: runs of SMs go to the partitions in turn", "[l2][placement]") {
  CHECK(partitions_from_runs({2, 3, 1}, 2) == std::vector<std::int64_t>{0, 0, 1, 1, 1, 0});
  CHECK(partitions_from_runs({1, 1, 1, 1}, 3) == std::vector<std::int64_t>{0, 1, 2, 0});
  CHECK(partitions_from_runs({}, 2).empty());
  CHECK_THROWS(partitions_from_runs({2, 0}, 2));
}

TEST_CASE("block placement: the GPU's order only for the fp32 kernels' grids larger than the SM count",
          "[l2][placement]") {
  const DeviceSpec h200 = load_device("h200");
  REQUIRE(h200.sm_count == 132);
  const std::vector<std::int64_t> of_sm = kernel_sm_partitions(h200, ComputeModel::cuda_simt, 133);
  REQUIRE(of_sm.size() == 132);
  // Runs of 16, 48, 50 and 18 SMs: next to partition 0, 1, 0, 1.
  CHECK(of_sm[0] == 0);
  CHECK(of_sm[15] == 0);
  CHECK(of_sm[16] == 1);
  CHECK(of_sm[63] == 1);
  CHECK(of_sm[64] == 0);
  CHECK(of_sm[113] == 0);
  CHECK(of_sm[114] == 1);
  CHECK(of_sm[131] == 1);
  CHECK(std::count(of_sm.begin(), of_sm.end(), 0) == 66);  // each half has 66 SMs
  // Dealt in turn (an empty map): the tensor-core kernel, the ideal model,
  // a profile without measured runs. One wave or less: the small-grid order.
  CHECK(takes_first_wave_runs(h200, ComputeModel::cuda_simt, 133));
  CHECK_FALSE(takes_first_wave_runs(h200, ComputeModel::cuda_simt, 132));
  CHECK(kernel_sm_partitions(h200, ComputeModel::cuda_simt, 132) != of_sm);
  CHECK(kernel_sm_partitions(h200, ComputeModel::cuda_mma, 4096).empty());
  CHECK(kernel_sm_partitions(h200, ComputeModel::ideal, 4096).empty());
  CHECK(kernel_sm_partitions(load_device("a100"), ComputeModel::cuda_simt, 4096).empty());
}

TEST_CASE("block placement: a grid of one wave or less fills SMs in the GPU's measured order", "[l2][placement]") {
  const DeviceSpec h200 = load_device("h200");
  const std::vector<std::int64_t> of_sm = kernel_sm_partitions(h200, ComputeModel::cuda_simt, 16);
  REQUIRE(of_sm.size() == 132);
  // The splits the launch-placement probe measured (every grid of 1 to 132
  // blocks on an H200, 2026-11-28; the same at the 9 sizes an H100 and
  // another H200 gave on 2026-11-25): block b sits next to letter b's half.
  const std::vector<std::pair<std::int64_t, std::int64_t>> measured = {
      {1, 1}, {8, 8}, {9, 9}, {10, 9}, {12, 9}, {14, 11}, {16, 12}, {18, 13}, {20, 13}, {24, 16},
      {32, 20}, {48, 27}, {64, 33}, {96, 50}, {132, 66}};
  for (const auto& [grid, first_half] : measured) {
    INFO(grid << " blocks");
    CHECK(std::count(of_sm.begin(), of_sm.begin() + grid, 0) == first_half);
    CHECK(takes_small_grid_fill(h200, ComputeModel::cuda_simt, grid));
  }
  CHECK(kernel_sm_partitions(load_device("h100"), ComputeModel::cuda_simt, 16) == of_sm);
  // Larger grids take the first-wave runs; other kernels, the ideal model
  // and a profile without the order are dealt in turn.
  CHECK_FALSE(takes_small_grid_fill(h200, ComputeModel::cuda_simt, 133));
  CHECK(kernel_sm_partitions(h200, ComputeModel::cuda_mma, 16).empty());
  CHECK(kernel_sm_partitions(h200, ComputeModel::ideal, 16).empty());
  CHECK(kernel_sm_partitions(load_device("a100"), ComputeModel::cuda_simt, 16).empty());
}

TEST_CASE("block placement: flash1 with 16 heads near the L2's size misses more in the loaded half", "[l2][placement]") {
  // Each block re-reads and rewrites its head's Q and O (1 MiB each at fp32,
  // N = 2048, d = 128) on every pass over K and V: 32 MiB for 16 heads, plus
  // the near copies of what is homed far. Dealt 8 + 8, each 30 MiB half
  // holds its share; 12 + 4, as the GPUs place them, the loaded half
  // overflows and reads again from DRAM. The requests are the same either
  // way: only DRAM traffic moves.
  const Workload w{.batch = 1, .heads = 16, .N = 2048, .d = 128, .dtype = DType::fp32};
  const Mapping m{.algo = Algo::flash1, .br = 64, .bc = 64};
  DeviceSpec turn = load_device("h200");
  turn.l2_small_grid_fill.clear();
  const DeviceSpec gpu = load_device("h200");
  Simulation a(turn, w, m, {.numerics = false, .compute = ComputeModel::cuda_simt});
  Simulation b(gpu, w, m, {.numerics = false, .compute = ComputeModel::cuda_simt});
  a.run();
  b.run();
  REQUIRE(a.program().kernels.front().grid == 16);
  CHECK(a.ledger().hbm_total() == b.ledger().hbm_total());
  const std::int64_t qkv = 3 * 16 * 2048 * 128 * 4;  // read once at least, either way
  const std::int64_t ra = a.ledger().cache_total().dram_read_bytes, rb = b.ledger().cache_total().dram_read_bytes;
  CHECK(ra >= qkv);
  CHECK(rb - qkv > 2 * (ra - qkv));
}

TEST_CASE("block placement: the GPU's order keeps a head's readers next to one partition, so fewer copies cross",
          "[l2][placement]") {
  // 24 heads of N = 512 at Br = 64: 192 blocks, 8 in a row read one head's K
  // and V. Dealt in turn they alternate between the partitions, so both keep
  // a copy of every K and V tile; in runs of 16 to 50 SMs most heads' readers
  // share one partition. Placement moves no request: HBM traffic and, with
  // everything fitting in L2, DRAM reads are the same. Only the L2 fabric
  // (bytes between the partitions) shrinks.
  const Workload w{.batch = 1, .heads = 24, .N = 512, .d = 64, .dtype = DType::fp32};
  const Mapping m{.algo = Algo::flash2, .br = 64, .bc = 64};
  DeviceSpec turn = load_device("h200");
  turn.l2_first_wave_runs.clear();
  const DeviceSpec runs = load_device("h200");
  Simulation a(turn, w, m, {.numerics = false, .compute = ComputeModel::cuda_simt});
  Simulation b(runs, w, m, {.numerics = false, .compute = ComputeModel::cuda_simt});
  a.run();
  b.run();
  REQUIRE(a.program().kernels.front().grid == 192);
  CHECK(a.ledger().hbm_total() == b.ledger().hbm_total());
  CHECK(a.ledger().cache_total().dram_read_bytes == b.ledger().cache_total().dram_read_bytes);
  // K and V are 2 x 24 x 512 x 64 x 4 B = 6 MiB; half of each copy is homed far.
  const std::int64_t kv = 2 * 24 * 512 * 64 * 4;
  const std::int64_t fa = a.ledger().cache_total().l2_fabric_bytes, fb = b.ledger().cache_total().l2_fabric_bytes;
  CHECK(fb < fa);
  CHECK(fa - fb <= kv / 2);  // at most every head's K and V copied once fewer
}

TEST_CASE("block placement: fasim compare --recorded says where the blocks sat", "[l2][placement][fidelity]") {
  const DeviceSpec h200 = load_device("h200");
  CHECK(placement_name(h200, ComputeModel::cuda_simt, {192}) == "the GPU's first-wave runs");
  CHECK(placement_name(h200, ComputeModel::cuda_simt, {16}) == "the GPU's small-grid order");
  CHECK(placement_name(h200, ComputeModel::cuda_simt, {16, 192}) == "the GPU's first-wave runs and small-grid order");
  CHECK(placement_name(h200, ComputeModel::cuda_mma, {16}) == "dealt to the L2 halves in turn");
  CHECK(placement_name(h200, ComputeModel::cuda_mma, {4096}) == "dealt to the L2 halves in turn");
  CHECK(placement_name(load_device("toy"), ComputeModel::cuda_simt, {4096}) == "one L2");
  // Re-predicting a recorded point carries the name: flash2 fp32 with 192
  // blocks (the runs) and flash2 fp16 on the tensor-core kernel (in turn).
  RecordedPoint fp32, fp16;
  fp32.workload = {.batch = 1, .heads = 24, .N = 512, .d = 64, .dtype = DType::fp32};
  fp32.mapping = {.algo = Algo::flash2, .br = 64, .bc = 64};
  fp16 = fp32;
  fp16.workload.dtype = DType::fp16;
  const std::vector<Reprediction> reps = repredict({fp32, fp16}, h200, 1);
  CHECK(reps[0].placement == "the GPU's first-wave runs");
  CHECK(reps[1].placement == "dealt to the L2 halves in turn");
}
