// The stepping API: one Step at a time, the order a tile program runs in, and
// the ledger as the sum of the Steps.
#include <catch2/catch.hpp>

#include <vector>

#include "fasim/simulation.hpp"

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
  Simulation sim(dev, Workload{1, 1, 40, 8, DType::fp32}, Mapping{Algo::flash2, 16, 16}, {.numerics = false});
  std::vector<Step> steps;
  while (sim.next()) steps.push_back(sim.step());
  const std::int64_t Tr = 3, Tc = 3;
  REQUIRE(static_cast<std::int64_t>(steps.size()) == Tr * (1 + 5 * Tc + 3));
  std::size_t k = 0;
  for (std::int64_t i = 0; i < Tr; ++i) {
    const std::int64_t rows = i < 2 ? 16 : 8;
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
    k += 3;
  }
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

TEST_CASE("a block's SRAM is free again when the block ends", "[stepping][sram]") {
  const DeviceSpec dev = load_device("h100");
  Simulation sim(dev, Workload{1, 1, 64, 16, DType::fp16}, Mapping{Algo::flash2, 32, 32}, {.numerics = false});
  while (sim.next()) {
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
