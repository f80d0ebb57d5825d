// Every kernel version on the GPU: its output matches the fp64 reference
// within what the storage type allows, and its own HBM byte counters equal
// the simulator's Ledger exactly, tensor by tensor, on square, ragged and
// multi-head shapes, plain and causal. Version 5 (cuBLAS) counts nothing
// itself: its output is checked, and its bytes are the closed form, marked as
// not counted. Without a GPU each test passes with "skipped: <reason>".
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "cuda_support.hpp"
#include "fasim/algorithms/naive.hpp"
#include "fasim/cuda_occupancy.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;
using cuda::KernelVersion;

namespace {

struct Shape {
  std::int64_t batch, heads, N, d, br, bc;
};

// Square; d = 128 with Br != Bc and ragged (1000 = 7*128 + 104 = 15*64 + 40);
// shorter than one tile; several heads with a ragged last tile.
constexpr Shape kShapes[] = {
    {1, 1, 256, 64, 64, 64}, {1, 1, 1000, 128, 128, 64}, {1, 1, 77, 64, 64, 64}, {2, 3, 130, 64, 64, 64}};

// The error bound of tests/test_numerics.cpp: fp32 1e-5 relative to max |O|;
// fp16/bf16 from the unit roundoff u of what each algorithm rounds.
double bound(KernelVersion v, const Workload& w, const Mapping& m, const test::Reference& ref) {
  if (w.dtype == DType::fp32) return 1e-5 * ref.max_abs_o;
  const double u = test::unit_roundoff(w.dtype), vmax = ref.max_abs_v;
  switch (cuda::algo_of(v)) {
    case Algo::naive: return 1e-5 + (2 + 2 * ref.max_score) * u * vmax;
    case Algo::flash1: return 1e-5 + (1 + std::ceil(double(w.N) / double(m.bc))) * u * vmax;
    case Algo::flash2:
    case Algo::decode: break;
  }
  return 1e-5 + 2 * u * vmax;
}

void check_version(KernelVersion v, DType t, const Shape& s, bool causal = false) {
  const DeviceSpec dev = load_device("h100");
  Workload w{s.batch, s.heads, s.N, s.d, t};
  w.causal = causal;
  const Mapping m{cuda::algo_of(v), s.br, s.bc};
  const bool rows_fit = naive::softmax_rows_fit(w, m, dev);
  CAPTURE(cuda::name(v), name(t), s.batch, s.heads, s.N, s.d, s.br, s.bc, causal, rows_fit);
  const auto why = cuda::unsupported(v, w, m, rows_fit);
  INFO(why.value_or("supported"));
  REQUIRE_FALSE(why);

  const cuda::Inputs in = cuda::random_inputs(w, 7);
  const cuda::RunResult r = cuda::run(w, m, in, {.version = v, .rows_fit = rows_fit, .count = true});

  // The simulator's Ledger; version 5 (cuBLAS) instead reports the closed form, marked as not counted.
  Simulation sim(dev, w, m, {.numerics = false});
  sim.run();
  const bool counted = cuda::counts_own_bytes(v);
  CHECK(r.hbm_counted == counted);
  const cuda::ByteCounts closed = cuda::naive_cublas_hbm(w);
  Traffic total;
  int equal = 0;
  for (TensorId id : kAllTensors) {
    const std::size_t at = static_cast<std::size_t>(index(id));
    const Traffic want = counted ? sim.ledger().hbm(id) : closed[at], got = r.hbm[at];
    CAPTURE(name(id), want.read_bytes, got.read_bytes, want.write_bytes, got.write_bytes);
    CHECK(got == want);
    equal += got == want;
    total.read_bytes += want.read_bytes;
    total.write_bytes += want.write_bytes;
  }

  const test::Reference ref = test::reference(w, in);
  const double err = test::max_abs_error(r.o, ref.o), limit = bound(v, w, m, ref);
  CAPTURE(err, limit, ref.max_abs_o);
  CHECK(err <= limit);
  CHECK(err < INFINITY);
  char lse[32] = "L n/a";  // only the flash2 versions write L = m + log l
  if (cuda::algo_of(v) == Algo::flash2) {
    const double lse_err = test::max_abs_error(r.lse, ref.lse);
    CAPTURE(lse_err);
    CHECK(lse_err <= 1e-4);
    std::snprintf(lse, sizeof lse, "L err %.1e", lse_err);
  }
  std::printf("%-12s %-4s bh=%-2lld N=%-4lld d=%-3lld Br=%-3lld Bc=%-3lld%s | max abs err %.3e (bound %.3e) "
              "%s | %s %d/%d tensors equal, read %lld B, written %lld B\n",
              std::string(cuda::name(v)).c_str(), std::string(name(t)).c_str(),
              static_cast<long long>(w.bh()), static_cast<long long>(s.N), static_cast<long long>(s.d),
              static_cast<long long>(s.br), static_cast<long long>(s.bc), causal ? " causal" : "", err, limit, lse,
              counted ? "counters" : "closed form (not counted)", equal, kTensorCount,
              static_cast<long long>(total.read_bytes), static_cast<long long>(total.write_bytes));
}

// Causal: a tile shorter than one tile, ragged N with Br = Bc, Br > Bc and
// Br < Bc (flash1 starts a key block's query blocks at floor(c0 / Br) Br;
// flash2 stops at the diagonal tile), a square N with several heads, and
// N = 1000 with Br = 128 (naive's softmax rows do not fit: two passes).
constexpr Shape kCausalShapes[] = {{1, 2, 77, 64, 64, 64},   {1, 1, 200, 128, 64, 64}, {1, 1, 200, 64, 128, 64},
                                   {1, 1, 256, 128, 64, 128}, {2, 2, 256, 64, 64, 64},  {1, 1, 1000, 64, 128, 64}};

void check_causal(KernelVersion v, std::initializer_list<DType> dtypes) {
  for (DType t : dtypes)
    for (const Shape& s : kCausalShapes) check_version(v, t, s, true);
}

// Two runs of one configuration that may only differ in where or how many
// blocks run at once: the same output, L and byte counts, value for value.
void check_same_result(const cuda::RunResult& a, const cuda::RunResult& b) {
  CHECK(a.o == b.o);
  CHECK(a.lse == b.lse);
  CHECK(a.hbm == b.hbm);
}

void check_all(KernelVersion v, std::initializer_list<DType> dtypes) {
  for (DType t : dtypes)
    for (const Shape& s : kShapes) check_version(v, t, s);
}

}  // namespace

TEST_CASE("kernel 1 (naive): output and byte counters match the simulator", "[cuda][naive]") {
  FASIM_REQUIRE_GPU();
  check_all(KernelVersion::naive, {DType::fp32, DType::fp16, DType::bf16});
}

TEST_CASE("kernel 2 (flash2-fp32): output and byte counters match the simulator", "[cuda][flash2]") {
  FASIM_REQUIRE_GPU();
  check_all(KernelVersion::flash2, {DType::fp32, DType::fp16, DType::bf16});
}

TEST_CASE("kernel 3 (flash1-fp32): output and byte counters match the simulator", "[cuda][flash1]") {
  FASIM_REQUIRE_GPU();
  check_all(KernelVersion::flash1, {DType::fp32, DType::fp16, DType::bf16});
}

TEST_CASE("kernel 4 (flash2-mma): output and byte counters match the simulator", "[cuda][flash2]") {
  FASIM_REQUIRE_GPU();
  check_all(KernelVersion::flash2_mma, {DType::fp16, DType::bf16});
  // Every tile instance: Br, Bc, d in {64, 128}, on a ragged length.
  for (std::int64_t br : {64, 128})
    for (std::int64_t bc : {64, 128})
      for (std::int64_t d : {64, 128}) check_version(KernelVersion::flash2_mma, DType::fp16, {1, 2, 300, d, br, bc});
}

TEST_CASE("kernel 1 (naive) causal: output and byte counters match the simulator", "[cuda][naive][causal]") {
  FASIM_REQUIRE_GPU();
  check_causal(KernelVersion::naive, {DType::fp32, DType::fp16, DType::bf16});
}

TEST_CASE("kernel 2 (flash2-fp32) causal: output and byte counters match the simulator", "[cuda][flash2][causal]") {
  FASIM_REQUIRE_GPU();
  check_causal(KernelVersion::flash2, {DType::fp32, DType::fp16, DType::bf16});
}

TEST_CASE("kernel 3 (flash1-fp32) causal: output and byte counters match the simulator", "[cuda][flash1][causal]") {
  FASIM_REQUIRE_GPU();
  check_causal(KernelVersion::flash1, {DType::fp32, DType::fp16, DType::bf16});
}

TEST_CASE("kernel 4 (flash2-mma) causal: output and byte counters match the simulator", "[cuda][flash2][causal]") {
  FASIM_REQUIRE_GPU();
  check_causal(KernelVersion::flash2_mma, {DType::fp16, DType::bf16});
  // Every tile instance, causal, on a ragged length and on whole tiles.
  for (std::int64_t n : {200, 256})
    for (std::int64_t br : {64, 128})
      for (std::int64_t bc : {64, 128})
        for (std::int64_t d : {64, 128})
          check_version(KernelVersion::flash2_mma, DType::fp16, {1, 2, n, d, br, bc}, true);
}

TEST_CASE("kernel 6 (flash2-fast): output and byte counters match the simulator, causal too",
          "[cuda][flash2][causal]") {
  FASIM_REQUIRE_GPU();
  // Every instance (Br in {64, 128}; d = 64 with Bc in {64, 128}, d = 128 with
  // Bc = 64) on a ragged length shorter than one tile, a ragged length over
  // several tiles, and whole tiles; both storage types; plain and causal.
  struct Tiles {
    std::int64_t d, bc;
  };
  for (DType t : {DType::fp16, DType::bf16})
    for (std::int64_t br : {64, 128})
      for (Tiles x : {Tiles{64, 64}, Tiles{64, 128}, Tiles{128, 64}})
        for (std::int64_t n : {77, 300, 256})
          for (bool causal : {false, true}) check_version(KernelVersion::flash2_fast, t, {1, 2, n, x.d, br, x.bc}, causal);
  check_version(KernelVersion::flash2_fast, DType::fp16, {2, 3, 1000, 128, 128, 64}, true);
}

TEST_CASE("kernel 7 (flash2-hopper): output and byte counters match the simulator, causal too",
          "[cuda][flash2][causal][hopper]") {
  FASIM_REQUIRE_GPU();
  if (const auto why = cuda::unsupported(KernelVersion::flash2_hopper, {1, 1, 256, 64, DType::fp16},
                                         {Algo::flash2, 128, 64}, true)) {
    WARN("skipped: " << *why);  // not a Hopper GPU, or a build without sm_90a
    return;
  }
  // Every instance (Br = 128; d and Bc in {64, 128}) on a length shorter than
  // one tile, a ragged length over several tiles (the TMA box past N arrives
  // as zeros), and whole tiles; both storage types; plain and causal.
  for (DType t : {DType::fp16, DType::bf16})
    for (std::int64_t d : {64, 128})
      for (std::int64_t bc : {64, 128})
        for (std::int64_t n : {77, 300, 256})
          for (bool causal : {false, true}) check_version(KernelVersion::flash2_hopper, t, {1, 2, n, d, 128, bc}, causal);
  // Several heads (the tensor map's third coordinate) and many key blocks
  // (the two-buffer ring wraps many times).
  check_version(KernelVersion::flash2_hopper, DType::fp16, {2, 3, 1000, 128, 128, 64}, true);
  check_version(KernelVersion::flash2_hopper, DType::bf16, {1, 3, 2100, 64, 128, 128});
}

TEST_CASE("kernel 5 (naive-cublas): output matches the reference, bytes are the closed form",
          "[cuda][naive][cublas]") {
  FASIM_REQUIRE_GPU();
  // N = 77: rows of S not a multiple of 16 B (the scalar softmax); 200, 256: 16-byte accesses.
  const Shape shapes[] = {{1, 2, 77, 64, 64, 64}, {1, 1, 200, 128, 64, 64}, {2, 2, 256, 64, 64, 64},
                          {1, 1, 256, 128, 64, 64}};
  for (DType t : {DType::fp32, DType::fp16, DType::bf16})
    for (const Shape& s : shapes)
      for (bool causal : {false, true}) check_version(KernelVersion::naive_cublas, t, s, causal);
}

TEST_CASE("the naive softmax counts S twice when its rows do not fit", "[cuda][naive]") {
  FASIM_REQUIRE_GPU();
  // N = 1000, Br = 128: 128 * 1000 * 2 B > 227 KiB on an H100, so two passes;
  // the same shape with Br = 64 fits in one. Both run in check_version.
  const DeviceSpec dev = load_device("h100");
  CHECK_FALSE(naive::softmax_rows_fit(Workload{1, 1, 1000, 128, DType::fp16}, Mapping{Algo::naive, 128, 64}, dev));
  CHECK(naive::softmax_rows_fit(Workload{1, 1, 1000, 64, DType::fp16}, Mapping{Algo::naive, 64, 64}, dev));
  check_version(KernelVersion::naive, DType::fp16, {1, 1, 1000, 64, 64, 64});
}

TEST_CASE("without counting the kernels give the same output and count nothing", "[cuda]") {
  FASIM_REQUIRE_GPU();
  const Workload w{1, 2, 200, 64, DType::fp16};
  const cuda::Inputs in = cuda::random_inputs(w, 3);
  for (KernelVersion v : {KernelVersion::naive, KernelVersion::flash2, KernelVersion::flash1,
                          KernelVersion::flash2_mma, KernelVersion::flash2_fast, KernelVersion::flash2_hopper}) {
    CAPTURE(cuda::name(v));
    const Mapping m{cuda::algo_of(v), v == KernelVersion::flash2_hopper ? 128 : 64, 64};
    if (const auto why = cuda::unsupported(v, w, m, true)) {
      WARN("skipped " << cuda::name(v) << ": " << *why);
      continue;
    }
    const cuda::RunResult counted = cuda::run(w, m, in, {.version = v, .rows_fit = true, .count = true});
    const cuda::RunResult quiet = cuda::run(w, m, in, {.version = v, .rows_fit = true, .count = false});
    CHECK(quiet.o == counted.o);
    for (const Traffic& t : quiet.hbm) CHECK(t == Traffic{});
  }
}

TEST_CASE("a pad before the buffers moves them and changes nothing the kernel computes", "[cuda][placement]") {
  FASIM_REQUIRE_GPU();
  const Workload w{1, 2, 200, 64, DType::fp16};
  const cuda::Inputs in = cuda::random_inputs(w, 3);
  const Mapping m{Algo::flash2, 64, 64};
  const cuda::RunResult plain = cuda::run(w, m, in, {.version = KernelVersion::flash2, .count = true});
  const cuda::RunResult moved =
      cuda::run(w, m, in, {.version = KernelVersion::flash2, .count = true, .pad_bytes = 3 * cuda::kPlacementStep});
  check_same_result(moved, plain);
}

TEST_CASE("a cap of one block per SM holds every version there and changes nothing it computes or counts",
          "[cuda][occupancy]") {
  FASIM_REQUIRE_GPU();
  // d = 128 with 64 x 64 tiles: flash2-fp32 fits two blocks per SM, naive's
  // scores and softmax kernels more; the cap must bring each kernel to one.
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 4, 256, 128, DType::fp16};
  const cuda::Inputs in = cuda::random_inputs(w, 5);
  for (KernelVersion v : {KernelVersion::naive, KernelVersion::flash2, KernelVersion::flash1,
                          KernelVersion::flash2_mma, KernelVersion::flash2_fast, KernelVersion::flash2_hopper}) {
    CAPTURE(cuda::name(v));
    Mapping m{cuda::algo_of(v), v == KernelVersion::flash2_hopper ? 128 : 64, 64};
    const bool rows_fit = naive::softmax_rows_fit(w, m, dev);
    if (const auto why = cuda::unsupported(v, w, m, rows_fit)) {
      WARN("skipped " << cuda::name(v) << ": " << *why);
      continue;
    }
    const cuda::RunResult free = cuda::run(w, m, in, {.version = v, .rows_fit = rows_fit, .count = true});
    m.blocks_per_sm = 1;
    const cuda::RunResult held = cuda::run(w, m, in, {.version = v, .rows_fit = rows_fit, .count = true});
    const std::size_t kernels = v == KernelVersion::naive ? 3 : 1;
    REQUIRE(free.blocks_per_sm.size() == kernels);
    REQUIRE(held.blocks_per_sm == std::vector<int>(kernels, 1));
    // The teaching versions' occupancy is what the simulator's cuda-simt model
    // runs, version 4's what cuda-mma runs (sim/src/cuda_occupancy.cpp:
    // shared memory and ptxas's registers).
    if (v == KernelVersion::naive || v == KernelVersion::flash2 || v == KernelVersion::flash1)
      for (std::size_t k = 0; k < kernels; ++k) {
        CAPTURE(k);
        CHECK(free.blocks_per_sm[k] == cuda_simt_blocks_per_sm(w, m, dev, k));
      }
    if (v == KernelVersion::flash2_mma)  // and the cuda-mma model's
      CHECK(free.blocks_per_sm[0] == cuda_blocks_per_sm(cuda_mma_block_need(w, m), dev));
    std::string got;
    for (int b : free.blocks_per_sm) got += std::to_string(b) + " ";
    std::printf("%-14s blocks per SM: %s-> 1 with --blocks-per-sm 1\n", std::string(cuda::name(v)).c_str(), got.c_str());
    check_same_result(held, free);  // each block computes the same, in the same order
  }
}

TEST_CASE("version 4 (flash2-mma) holds as many blocks per SM as the cuda-mma model says, every instance",
          "[cuda][occupancy]") {
  FASIM_REQUIRE_GPU();
  const DeviceSpec dev = load_device("h100");
  for (std::int64_t d : {64, 128})
    for (std::int64_t br : {64, 128})
      for (std::int64_t bc : {64, 128}) {
        const Workload w{1, 2, 256, d, DType::bf16};
        const Mapping m{Algo::flash2, br, bc};
        CAPTURE(br, bc, d);
        const cuda::RunResult r = cuda::run(w, m, cuda::random_inputs(w, 9),
                                            {.version = KernelVersion::flash2_mma, .count = true});
        REQUIRE(r.blocks_per_sm.size() == 1);
        CHECK(r.blocks_per_sm[0] == cuda_blocks_per_sm(cuda_mma_block_need(w, m), dev));
        std::printf("flash2-mma Br=%-3lld Bc=%-3lld d=%-3lld %d blocks per SM (model %lld)\n",
                    static_cast<long long>(br), static_cast<long long>(bc), static_cast<long long>(d),
                    r.blocks_per_sm[0], static_cast<long long>(cuda_blocks_per_sm(cuda_mma_block_need(w, m), dev)));
      }
}
