// The runner's host side, which needs no GPU: the same random inputs as the
// simulator, the default kernel version per algorithm, and the one-line
// reasons a version cannot run a shape.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include "fasim/cuda/dlopen_first.hpp"
#include "fasim/cuda/runner.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;
using cuda::KernelVersion;

TEST_CASE("random inputs are the simulator's, value for value", "[cuda][runner]") {
  for (DType t : {DType::fp32, DType::fp16, DType::bf16}) {
    CAPTURE(name(t));
    const Workload w{2, 1, 37, 16, t};
    Simulation sim(load_device("h100"), w, Mapping{Algo::flash2, 16, 16}, {.seed = 11});
    const cuda::Inputs in = cuda::random_inputs(w, 11);
    CHECK(in.q == sim.hbm().at(TensorId::Q).values);
    CHECK(in.k == sim.hbm().at(TensorId::K).values);
    CHECK(in.v == sim.hbm().at(TensorId::V).values);
  }
}

TEST_CASE("flash2 runs on tensor cores when the dtype and tiles allow", "[cuda][runner]") {
  const Workload half{1, 1, 256, 64, DType::fp16};
  CHECK(cuda::default_version(half, {Algo::flash2, 64, 128}) == KernelVersion::flash2_mma);
  CHECK(cuda::default_version(half, {Algo::flash2, 32, 64}) == KernelVersion::flash2);
  CHECK(cuda::default_version({1, 1, 256, 64, DType::fp32}, {Algo::flash2, 64, 64}) == KernelVersion::flash2);
  CHECK(cuda::default_version(half, {Algo::naive, 64, 64}) == KernelVersion::naive);
  CHECK(cuda::default_version(half, {Algo::flash1, 64, 64}) == KernelVersion::flash1);
}

TEST_CASE("a version that cannot run a shape says why in one line", "[cuda][runner]") {
  const Workload fp32{1, 1, 256, 64, DType::fp32};
  auto why = cuda::unsupported(KernelVersion::flash2_mma, fp32, {Algo::flash2, 64, 64}, true);
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("fp16/bf16") && Catch::Contains("kernel 2"));
  why = cuda::unsupported(KernelVersion::flash2_mma, {1, 1, 256, 64, DType::bf16}, {Algo::flash2, 32, 64}, true);
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("Br=32"));
  why = cuda::unsupported(KernelVersion::flash1, fp32, {Algo::flash2, 64, 64}, true);
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("runs flash1, not flash2"));
  why = cuda::unsupported(KernelVersion::flash2, {1, 1, 256, 256, DType::fp32}, {Algo::flash2, 128, 64}, true);
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("--br"));
  // Version 6 at d = 128 keeps 32 rows of O and S per warp in registers: Bc = 64 only.
  const auto fast = cuda::unsupported(KernelVersion::flash2_fast, {1, 1, 256, 128, DType::fp16},
                                      {Algo::flash2, 128, 128}, true);
  REQUIRE(fast);
  CHECK_THAT(*fast, Catch::Contains("Bc=128") && Catch::Contains("d = 128, Bc = 64") && Catch::Contains("kernel 4"));
  CHECK_FALSE(cuda::unsupported(KernelVersion::flash2_fast, {1, 1, 256, 128, DType::fp16}, {Algo::flash2, 128, 64}, true));
  // Version 7: two consumer warpgroups of 64 rows, so Br = 128 only; fp16/bf16 only.
  const auto hopper = cuda::unsupported(KernelVersion::flash2_hopper, {1, 1, 256, 64, DType::fp16},
                                        {Algo::flash2, 64, 64}, true);
  REQUIRE(hopper);
  CHECK_THAT(*hopper, Catch::Contains("Br=64") && Catch::Contains("Br = 128") && Catch::Contains("kernel 6"));
  const auto hopper32 = cuda::unsupported(KernelVersion::flash2_hopper, {1, 1, 256, 64, DType::fp32},
                                          {Algo::flash2, 128, 64}, true);
  REQUIRE(hopper32);
  CHECK_THAT(*hopper32, Catch::Contains("fp32"));
  // cuBLAS picks its own launches: --blocks-per-sm cannot hold them.
  Mapping held{Algo::naive, 64, 64};
  held.blocks_per_sm = 1;
  const auto blas = cuda::unsupported(KernelVersion::naive_cublas, fp32, held, true);
  REQUIRE(blas);
  CHECK_THAT(*blas, Catch::Contains("--blocks-per-sm") && Catch::Contains("kernel 1"));
  for (const std::string& line : {*why, *blas}) CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("gpu_unavailable gives a reason or nothing, and never throws", "[cuda][runner]") {
  std::optional<std::string> why;
  REQUIRE_NOTHROW(why = cuda::gpu_unavailable());
  if (why) {
    CHECK_FALSE(why->empty());
    WARN("no GPU here: " << *why);
  } else {
    WARN("GPU: " << cuda::gpu_description());
  }
}

TEST_CASE("kernel versions are named by number or name, cuBLAS also as cublas", "[cuda][runner]") {
  for (KernelVersion v : cuda::kAllVersions) {
    CHECK(cuda::parse_version(cuda::name(v)) == v);
    CHECK(cuda::parse_version(std::to_string(static_cast<int>(v))) == v);
  }
  CHECK(cuda::parse_version("cublas") == KernelVersion::naive_cublas);
  CHECK(cuda::algo_of(KernelVersion::naive_cublas) == Algo::naive);
  CHECK(cuda::parse_version("6") == KernelVersion::flash2_fast);
  CHECK(cuda::algo_of(KernelVersion::flash2_fast) == Algo::flash2);
  CHECK(cuda::parse_version("7") == KernelVersion::flash2_hopper);
  CHECK(cuda::parse_version("flash2-hopper") == KernelVersion::flash2_hopper);
  CHECK_FALSE(cuda::parse_version("8"));
  CHECK_FALSE(cuda::parse_version("flash3"));
  CHECK_FALSE(cuda::counts_own_bytes(KernelVersion::naive_cublas));
  CHECK(cuda::counts_own_bytes(KernelVersion::flash2_mma));
  CHECK(cuda::counts_own_bytes(KernelVersion::flash2_fast));
  CHECK(cuda::counts_own_bytes(KernelVersion::flash2_hopper));
}

TEST_CASE("causal runs on every version; other variants are named in one line", "[cuda][runner][causal]") {
  Workload causal{1, 2, 200, 64, DType::fp16};
  causal.causal = true;
  CHECK_FALSE(cuda::unsupported_variant(causal));
  for (KernelVersion v : cuda::kAllVersions) {
    CAPTURE(cuda::name(v));
    const std::int64_t br = v == KernelVersion::flash2_hopper ? 128 : 64;
    const auto why = cuda::unsupported(v, causal, {cuda::algo_of(v), br, 64}, true);
    // Without a GPU the shared-memory check is skipped; without cuBLAS version 5
    // says so; version 7 needs a Hopper GPU and a build with sm_90a.
    if (why)
      CHECK_THAT(*why, Catch::Contains("cuBLAS") || Catch::Contains("shared memory") || Catch::Contains("Hopper") ||
                           Catch::Contains("sm_90a"));
  }
  Workload window = causal;
  window.window = 64;
  Workload gqa{1, 4, 200, 64, DType::fp16};
  gqa.kv_heads = 2;
  Workload cache{1, 1, 16, 64, DType::fp16};
  cache.N_kv = 256;
  const std::pair<Workload, const char*> cases[] = {{window, "--window"}, {gqa, "--kv-heads"}, {cache, "--N-kv"}};
  for (const auto& [w, flag] : cases) {
    const auto why = cuda::unsupported_variant(w);
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains(flag) && Catch::Contains("causal"));
    CHECK(why->find('\n') == std::string::npos);
    const auto via = cuda::unsupported(KernelVersion::flash2, w, {Algo::flash2, 64, 64}, true);
    REQUIRE(via);
    CHECK_THAT(*via, Catch::Contains(flag));
  }
}

TEST_CASE("kernel 5's bytes are the closed form: each tensor once per step", "[cuda][runner][cublas]") {
  const Workload w{2, 3, 100, 64, DType::fp16};
  const cuda::ByteCounts c = cuda::naive_cublas_hbm(w);
  auto at = [&](TensorId t) { return c[static_cast<std::size_t>(index(t))]; };
  const std::int64_t head = 6 * 100 * 64 * 2, scores = 6 * 100 * 100 * 2;
  CHECK(at(TensorId::Q) == Traffic{head, 0});
  CHECK(at(TensorId::K) == Traffic{head, 0});
  CHECK(at(TensorId::V) == Traffic{head, 0});
  CHECK(at(TensorId::O) == Traffic{0, head});
  CHECK(at(TensorId::S) == Traffic{scores, scores});
  CHECK(at(TensorId::P) == Traffic{scores, scores});
  CHECK(at(TensorId::L) == Traffic{});
}

TEST_CASE("dlopen_first opens the first library it can and says what it tried", "[cuda][dlopen]") {
  const fasim::cuda::OpenedLibrary none = fasim::cuda::dlopen_first({"", "libfasim-none-1.so", "libfasim-none-2.so"}, RTLD_NOW);
  CHECK(none.handle == nullptr);
  CHECK(none.tried == "libfasim-none-1.so, libfasim-none-2.so");
  CHECK_THAT(none.last_error, Catch::Matchers::Contains("libfasim-none-2.so"));
  const fasim::cuda::OpenedLibrary libm = fasim::cuda::dlopen_first({"libfasim-none-1.so", "libm.so.6"}, RTLD_NOW);
  REQUIRE(libm.handle != nullptr);
  CHECK(dlsym(libm.handle, "cos") != nullptr);
  CHECK(libm.tried == "libfasim-none-1.so");
  dlclose(libm.handle);
}
