// Exact HBM byte counts of the attention variants: causal and sliding-window
// masks, GQA/MQA, a key length other than the query length, paged K/V.
//
// Notation, per query head: N query rows, N_kv keys, head dim d, b bytes per
// element, Br x Bc tiles, Tr = ceil(N / Br). Query row i sees keys
// lo(i) <= j <= hi(i) (workload.hpp), off = N_kv - N:
//   causal: hi(i) = i + off;  window W: also lo(i) = i + off - W + 1.
// Both bounds grow with i, so query block rows r0..r1 see exactly the keys
// lo(r0)..hi(r1), and flash2 visits exactly the key tiles
// floor(lo(r0) / Bc) .. floor(hi(r1) / Bc) — none when hi(r1) < 0. A visited
// tile moves its real rows (a ragged last tile fewer), so block i reads
//   keys_i = min(N_kv, (floor(hi(r1)/Bc) + 1) Bc) - floor(lo(r0)/Bc) Bc
// rows of K and of V. flash2 per head: K = V = d b sum_i keys_i; Q, O, L as
// without a mask (N d b, N d b, 4N).
#include <catch2/catch.hpp>

#include "fasim/paged_kv.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {

struct Counted {
  Ledger ledger;
  std::int64_t k_loads = 0;  // load steps of K
};

Counted count(const Workload& w, const Mapping& m, bool numerics = false) {
  Simulation sim(load_device("h100"), w, m, {.numerics = numerics});
  Counted c;
  while (sim.next())
    if (sim.step().kind == StepKind::load && sim.step().tensor == TensorId::K) ++c.k_loads;
  c.ledger = sim.ledger();
  return c;
}

Workload shape(std::int64_t N, std::int64_t N_kv, bool causal, std::int64_t window, DType t = DType::fp16) {
  return Workload{.batch = 1, .heads = 1, .N = N, .d = 16, .dtype = t, .kv_heads = 0, .N_kv = N_kv,
                  .causal = causal, .window = window, .page_size = 0};
}

// sum_i keys_i from the derivation above, for one head.
std::int64_t visible_key_rows(const Workload& w, std::int64_t br, std::int64_t bc) {
  const std::int64_t Nk = w.n_keys(), off = Nk - w.N;
  std::int64_t sum = 0;
  for (std::int64_t r0 = 0; r0 < w.N; r0 += br) {
    const std::int64_t r1 = std::min(w.N, r0 + br) - 1;
    const std::int64_t hi = w.masked() ? std::min(Nk - 1, r1 + off) : Nk - 1;
    const std::int64_t lo = w.window > 0 ? std::max<std::int64_t>(0, r0 + off - w.window + 1) : 0;
    if (hi >= 0) sum += std::min(Nk, (hi / bc + 1) * bc) - lo / bc * bc;
  }
  return sum;
}

}  // namespace

TEST_CASE("causal flash2 reads the key tiles on and below the diagonal, by hand", "[variants][causal]") {
  // N = 100, Br = 32, Bc = 16. Block 0 (rows 0..31) sees keys 0..31: tiles 0-1,
  // 32 rows. Block 1 (32..63): tiles 0-3, 64 rows. Block 2 (64..95): tiles
  // 0-5, 96 rows. Block 3 (96..99): tiles 0-6, keys 0..99, 100 rows (the last
  // tile has 4). 292 rows of K and of V, against 4 * 100 = 400 without the mask.
  const Counted c = count(shape(100, 0, true, 0), Mapping{Algo::flash2, 32, 16});
  CHECK(c.ledger.hbm(TensorId::K).read_bytes == 292 * 16 * 2);
  CHECK(c.ledger.hbm(TensorId::V).read_bytes == 292 * 16 * 2);
  CHECK(c.k_loads == 2 + 4 + 6 + 7);  // 19 of the 28 tiles
  // Matmul work is done on whole visited tiles: 4 d sum_i rows_i keys_i.
  CHECK(c.ledger.flops().matmul == 4 * 16 * (32 * 32 + 32 * 64 + 32 * 96 + 4 * 100));
  CHECK(c.ledger.hbm(TensorId::Q).read_bytes == 100 * 16 * 2);
  CHECK(c.ledger.hbm(TensorId::O).write_bytes == 100 * 16 * 2);
  CHECK(c.ledger.hbm(TensorId::L).write_bytes == 100 * 4);
}

TEST_CASE("sliding window and causal with N_kv != N, by hand", "[variants][window][causal]") {
  // Window W = 20, N = 100, Br = 32, Bc = 16: block 0 sees keys 0..31 (32
  // rows); block 1 keys 13..63 (tiles 0-3: 64 rows); block 2 keys 45..95
  // (tiles 2-5: 64); block 3 keys 77..99 (tiles 4-6: 36). 196 rows.
  CHECK(count(shape(100, 0, false, 20), Mapping{Algo::flash2, 32, 16}).ledger.hbm(TensorId::K).read_bytes ==
        196 * 16 * 2);
  // N = 40 queries after 60 cached keys (N_kv = 100, off = 60), Br = 16, Bc = 32:
  // block 0 sees keys 0..75 (tiles 0-2: 96 rows), block 1 0..91 (96), block 2
  // 0..99 (100). 292 rows, against 3 * 100 without the mask.
  CHECK(count(shape(40, 100, true, 0), Mapping{Algo::flash2, 16, 32}).ledger.hbm(TensorId::K).read_bytes ==
        292 * 16 * 2);
  // N = 100 queries, N_kv = 40 keys (off = -60): rows 0..59 see nothing.
  // Block 0 visits no tile, block 1 keys 0..3 (tile 0: 16 rows), blocks 2
  // and 3 keys 0..39 (40 rows each). 96 rows.
  CHECK(count(shape(100, 40, true, 0), Mapping{Algo::flash2, 32, 16}).ledger.hbm(TensorId::K).read_bytes ==
        96 * 16 * 2);
}

TEST_CASE("flash2 K/V bytes equal d b sum_i keys_i for ragged masked shapes", "[variants][closed-form]") {
  struct Case {
    std::int64_t N, N_kv, window, br, bc;
    bool causal;
  };
  for (const Case& s : {Case{257, 0, 0, 64, 32, true}, Case{129, 0, 0, 32, 64, true}, Case{300, 0, 50, 64, 48, false},
                        Case{300, 0, 64, 32, 32, true}, Case{77, 500, 0, 32, 64, true}, Case{77, 500, 100, 16, 64, true},
                        Case{500, 77, 0, 64, 16, true}, Case{1, 1000, 0, 16, 128, true}, Case{64, 64, 1, 16, 16, true}}) {
    for (DType t : {DType::fp32, DType::bf16}) {
      CAPTURE(s.N, s.N_kv, s.window, s.br, s.bc, s.causal, name(t));
      Workload w = shape(s.N, s.N_kv, s.causal, s.window, t);
      w.batch = 2;
      w.heads = 3;
      const std::int64_t b = bytes_of(t), bh = 6, rows = visible_key_rows(w, s.br, s.bc);
      const Ledger L = count(w, Mapping{Algo::flash2, s.br, s.bc}, /*numerics=*/true).ledger;
      CHECK(L.hbm(TensorId::K) == Traffic{bh * rows * 16 * b, 0});
      CHECK(L.hbm(TensorId::V) == Traffic{bh * rows * 16 * b, 0});
      CHECK(L.hbm(TensorId::Q) == Traffic{bh * s.N * 16 * b, 0});
      CHECK(L.hbm(TensorId::O) == Traffic{0, bh * s.N * 16 * b});
      CHECK(L.hbm(TensorId::L) == Traffic{0, bh * s.N * 4});
    }
  }
}

TEST_CASE("causal flash2 moves (T+1)/2T of the K/V bytes: about half for large N", "[variants][causal]") {
  // Br = Bc = B, N = T B: block i visits tiles 0..i, so T(T+1)/2 of T^2 tiles;
  // K = B d b T(T+1)/2 = N d b (T+1)/2 against N d b T. T = 128 (N = 16,384):
  // 129/256 = 50.4% of the K and V bytes, and of the matmul FLOPs.
  const std::int64_t B = 128, T = 128, N = B * T, d = 128, b = 2;
  Workload w{1, 1, N, d, DType::fp16};
  const Ledger full = count(w, Mapping{Algo::flash2, B, B}).ledger;
  w.causal = true;
  const Ledger causal = count(w, Mapping{Algo::flash2, B, B}).ledger;
  CHECK(full.hbm(TensorId::K).read_bytes == N * d * b * T);
  CHECK(causal.hbm(TensorId::K).read_bytes == N * d * b * (T + 1) / 2);
  CHECK(causal.hbm(TensorId::V).read_bytes * 2 * T == full.hbm(TensorId::V).read_bytes * (T + 1));
  CHECK(causal.flops().matmul * 2 * T == full.flops().matmul * (T + 1));
}

TEST_CASE("sliding window: W/B + 1 tiles per query block, linear in N", "[variants][window]") {
  // Br = Bc = B, N = T B, W = k B: block i sees keys iB - W + 1 .. iB + B - 1,
  // tiles max(0, i - k) .. i: min(i, k) + 1 tiles. In all
  // sum_{i<k} (i + 1) + (T - k)(k + 1) = k(k+1)/2 + (T - k)(k + 1) tiles.
  const std::int64_t B = 16, d = 16, b = 2;
  for (auto [T, k] : {std::pair<std::int64_t, std::int64_t>{16, 3}, {40, 1}, {8, 8}, {33, 5}}) {
    CAPTURE(T, k);
    const Ledger L = count(shape(T * B, 0, false, k * B), Mapping{Algo::flash2, B, B}).ledger;
    CHECK(L.hbm(TensorId::K).read_bytes == B * d * b * (k * (k + 1) / 2 + (T - k) * (k + 1)));
  }
}

TEST_CASE("flash1 with a causal mask skips (j, i) pairs above the diagonal", "[variants][causal][flash1]") {
  // Br = Bc = B, N = T B: pairs j <= i, T(T+1)/2 of them. K_j and V_j are
  // still loaded once each (query block T-1 sees every key). Per pair: Q_i
  // read, O_i, m_i, l_i written; read back except on block i's first pair.
  const std::int64_t B = 16, T = 7, N = B * T, d = 16, b = 4, pairs = T * (T + 1) / 2;
  const Ledger L = count(shape(N, 0, true, 0, DType::fp32), Mapping{Algo::flash1, B, B}, true).ledger;
  CHECK(L.hbm(TensorId::K) == Traffic{N * d * b, 0});
  CHECK(L.hbm(TensorId::V) == Traffic{N * d * b, 0});
  CHECK(L.hbm(TensorId::Q) == Traffic{B * d * b * pairs, 0});
  CHECK(L.hbm(TensorId::O) == Traffic{B * d * b * (pairs - T), B * d * b * pairs});
  CHECK(L.hbm(TensorId::m) == Traffic{4 * B * (pairs - T), 4 * B * pairs});
  CHECK(L.hbm(TensorId::l) == Traffic{4 * B * (pairs - T), 4 * B * pairs});
}

TEST_CASE("naive computes all of S: a mask changes no byte", "[variants][naive]") {
  // Standard attention materialises the whole N x N_kv score matrix and
  // masks it in the softmax, so its bytes are those of unmasked attention:
  // b (2 N N_kv + 2 N N_kv) for S and P, N d b Q, N_kv d b Tr for K and V.
  for (auto [N, N_kv] : {std::pair<std::int64_t, std::int64_t>{100, 0}, {40, 100}, {100, 40}}) {
    CAPTURE(N, N_kv);
    const Mapping m{Algo::naive, 32, 16};
    const Ledger plain = count(shape(N, N_kv, false, 0), m, true).ledger;
    const Ledger causal = count(shape(N, N_kv, true, 0), m, true).ledger;
    const Ledger window = count(shape(N, N_kv, false, 10), m, true).ledger;
    const std::int64_t Nk = N_kv ? N_kv : N, Tr = (N + 31) / 32;
    CHECK(plain.hbm_total().total() == 2 * (4 * N * Nk + 2 * N * 16 + 2 * Nk * 16 * Tr));
    CHECK(causal.hbm_total() == plain.hbm_total());
    CHECK(window.hbm_total() == plain.hbm_total());
  }
}

TEST_CASE("GQA and MQA: the same HBM requests, fewer DRAM bytes", "[variants][gqa]") {
  // In the simple schedule every query head's blocks read their K/V head's
  // tiles, so K and V requests are bh N_kv d b Tr whatever kv_heads is: the
  // schedule decides the bytes, not the number of K/V heads. What shrinks is
  // the K and V tensors (batch * kv_heads heads): the query heads of a group
  // read the same tiles, so with a cold L2 that holds everything, K and V
  // each miss exactly once per tile: batch * kv_heads * N_kv * d * b from DRAM.
  const std::int64_t batch = 2, heads = 8, N = 1024, d = 64, b = 2, Tr = N / 64;
  for (std::int64_t kv : {8, 4, 2, 1}) {
    CAPTURE(kv);
    Workload w{batch, heads, N, d, DType::fp16};
    w.kv_heads = kv;
    const Ledger L = count(w, Mapping{Algo::flash2, 64, 64}).ledger;
    for (TensorId t : {TensorId::K, TensorId::V}) {
      CHECK(L.hbm(t).read_bytes == batch * heads * N * d * b * Tr);
      CHECK(L.cache(t).dram_read_bytes == batch * kv * N * d * b);
    }
  }
}

TEST_CASE("paged K/V: one load per page a tile touches, the same bytes", "[variants][paged]") {
  // Pages are scattered through the pool, so a K tile of rows [c0, c0 + cols)
  // is one load per page it touches, floor(c0/P) .. floor((c0 + cols - 1)/P).
  // N_kv = 100, Bc = 32 (tiles 0-31, 32-63, 64-95, 96-99):
  //   P = 32 or 64 (P a multiple of Bc): 1 + 1 + 1 + 1 = 4, as contiguous;
  //   P = 16 (Bc a multiple of P): whole pages, 2 + 2 + 2 + 1 = 7;
  //   P = 24: tiles straddle page boundaries, 2 + 2 + 2 + 1 = 7;
  //   P = 7: 5 + 6 + 5 + 2 = 18 (pages 0-4, 4-9, 9-13, 13-14).
  // Bytes never change: each row is still read once per pass.
  Workload w = shape(64, 100, false, 0);
  const Mapping m{Algo::flash2, 32, 32};
  const Counted plain = count(w, m);
  CHECK(plain.k_loads == 2 * 4);  // Tr = 2 query blocks, each a pass over K
  for (auto [P, loads] : {std::pair<std::int64_t, std::int64_t>{32, 4}, {64, 4}, {16, 7}, {24, 7}, {7, 18}}) {
    CAPTURE(P);
    w.page_size = P;
    const Counted paged = count(w, m);
    CHECK(paged.k_loads == 2 * loads);
    std::int64_t formula = 0;
    for (std::int64_t c0 = 0; c0 < 100; c0 += 32) formula += kv_pieces(w, c0, std::min<std::int64_t>(32, 100 - c0));
    CHECK(formula == loads);
    CHECK(paged.ledger.hbm_total() == plain.ledger.hbm_total());
  }
}

TEST_CASE("paged K/V gives the contiguous output, bit for bit", "[variants][paged][numerics]") {
  // Same seed: the same logical K and V, scattered through the block table.
  // Each tile is assembled from its pages in the same row order, so the
  // arithmetic is identical.
  for (Algo a : {Algo::naive, Algo::flash1, Algo::flash2, Algo::decode}) {
    for (std::int64_t P : {16, 12, 5}) {
      CAPTURE(name(a), P);
      Workload w{2, 4, 50, 16, DType::bf16};
      w.kv_heads = 2;
      w.N_kv = 90;
      w.causal = true;
      const Mapping m{Algo(a), 32, 16, false, a == Algo::decode ? 3 : 0};
      Simulation contiguous(load_device("h100"), w, m);
      w.page_size = P;
      Simulation paged(load_device("h100"), w, m);
      contiguous.run();
      paged.run();
      CHECK(paged.hbm().at(TensorId::O).values == contiguous.hbm().at(TensorId::O).values);
      CHECK(paged.numerics().max_abs_error == contiguous.numerics().max_abs_error);
      // The pool is a permutation: logical pages are not in order.
      CHECK(paged.hbm().block_table.size() == static_cast<std::size_t>(2 * ((90 + P - 1) / P)));
    }
  }
}
