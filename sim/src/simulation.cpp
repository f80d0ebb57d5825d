#include "fasim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "fasim/error.hpp"
#include "fasim/reference.hpp"
#include "fasim/tiling.hpp"

namespace fasim {

namespace {

// Q, K, V ~ N(0, 1), rounded to the storage type. Never zeros (GPU.md).
void fill_random(HbmTensor& t, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& x : t.values) x = round_to(t.dtype, normal(rng));
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace

Simulation::Simulation(DeviceSpec device, Workload workload, Mapping mapping, SimOptions options)
    : device_(std::move(device)), workload_(workload), mapping_(mapping), options_(options) {
  validate(workload_, mapping_, device_);
  if (options_.numerics && execute_bytes(workload_, mapping_) > kMaxExecuteBytes)
    throw UserError("executing this shape with values would hold " +
                    gib(execute_bytes(workload_, mapping_)) + " of host memory (limit " +
                    gib(kMaxExecuteBytes) + "); add --no-numerics to count bytes only");
  if (options_.watch.row < 0 || options_.watch.row >= workload_.N)
    throw UserError("--row " + std::to_string(options_.watch.row) + " is outside 0.." +
                    std::to_string(workload_.N - 1) + "; pick a row of the sequence");

  const AlgorithmInfo& algo = algorithm(mapping_.algo);
  need_ = algo.need(workload_, mapping_, device_);
  const bool values = options_.numerics;
  const Workload& w = workload_;
  for (TensorId t : {TensorId::Q, TensorId::K, TensorId::V, TensorId::O})
    hbm_.add(t, w.bh(), w.N, w.d, w.dtype, values);
  algo.declare(w, hbm_, values);
  if (values) {
    std::mt19937_64 rng(options_.seed);
    for (TensorId t : {TensorId::Q, TensorId::K, TensorId::V}) fill_random(hbm_.at(t), rng);
    // Poison O so a row the algorithm never writes cannot pass as correct.
    std::fill(hbm_.at(TensorId::O).values.begin(), hbm_.at(TensorId::O).values.end(),
              std::nanf(""));
  }
  program_ = algo.build(w, mapping_, device_);
}

Simulation::~Simulation() {
  body_ = Generator<Step>{};  // the tile program's tiles live in block_ctx_'s OnChip
  block_ctx_.reset();
}

void Simulation::set_input(TensorId t, const std::vector<float>& values) {
  if (t != TensorId::Q && t != TensorId::K && t != TensorId::V)
    throw UserError(std::string("only Q, K and V are inputs, not ") + std::string(name(t)));
  if (!options_.numerics) throw UserError("inputs need values; do not pass --no-numerics");
  if (ledger_.steps() > 0 || done_) throw UserError("inputs must be set before the first step");
  HbmTensor& x = hbm_.at(t);
  if (values.size() != x.values.size())
    throw UserError(std::string(name(t)) + " needs " + std::to_string(x.values.size()) +
                    " values (batch*heads x N x d), got " + std::to_string(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) x.values[i] = round_to(x.dtype, values[i]);
}

bool Simulation::start_next_block() {
  body_ = Generator<Step>{};
  block_ctx_.reset();
  ++block_;
  while (kernel_ < program_.kernels.size() && block_ >= program_.kernels[kernel_].grid) {
    ++kernel_;
    block_ = 0;
  }
  if (kernel_ >= program_.kernels.size()) {
    done_ = true;
    return false;
  }
  block_ctx_ = std::make_unique<Block>(hbm_, workload_, options_.numerics, options_.watch,
                                       static_cast<std::int32_t>(kernel_), block_);
  body_ = program_.kernels[kernel_].body(*block_ctx_);
  return true;
}

bool Simulation::next() {
  if (done_) return false;
  while (!body_.next()) {
    if (!start_next_block()) return false;
  }
  step_ = body_.value();
  ledger_.record(step_);
  return true;
}

void Simulation::run() {
  while (next()) {
  }
}

NumericsResult Simulation::numerics() const {
  NumericsResult r;
  if (!done_ || !options_.numerics) return r;
  const HbmTensor& o = hbm_.at(TensorId::O);
  for (std::int64_t h = 0; h < workload_.bh(); ++h) {
    const std::vector<double> ref =
        reference_attention(hbm_.at(TensorId::Q), hbm_.at(TensorId::K), hbm_.at(TensorId::V), h,
                            workload_.scale());
    const float* got = &o.values[static_cast<std::size_t>(o.offset(h, 0, 0))];
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const double err = std::abs(static_cast<double>(got[i]) - ref[i]);
      // NaN never compares greater: make it count as an infinite error.
      r.max_abs_error = std::isnan(err) ? INFINITY : std::max(r.max_abs_error, err);
      r.max_abs_reference = std::max(r.max_abs_reference, std::abs(ref[i]));
    }
  }
  r.max_rel_error = r.max_abs_reference > 0 ? r.max_abs_error / r.max_abs_reference : r.max_abs_error;
  return r;
}

}  // namespace fasim
