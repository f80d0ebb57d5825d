// Traffic kernel by kernel (Ledger::kernels): the kernels' bytes add up to
// the run's, the L2 model's write-backs go to the kernel they accrued in,
// and `fasim run --json` reports them.
#include <catch2/catch.hpp>

#include "fasim/report.hpp"
#include "fasim/simulation.hpp"
#include "fasim/tiling.hpp"

using namespace fasim;

namespace {

struct Run {
  Workload w;
  Mapping m;
};

void check_sums(const Ledger& L) {
  Traffic hbm;
  CacheTraffic c;
  for (const KernelTraffic& k : L.kernels()) {
    hbm.read_bytes += k.hbm.read_bytes;
    hbm.write_bytes += k.hbm.write_bytes;
    c += k.cache;
  }
  CHECK(hbm == L.hbm_total());
  const CacheTraffic total = L.cache_total();
  CHECK(c.l2_read_bytes == total.l2_read_bytes);
  CHECK(c.l2_write_bytes == total.l2_write_bytes);
  CHECK(c.l2_hit_bytes == total.l2_hit_bytes);
  CHECK(c.dram_read_bytes == total.dram_read_bytes);
  CHECK(c.dram_write_bytes == total.dram_write_bytes);
  CHECK(c.l2_fabric_bytes == total.l2_fabric_bytes);
}

}  // namespace

TEST_CASE("kernel traffic: each algorithm's kernels add up to its totals", "[ledger][l2]") {
  const DeviceSpec h200 = load_device("h200");
  const Run runs[] = {
      {{.batch = 1, .heads = 16, .N = 1024, .d = 64, .dtype = DType::fp16}, {.algo = Algo::naive, .br = 128, .bc = 128}},
      {{.batch = 2, .heads = 3, .N = 300, .d = 64, .dtype = DType::fp32}, {.algo = Algo::naive, .br = 64, .bc = 32}},
      {{.batch = 1, .heads = 16, .N = 2048, .d = 128, .dtype = DType::fp32}, {.algo = Algo::flash1, .br = 64, .bc = 64}},
      {{.batch = 1, .heads = 16, .N = 4096, .d = 64, .dtype = DType::fp16}, {.algo = Algo::flash2, .br = 128, .bc = 128}},
      {{.batch = 4, .heads = 8, .N = 1, .d = 128, .dtype = DType::fp16, .N_kv = 8192}, {.algo = Algo::decode}},
  };
  for (Run r : runs) {
    if (r.m.algo == Algo::decode) {  // two kernels: 8 key chunks, then their combination
      r.m = default_tiles(Algo::decode, r.w, h200);
      r.m.splits = 8;
    }
    CAPTURE(name(r.m.algo), r.w.N, r.w.d);
    Simulation sim(h200, r.w, r.m, {.numerics = false});
    sim.run();
    CHECK(sim.ledger().kernels().size() == sim.program().kernels.size());
    check_sums(sim.ledger());
  }
}

TEST_CASE("kernel traffic: naive's S goes back to DRAM in kernel 1, past the dirty limit", "[ledger][l2]") {
  // Kernel 1 writes S, 16 x 1024^2 x 2 B = 32 MiB, and nothing else. At most
  // kL2DirtyShare of the H200's 60 MiB may stay dirty, so kernel 1 itself
  // sends at least 32 MiB - 0.47 x 60 MiB to DRAM. Counted at its end, not
  // carried into kernel 2.
  const DeviceSpec h200 = load_device("h200");
  const Workload w{.batch = 1, .heads = 16, .N = 1024, .d = 64, .dtype = DType::fp16};
  Simulation sim(h200, w, {.algo = Algo::naive, .br = 128, .bc = 128}, {.numerics = false});
  sim.run();
  const std::vector<KernelTraffic>& k = sim.ledger().kernels();
  REQUIRE(k.size() == 3);
  const double s_bytes = 16.0 * 1024 * 1024 * 2;
  CHECK(k[0].hbm.write_bytes == static_cast<std::int64_t>(s_bytes));
  CHECK(k[0].cache.dram_write_bytes >= s_bytes - kL2DirtyShare * static_cast<double>(h200.l2_bytes));
  CHECK(k[0].cache.dram_write_bytes < static_cast<std::int64_t>(s_bytes));
  // Q and K are read from DRAM once each, whatever kernel 1 re-reads from L2.
  CHECK(k[0].cache.dram_read_bytes == 2 * 16 * 1024 * 64 * 2);
}

TEST_CASE("kernel traffic: fasim run --json gives each kernel's bytes", "[ledger][report]") {
  const DeviceSpec h100 = load_device("h100");
  const Workload w{.batch = 1, .heads = 2, .N = 256, .d = 64, .dtype = DType::fp16};
  Simulation sim(h100, w, {.algo = Algo::naive, .br = 64, .bc = 64}, {.numerics = false});
  sim.run();
  const nlohmann::json j = report_json(sim, std::nullopt);
  REQUIRE(j["kernels"].size() == 3);
  std::int64_t read = 0, written = 0, dram_read = 0, fabric = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const KernelTraffic& k = sim.ledger().kernels()[i];
    CHECK(j["kernels"][i]["hbm"]["read_bytes"] == k.hbm.read_bytes);
    CHECK(j["kernels"][i]["l2"]["hit_bytes"] == k.cache.l2_hit_bytes);
    CHECK(j["kernels"][i]["dram"]["write_bytes"] == k.cache.dram_write_bytes);
    read += j["kernels"][i]["hbm"]["read_bytes"].get<std::int64_t>();
    written += j["kernels"][i]["hbm"]["write_bytes"].get<std::int64_t>();
    dram_read += j["kernels"][i]["dram"]["read_bytes"].get<std::int64_t>();
    fabric += j["kernels"][i]["l2"]["fabric_bytes"].get<std::int64_t>();
  }
  CHECK(read == j["hbm"]["read_bytes"].get<std::int64_t>());
  CHECK(written == j["hbm"]["write_bytes"].get<std::int64_t>());
  CHECK(dram_read == j["dram"]["read_bytes"].get<std::int64_t>());
  CHECK(fabric == j["l2"]["fabric_bytes"].get<std::int64_t>());
  CHECK(fabric > 0);  // the h100 has two L2 halves: the far-homed half of every store crosses
}
