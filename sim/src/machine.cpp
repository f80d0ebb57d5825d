#include "fasim/machine.hpp"

#include <algorithm>
#include <cmath>

namespace fasim {

std::int64_t sector_bytes(const HbmTensor& t, std::int64_t bh, std::int64_t row0, std::int64_t rows,
                          std::int64_t col0, std::int64_t cols, std::int64_t sector) {
  const std::int64_t b = t.elem_bytes();
  auto span = [sector](std::int64_t start, std::int64_t len) {
    return ((start + len + sector - 1) / sector - start / sector) * sector;
  };
  if (col0 == 0 && cols == t.cols) return span(t.offset(bh, row0, 0) * b, rows * cols * b);
  const std::int64_t stride = t.cols * b;
  const std::int64_t first = t.offset(bh, row0, col0) * b;
  if (stride % sector == 0) return rows * span(first, cols * b);  // every row aligned alike
  std::int64_t total = 0;
  for (std::int64_t r = 0; r < rows; ++r) total += span(first + r * stride, cols * b);
  return total;
}

Machine::Machine(const DeviceSpec& dev, const Hbm& hbm, double matmul_rate, bool double_buffer,
                 ComputeModel compute, int warps_per_block, WarpLatency latency)
    : dev_(dev),
      hbm_(hbm),
      matmul_per_sm_(matmul_rate / static_cast<double>(dev.sm_count)),
      fp32_per_sm_(dev.fp32_flops / static_cast<double>(dev.sm_count)),
      exp_per_sm_(dev.exp_rate / static_cast<double>(dev.sm_count)),
      sram_bw_(dev.sram_bandwidth_per_sm),
      double_buffer_(double_buffer),
      compute_(compute),
      warps_per_block_(warps_per_block),
      latency_(latency),
      l2_(dev.l2_bytes, dev.l2_partitions, dev.sm_count, dev.l2_sector_bytes, dev.l2_ways),
      sms_(static_cast<std::size_t>(dev.sm_count)) {}

void Machine::warm_inputs(std::int64_t br, std::int64_t bc) {
  for (TensorId t : {TensorId::Q, TensorId::K, TensorId::V}) {
    const HbmTensor& x = hbm_.at(t);
    const std::int64_t step = t == TensorId::Q ? br : bc;
    for (std::int64_t h = 0; h < x.bh; ++h)
      for (std::int64_t r = 0; r < x.rows; r += step) {
        const std::int64_t rows = std::min(step, x.rows - r);
        const TileKey key{t, h, r, 0, rows, x.cols};
        if (!l2_.preload(key, sector_bytes(x, h, r, rows, 0, x.cols, dev_.l2_sector_bytes))) return;
      }
  }
}

void Machine::begin_kernel() {
  hbm_server_.busy = l2_server_.busy = 0;
  for (Sm& sm : sms_) sm.sram.busy = sm.tensor.busy = sm.fp32.busy = sm.sfu.busy = sm.latency = 0;
}

std::array<double, kBoundCount> Machine::kernel_busy() const {
  std::array<double, kBoundCount> b{};
  b[static_cast<int>(Bound::hbm)] = hbm_server_.busy;
  b[static_cast<int>(Bound::l2)] = l2_server_.busy;
  for (const Sm& sm : sms_) {
    b[static_cast<int>(Bound::sram)] = std::max(b[static_cast<int>(Bound::sram)], sm.sram.busy);
    b[static_cast<int>(Bound::matmul)] = std::max(b[static_cast<int>(Bound::matmul)], sm.tensor.busy);
    b[static_cast<int>(Bound::fp32)] = std::max(b[static_cast<int>(Bound::fp32)], sm.fp32.busy);
    b[static_cast<int>(Bound::exp)] = std::max(b[static_cast<int>(Bound::exp)], sm.sfu.busy);
    b[static_cast<int>(Bound::latency)] = std::max(b[static_cast<int>(Bound::latency)], sm.latency);
  }
  return b;
}

double Machine::dram_arrival(const TileKey& key, double now) const {
  const double* arrives = in_flight_.find(key);
  return arrives != nullptr && *arrives > now ? *arrives : 0.0;
}

void Machine::reading_from_dram(const TileKey& key, double arrives, double now) {
  // Reads begin in about time order, so the oldest are the first to land.
  while (!landing_.empty() && landing_.front().second <= now) {
    const TileKey& old = landing_.front().first;
    if (const double* t = in_flight_.find(old); t != nullptr && *t <= now) in_flight_.erase(old);
    landing_.pop_front();
  }
  if (double* t = in_flight_.find(key)) *t = arrives;
  else in_flight_.insert(key, arrives);
  landing_.emplace_back(key, arrives);
}

LineRequest Machine::line_request(const Step& s, const BlockClock& c) const {
  return LineRequest::tile(s.tensor, hbm_.at(s.tensor), s.bh, s.row0, s.col0, s.rows, s.cols,
                           static_cast<int>(l2_.partition_of(c.sm)));
}

double Machine::load(Step& s, BlockClock& c) {
  const HbmTensor& x = hbm_.at(s.tensor);
  const std::int64_t sectors = sector_bytes(x, s.bh, s.row0, s.rows, s.col0, s.cols, dev_.l2_sector_bytes);
  const TileKey key{s.tensor, s.bh, s.row0, s.col0, s.rows, s.cols};
  L2Access a = l2_.read(key, sectors, c.sm);
  // The count model's expected hit share, which times a load beside its own
  // sampled lines' (simt_own_lines_weight).
  const double expected_hit = sectors > 0 ? static_cast<double>(a.hit_bytes) / static_cast<double>(sectors) : 0.0;
  if (lines_) {
    const L2Access b = lines_->read(line_request(s, c), sectors);
    a.hit_bytes = b.hit_bytes;
    a.miss_bytes = b.miss_bytes;
    a.writeback_bytes = b.writeback_bytes;
  }
  s.l2_read_bytes = sectors;
  s.l2_hit_bytes = a.hit_bytes;
  s.dram_read_bytes = a.miss_bytes;
  s.dram_write_bytes = a.writeback_bytes;
  s.l2_fabric_bytes = a.fabric_bytes;

  const double start = double_buffer_ ? std::max(c.load_gate, c.last_load) : c.t;
  const double dram = static_cast<double>(a.miss_bytes + a.writeback_bytes);
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  // A hit on a tile another block is still reading from DRAM waits for it.
  const double arrives = a.miss_bytes > 0 ? 0.0 : dram_arrival(key, start);
  const bool from_dram = a.miss_bytes > 0 || arrives > 0;
  double done = std::max(std::max({l2_server_.serve(start, static_cast<double>(sectors) / dev_.l2_bandwidth),
                                    hbm_server_.serve(start, dram / dev_.hbm_bandwidth),
                                    pipe(sm.sram, c, start, static_cast<double>(s.hbm_read_bytes) / sram_bw_)}) +
                             (from_dram ? dev_.hbm_latency_s : dev_.l2_latency_s),
                         arrives);
  // cuda-simt: each thread loads its elements one after another, and waits
  // for each (tiles.cuh), so the tile takes its elements per thread times the
  // time of one load, a hit or a miss in the share the L2 gives; where the
  // line-level L2 counts, its share is blended with the count model's
  // expected one (simt_own_lines_weight, timing.hpp).
  if (compute_ == ComputeModel::cuda_simt && warps_per_block_ > 0 && sectors > 0) {
    const double threads = static_cast<double>(warps_per_block_ * kWarpSize);
    const double per_thread = std::ceil(static_cast<double>(s.rows * s.cols) / threads);
    const double own = static_cast<double>(a.hit_bytes) / static_cast<double>(sectors);
    const double w = lines_ ? latency_.simt_own_lines_weight : 1.0;
    const double hit = arrives > 0 ? 0.0 : w * own + (1 - w) * expected_hit;
    done = std::max(done, start + per_thread * (hit * latency_.simt_load_hit_s + (1 - hit) * latency_.simt_load_miss_s));
  }
  if (a.miss_bytes > 0) reading_from_dram(key, done, start);
  s.start_s = start;
  c.last_load = start;
  c.loads_done = std::max(c.loads_done, done);
  if (!double_buffer_) c.t = done;
  c.computing = false;
  return done;
}

double Machine::store(Step& s, BlockClock& c) {
  const HbmTensor& x = hbm_.at(s.tensor);
  const std::int64_t sectors = sector_bytes(x, s.bh, s.row0, s.rows, s.col0, s.cols, dev_.l2_sector_bytes);
  L2Access a = l2_.write(TileKey{s.tensor, s.bh, s.row0, s.col0, s.rows, s.cols}, sectors, c.sm);
  if (lines_) a.writeback_bytes = lines_->write(line_request(s, c)).writeback_bytes;
  s.l2_write_bytes = sectors;
  s.dram_write_bytes = a.writeback_bytes;
  s.l2_fabric_bytes = a.fabric_bytes;

  const double start = c.t;
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const double left_sm = pipe(sm.sram, c, start, static_cast<double>(s.hbm_write_bytes) / sram_bw_);
  const double done =
      std::max({left_sm, l2_server_.serve(start, static_cast<double>(sectors) / dev_.l2_bandwidth),
                hbm_server_.serve(start, static_cast<double>(a.writeback_bytes) / dev_.hbm_bandwidth)});
  s.start_s = start;
  c.t = left_sm;  // the block goes on once the data has left the SM
  c.stores_done = std::max(c.stores_done, done);
  return done;
}

void Machine::arrive(std::int32_t sm, std::int64_t block) {
  Sm& m = sms_[static_cast<std::size_t>(sm)];
  m.resident.push_back(block);
}

void Machine::leave(std::int32_t sm, std::int64_t block) {
  Sm& m = sms_[static_cast<std::size_t>(sm)];
  std::erase(m.resident, block);
}

double Machine::pipe(Server& unit, const BlockClock& c, double ready, double seconds) const {
  const Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const bool oldest = warps_per_block_ > 0 && sm.resident.size() > 1 &&
                      c.block == *std::min_element(sm.resident.begin(), sm.resident.end());
  return oldest ? unit.serve_ahead(ready, seconds, latency_.oldest_first) : unit.serve(ready, seconds);
}

double Machine::simt_step_seconds(std::int64_t rows) const {
  return (latency_.simt_step_cycles + static_cast<double>(rows) * latency_.simt_row_cycles) / dev_.clock_hz;
}

double Machine::compute(Step& s, BlockClock& c) {
  const double start = std::max(c.t, c.loads_done);
  if (!c.computing) c.load_gate = start;  // double buffering: the next loads may start now
  c.computing = true;
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  const auto matmul = static_cast<double>(s.flops_matmul);
  const auto other = static_cast<double>(s.flops_other - s.exps);
  // cuda-simt: multiply-adds run on the FP32 units, and each (2 FLOPs) reads
  // two 4-byte words from shared memory. A server given 0 seconds is not used.
  const bool simt = compute_ == ComputeModel::cuda_simt;
  const auto exps = static_cast<double>(s.exps);
  // CUDA models: the pipe a unit of work waits on is held latency / W longer,
  // W the warps resident on this SM (timing.hpp, WarpLatency).
  double lat_matmul = 0, lat_exp = 0;
  if (warps_per_block_ > 0) {
    const double warps = static_cast<double>(sm.blocks() * warps_per_block_);
    lat_matmul = simt ? matmul / (2.0 * kWarpSize) * latency_.simt_fma_cycles / dev_.clock_hz / warps
                      : matmul / matmul_per_sm_ * latency_.mma_mma_times / warps;
    lat_exp = exps / kWarpSize * latency_.exp_cycles / dev_.clock_hz / warps;
    sm.latency += lat_matmul + lat_exp;
  }
  // cuda-simt: each softmax step (one per key step in flash1 and flash2) also
  // waits a fixed time per step and per row, whatever the tile's width. The
  // block's own warps wait together; only other blocks on the SM hide it.
  const double per_step =
      simt && s.kind == StepKind::softmax ? simt_step_seconds(s.rows) / sm.blocks() : 0.0;
  sm.latency += per_step;
  // cuda-mma: each key step also holds the tensor pipe a fixed time, which
  // other blocks on the SM do not hide (timing.hpp, mma_step_cycles).
  if (compute_ == ComputeModel::cuda_mma && s.kind == StepKind::softmax) {
    const double step = latency_.mma_step_cycles / dev_.clock_hz;
    lat_matmul += step;
    sm.latency += step;
  }
  const double done =
      std::max({pipe(sm.tensor, c, start, simt ? 0.0 : matmul / matmul_per_sm_ + lat_matmul),
                pipe(sm.sram, c, start, simt ? matmul * 4.0 / sram_bw_ + lat_matmul + per_step : 0.0),
                pipe(sm.fp32, c, start, (simt ? matmul + other : other) / fp32_per_sm_),
                pipe(sm.sfu, c, start, exps / exp_per_sm_ + lat_exp), start});
  s.start_s = start;
  c.t = done;
  return done;
}

void Machine::run(Step& s, BlockClock& c) {
  s.sm = c.sm;
  switch (s.kind) {
    case StepKind::load: s.end_s = load(s, c); break;
    case StepKind::store: s.end_s = store(s, c); break;
    default: s.end_s = compute(s, c); break;
  }
}

}  // namespace fasim
