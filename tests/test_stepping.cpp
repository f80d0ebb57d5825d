// The stepping API: one Step at a time, the order a tile program runs in, and
// the ledger as the sum of the Steps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "fasim/simulation.hpp"
#include "fasim/tiling.hpp"

using namespace fasim;

TEST_CASE("stepping one at a time gives the same totals as run()", "[stepping]") {
  const DeviceSpec dev = load_device("h100");
  for (Algo a : {Algo::naive, Algo::flash2}) {
    const Workload w{1, 2, 100, 16, DType::fp16};
    const Mapping m{a, 32, 16};
    Simulation stepped(dev, w, m, {.numerics = true});
    Simulation whole(dev, w, m, {.numerics = true});
    Traffic sum;
    std::int64_t steps = 0;
    while (stepped.next()) {
      sum.read_bytes += stepped.step().hbm_read_bytes;
      sum.write_bytes += stepped.step().hbm_write_bytes;
      ++steps;
    }
    whole.run();
    CHECK(stepped.done());
    CHECK_FALSE(stepped.next());  // finished stays finished
    CHECK(sum == whole.ledger().hbm_total());
    CHECK(steps == whole.ledger().steps());
    CHECK(stepped.hbm().at(TensorId::O).values == whole.hbm().at(TensorId::O).values);
  }
}

TEST_CASE("flash2 block program order: Q once, then K, V, S, softmax, PV per tile", "[stepping][flash2]") {
  const DeviceSpec dev = load_device("h100");
  // N = 40, Br = 16, Bc = 16: Tr = 3 query blocks (16, 16, 8 rows), Tc = 3.
  // The blocks run concurrently, so their steps interleave: check each block's own order.
  Simulation sim(dev, Workload{1, 1, 40, 8, DType::fp32}, Mapping{Algo::flash2, 16, 16}, {.numerics = false});
  std::vector<std::vector<Step>> by_block(3);
  while (sim.next())
    if (sim.step().kind != StepKind::writeback)  // the L2's, last (its own test below)
      by_block.at(static_cast<std::size_t>(sim.step().block)).push_back(sim.step());
  const std::int64_t Tc = 3;
  for (std::int64_t i = 0; i < 3; ++i) {
    const std::vector<Step>& steps = by_block[static_cast<std::size_t>(i)];
    REQUIRE(static_cast<std::int64_t>(steps.size()) == 1 + 5 * Tc + 3);
    const std::int64_t rows = i < 2 ? 16 : 8;
    std::size_t k = 0;
    CAPTURE(i);
    CHECK(steps[k].kind == StepKind::load);
    CHECK(steps[k].tensor == TensorId::Q);
    CHECK(steps[k].qb == i);
    CHECK(steps[k].hbm_read_bytes == rows * 8 * 4);
    ++k;
    for (std::int64_t j = 0; j < Tc; ++j) {
      const std::int64_t cols = j < 2 ? 16 : 8;
      CAPTURE(j);
      CHECK((steps[k].kind == StepKind::load && steps[k].tensor == TensorId::K));
      CHECK(steps[k].hbm_read_bytes == cols * 8 * 4);
      CHECK((steps[k + 1].kind == StepKind::load && steps[k + 1].tensor == TensorId::V));
      CHECK(steps[k + 2].kind == StepKind::matmul);
      CHECK(steps[k + 2].flops_matmul == 2 * rows * cols * 8);
      CHECK(steps[k + 3].kind == StepKind::softmax);
      CHECK(steps[k + 4].kind == StepKind::matmul);
      for (std::size_t x = k; x < k + 5; ++x) {
        CHECK(steps[x].qb == i);
        CHECK(steps[x].kb == j);
      }
      k += 5;
    }
    CHECK(steps[k].kind == StepKind::rescale);
    CHECK((steps[k + 1].kind == StepKind::store && steps[k + 1].tensor == TensorId::O));
    CHECK((steps[k + 2].kind == StepKind::store && steps[k + 2].tensor == TensorId::L));
    CHECK(steps[k + 2].hbm_write_bytes == rows * 4);
    // A block's own steps never go back in time.
    for (std::size_t x = 1; x < steps.size(); ++x) CHECK(steps[x].start_s >= steps[x - 1].start_s);
  }
}

TEST_CASE("blocks beyond what the SMs hold wait for a slot: waves", "[stepping][timing]") {
  // toy: 4 SMs. flash2 Br = Bc = 16, d = 16, fp16 needs 1,536 B of SRAM (4,096
  // per SM: 2 fit) and 2,176 B of registers (8,192 per SM: 3 fit), so 2 blocks
  // per SM, 8 at once. N = 128 has 8 query blocks per head, 2 heads: 16 blocks, 2 waves.
  const DeviceSpec toy = load_device("toy");
  Simulation sim(toy, Workload{1, 2, 128, 16, DType::fp16}, Mapping{Algo::flash2, 16, 16}, {.numerics = false});
  REQUIRE(sim.blocks_per_sm() == 2);
  std::vector<double> first_start(16, -1), last_end(16, 0);
  while (sim.next()) {
    const Step& st = sim.step();
    CHECK(st.end_s >= st.start_s);
    if (st.kind == StepKind::writeback) continue;  // the L2's, no block
    auto b = static_cast<std::size_t>(st.block);
    if (first_start[b] < 0) first_start[b] = st.start_s;
    last_end[b] = std::max(last_end[b], st.end_s);
  }
  REQUIRE(sim.time().kernels.size() == 1);
  CHECK(sim.time().kernels[0].waves == 2);
  const double first_wave_done = *std::min_element(last_end.begin(), last_end.begin() + 8);
  for (std::size_t b = 8; b < 16; ++b) CHECK(first_start[b] >= first_wave_done - 1e-15);
  for (std::size_t b = 0; b < 8; ++b) CHECK(first_start[b] < first_wave_done);
}

TEST_CASE("naive runs three kernels in order, each over all query blocks", "[stepping][naive]") {
  const DeviceSpec dev = load_device("h100");
  Simulation sim(dev, Workload{1, 2, 64, 8, DType::fp16}, Mapping{Algo::naive, 32, 16}, {.numerics = false});
  REQUIRE(sim.program().kernels.size() == 3);
  std::vector<int> kernel_of_step;
  std::int64_t s_stores = 0, p_stores = 0;
  while (sim.next()) {
    kernel_of_step.push_back(sim.step().kernel);
    if (sim.step().kind == StepKind::store && sim.step().tensor == TensorId::S) ++s_stores;
    if (sim.step().kind == StepKind::store && sim.step().tensor == TensorId::P) ++p_stores;
  }
  CHECK(std::is_sorted(kernel_of_step.begin(), kernel_of_step.end()));
  CHECK(kernel_of_step.front() == 0);
  CHECK(kernel_of_step.back() == 2);
  // bh = 2 heads x Tr = 2 query blocks x Tc = 4 key blocks tiles of S and P.
  CHECK(s_stores == 2 * 2 * 4);
  CHECK(p_stores == 2 * 2 * 4);
}

TEST_CASE("each kernel ends with one writeback step and the steps sum to the ledger", "[stepping][l2]") {
  // The set model of the L2 counts write-backs in batches; what a kernel made
  // after its last batch comes out as its writeback step. Without it the
  // steps' DRAM writes fell short of the ledger's (a trace showed less than
  // `fasim run`). naive: 3 kernels; N = 1024 with 64 heads writes 256 MiB of
  // S and P, far past the 50 MiB L2, so write-backs happen in every kernel.
  const DeviceSpec dev = load_device("h100");
  for (Algo a : {Algo::naive, Algo::flash1, Algo::flash2}) {
    CAPTURE(name(a));
    Simulation sim(dev, Workload{1, 64, 1024, 64, DType::fp16}, Mapping{a, 64, 64}, {.numerics = false});
    CacheTraffic sum;
    std::vector<std::int32_t> ends;
    std::int64_t settled = 0;
    std::int32_t kernel = 0;
    while (sim.next()) {
      const Step& s = sim.step();
      CHECK(s.kernel >= kernel);  // kernels in order; a writeback closes its own
      kernel = s.kernel;
      sum += CacheTraffic::of(s);
      if (s.kind != StepKind::writeback) continue;
      ends.push_back(s.kernel);
      settled += s.dram_write_bytes;
      CHECK(s.block == -1);
      CHECK(s.sm == -1);
      CHECK(s.hbm_read_bytes + s.hbm_write_bytes + s.l2_read_bytes + s.l2_write_bytes + s.dram_read_bytes == 0);
      CHECK(s.start_s == s.end_s);
      CHECK(s.end_s == sim.time().kernels.at(static_cast<std::size_t>(s.kernel)).end_s);
    }
    std::vector<std::int32_t> want(sim.program().kernels.size());
    for (std::size_t k = 0; k < want.size(); ++k) want[k] = static_cast<std::int32_t>(k);
    CHECK(ends == want);
    CHECK(sum.dram_write_bytes == sim.ledger().cache_total().dram_write_bytes);  // named, for its message
    CHECK(sum == sim.ledger().cache_total());
    if (a == Algo::naive) CHECK(settled > 0);  // the case the step exists for
  }
}

TEST_CASE("a block's SRAM is free again when the block ends", "[stepping][sram]") {
  const DeviceSpec dev = load_device("h100");
  Simulation sim(dev, Workload{1, 1, 64, 16, DType::fp16}, Mapping{Algo::flash2, 32, 32}, {.numerics = false});
  while (sim.next()) {
    if (sim.step().kind == StepKind::writeback) continue;  // the L2's, no block
    // Every step of every block sees exactly its own planned tiles.
    CHECK(sim.step().sram_bytes == sim.need().shared);
    CHECK(sim.step().register_bytes == sim.need().registers);
  }
}

TEST_CASE("inputs can only be replaced before the first step", "[stepping]") {
  const DeviceSpec dev = load_device("h100");
  Simulation sim(dev, Workload{1, 1, 4, 2, DType::fp32}, Mapping{Algo::flash2, 4, 4});
  CHECK_THROWS_WITH(sim.set_input(TensorId::Q, std::vector<float>(3)), Catch::Contains("needs 8 values"));
  sim.next();
  CHECK_THROWS_WITH(sim.set_input(TensorId::Q, std::vector<float>(8)), Catch::Contains("before the first step"));
}

TEST_CASE("estimate_run_size: the steps of every algorithm and variant, within a quarter", "[stepping][estimate]") {
  const DeviceSpec dev = load_device("h100");
  auto shape = [](std::int64_t heads, std::int64_t N, std::int64_t d) { return Workload{1, heads, N, d, DType::fp16}; };
  struct Case {
    const char* what;
    Workload w;
    Algo algo;
  };
  std::vector<Case> cases;
  for (Algo a : {Algo::flash2, Algo::flash1, Algo::naive}) {
    cases.push_back({"plain", shape(2, 1000, 64), a});
    Workload causal = shape(1, 2048, 64);
    causal.causal = true;
    cases.push_back({"causal", causal, a});
    Workload window = shape(1, 2048, 32);
    window.window = 300;
    cases.push_back({"window", window, a});
    Workload cross = shape(1, 200, 64);
    cross.N_kv = 3000;
    cases.push_back({"N_kv > N", cross, a});
  }
  Workload paged = shape(2, 1024, 64);
  paged.page_size = 16;
  cases.push_back({"paged", paged, Algo::flash2});
  Workload decode = shape(8, 1, 128);
  decode.kv_heads = 2;
  decode.N_kv = 8192;
  cases.push_back({"decode, GQA", decode, Algo::decode});
  Workload spec = shape(4, 4, 64);
  spec.N_kv = 4096;
  spec.causal = true;
  cases.push_back({"decode, causal, several queries", spec, Algo::decode});
  for (const Case& c : cases) {
    DYNAMIC_SECTION(name(c.algo) << " " << c.what) {
      Simulation sim(dev, c.w, default_tiles(c.algo, c.w, dev), {.numerics = false});
      sim.run();
      const double steps = static_cast<double>(sim.ledger().steps());
      const RunSize size = estimate_run_size(c.w, sim.mapping());
      INFO("estimated " << size.steps << ", took " << steps);
      CHECK(size.steps >= 0.75 * steps);
      CHECK(size.steps <= 1.25 * steps);
    }
  }
}

TEST_CASE("estimated_seconds: the quickstart is quick, N = 2^24 takes hours", "[stepping][estimate]") {
  const DeviceSpec dev = load_device("h100");
  const Workload quick{1, 1, 1024, 64, DType::fp16};
  CHECK(estimated_seconds(estimate_run_size(quick, Mapping{Algo::flash2, 64, 64}), true) < 1);
  // 2^17 x 2^17 tile visits of five steps each: 8.6e10 steps.
  const Workload huge{1, 1, 16777216, 64, DType::fp16};
  const RunSize size = estimate_run_size(huge, default_tiles(Algo::flash2, huge, dev));
  CHECK(size.key_tile_visits == Approx(17179869184.0));
  CHECK(estimated_seconds(size, false) > 3600);
}
