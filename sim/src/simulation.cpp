#include "fasim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "fasim/algorithms/decode.hpp"
#include "fasim/block_placement.hpp"
#include "fasim/cuda_occupancy.hpp"
#include "fasim/error.hpp"
#include "fasim/paged_kv.hpp"
#include "fasim/reference.hpp"
#include "fasim/tiling.hpp"
#include "overflow_cause.hpp"

namespace fasim {

namespace {

// Q, K, V ~ N(0, scale^2), rounded to the storage type. Never zeros (GPU.md).
void fill_random(HbmTensor& t, float scale, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::size_t i = 0; i < t.values.size(); ++i) t.values.set(i, scale * normal(rng));  // set() rounds to the dtype
}

// Paged K or V: the same values, in the same order, as contiguous K or V,
// scattered through the block table (so paging cannot change the output).
void fill_random_paged(Hbm& hbm, const Workload& w, TensorId t, float scale, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  HbmTensor& x = hbm.at(t);
  for (std::int64_t h = 0; h < w.bh_kv(); ++h)
    for (std::int64_t r = 0; r < w.n_keys(); ++r)
      for (std::int64_t c = 0; c < w.d; ++c)
        x.values.set(static_cast<std::size_t>(kv_offset(w, hbm, t, h, r, c)), scale * normal(rng));
}

// The blocks' tiles, freed as the last kernel ends, stay in glibc's heap
// (it returns only the top of the heap by itself), scattered among what the
// run keeps (the L2 model's entries). Returned to the system, they are no
// longer held when the check against the reference allocates its own memory.
void give_back_freed_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

std::array<std::int64_t, kTensorCount> tensor_bytes(const Hbm& hbm) {
  std::array<std::int64_t, kTensorCount> bytes{};
  for (TensorId t : kAllTensors)
    if (hbm.has(t)) {
      const HbmTensor& x = hbm.at(t);
      bytes[static_cast<std::size_t>(index(t))] = x.bh * x.rows * x.cols * x.elem_bytes();
    }
  return bytes;
}

bool line_l2_applies(const DeviceSpec& device, const Workload& w, const Hbm& hbm, L2Start start) {
  // The sample's own terms (l2_lines.hpp): a cold L2 of two halves, plain
  // attention whose tensors fit the sampled window, and at least half as many
  // heads as SMs. On the recorded H200 points (cold, fitting the window) the
  // line-level L2 reads within 10% at 55 of 62 points with 64 heads or more,
  // the count model at 47; with fewer heads the count model does better (194
  // of 225 against 177): docs/results/l2-lines-2026-12-01.md.
  if (device.l2_sampled_sets.empty() || device.l2_partitions != 2 || start != L2Start::cold || !w.plain()) return false;
  if (2 * w.bh() < device.sm_count) return false;
  const auto sample = builtin_l2_set_sample(device.l2_sampled_sets);
  return sample != nullptr && fits_window(*sample, tensor_bytes(hbm));
}

}  // namespace

void validate_watched_row(const Workload& w, std::int64_t row) {
  if (row < 0 || row >= w.N)
    throw UserError("--row " + std::to_string(row) + " is outside 0.." + std::to_string(w.N - 1) +
                    "; pick a row of the sequence");
}

Simulation::Simulation(DeviceSpec device, Workload workload, Mapping mapping, SimOptions options)
    : device_(std::move(device)), workload_(workload), mapping_(mapping), options_(options) {
  validate(workload_, mapping_, device_);
  if (mapping_.algo == Algo::decode && mapping_.splits == 0)
    mapping_.splits = decode::default_splits(workload_, mapping_, device_);
  if (options_.numerics && execute_bytes(workload_, mapping_) > kMaxExecuteBytes)
    throw UserError("executing this shape with values would hold " +
                    gib(execute_bytes(workload_, mapping_)) + " of host memory (limit " +
                    gib(kMaxExecuteBytes) + "); add --no-numerics to count bytes only");
  validate_watched_row(workload_, options_.watch.row);

  const AlgorithmInfo& algo = algorithm(mapping_.algo);
  need_ = algo.need(workload_, mapping_, device_);
  const bool values = options_.numerics;
  const Workload& w = workload_;
  const KvShape kv = kv_shape(w);  // K and V: per K/V head, or pages of a paged cache
  for (TensorId t : {TensorId::Q, TensorId::O}) hbm_.add(t, w.bh(), w.N, w.d, w.dtype, values);
  for (TensorId t : {TensorId::K, TensorId::V}) hbm_.add(t, kv.heads, kv.rows, kv.cols, w.dtype, values);
  hbm_.block_table = make_block_table(w, options_.seed);
  algo.declare(w, mapping_, hbm_, values);
  if (values) {
    std::mt19937_64 rng(options_.seed);
    fill_random(hbm_.at(TensorId::Q), options_.scale.q, rng);
    for (TensorId t : {TensorId::K, TensorId::V}) {
      const float scale = t == TensorId::K ? options_.scale.k : options_.scale.v;
      if (w.page_size > 0) fill_random_paged(hbm_, w, t, scale, rng);
      else fill_random(hbm_.at(t), scale, rng);
    }
    // Poison O so a row the algorithm never writes cannot pass as correct.
    HbmValues& o = hbm_.at(TensorId::O).values;
    for (std::size_t i = 0; i < o.size(); ++i) o.set(i, std::nanf(""));
  }
  program_ = algo.build(w, mapping_, device_);

  // Occupancy: how many blocks one SM holds, limited by SRAM, registers and
  // the hardware's 32 resident blocks per SM.
  blocks_per_sm_ = 32;
  if (need_.shared > 0) blocks_per_sm_ = std::min(blocks_per_sm_, device_.sram_bytes_per_sm / need_.shared);
  if (need_.registers > 0)
    blocks_per_sm_ = std::min(blocks_per_sm_, device_.register_bytes_per_sm / need_.registers);
  blocks_per_sm_ = std::max<std::int64_t>(blocks_per_sm_, 1);
  if (options_.compute == ComputeModel::cuda_mma)  // version 4's own (cuda_occupancy.hpp)
    blocks_per_sm_ = cuda_blocks_per_sm(cuda_mma_block_need(w, mapping_), device_);
  blocks_per_sm_ = capped_occupancy(blocks_per_sm_);
  machine_ = std::make_unique<Machine>(device_, hbm_, device_.matmul_flops(w.dtype), mapping_.double_buffer,
                                       options_.compute, warps_per_block(options_.compute, mapping_.br),
                                       options_.latency);
  if (options_.l2 == L2Start::warm) machine_->warm_inputs(mapping_.br, mapping_.bc);
  if (line_l2_applies(device_, w, hbm_, options_.l2))
    machine_->use_line_l2(LineL2(builtin_l2_set_sample(device_.l2_sampled_sets), tensor_bytes(hbm_)));
  start_kernel(0.0);
}

void Simulation::set_input(TensorId t, const std::vector<float>& values) {
  if (t != TensorId::Q && t != TensorId::K && t != TensorId::V)
    throw UserError(std::string("only Q, K and V are inputs, not ") + std::string(name(t)));
  if (!options_.numerics) throw UserError("inputs need values; do not pass --no-numerics");
  if (ledger_.steps() > 0 || done_) throw UserError("inputs must be set before the first step");
  HbmTensor& x = hbm_.at(t);
  const Workload& w = workload_;
  const bool is_q = t == TensorId::Q;
  const std::int64_t want = is_q ? w.bh() * w.N * w.d : w.bh_kv() * w.n_keys() * w.d;
  if (static_cast<std::int64_t>(values.size()) != want)
    throw UserError(std::string(name(t)) + " needs " + std::to_string(want) +
                    (is_q ? " values (batch*heads x N x d), got " : " values (batch*kv_heads x N_kv x d), got ") +
                    std::to_string(values.size()));
  if (is_q || w.page_size == 0) {
    for (std::size_t i = 0; i < values.size(); ++i) x.values.set(i, values[i]);  // rounded to the dtype
    return;
  }
  std::size_t i = 0;  // paged: logical (K/V head, row, col) order, scattered through the block table
  for (std::int64_t h = 0; h < w.bh_kv(); ++h)
    for (std::int64_t r = 0; r < w.n_keys(); ++r)
      for (std::int64_t c = 0; c < w.d; ++c)
        x.values.set(static_cast<std::size_t>(kv_offset(w, hbm_, t, h, r, c)), values[i++]);
}

Simulation::~Simulation() {
  for (Slot& slot : slots_) {
    slot.body = Generator<Step>{};
    slot.ctx.reset();
  }
}

void Simulation::start_kernel(double t) {
  const Kernel& k = program_.kernels[kernel_];
  machine_->begin_kernel();
  // The CUDA teaching kernels: each kernel its own occupancy (cuda_occupancy.hpp).
  if (options_.compute == ComputeModel::cuda_simt)
    blocks_per_sm_ = capped_occupancy(cuda_simt_blocks_per_sm(workload_, mapping_, device_, kernel_));
  // Which L2 partition each of this kernel's blocks reads through (block_placement.hpp).
  machine_->place_blocks(kernel_sm_partitions(device_, options_.compute, k.grid));
  KernelTime kt;
  kt.name = k.name;
  kt.grid = k.grid;
  kt.blocks_per_sm = blocks_per_sm_;
  kt.waves = ceil_div(k.grid, device_.sm_count * blocks_per_sm_);
  kt.start_s = t;
  kt.launch_s = device_.launch_overhead_s;
  time_.kernels.push_back(kt);
  next_block_ = 0;
  kernel_end_ = t + device_.launch_overhead_s;
  const auto n = static_cast<std::size_t>(std::min(k.grid, device_.sm_count * blocks_per_sm_));
  slots_.resize(n);
  std::vector<double> ready(n);
  for (std::size_t s = 0; s < n; ++s) ready[s] = dispatch(s, kernel_end_);
  ready_.build(ready);
}

double Simulation::dispatch(std::size_t s, double t) {
  Slot& slot = slots_[s];
  slot.body = Generator<Step>{};
  slot.ctx.reset();
  const Kernel& k = program_.kernels[kernel_];
  if (next_block_ >= k.grid) return ReadyQueue::kIdle;
  slot.ctx = std::make_unique<Block>(hbm_, scratch_, workload_, options_.numerics, options_.watch,
                                     static_cast<std::int32_t>(kernel_), next_block_++, step_);
  slot.body = k.body(*slot.ctx);
  // Slot s sits on SM s mod SMs: blocks spread over the SMs first, then stack.
  const auto sm = static_cast<std::int32_t>(s % static_cast<std::size_t>(device_.sm_count));
  const std::int64_t block = next_block_ - 1;
  machine_->arrive(sm, block);
  slot.clock = BlockClock{.t = t, .loads_done = t, .load_gate = t, .last_load = t, .stores_done = t,
                          .computing = false, .sm = sm, .block = block};
  return t;
}

void Simulation::finish_kernel() {
  KernelTime& kt = time_.kernels.back();
  kt.end_s = kernel_end_;
  kt.busy = machine_->kernel_busy();
  kt.bound = classify(kt);
  time_.seconds = kt.end_s;
  const KernelTime* longest = &time_.kernels.front();
  for (const KernelTime& k : time_.kernels)
    if (k.seconds() > longest->seconds()) longest = &k;
  time_.bound = longest->bound;
  for (Slot& slot : slots_) {
    slot.body = Generator<Step>{};
    slot.ctx.reset();
  }
  // The L2 model's write-backs that accrued in this kernel and no step has
  // counted yet: this kernel's, not the next one's. next() hands them out as
  // the kernel's last step, charged to the tensor of the step before it (as
  // evictions go to the evicting step's).
  writeback_ = Step{.kind = StepKind::writeback,
                    .what = "L2 write-backs not yet counted",
                    .kernel = static_cast<std::int32_t>(kernel_),
                    .block = -1,
                    .tensor = step_.tensor,
                    .dram_write_bytes = machine_->settle_l2(),
                    .start_s = kt.end_s,
                    .end_s = kt.end_s,
                    .sm = -1};
  writeback_pending_ = true;
  ++kernel_;
  if (kernel_ < program_.kernels.size()) start_kernel(kt.end_s);
  else if (options_.numerics) give_back_freed_memory();
}

bool Simulation::next() {
  while (!done_) {
    if (writeback_pending_) {
      writeback_pending_ = false;
      step_ = writeback_;
      ledger_.record(step_);
      return true;
    }
    if (kernel_ == program_.kernels.size()) {
      done_ = true;
      break;
    }
    if (ready_.empty()) {
      finish_kernel();
      continue;
    }
    const std::size_t s = ready_.top();
    Slot& slot = slots_[s];
    if (!slot.body.next()) {  // the block is finished: the slot takes the next block
      kernel_end_ = std::max({kernel_end_, slot.clock.t, slot.clock.stores_done});
      machine_->leave(slot.clock.sm, slot.clock.block);
      ready_.replace_top(dispatch(s, slot.clock.t));
      continue;
    }
    // Blocks write their steps into step_ (block.hpp); a program may also
    // yield a Step of its own, which is copied there.
    const Step& yielded = slot.body.value();
    if (&yielded != &step_) step_ = yielded;
    machine_->run(step_, slot.clock);
    kernel_end_ = std::max(kernel_end_, step_.end_s);
    ledger_.record(step_);
    ready_.replace_top(slot.clock.t);
    return true;
  }
  return false;
}

void Simulation::run() {
  while (next()) {
  }
}

std::int64_t Simulation::l2_dirty_bytes() const { return machine_->l2_dirty_bytes(); }
bool Simulation::line_l2() const { return machine_->line_l2(); }

NumericsResult Simulation::numerics() const {
  NumericsResult r;
  if (!done_ || !options_.numerics) return r;
  for (TensorId t : {TensorId::Q, TensorId::K, TensorId::V})
    for (float x : hbm_.at(t).values) r.nonfinite_inputs += std::isfinite(x) ? 0 : 1;
  const HbmTensor& o = hbm_.at(TensorId::O);
  // Each block of reference rows against the same rows of O, then discarded.
  auto compare = [&](const ReferenceRows& ref) {
    const auto first = static_cast<std::size_t>(o.offset(ref.bh, ref.row0, 0));
    for (std::size_t i = 0; i < static_cast<std::size_t>(ref.rows * ref.d); ++i) {
      const double got = o.values[first + i], want = ref.values[i];
      if (!std::isfinite(want)) {  // from a NaN or Inf input: O must be the same NaN or Inf
        const bool same = std::isnan(want) ? std::isnan(got) : got == want;
        if (same) ++r.propagated;
        else r.max_abs_error = INFINITY;
        continue;
      }
      r.max_abs_reference = std::max(r.max_abs_reference, std::abs(want));
      if (!std::isfinite(got)) ++r.overflowed;
      // NaN never compares greater: make it count as an infinite error.
      const double err = std::abs(got - want);
      r.max_abs_error = std::isnan(err) ? INFINITY : std::max(r.max_abs_error, err);
    }
  };
  for (std::int64_t h = 0; h < workload_.bh(); ++h) reference_attention(hbm_, workload_, h, compare);
  r.max_rel_error = r.max_abs_reference > 0 ? r.max_abs_error / r.max_abs_reference : r.max_abs_error;
  if (r.overflowed > 0) {
    OverflowCause why = overflow_cause(hbm_, workload_, mapping_.algo);
    r.overflow_cause = std::move(why.cause);
    r.overflow_fix = std::move(why.fix);
  }
  return r;
}

}  // namespace fasim
