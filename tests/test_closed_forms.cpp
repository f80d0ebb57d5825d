// Exact HBM byte counts of naive and flash2, asserted against closed forms.
//
// Notation, per (batch, head): N rows, head dim d, b = bytes per element,
// Br x Bc tiles, Tr = ceil(N / Br) query blocks, Tc = ceil(N / Bc) key blocks.
// A ragged last tile moves only its real rows, so one pass over a tensor's
// rows always moves exactly N*d*b bytes, whatever the tile sizes.
//
// flash2 (one block per query block i):
//   Q: block i loads Q_i once                     -> read  N*d*b
//   K: block i loads every K_j once; Tr blocks    -> read  N*d*b*Tr
//   V: same as K                                  -> read  N*d*b*Tr
//   O: block i stores O_i once                    -> write N*d*b
//   L: block i stores its rows' m + log l, fp32   -> write 4*N
//   m and l never leave the chip.
//   Total: b*(2Nd + 2Nd*Tr) + 4N, the b*(2Nd + 2Nd*ceil(N/Br)) plus statistics.
//
// naive (three kernels, same tiles):
//   kernel 1, block i: loads Q_i once, every K_j, stores S_ij
//     Q read N*d*b, K read N*d*b*Tr, S write N^2*b
//   kernel 2, block i: P_i = softmax(S_i) over its Br full rows;
//     if Br*N*b fits in SRAM per block the rows stay resident (S read once),
//     else pass 1 finds m, l and pass 2 reloads S (S read twice)
//     S read N^2*b*passes, P write N^2*b
//   kernel 3, block i: loads every P_ij and V_j, stores O_i
//     P read N^2*b, V read N*d*b*Tr, O write N*d*b
//   Total: b*(4N^2 + 2Nd + 2Nd*Tr) with one softmax pass.
//   With Tr = 1 (Br >= N) this is the paper's standard-attention count
//   (4N^2 + 4Nd)*b: every input read once. With Tr > 1, K and V are re-read
//   once per query block, exactly as in flash2.
#include <catch2/catch.hpp>

#include "fasim/algorithms/flash1.hpp"
#include "fasim/algorithms/naive.hpp"
#include "fasim/error.hpp"
#include "fasim/tiling.hpp"
#include "fasim/simulation.hpp"
#include "user_error_text.hpp"

using namespace fasim;

namespace {

struct Shape {
  std::int64_t N, d, br, bc, batch, heads;
  DType dtype;
};

Traffic t(std::int64_t r, std::int64_t w) { return Traffic{r, w}; }

Ledger count(const DeviceSpec& dev, const Shape& s, Algo algo, bool numerics) {
  Simulation sim(dev, Workload{s.batch, s.heads, s.N, s.d, s.dtype}, Mapping{algo, s.br, s.bc},
                 SimOptions{.numerics = numerics});
  sim.run();
  return sim.ledger();
}

const Shape kShapes[] = {
    {64, 16, 16, 16, 1, 1, DType::fp32},    // even
    {100, 32, 16, 32, 1, 2, DType::fp16},   // ragged Br and Bc
    {257, 64, 64, 32, 2, 1, DType::bf16},   // ragged, batch
    {129, 8, 32, 64, 2, 3, DType::fp32},    // Bc > rows of last tile
    {1, 16, 16, 16, 1, 1, DType::fp16},     // a single row
    {1000, 128, 64, 128, 1, 1, DType::fp16},
};

}  // namespace

TEST_CASE("flash2 HBM bytes equal b(2Nd + 2Nd*Tr) + 4N per head", "[closed-form][flash2]") {
  const DeviceSpec dev = load_device("h100");
  for (const Shape& s : kShapes) {
    for (bool numerics : {false, true}) {
      CAPTURE(s.N, s.d, s.br, s.bc, s.batch, s.heads, name(s.dtype), numerics);
      const Ledger L = count(dev, s, Algo::flash2, numerics);
      const std::int64_t b = bytes_of(s.dtype), bh = s.batch * s.heads;
      const std::int64_t Tr = (s.N + s.br - 1) / s.br;
      const std::int64_t Nd = s.N * s.d;
      CHECK(L.hbm(TensorId::Q) == t(bh * Nd * b, 0));
      CHECK(L.hbm(TensorId::K) == t(bh * Nd * b * Tr, 0));
      CHECK(L.hbm(TensorId::V) == t(bh * Nd * b * Tr, 0));
      CHECK(L.hbm(TensorId::O) == t(0, bh * Nd * b));
      CHECK(L.hbm(TensorId::L) == t(0, bh * 4 * s.N));
      for (TensorId x : {TensorId::S, TensorId::P, TensorId::m, TensorId::l})
        CHECK(L.hbm(x) == t(0, 0));
      CHECK(L.hbm_total().total() == bh * (b * (2 * Nd + 2 * Nd * Tr) + 4 * s.N));
    }
  }
}

TEST_CASE("naive HBM bytes equal b(4N^2 + 2Nd + 2Nd*Tr) per head", "[closed-form][naive]") {
  const DeviceSpec dev = load_device("h100");
  for (const Shape& s : kShapes) {
    CAPTURE(s.N, s.d, s.br, s.bc, s.batch, s.heads, name(s.dtype));
    const Workload w{s.batch, s.heads, s.N, s.d, s.dtype};
    REQUIRE(naive::softmax_rows_fit(w, Mapping{Algo::naive, s.br, s.bc}, dev));
    const Ledger L = count(dev, s, Algo::naive, /*numerics=*/s.N <= 257);
    const std::int64_t b = bytes_of(s.dtype), bh = s.batch * s.heads;
    const std::int64_t Tr = (s.N + s.br - 1) / s.br;
    const std::int64_t Nd = s.N * s.d, NN = s.N * s.N;
    CHECK(L.hbm(TensorId::Q) == t(bh * Nd * b, 0));
    CHECK(L.hbm(TensorId::K) == t(bh * Nd * b * Tr, 0));
    CHECK(L.hbm(TensorId::S) == t(bh * NN * b, bh * NN * b));
    CHECK(L.hbm(TensorId::P) == t(bh * NN * b, bh * NN * b));
    CHECK(L.hbm(TensorId::V) == t(bh * Nd * b * Tr, 0));
    CHECK(L.hbm(TensorId::O) == t(0, bh * Nd * b));
    CHECK(L.hbm_total().total() == bh * b * (4 * NN + 2 * Nd + 2 * Nd * Tr));
  }
}

TEST_CASE("naive's HBM bytes kernel by kernel: S out of kernel 1, S in and P out of kernel 2, P in of kernel 3",
          "[closed-form][naive]") {
  const DeviceSpec dev = load_device("h100");
  for (const Shape& s : kShapes) {
    CAPTURE(s.N, s.d, s.br, s.bc, s.batch, s.heads, name(s.dtype));
    const Ledger L = count(dev, s, Algo::naive, /*numerics=*/false);
    const std::int64_t b = bytes_of(s.dtype), bh = s.batch * s.heads;
    const std::int64_t Tr = (s.N + s.br - 1) / s.br;
    const std::int64_t Nd = s.N * s.d, NN = s.N * s.N;
    REQUIRE(L.kernels().size() == 3);
    CHECK(L.kernels()[0].hbm == t(bh * b * (Nd + Nd * Tr), bh * NN * b));  // Q, K; S
    CHECK(L.kernels()[1].hbm == t(bh * NN * b, bh * NN * b));              // S (rows fit); P
    CHECK(L.kernels()[2].hbm == t(bh * b * (NN + Nd * Tr), bh * Nd * b));  // P, V; O
  }
}

TEST_CASE("naive with one query block moves the paper's (4N^2 + 4Nd)b", "[closed-form][naive]") {
  const DeviceSpec dev = load_device("h100");
  for (const Shape& s : {Shape{64, 64, 64, 16, 1, 1, DType::fp16}, Shape{100, 32, 128, 32, 3, 2, DType::fp32},
                         Shape{256, 128, 256, 64, 1, 1, DType::bf16}}) {
    CAPTURE(s.N, s.d, s.br, s.bc, name(s.dtype));
    const Ledger L = count(dev, s, Algo::naive, true);
    const std::int64_t b = bytes_of(s.dtype), bh = s.batch * s.heads;
    CHECK(L.hbm_total().total() == bh * (4 * s.N * s.N + 4 * s.N * s.d) * b);
  }
}

TEST_CASE("naive softmax reads S twice when a block's rows do not fit in SRAM", "[closed-form][naive]") {
  const DeviceSpec toy = load_device("toy");
  // N = 64 fp16 rows of Br = 8: 8*64*2 = 1024 B fit the toy's SRAM; N = 512: 8 KiB do not.
  for (std::int64_t N : {64, 512, 300}) {
    const Shape s{N, 16, 8, 16, 1, 1, DType::fp16};
    const Workload w{1, 1, N, 16, DType::fp16};
    const bool fit = naive::softmax_rows_fit(w, Mapping{Algo::naive, 8, 16}, toy);
    CHECK(fit == (8 * N * 2 <= toy.sram_bytes_per_block));
    const Ledger L = count(toy, s, Algo::naive, true);
    const std::int64_t passes = fit ? 1 : 2;
    CAPTURE(N, passes);
    CHECK(L.hbm(TensorId::S).read_bytes == passes * N * N * 2);
    CHECK(L.hbm(TensorId::S).write_bytes == N * N * 2);
  }
}

TEST_CASE("naive minus flash2 is the S and P round trip", "[closed-form]") {
  // Same tiles: the two differ by exactly 4N^2 b (S and P, written and read
  // once each) minus flash2's 4N bytes of log-sum-exp.
  const DeviceSpec dev = load_device("h100");
  const Shape s{512, 64, 64, 64, 2, 2, DType::fp16};
  const Ledger naive = count(dev, s, Algo::naive, false);
  const Ledger flash = count(dev, s, Algo::flash2, false);
  CHECK(naive.hbm_total().total() - flash.hbm_total().total() == 4 * (4 * 512 * 512 * 2 - 4 * 512));
}

TEST_CASE("FLOP counts: 4N^2d matmul for both, flash2's non-matmul work in closed form", "[closed-form][flops]") {
  const DeviceSpec dev = load_device("h100");
  for (const Shape& s : kShapes) {
    CAPTURE(s.N, s.d, s.br, s.bc);
    const std::int64_t bh = s.batch * s.heads, N = s.N, d = s.d;
    const std::int64_t Tc = (N + s.bc - 1) / s.bc;
    const Ledger f = count(dev, s, Algo::flash2, false);
    const Ledger n = count(dev, s, Algo::naive, false);
    CHECK(f.flops().matmul == bh * 4 * N * N * d);
    CHECK(n.flops().matmul == bh * 4 * N * N * d);
    // Per tile (r rows, c cols): scale r*c; max, subtract, exp, sum 4rc;
    // alpha = exp(m - m') and l update 4r; O *= alpha r*d. At the end:
    // O / l is N*d, L = m + log l is 2N.
    CHECK(f.flops().other == bh * (5 * N * N + Tc * (4 * N + N * d) + N * d + 2 * N));
    CHECK(f.flops().exp == bh * (N * N + N * Tc + N));
  }
}

TEST_CASE("peak on-chip use equals the planned need", "[sram]") {
  const DeviceSpec dev = load_device("h100");
  for (Algo a : {Algo::naive, Algo::flash2}) {
    Simulation sim(dev, Workload{1, 2, 300, 64, DType::fp16}, Mapping{a, 64, 32}, {.numerics = false});
    sim.run();
    CHECK(sim.ledger().peak_sram_bytes() == sim.need().shared);
    CHECK(sim.ledger().peak_register_bytes() == sim.need().registers);
  }
  // flash2: Q, K, V tiles in SRAM; S/P, O, m and l in registers.
  Simulation f(dev, Workload{1, 1, 256, 128, DType::fp16}, Mapping{Algo::flash2, 64, 64}, {.numerics = false});
  CHECK(f.need().shared == (64 + 2 * 64) * 128 * 2);
  CHECK(f.need().registers == (64 * 64 + 64 * 128 + 2 * 64) * 4);
}

TEST_CASE("double buffering holds a second K and V tile in SRAM", "[sram]") {
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 2, 4096, 128, DType::fp16};
  // Q_i plus K_j, V_j and K_j+1, V_j+1: (Br + 4 Bc) d e, and the tiles held are as planned.
  for (Algo a : {Algo::flash1, Algo::flash2, Algo::decode}) {
    Mapping m{a, 64, 64};
    m.double_buffer = true;
    if (a == Algo::decode) m.splits = 1;  // one kernel: the split kernel's need alone
    Simulation sim(dev, w, m, {.numerics = false});
    CHECK(sim.need().shared == (64 + 4 * 64) * 128 * 2);
    sim.run();
    CHECK(sim.ledger().peak_sram_bytes() == sim.need().shared);
  }
  // naive streams K_j (kernel 1), S chunks (kernel 2, two passes) and P_ij with
  // V_j (kernel 3); each gets a second copy. At d = 64, N = 4096 kernel 3 is the
  // largest: 2 (Br Bc + Bc d) e = 2 * (4096 + 4096) * 2 = 32,768 B, against
  // kernel 1's (Br + 2 Bc) d e = 24,576 B and kernel 2's 2 Br Bc e = 16,384 B.
  {
    Mapping m{Algo::naive, 64, 64};
    const Workload narrow{1, 2, 4096, 64, DType::fp16};
    CHECK(Simulation(dev, narrow, m, {.numerics = false}).need().shared == (64 * 64 + 64 * 64) * 2);
    m.double_buffer = true;
    Simulation sim(dev, narrow, m, {.numerics = false});
    CHECK(sim.need().shared == 2 * (64 * 64 + 64 * 64) * 2);
    sim.run();
    CHECK(sim.ledger().peak_sram_bytes() == sim.need().shared);
  }
  // 64 x 64 tiles: 49,152 B without, 81,920 B with; of 233,472 B per SM,
  // four blocks become two (registers, 49,664 B of 262,144, would allow five).
  Mapping m{Algo::flash2, 64, 64};
  CHECK(Simulation(dev, w, m, {.numerics = false}).blocks_per_sm() == 4);
  m.double_buffer = true;
  CHECK(Simulation(dev, w, m, {.numerics = false}).blocks_per_sm() == 2);
  // Default tiles fit the second buffers: d = 256 takes 128 x 128 without
  // ((128 + 256) * 256 * 2 = 196,608 B), 64 x 64 with ((128 + 512) * 512 = 327,680 B does not fit).
  const Workload wide{1, 1, 4096, 256, DType::fp16};
  CHECK(default_tiles(Algo::flash2, wide, dev).bc == 128);
  Mapping base{.algo = Algo::flash2, .double_buffer = true};
  const Mapping t = default_tiles(base, wide, dev);
  CHECK((t.br == 64 && t.bc == 64 && t.double_buffer));
  // Tiles that fit only without the second buffers are refused, and the
  // suggestions count them: (12 + 4*224) * 128 * 2 = 232,448 B, the capacity.
  Mapping big{Algo::flash2, 128, 224};
  big.double_buffer = true;
  CHECK_THAT(fasim::test::error_of([&] { validate(Workload{1, 1, 4096, 128, DType::fp16}, big, dev); }),
             Catch::Matchers::Contains("need 262,144 B of SRAM per block with --double-buffer's second K and V tiles") &&
                 Catch::Matchers::Contains("largest that fit: --br 12 with --bc 224, or --bc 192 with --br 128, or --br 176 --bc 176"));
}

// flash1 (one block per head; key blocks j outer, query blocks i inner):
//   K, V: each K_j, V_j loaded once                        -> read N*d*b each
//   Q:    every Q_i loaded once per key block               -> read N*d*b*Tc
//   O:    written after every (j, i)                        -> write N*d*b*Tc
//         read back for j >= 1 (j = 0 starts from zeros)    -> read N*d*b*(Tc - 1)
//   m, l: fp32, the same pattern                            -> write 4N*Tc, read 4N*(Tc - 1) each
//   Total: b*N*d*(1 + 3Tc) + 8N*(2Tc - 1). With Tc = N/Bc and the paper's
//   Bc = M/4d, N*d*Tc = 4N^2 d^2 / M: the Theta(N^2 d^2 / M) of Theorem 2.
TEST_CASE("flash1 HBM bytes equal b*N*d*(1 + 3Tc) + 8N(2Tc - 1) per head", "[closed-form][flash1]") {
  const DeviceSpec dev = load_device("h100");
  for (const Shape& s : kShapes) {
    for (bool numerics : {false, true}) {
      CAPTURE(s.N, s.d, s.br, s.bc, s.batch, s.heads, name(s.dtype), numerics);
      const Ledger L = count(dev, s, Algo::flash1, numerics);
      const std::int64_t b = bytes_of(s.dtype), bh = s.batch * s.heads;
      const std::int64_t Tc = (s.N + s.bc - 1) / s.bc;
      const std::int64_t Nd = s.N * s.d, N = s.N;
      CHECK(L.hbm(TensorId::K) == t(bh * Nd * b, 0));
      CHECK(L.hbm(TensorId::V) == t(bh * Nd * b, 0));
      CHECK(L.hbm(TensorId::Q) == t(bh * Nd * b * Tc, 0));
      CHECK(L.hbm(TensorId::O) == t(bh * Nd * b * (Tc - 1), bh * Nd * b * Tc));
      CHECK(L.hbm(TensorId::m) == t(bh * 4 * N * (Tc - 1), bh * 4 * N * Tc));
      CHECK(L.hbm(TensorId::l) == t(bh * 4 * N * (Tc - 1), bh * 4 * N * Tc));
      CHECK(L.hbm_total().total() == bh * (b * Nd * (1 + 3 * Tc) + 8 * N * (2 * Tc - 1)));
      // Per (j, i) tile of r rows, c cols: scale rc; max, subtract, exp, sum 4rc;
      // 11r for m', the two exponentials, l' and the O coefficients; 3rd for O'.
      CHECK(L.flops().matmul == bh * 4 * N * N * s.d);
      CHECK(L.flops().other == bh * (5 * N * N + Tc * (11 * N + 3 * Nd)));
      CHECK(L.flops().exp == bh * (N * N + 2 * N * Tc));
    }
  }
}

TEST_CASE("flash1 default tiles are the paper's Bc = ceil(M/4d), Br = min(Bc, d)", "[flash1][tiling]") {
  const DeviceSpec dev = load_device("h100");
  // h100: M = 232,448 B / 2 B = 116,224 fp16 elements; d = 64: Bc = ceil(116224 / 256) = 454.
  const Workload w{1, 1, 4096, 64, DType::fp16};
  const Mapping paper = flash1::paper_tiles(w, dev);
  CHECK(paper.bc == 454);
  CHECK(paper.br == 64);
  const Mapping m = default_tiles(Algo::flash1, w, dev);
  CHECK(m.bc == 454);  // it fits: (64 + 2*454)*64*2 = 124,416 B of SRAM
  // d = 128 fp32: M = 58,112, Bc = 114, Br = 114: Q, K, V tiles need
  // (114 + 228)*128*4 = 175,104 B (fits), but S, O, m, l in registers need
  // (114*114 + 114*128 + 228)*4 = 111,264 B (fits too).
  const Workload w2{1, 1, 4096, 128, DType::fp32};
  CHECK(flash1::paper_tiles(w2, dev).bc == 114);
  CHECK(default_tiles(Algo::flash1, w2, dev).br == 114);
  // The paper's rule counts only SRAM. With few registers its tiles do not
  // fit, and the default shrinks Bc (and Br = min(Bc, d)) until they do.
  DeviceSpec tight = load_device("toy");
  tight.register_bytes_per_block = 2048;
  const Workload w3{1, 1, 256, 16, DType::fp16};
  CHECK_FALSE(fits(algorithm(Algo::flash1).need(w3, flash1::paper_tiles(w3, tight), tight), tight));
  const Mapping small = default_tiles(Algo::flash1, w3, tight);
  CHECK(small.bc < flash1::paper_tiles(w3, tight).bc);
  CHECK(fits(algorithm(Algo::flash1).need(w3, small, tight), tight));
  const Mapping bigger{Algo::flash1, std::min(small.bc + 1, w3.d), small.bc + 1};
  CHECK_FALSE(fits(algorithm(Algo::flash1).need(w3, bigger, tight), tight));
}

TEST_CASE("flash1 default tiles hold no more keys than there are", "[flash1][tiling]") {
  const DeviceSpec dev = load_device("h100");
  // N = 64: the paper's Bc is 454 (see above), 7 times the keys. Capped by the
  // next power of two >= N_kv, as flash2's default: Bc = 64, Br = min(64, d) = 64,
  // and SRAM (64 + 2*64)*64*2 = 24,576 B, flash2's, not (64 + 2*454)*64*2 = 124,416 B.
  const Workload w{1, 1, 64, 64, DType::fp16};
  const Mapping m = default_tiles(Algo::flash1, w, dev);
  CHECK(m.br == 64);
  CHECK(m.bc == 64);
  CHECK(algorithm(Algo::flash1).need(w, m, dev).shared == 24576);
  CHECK(algorithm(Algo::flash1).need(w, m, dev).shared == algorithm(Algo::flash2).need(w, default_tiles(Algo::flash2, w, dev), dev).shared);
  // 100 keys round up to 128; 16 queries cap Br at 16 (not min(Bc, d) = 64).
  CHECK(default_tiles(Algo::flash1, Workload{1, 1, 100, 64, DType::fp16}, dev).bc == 128);
  const Workload few{1, 1, 16, 64, DType::fp16, 0, 4096};
  CHECK(default_tiles(Algo::flash1, few, dev).br == 16);
  CHECK(default_tiles(Algo::flash1, few, dev).bc == 454);
  // A 1 GiB SRAM: the paper's Bc is 2^30 / 2 / 256 = 2,097,152 for 2^24 keys;
  // registers decide: (64 Bc + 64*64 + 2*64)*4 <= 262,144 B gives Bc = 958.
  DeviceSpec big = dev;
  big.sram_bytes_per_sm = big.sram_bytes_per_block = std::int64_t{1} << 30;
  const Workload huge{1, 1, std::int64_t{1} << 24, 64, DType::fp16};
  const Mapping t = default_tiles(Algo::flash1, huge, big);
  CHECK(t.br == 64);
  CHECK(t.bc == 958);
}

// Large shapes: counts stay exact, with no overflow, at N = 2^20 and
// batch*heads = 2^10 (naive's S alone is then 2^51 bytes). A device with room
// for any tile lets a tile span a quarter of a head, so the run takes about
// 10^5 steps and well under a second. The counts are also checked in 128-bit
// arithmetic against the closed forms with the smallest tiles, to show they
// stay far inside the ledger's int64 counters.
namespace {

DeviceSpec roomy() {
  DeviceSpec d = load_device("h100");
  d.name = "roomy";
  d.sram_bytes_per_sm = d.sram_bytes_per_block = std::int64_t{1} << 50;
  d.register_bytes_per_sm = d.register_bytes_per_block = std::int64_t{1} << 50;
  d.hbm_bytes = std::int64_t{1} << 62;
  return d;
}

__extension__ typedef __int128 i128;  // __extension__: no -Wpedantic warning

// Per-head closed forms of this file, in 128-bit arithmetic.
i128 flash2_bytes(i128 N, i128 d, i128 b, i128 Tr) { return b * (2 * N * d + 2 * N * d * Tr) + 4 * N; }
i128 naive_bytes(i128 N, i128 d, i128 b, i128 Tr) { return b * (4 * N * N + 2 * N * d + 2 * N * d * Tr); }
i128 flash1_bytes(i128 N, i128 d, i128 b, i128 Tc) { return b * N * d * (1 + 3 * Tc) + 8 * N * (2 * Tc - 1); }

}  // namespace

TEST_CASE("N = 2^20, batch*heads = 2^10: bytes and FLOPs equal the closed forms exactly", "[closed-form][large]") {
  const DeviceSpec dev = roomy();
  const std::int64_t N = std::int64_t{1} << 20, d = 64, b = 2, bh = 1024, B = N / 4, T = 4;
  const Workload w{4, 256, N, d, DType::fp16};
  for (Algo a : {Algo::naive, Algo::flash1, Algo::flash2}) {
    CAPTURE(name(a));
    Simulation sim(dev, w, Mapping{a, B, B}, {.numerics = false});
    sim.run();
    const Ledger& L = sim.ledger();
    const i128 per_head = a == Algo::naive    ? naive_bytes(N, d, b, T)
                          : a == Algo::flash1 ? flash1_bytes(N, d, b, T)
                                              : flash2_bytes(N, d, b, T);
    CHECK(L.hbm_total().total() == static_cast<std::int64_t>(bh * per_head));
    CHECK(L.flops().matmul == bh * 4 * N * N * d);  // 2^58
    // naive: scale N^2, then the softmax of whole rows (they fit): max,
    // subtract, exp, sum, divide, 5N^2. The others as in the tests above.
    const std::int64_t other = a == Algo::naive    ? 6 * N * N
                               : a == Algo::flash1 ? 5 * N * N + T * (11 * N + 3 * N * d)
                                                   : 5 * N * N + T * (4 * N + N * d) + N * d + 2 * N;
    CHECK(L.flops().other == bh * other);
    CHECK(L.flops().exp == bh * (a == Algo::naive ? N * N : a == Algo::flash1 ? N * N + 2 * N * T : N * N + N * T + N));
  }
  Simulation naive(dev, w, Mapping{Algo::naive, B, B}, {.numerics = false});
  naive.run();
  CHECK(naive.ledger().hbm(TensorId::S).write_bytes == bh * N * N * b);  // 2^51
}

TEST_CASE("N = 2^20 with batch*heads = 2^10: every count fits int64 with room, and h100 refuses the shape",
          "[closed-form][large]") {
  const i128 N = i128{1} << 20, d = 128, bh = 1024, one = 1;
  const i128 limit = one << 62;  // what validate_workload promises to stay below
  for (i128 b : {i128{2}, i128{4}}) {
    for (i128 T : {one, N / 128, N}) {  // one tile, 128-row tiles, 1-row tiles
      CHECK((bh * naive_bytes(N, d, b, T) < limit));  // (( )): Catch cannot print __int128
      CHECK((bh * flash2_bytes(N, d, b, T) < limit));
      CHECK((bh * flash1_bytes(N, d, b, T) < limit));
    }
  }
  CHECK((bh * 4 * N * N * d < limit));                     // matmul FLOPs: 2^59
  CHECK((bh * (5 * N * N + N * (4 * N + N * d)) < limit));  // other FLOPs with 1-row tiles
  const Workload w{1, 1024, std::int64_t{1} << 20, 128, DType::fp16};
  CHECK_NOTHROW(validate_workload(w));
  CHECK_NOTHROW(validate(w, Mapping{Algo::flash2, 128, 128}, roomy()));
  // Q, K, V and O alone are 4 * 2^10 * 2^20 * 128 * 2 B = 1 TiB: more than any GPU holds.
  CHECK(hbm_footprint_bytes(w, Mapping{Algo::flash2, 128, 128}, roomy()) == 0x1p40 + 4.0 * 1024 * (1 << 20));
  try {
    validate(w, Mapping{Algo::flash2, 128, 128}, load_device("h100"));
    FAIL("h100 accepted a shape of 1 TiB");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "the tensors of this shape need 1.00 TiB of HBM (Q, K, V, O and statistics), more than h100 has "
          "(80.00 GiB); use a smaller --N, --N-kv, --batch or --heads, or a device with more HBM");
  }
}

TEST_CASE("HBM footprint: exact per algorithm, naive points to flash2 when S and P are the problem",
          "[closed-form][hbm]") {
  const DeviceSpec dev = load_device("h100");
  const Workload w{2, 3, 1000, 64, DType::bf16};
  const double qkvo = 4.0 * 6 * 1000 * 64 * 2;
  CHECK(hbm_footprint_bytes(w, Mapping{Algo::flash2, 64, 64}, dev) == qkvo + 6 * 1000 * 4);
  CHECK(hbm_footprint_bytes(w, Mapping{Algo::flash1, 64, 64}, dev) == qkvo + 2 * 6 * 1000 * 4);
  CHECK(hbm_footprint_bytes(w, Mapping{Algo::naive, 64, 64}, dev) == qkvo + 2.0 * 6 * 1000 * 1000 * 2);
  // 16 heads of N = 2^16: S and P are 2 * 16 * 2^32 * 2 B = 256 GiB, Q, K, V, O 512 MiB.
  const Workload big{1, 16, 65536, 64, DType::fp16};
  CHECK_NOTHROW(validate(big, Mapping{Algo::flash2, 128, 128}, dev));
  try {
    validate(big, Mapping{Algo::naive, 128, 128}, dev);
    FAIL("h100 accepted 256 GiB of S and P");
  } catch (const UserError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::StartsWith("the tensors of this shape need 256.50 GiB of HBM (Q, K, V, O, "
                                                     "and S and P of N x N_kv per head), more than h100 has (80.00 "
                                                     "GiB); use --algo flash2, which never stores S and P, or a "
                                                     "smaller --N"));
  }
}
