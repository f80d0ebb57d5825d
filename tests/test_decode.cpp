// Flash-Decoding (split-KV): exact bytes, the split default, and the lesson
// facts about one decode step.
//
// Notation: G = heads / kv_heads query heads per K/V head, R = G N packed
// query rows per K/V head, Tr = ceil(R / Br) query blocks, S splits,
// b bytes per element, bh = batch heads, bh_kv = batch kv_heads.
//   kernel 1, block (K/V head, i, s): loads its packed Q rows once; the S
//     blocks of one query block together visit each key tile once.
//       Q read   S * bh N d b       (sum over i of rows_i is R; bh_kv R = bh N)
//       K, V read  bh_kv Tr N_kv d b each
//       S > 1: Opart written bh N S d 4, Lpart written bh N S 4 (fp32)
//   kernel 2 (S > 1), block (K/V head, i): reads every split's Opart and
//     Lpart once and writes O and L.
//       Opart read bh N S d 4, Lpart read bh N S 4, O written bh N d b, L bh N 4
//   S = 1: kernel 1 writes O and L itself; there are no partials.
#include <catch2/catch.hpp>

#include "fasim/algorithms/decode.hpp"
#include "fasim/paged_kv.hpp"
#include "fasim/simulation.hpp"
#include "fasim/tiling.hpp"

using namespace fasim;

namespace {

Workload decode_shape(std::int64_t batch, std::int64_t heads, std::int64_t kv, std::int64_t N, std::int64_t N_kv,
                      std::int64_t d, DType t) {
  Workload w{batch, heads, N, d, t};
  w.kv_heads = kv;
  w.N_kv = N_kv;
  return w;
}

}  // namespace

TEST_CASE("decode HBM bytes in closed form, partials written and read back", "[decode][closed-form]") {
  struct Case {
    std::int64_t batch, heads, kv, N, N_kv, d;
    DType t;
    std::int64_t br, bc, S;
  };
  for (const Case& c : {Case{1, 8, 8, 1, 1000, 64, DType::fp16, 16, 64, 4}, Case{2, 8, 2, 1, 777, 32, DType::bf16, 16, 32, 5},
                        Case{3, 4, 1, 4, 300, 16, DType::fp32, 8, 16, 7}, Case{1, 6, 3, 5, 64, 16, DType::fp16, 4, 16, 1},
                        Case{2, 2, 2, 1, 100, 8, DType::fp32, 16, 32, 4}, Case{1, 4, 2, 3, 50, 8, DType::fp16, 4, 16, 2}}) {
    for (bool numerics : {false, true}) {
      CAPTURE(c.batch, c.heads, c.kv, c.N, c.N_kv, c.d, c.br, c.bc, c.S, numerics);
      const Workload w = decode_shape(c.batch, c.heads, c.kv, c.N, c.N_kv, c.d, c.t);
      Simulation sim(load_device("h100"), w, Mapping{Algo::decode, c.br, c.bc, false, c.S}, {.numerics = numerics});
      sim.run();
      const Ledger& L = sim.ledger();
      const std::int64_t b = bytes_of(c.t), bh = c.batch * c.heads, bh_kv = c.batch * c.kv;
      const std::int64_t R = c.heads / c.kv * c.N, Tr = (R + c.br - 1) / c.br, S = c.S;
      CHECK(L.hbm(TensorId::Q) == Traffic{S * bh * c.N * c.d * b, 0});
      CHECK(L.hbm(TensorId::K) == Traffic{bh_kv * Tr * c.N_kv * c.d * b, 0});
      CHECK(L.hbm(TensorId::V) == Traffic{bh_kv * Tr * c.N_kv * c.d * b, 0});
      const std::int64_t part = S > 1 ? bh * c.N * S : 0;
      CHECK(L.hbm(TensorId::Opart) == Traffic{part * c.d * 4, part * c.d * 4});
      CHECK(L.hbm(TensorId::Lpart) == Traffic{part * 4, part * 4});
      CHECK(L.hbm(TensorId::O) == Traffic{0, bh * c.N * c.d * b});
      CHECK(L.hbm(TensorId::L) == Traffic{0, bh * c.N * 4});
      CHECK(L.flops().matmul == 4 * bh * c.N * c.N_kv * c.d);  // the same work as standard attention
      REQUIRE(sim.program().kernels.size() == (S > 1 ? 2u : 1u));
      CHECK(sim.program().kernels[0].grid == bh_kv * Tr * S);
      if (numerics) CHECK(sim.numerics().max_rel_error < (c.t == DType::fp32 ? 1e-5 : 1e-2));
    }
  }
}

TEST_CASE("one decode step reads 2 kv_heads N_kv d b of K/V per sequence", "[decode][lesson]") {
  // With one query row (N = 1), the G query heads of a group are one block's
  // rows (R = G <= Br, Tr = 1), so every K/V head is read exactly once:
  // K + V = 2 * kv_heads * N_kv * d * b per batch element: the KV cache of
  // one layer. MQA (kv_heads = 1) reads heads times less than MHA. flash2,
  // which gives each query head its own blocks, reads 2 * heads * N_kv * d * b.
  const std::int64_t batch = 4, heads = 32, N_kv = 4096, d = 128, b = 2;
  for (std::int64_t kv : {32, 8, 1}) {
    CAPTURE(kv);
    const Workload w = decode_shape(batch, heads, kv, 1, N_kv, d, DType::fp16);
    const DeviceSpec dev = load_device("h100");
    Simulation dec(dev, w, default_tiles(Algo::decode, w, dev), {.numerics = false});
    dec.run();
    const Ledger& L = dec.ledger();
    CHECK(L.hbm(TensorId::K).read_bytes + L.hbm(TensorId::V).read_bytes == batch * 2 * kv * N_kv * d * b);
    Simulation f2(dev, w, default_tiles(Algo::flash2, w, dev), {.numerics = false});
    f2.run();
    CHECK(f2.ledger().hbm(TensorId::K).read_bytes + f2.ledger().hbm(TensorId::V).read_bytes ==
          batch * 2 * heads * N_kv * d * b);
  }
}

TEST_CASE("decode is bound by memory, not by the tensor cores", "[decode][lesson][timing]") {
  // Matmul FLOPs 4 bh N N_kv d over K/V bytes 2 bh_kv N_kv d b: an intensity
  // of 2 G N / b FLOP per byte (4 here), far below an H100's ~300 FLOP per
  // HBM byte. The timing model finds every kernel HBM-, latency- or
  // launch-bound, never matmul-bound.
  const Workload w = decode_shape(8, 32, 8, 1, 4096, 128, DType::fp16);
  const DeviceSpec dev = load_device("h100");
  Simulation sim(dev, w, default_tiles(Algo::decode, w, dev), {.numerics = false});
  sim.run();
  const Ledger& L = sim.ledger();
  const std::int64_t kv_bytes = L.hbm(TensorId::K).read_bytes + L.hbm(TensorId::V).read_bytes;
  CHECK(L.flops().matmul * 2 == 2 * 4 * 1 * kv_bytes);  // matmul * b == 2 G N * K/V bytes
  for (const KernelTime& k : sim.time().kernels) {
    CAPTURE(k.name, name(k.bound));
    CHECK((k.bound == Bound::hbm || k.bound == Bound::latency || k.bound == Bound::launch));
  }
  CHECK(sim.time().bound != Bound::matmul);
}

TEST_CASE("default splits give every SM a block, capped by the key tiles", "[decode]") {
  // h100 has 132 SMs. heads 32, kv_heads 8, N = 1: R = 4, Br = 4, Tr = 1.
  const DeviceSpec dev = load_device("h100");
  REQUIRE(dev.sm_count == 132);
  auto splits = [&](std::int64_t batch, std::int64_t N_kv) {
    const Workload w = decode_shape(batch, 32, 8, 1, N_kv, 128, DType::fp16);
    Simulation sim(dev, w, default_tiles(Algo::decode, w, dev), {.numerics = false});
    return std::pair{sim.mapping().splits, sim.program().kernels.size()};
  };
  CHECK(splits(1, 8192) == std::pair<std::int64_t, std::size_t>{17, 2});  // ceil(132 / 8) = 17 <= 64 tiles
  CHECK(splits(4, 8192) == std::pair<std::int64_t, std::size_t>{5, 2});   // ceil(132 / 32)
  CHECK(splits(64, 8192) == std::pair<std::int64_t, std::size_t>{1, 1});  // 512 blocks already: no combine
  CHECK(splits(1, 256) == std::pair<std::int64_t, std::size_t>{2, 2});    // only 2 key tiles of 128
}

TEST_CASE("decode with one split moves flash2's bytes, S splits add the partials", "[decode]") {
  // G = 1 and the same tiles: split kernel = flash2's block program.
  // S splits add (S - 1) Q reloads and the fp32 partials' round trip:
  // (S - 1) bh N d b + 2 S bh N (d + 1) 4.
  const Workload w = decode_shape(2, 4, 4, 3, 500, 32, DType::fp16);
  auto total = [&](Algo a, std::int64_t S) {
    Simulation sim(load_device("h100"), w, Mapping{a, 16, 64, false, S}, {.numerics = false});
    sim.run();
    return sim.ledger().hbm_total().total();
  };
  const std::int64_t one = total(Algo::decode, 1);
  CHECK(one == total(Algo::flash2, 0));
  for (std::int64_t S : {2, 5, 8}) CHECK(total(Algo::decode, S) - one == (S - 1) * 8 * 3 * 32 * 2 + 2 * S * 8 * 3 * 33 * 4);
}

TEST_CASE("decode with a sliding window reads only the window's tiles", "[decode][window]") {
  // N = 1 sees keys N_kv - W .. N_kv - 1: tiles floor((N_kv - W) / Bc) .. Tc - 1.
  // N_kv = 1000, W = 100, Bc = 64: tiles 14 and 15, keys 896..999, 104 rows
  // per K/V head, whatever the split. The default splits stop at those 2 tiles.
  Workload w = decode_shape(1, 8, 2, 1, 1000, 32, DType::fp16);
  w.window = 100;
  for (std::int64_t S : {0, 1, 2, 3}) {
    CAPTURE(S);
    Simulation sim(load_device("h100"), w, Mapping{Algo::decode, 16, 64, false, S});
    sim.run();
    CHECK(sim.ledger().hbm(TensorId::K).read_bytes == 2 * 104 * 32 * 2);
    if (S == 0) CHECK(sim.mapping().splits == 2);
    CHECK(sim.numerics().max_rel_error < 1e-2);
  }
}

TEST_CASE("speculative decode: causal rows at the end see every key tile", "[decode][causal]") {
  // N = 4 rows at the end of N_kv = 300 keys: row n sees keys <= 296 + n. The
  // union is every key, so every tile is read; only the last one is masked.
  Workload w = decode_shape(2, 8, 2, 4, 300, 16, DType::fp32);
  const Mapping m{Algo::decode, 16, 64, false, 3};
  Simulation plain(load_device("h100"), w, m);
  w.causal = true;
  Simulation causal(load_device("h100"), w, m);
  plain.run();
  causal.run();
  CHECK(causal.ledger().hbm_total() == plain.ledger().hbm_total());
  CHECK(causal.numerics().max_rel_error < 1e-5);
}

TEST_CASE("paged decode: loads follow the block table, bytes do not change", "[decode][paged]") {
  // N_kv = 1000, Bc = 64: 16 tiles. Consecutive logical pages are scattered
  // through the pool, so a tile is one load per page it touches: pages of 16
  // rows make 4 loads of each full tile; pages of 64, 128 or 1000 rows, one
  // per tile; pages of 48 rows, 2 for a tile that straddles a page boundary.
  // In general: loads = sum over tiles of the pages each touches.
  Workload w = decode_shape(1, 4, 1, 1, 1000, 16, DType::fp16);
  const Mapping m{Algo::decode, 16, 64, false, 4};
  auto k_loads = [&](const Workload& x) {
    Simulation sim(load_device("h100"), x, m, {.numerics = false});
    std::int64_t n = 0;
    while (sim.next()) n += sim.step().kind == StepKind::load && sim.step().tensor == TensorId::K;
    return std::pair{n, sim.ledger().hbm_total()};
  };
  const auto [contiguous, bytes] = k_loads(w);
  CHECK(contiguous == 16);  // Tc = 16 tiles, each read once
  for (std::int64_t P : {16, 48, 64, 128, 1000}) {
    CAPTURE(P);
    w.page_size = P;
    std::int64_t expect = 0;
    for (std::int64_t c0 = 0; c0 < 1000; c0 += 64) expect += kv_pieces(w, c0, std::min<std::int64_t>(64, 1000 - c0));
    const auto [loads, paged_bytes] = k_loads(w);
    CHECK(loads == expect);
    CHECK(paged_bytes == bytes);
  }
  w.page_size = 16;
  CHECK(k_loads(w).first == 63);  // 15 tiles of 4 pages, and the last (960..999) of 3
}

TEST_CASE("decode's L is the log-sum-exp flash2 writes", "[decode][numerics]") {
  const Workload w = decode_shape(1, 4, 4, 2, 333, 16, DType::fp32);
  Simulation f2(load_device("h100"), w, Mapping{Algo::flash2, 16, 32});
  Simulation dec(load_device("h100"), w, Mapping{Algo::decode, 16, 32, false, 6});
  f2.run();
  dec.run();
  const auto& a = f2.hbm().at(TensorId::L).values;
  const auto& b = dec.hbm().at(TensorId::L).values;
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(b[i] == Approx(a[i]).epsilon(1e-5));
  CHECK(dec.numerics().max_rel_error < 1e-5);
}

TEST_CASE("execute_bytes counts decode's partials once per split", "[decode]") {
  // One query row, 4,096 keys of d = 64, 64 key tiles: each split holds an
  // fp32 Opart row and Lpart, (64 + 1) * 4 = 260 B. Counted once per key
  // tile (64) whatever the splits, one split and two held the same bytes.
  const Workload w{1, 1, 1, 64, DType::fp16, 0, 4096};
  auto bytes = [&](std::int64_t splits) {
    Mapping m{Algo::decode, 16, 64};
    m.splits = splits;
    return execute_bytes(w, m);
  };
  CHECK(bytes(2) - bytes(1) == 2 * 260);   // one split writes no partials
  CHECK(bytes(8) - bytes(2) == 6 * 260);
  CHECK(bytes(0) - bytes(1) == 64 * 260);  // unresolved: the most there can be, one per key tile
}
