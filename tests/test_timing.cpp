// The timing model: bounds where they must be, and monotone where it must be.
#include <catch2/catch.hpp>

#include "fasim/machine.hpp"
#include "fasim/simulation.hpp"

using namespace fasim;

namespace {
TimeReport predict(const DeviceSpec& dev, const Workload& w, const Mapping& m) {
  Simulation sim(dev, w, m, {.numerics = false});
  sim.run();
  return sim.time();
}

// The block with clock c loads the whole 128 x 128 fp32 tile of K.
Step load_k_tile(Machine& m, BlockClock& c) {
  Step s;
  s.kind = StepKind::load;
  s.tensor = TensorId::K;
  s.rows = s.cols = 128;
  s.hbm_read_bytes = 128 * 128 * 4;
  m.run(s, c);
  return s;
}
}  // namespace

TEST_CASE("a copy-like kernel is HBM-bound and runs near the HBM bandwidth", "[timing]") {
  // naive's softmax kernel reads S and writes P: 5 FLOPs per 4 bytes. With
  // N = 8192 and 8 heads (S is 1 GiB, far above L2; 1,024 blocks keep every
  // SM busy) its time is bytes / bandwidth.
  const DeviceSpec dev = load_device("h100");
  Simulation sim(dev, Workload{1, 8, 8192, 64, DType::fp16}, Mapping{Algo::naive, 64, 64}, {.numerics = false});
  sim.run();
  const KernelTime& softmax = sim.time().kernels.at(1);
  CHECK(softmax.bound == Bound::hbm);
  CHECK(softmax.utilization(Bound::hbm) > 0.8);
}

TEST_CASE("a matmul-heavy kernel is matmul-bound and runs near the matmul peak", "[timing]") {
  // flash2 with Br = 256, Bc = 64, d = 128: each K/V tile (32 KiB) feeds
  // 4*256*64*128 = 8.4 MFLOP, 256 FLOP per L2 byte, above the device's
  // matmul-to-L2 ratio (989 TFLOP/s / 5.5 TB/s = 180). Its registers allow
  // one block per SM, so loads must overlap compute (double buffering) or
  // their latency shows.
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 16, 8192, 128, DType::fp16};
  const TimeReport t = predict(dev, w, Mapping{Algo::flash2, 256, 64, true});
  CHECK(t.bound == Bound::matmul);
  const double ideal = 4.0 * 8192 * 8192 * 128 * 16 / dev.matmul_flops_fp16;
  CHECK(t.seconds >= ideal);
  // Within a block the softmax runs between the two matmuls. Its 256*64
  // exponentials per tile take 16384 / (16 per clock * 1.98 GHz) = 0.52 us
  // against 1.12 us of matmul: this is why FlashAttention-3 overlaps softmax
  // with matmuls on Hopper. With exp units 100x faster the kernel runs near
  // the matmul peak (waves: 512 blocks on 132 SMs is 3.9, rounded up to 4).
  CHECK(t.seconds < 1.6 * ideal);
  DeviceSpec fast_exp = dev;
  fast_exp.exp_rate *= 100;
  fast_exp.fp32_flops *= 100;
  const double t_fast = predict(fast_exp, w, Mapping{Algo::flash2, 256, 64, true}).seconds;
  CHECK(t_fast < 1.15 * ideal);
  // The same kernel with Br = 64 re-reads K and V four times as often: L2-bound.
  CHECK(predict(dev, w, Mapping{Algo::flash2, 64, 64, true}).bound == Bound::l2);
  // Without double buffering the one block per SM waits for every load.
  CHECK(predict(dev, w, Mapping{Algo::flash2, 256, 64}).bound == Bound::latency);
}

TEST_CASE("a tiny kernel is launch- or latency-bound", "[timing]") {
  const DeviceSpec dev = load_device("h100");
  const TimeReport t = predict(dev, Workload{1, 1, 64, 64, DType::fp16}, Mapping{Algo::flash2, 64, 64});
  CHECK((t.bound == Bound::launch || t.bound == Bound::latency));
  CHECK(t.seconds >= dev.launch_overhead_s);
}

TEST_CASE("time is monotone: slower resources or more bytes never predict less time", "[timing]") {
  const DeviceSpec base = load_device("h100");
  const Workload w{1, 8, 4096, 64, DType::fp16};
  for (Algo a : {Algo::naive, Algo::flash1, Algo::flash2}) {
    const Mapping m{a, 64, 64};
    CAPTURE(name(a));
    double last = 0;
    for (double scale : {4.0, 2.0, 1.0, 0.5, 0.25}) {  // every rate and bandwidth x scale
      DeviceSpec d = base;
      d.hbm_bandwidth *= scale;
      d.l2_bandwidth *= scale;
      d.sram_bandwidth_per_sm *= scale;
      d.matmul_flops_fp16 *= scale;
      d.fp32_flops *= scale;
      d.exp_rate *= scale;
      const double t = predict(d, w, m).seconds;
      CHECK(t >= last);
      last = t;
    }
    DeviceSpec slow_hbm = base;
    slow_hbm.hbm_bandwidth /= 2;
    CHECK(predict(slow_hbm, w, m).seconds >= predict(base, w, m).seconds);
  }
  // naive moves 4N^2 b more bytes than flash2 for the same matmul FLOPs.
  CHECK(predict(base, w, Mapping{Algo::naive, 64, 64}).seconds >
        predict(base, w, Mapping{Algo::flash2, 64, 64}).seconds);
  // Longer sequences take longer.
  double last = 0;
  for (std::int64_t N : {512, 1024, 2048, 4096}) {
    const double t = predict(base, Workload{1, 8, N, 64, DType::fp16}, Mapping{Algo::flash2, 64, 64}).seconds;
    CHECK(t > last);
    last = t;
  }
}

TEST_CASE("double buffering overlaps loads with compute", "[timing]") {
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 1, 4096, 64, DType::fp16};  // 64 blocks: one per SM, latency shows
  Mapping plain{Algo::flash2, 64, 64};
  Mapping overlapped = plain;
  overlapped.double_buffer = true;
  const double t0 = predict(dev, w, plain).seconds, t1 = predict(dev, w, overlapped).seconds;
  CHECK(t1 < t0);
  // Loads still have to arrive: overlap cannot beat the compute alone.
  CHECK(t1 > 0.3 * t0);
}

TEST_CASE("compute models: cuda-simt reads both operands of every multiply-add from shared memory", "[timing]") {
  // One block (N = Br = Bc = 64): its SRAM port carries the tile loads and
  // stores in every model, and under cuda-simt also 4 bytes per matmul FLOP.
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 1, 64, 64, DType::fp32};
  const Mapping m{Algo::flash2, 64, 64};
  Simulation ideal(dev, w, m, {.numerics = false});
  Simulation simt(dev, w, m, {.numerics = false, .compute = ComputeModel::cuda_simt});
  ideal.run();
  simt.run();
  const auto sram = static_cast<int>(Bound::sram), tensor = static_cast<int>(Bound::matmul);
  const double matmul_flops = 4.0 * 64 * 64 * 64;  // S = Q K^T and O = P V, 2 FLOPs per multiply-add
  // ... plus the warp latency: simt_fma_cycles per warp multiply-add, shared by the block's 8 warps,
  // ... plus its one key step's fixed cost and one per row (64 rows).
  const double warp_fmas = matmul_flops / 2 / kWarpSize;
  CHECK(simt.time().kernels[0].busy[sram] - ideal.time().kernels[0].busy[sram] ==
        Approx(matmul_flops * 4.0 / dev.sram_bandwidth_per_sm +
               warp_fmas * kWarpLatency.simt_fma_cycles / dev.clock_hz / 8 +
               (kWarpLatency.simt_step_cycles + 64 * kWarpLatency.simt_row_cycles) / dev.clock_hz));
  CHECK(ideal.time().kernels[0].busy[tensor] > 0);
  CHECK(simt.time().kernels[0].busy[tensor] == 0);
  CHECK(simt.time().seconds > ideal.time().seconds);
}

TEST_CASE("compute models: cuda-mma holds one block per SM", "[timing]") {
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 16, 4096, 64, DType::fp16};
  const Mapping m{Algo::flash2, 128, 128};
  Simulation ideal(dev, w, m, {.numerics = false});
  Simulation mma(dev, w, m, {.numerics = false, .compute = ComputeModel::cuda_mma});
  ideal.run();
  mma.run();
  CHECK(ideal.time().kernels[0].blocks_per_sm > 1);
  CHECK(mma.time().kernels[0].blocks_per_sm == 1);
  CHECK(mma.time().kernels[0].waves == (16 * 4096 / 128 + dev.sm_count - 1) / dev.sm_count);
  CHECK(mma.ledger().hbm_total().read_bytes == ideal.ledger().hbm_total().read_bytes);  // bytes do not change
}

namespace {
// One compute step of a block on SM 0 of a fresh machine; returns its end time.
// A compute step of block `block` (its SM: 0), ready at time 0.
double compute_step(Machine& m, std::int64_t matmul, std::int64_t exps, std::int64_t block = 0) {
  Step s;
  s.kind = exps > 0 ? StepKind::softmax : StepKind::matmul;
  s.flops_matmul = matmul;
  s.flops_other = exps;
  s.exps = exps;
  BlockClock c;
  c.block = block;
  m.run(s, c);
  return s.end_s;
}
}  // namespace

TEST_CASE("warp latency: cuda-simt holds the shared-memory port latency / W longer per warp multiply-add",
          "[timing]") {
  // h200: 128 B per clock, 1.98 GHz. 8 warps do 1000 multiply-adds each:
  // the port carries 2 x 4 B x 32 lanes = 256 B = 2 cycles per warp
  // multiply-add, 8000 x 2 = 16000 cycles; the latency adds 12.8 cycles per
  // multiply-add of a warp, 1000 x 12.8 = 12800 cycles (8 warps share it).
  const DeviceSpec dev = load_device("h200");
  const Hbm hbm;
  const std::int64_t flops = 2 * kWarpSize * 8 * 1000;
  Machine simt(dev, hbm, dev.fp32_flops, false, ComputeModel::cuda_simt, 8, WarpLatency{.simt_fma_cycles = 12.8});
  simt.begin_kernel();
  simt.arrive(0, 0);
  CHECK(compute_step(simt, flops, 0) * dev.clock_hz == Approx(16000 + 12800));
  // A second block on the same SM: 16 warps share the latency, 16000 + 6400
  // cycles, queued behind the first block on the port.
  simt.arrive(0, 1);
  CHECK(compute_step(simt, flops, 0, 1) * dev.clock_hz == Approx(2 * 16000 + 12800 + 6400));
  CHECK(simt.kernel_busy()[static_cast<int>(Bound::latency)] * dev.clock_hz == Approx(12800 + 6400));
  // With no warps given (the ideal model's machine) only the port counts.
  Machine plain(dev, hbm, dev.fp32_flops, false, ComputeModel::cuda_simt, 0);
  plain.begin_kernel();
  CHECK(compute_step(plain, flops, 0) * dev.clock_hz == Approx(16000));
}

TEST_CASE("warp latency: each softmax step costs a fixed time: cuda-simt per row too and hidden by other blocks, cuda-mma not",
          "[timing]") {
  // A softmax step of 64 rows with no arithmetic: 1000 + 64 x 10 = 1640
  // cycles on the shared-memory port, counted as latency. With a second
  // block on the SM, that block hides half of it: 820 cycles, queued behind
  // the first step. A matmul step pays neither.
  const DeviceSpec dev = load_device("h200");
  const Hbm hbm;
  const WarpLatency lat{.simt_step_cycles = 1000, .simt_row_cycles = 10};
  auto softmax = [](Machine& m, std::int64_t rows, std::int64_t block = 0) {
    Step s;
    s.kind = StepKind::softmax;
    s.rows = rows;
    BlockClock c;
    c.block = block;
    m.run(s, c);
    return s.end_s;
  };
  Machine simt(dev, hbm, dev.fp32_flops, false, ComputeModel::cuda_simt, 8, lat);
  simt.begin_kernel();
  simt.arrive(0, 0);
  CHECK(softmax(simt, 64) * dev.clock_hz == Approx(1640));
  simt.arrive(0, 1);
  CHECK(softmax(simt, 64, 1) * dev.clock_hz == Approx(1640 + 820));
  CHECK(simt.kernel_busy()[static_cast<int>(Bound::latency)] * dev.clock_hz == Approx(1640 + 820));
  CHECK(compute_step(simt, 0, 0) == 0);
  // The tensor-core kernel's step holds its tensor pipe mma_step_cycles,
  // whatever the rows, and a second block on the SM hides none of it: its
  // step queues behind the first for the full time.
  Machine mma(dev, hbm, dev.matmul_flops_fp16, false, ComputeModel::cuda_mma, 8,
              WarpLatency{.mma_step_cycles = 700});
  mma.begin_kernel();
  mma.arrive(0, 0);
  CHECK(softmax(mma, 64) * dev.clock_hz == Approx(700));
  mma.arrive(0, 1);
  CHECK(softmax(mma, 128, 1) * dev.clock_hz == Approx(1400));
  CHECK(mma.kernel_busy()[static_cast<int>(Bound::latency)] * dev.clock_hz == Approx(1400));
  Machine none(dev, hbm, dev.matmul_flops_fp16, false, ComputeModel::cuda_mma, 8, WarpLatency{.mma_step_cycles = 0});
  none.begin_kernel();
  CHECK(softmax(none, 64) == 0);  // without it the softmax is priced per exponential only
}

TEST_CASE("warp latency: cuda-simt pays the per-step cost once per key tile", "[timing]") {
  // One block (N = Br = 64) walks 4 key tiles with Bc = 16 and 1 with
  // Bc = 64. The multiply-adds and bytes are the same; the SRAM port differs
  // by 3 softmax steps of 64 rows.
  const DeviceSpec dev = load_device("h100");
  const Workload w{1, 1, 64, 64, DType::fp32};
  Simulation wide(dev, w, Mapping{Algo::flash2, 64, 64}, {.numerics = false, .compute = ComputeModel::cuda_simt});
  Simulation narrow(dev, w, Mapping{Algo::flash2, 64, 16}, {.numerics = false, .compute = ComputeModel::cuda_simt});
  wide.run();
  narrow.run();
  const auto sram = static_cast<int>(Bound::sram);
  CHECK(narrow.time().kernels[0].busy[sram] - wide.time().kernels[0].busy[sram] ==
        Approx(3 * (kWarpLatency.simt_step_cycles + 64 * kWarpLatency.simt_row_cycles) / dev.clock_hz));
  CHECK(narrow.ledger().hbm_total().read_bytes == wide.ledger().hbm_total().read_bytes);
}

TEST_CASE("warp latency: cuda-simt loads a tile one element per thread at a time, each a hit or a miss",
          "[timing]") {
  // 128 x 128 fp32 by 8 warps (256 threads): 64 elements a thread, each
  // waiting for the last. Cold L2: all misses, 64 x 400 ns; the same tile
  // again: all hits, 64 x 200 ns. Bandwidth (64 KiB) takes nanoseconds.
  const DeviceSpec dev = load_device("h200");
  Hbm hbm;
  hbm.add(TensorId::K, 1, 128, 128, DType::fp32, false);
  const WarpLatency lat{.simt_load_hit_s = 200e-9, .simt_load_miss_s = 400e-9};
  auto load = [](Machine& m, BlockClock& c) {
    const double start = c.t;
    return load_k_tile(m, c).end_s - start;
  };
  Machine simt(dev, hbm, dev.fp32_flops, false, ComputeModel::cuda_simt, 8, lat);
  simt.begin_kernel();
  BlockClock c;
  CHECK(load(simt, c) == Approx(64 * 400e-9));
  CHECK(load(simt, c) == Approx(64 * 200e-9));
  // The tensor-core model copies with cp.async (all in flight): one latency.
  Machine mma(dev, hbm, dev.matmul_flops_fp16, false, ComputeModel::cuda_mma, 8, lat);
  mma.begin_kernel();
  BlockClock c2;
  CHECK(load(mma, c2) < 2 * dev.hbm_latency_s);
}

TEST_CASE("a hit on a tile still on its way from DRAM waits for it but not once it has landed",
          "[timing]") {
  // Block A (SM 0) misses on a K tile at t = 0. Block B (SM 1) asks for the
  // same tile at once: the L2 holds its sectors (a hit, no DRAM bytes), but
  // the data is still on its way, so B is done no sooner than A, and pays
  // the miss time per element (cuda-simt). Block C asks after A's read has
  // landed: a plain hit.
  const DeviceSpec dev = load_device("h200");
  Hbm hbm;
  hbm.add(TensorId::K, 1, 128, 128, DType::fp32, false);
  const WarpLatency lat{.simt_load_hit_s = 200e-9, .simt_load_miss_s = 400e-9};
  Machine simt(dev, hbm, dev.fp32_flops, false, ComputeModel::cuda_simt, 8, lat);
  simt.begin_kernel();
  auto load = [&simt](std::int32_t sm, double at) {
    BlockClock c{.t = at, .loads_done = at, .load_gate = at, .last_load = at, .stores_done = at, .sm = sm};
    return load_k_tile(simt, c);
  };
  const Step a = load(0, 0.0);
  const Step b = load(1, 0.0);
  CHECK(a.dram_read_bytes == 128 * 128 * 4);
  CHECK(b.dram_read_bytes == 0);
  CHECK(b.l2_hit_bytes == 128 * 128 * 4);
  CHECK(a.end_s == Approx(64 * 400e-9));
  CHECK(b.end_s >= a.end_s);
  const Step c = load(0, a.end_s + 1e-6);
  CHECK(c.end_s - c.start_s == Approx(64 * 200e-9));
}

TEST_CASE("warp latency: cuda-mma runs mma.sync at 1 / (1 + 5 / W) of its peak, and each exp waits 16.9 cycles / W",
          "[timing]") {
  const DeviceSpec dev = load_device("h200");
  const Hbm hbm;
  const double per_sm = dev.matmul_flops_fp16 / static_cast<double>(dev.sm_count);
  Machine mma(dev, hbm, dev.matmul_flops_fp16, false, ComputeModel::cuda_mma, 8,
              WarpLatency{.mma_mma_times = 5.0, .exp_cycles = 16.9});
  mma.begin_kernel();
  mma.arrive(0, 0);
  const std::int64_t flops = 8 * 100 * 4096;  // 100 mma.sync m16n8k16 per warp
  // 8 warps: 1 + 5/8 = 1.625 times the peak-rate time.
  CHECK(compute_step(mma, flops, 0) == Approx(flops / per_sm * 1.625));
  // 8 x 32 lanes x 64 exps: the SFU (16 per clock) plus 64 x 16.9 / 8 cycles per lane.
  Machine sfu(dev, hbm, dev.matmul_flops_fp16, false, ComputeModel::cuda_mma, 8,
              WarpLatency{.mma_mma_times = 5.0, .exp_cycles = 16.9});
  sfu.begin_kernel();
  sfu.arrive(0, 0);
  const std::int64_t exps = 8 * kWarpSize * 64;
  CHECK(compute_step(sfu, 0, exps) * dev.clock_hz == Approx(exps / 16.0 + 8 * 64 * 16.9 / 8));
  // More warps hide more: at 32 warps the mma time is 1 + 5/32 of the peak's.
  Machine wide(dev, hbm, dev.matmul_flops_fp16, false, ComputeModel::cuda_mma, 32);
  wide.begin_kernel();
  wide.arrive(0, 0);
  CHECK(compute_step(wide, flops, 0) == Approx(flops / per_sm * (1 + kWarpLatency.mma_mma_times / 32)));
  CHECK(warps_per_block(ComputeModel::cuda_mma, 128) == 8);
  CHECK(warps_per_block(ComputeModel::cuda_simt, 64) == 8);
  CHECK(warps_per_block(ComputeModel::ideal, 128) == 0);
}
