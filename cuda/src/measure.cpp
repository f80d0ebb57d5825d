// measure(): own counters and numerics, then timing, then CUPTI counters, each
// from its own launches (see measure.hpp).
#include "fasim/cuda/measure.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <memory>
#include <regex>
#include <thread>
#include <vector>

#include "fasim/algorithms/naive.hpp"
#include "fasim/error.hpp"

namespace fasim::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// "580.159.04" from the kernel module's version file, else the CUDA version
// the driver supports.
std::string driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (f && std::getline(f, line)) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"((\d{3,}\.\d+(\.\d+)?))"))) return m[1];
  }
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
    return "CUDA " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) + " driver";
  return "unknown";
}

struct Errors {
  double max_abs = 0, max_ref = 0;
};

// max |O - O_ref| and max |O_ref| over every row of every head, O_ref in fp64
// from the same (rounded) inputs; rows are spread over the CPU's threads.
// Row i takes the keys it sees: all of them, or j <= i when causal.
Errors reference_errors(const Workload& w, const Inputs& in, const std::vector<float>& o) {
  const std::int64_t n = w.N, d = w.d, rows = w.bh() * n;
  const double scale = w.scale();
  const unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
  std::vector<Errors> part(threads);
  auto work = [&](unsigned t) {
    std::vector<double> s(static_cast<std::size_t>(n)), acc(static_cast<std::size_t>(d));
    Errors e;
    for (std::int64_t r = t; r < rows; r += threads) {
      const std::int64_t h = r / n;
      const float* q = &in.q[static_cast<std::size_t>(r * d)];
      const float* k = &in.k[static_cast<std::size_t>(h * n * d)];
      const float* v = &in.v[static_cast<std::size_t>(h * n * d)];
      const std::int64_t keys = w.key_hi(r % n) + 1;  // keys 0 .. keys - 1 (N_kv = N)
      double mx = -INFINITY;
      for (std::int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (std::int64_t c = 0; c < d; ++c) dot += static_cast<double>(q[c]) * k[j * d + c];
        s[j] = dot * scale;
        mx = std::max(mx, s[j]);
      }
      double l = 0;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t j = 0; j < keys; ++j) {
        const double p = std::exp(s[j] - mx);
        l += p;
        for (std::int64_t c = 0; c < d; ++c) acc[c] += p * v[j * d + c];
      }
      for (std::int64_t c = 0; c < d; ++c) {
        const double want = acc[c] / l;
        const double err = std::abs(static_cast<double>(o[static_cast<std::size_t>(r * d + c)]) - want);
        e.max_abs = std::isnan(err) ? INFINITY : std::max(e.max_abs, err);
        e.max_ref = std::max(e.max_ref, std::abs(want));
      }
    }
    part[t] = e;
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& th : pool) th.join();
  Errors all;
  for (const Errors& e : part) {
    all.max_abs = std::max(all.max_abs, e.max_abs);
    all.max_ref = std::max(all.max_ref, e.max_ref);
  }
  return all;
}

}  // namespace

GpuInfo gpu_info() {
  if (auto why = gpu_unavailable()) throw UserError(*why);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  GpuInfo g;
  g.name = prop.name;
  g.description = gpu_description();
  g.driver = driver_version();
  g.sms = prop.multiProcessorCount;
  g.l2_bytes = prop.l2CacheSize;
  return g;
}

namespace {
// Left free beside the held placements (measure()): cuBLAS, CUPTI and the
// profiler's passes allocate too.
constexpr std::size_t kSpareBytes = std::size_t{1} << 30;

std::size_t free_gpu_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes;
}
}  // namespace

Traffic Measurement::own_total() const {
  Traffic sum;
  for (const Traffic& t : own) {
    sum.read_bytes += t.read_bytes;
    sum.write_bytes += t.write_bytes;
  }
  return sum;
}

Measurement measure(const DeviceSpec& dev, const Workload& w, const Mapping& m, L2Start l2, std::uint64_t seed,
                    const MeasureOptions& options) {
  Measurement out;
  out.gpu = gpu_info();  // throws UserError without a usable GPU
  out.version = options.version.value_or(default_version(w, m));
  out.l2 = l2;
  out.seed = seed;
  out.causal = w.causal;
  out.matmul_flops = 4.0 * static_cast<double>(w.bh()) * static_cast<double>(w.N) * static_cast<double>(w.N) *
                     static_cast<double>(w.d) / (w.causal ? 2.0 : 1.0);

  const RunOptions options_run{.version = out.version, .rows_fit = naive::softmax_rows_fit(w, m, dev), .count = true};
  const std::size_t free_before = free_gpu_bytes();
  auto run = std::make_unique<DeviceRun>(w, m, options_run);
  const std::size_t run_bytes = free_before - std::min(free_before, free_gpu_bytes());
  const Inputs in = random_inputs(w, seed);
  run->upload(in);  // poisons O and every intermediate, zeroes the counters

  // 1. One counting launch: the own counters and the output.
  run->launch(true);
  const RunResult r = run->read();
  out.own = r.hbm;
  out.own_counted = r.hbm_counted;
  out.blocks_per_sm = r.blocks_per_sm;
  for (const int got : r.blocks_per_sm)  // padding keeps the cap; more would be a bug, not bad input
    if (m.blocks_per_sm > 0 && got > m.blocks_per_sm)
      throw CudaError("--blocks-per-sm " + std::to_string(m.blocks_per_sm) + ": a kernel still got " +
                      std::to_string(got) + " blocks per SM after padding its shared memory");

  // 2. Time: uncounted, unprofiled launches.
  out.time = time_launches([&] { run->launch(false); },
                           {.warmup = options.warmup, .runs = options.timed_runs, .cold_l2 = l2 == L2Start::cold});

  // 3. Hardware counters, one range per run (separate launches again), in
  // each placement of the buffers: first `run`'s own, then new buffers
  // after a pad of k steps. The earlier placements' buffers stay allocated
  // while memory allows: freed, their pages can come back, and on an H200
  // placements with 30 MiB of pad or more often got placement 0's very pages
  // (docs/results/placement-reuse-2026-11-30.md). Only when free memory runs
  // short are the oldest let go.
  if (options.counters) {
    try {
      out.placements = std::max(options.placements, 1);
      std::deque<std::unique_ptr<DeviceRun>> held;
      for (int k = 0; k < out.placements; ++k) {
        if (k > 0) {
          held.push_back(std::move(run));
          RunOptions moved = options_run;
          moved.count = false;
          moved.pad_bytes = static_cast<std::size_t>(k) * kPlacementStep;
          while (!held.empty() && free_gpu_bytes() < 2 * (run_bytes + moved.pad_bytes) + kSpareBytes) {
            held.pop_front();
            ++out.placements_released;
          }
          run = std::make_unique<DeviceRun>(w, m, moved);
          run->upload(in);
        }
        for (int i = 0; i < std::max(options.counter_runs, 1); ++i)
          out.hw_runs.push_back(
              profile_range([&] { run->launch(false); }, {.l2 = l2, .range_name = std::string(name(out.version))}));
      }
      out.hw = median_of(out.hw_runs);
    } catch (const CudaError& e) {
      out.hw_unavailable = e.what();
      out.hw_runs.clear();  // no counters unless every range was read
      cudaGetLastError();  // a CUPTI failure must not poison the next CUDA call
    }
  }

  if (options.check) {
    const Errors e = reference_errors(w, in, r.o);
    out.checked = true;
    out.max_abs_error = e.max_abs;
    out.max_abs_reference = e.max_ref;
    out.max_rel_error = e.max_ref > 0 ? e.max_abs / e.max_ref : e.max_abs;
  }
  return out;
}

std::string occupancy_text(const Measurement& measured, const Mapping& m) {
  static const char* const kNaive[] = {"scores ", "softmax ", "output "};
  const std::vector<int>& got = measured.blocks_per_sm;
  std::string out;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (i > 0) out += ", ";
    if (got.size() == 3 && algo_of(measured.version) == Algo::naive) out += kNaive[i];
    out += std::to_string(got[i]);
  }
  const bool one = got.size() == 1 && got[0] == 1;
  out += one ? " block per SM" : " blocks per SM";
  if (m.blocks_per_sm > 0) out += " (held by --blocks-per-sm " + std::to_string(m.blocks_per_sm) + ")";
  return out;
}

nlohmann::json to_json(const Measurement& m) {
  using nlohmann::json;
  json j;
  j["gpu"] = {{"name", m.gpu.name}, {"description", m.gpu.description}, {"driver", m.gpu.driver},
              {"sms", m.gpu.sms}, {"l2_bytes", m.gpu.l2_bytes}};
  j["kernel"] = {{"version", static_cast<int>(m.version)},
                 {"name", std::string(name(m.version))},
                 {"blocks_per_sm", m.blocks_per_sm}};
  j["l2_start"] = std::string(l2_start_name(m.l2));
  j["seed"] = m.seed;
  const Traffic total = m.own_total();
  json by = json::object();
  for (TensorId t : kAllTensors) {
    const Traffic& x = m.own[static_cast<std::size_t>(index(t))];
    if (x.read_bytes == 0 && x.write_bytes == 0) continue;
    by[std::string(name(t))] = {{"read_bytes", x.read_bytes}, {"write_bytes", x.write_bytes}};
  }
  j["hbm"] = {{"read_bytes", total.read_bytes}, {"write_bytes", total.write_bytes}, {"by_tensor", by},
              {"counted", m.own_counted},
              {"source", m.own_counted ? "the kernel's own counters"
                                       : "closed form (each tensor once per step), not counted: cuBLAS moves "
                                         "bytes the kernel cannot count"}};
  if (m.hw) {
    const HwCounters& h = *m.hw;
    j["counters"] = {
        {"available", true},
        {"chip", h.chip},
        {"passes", h.passes},
        {"ranges", m.hw_runs.size()},
        {"placements", m.placements},
        {"placements_released", m.placements_released},
        {"l2_start", std::string(l2_start_name(h.l2_start))},
        {"dram",
         {{"read_bytes", h.dram_read_bytes},
          {"write_bytes", h.dram_write_bytes},
          {"write_drained_bytes", h.dram_write_drained_bytes}}},
        {"l2",
         {{"read_bytes", h.l2_read_bytes()},
          {"write_bytes", h.l2_write_bytes()},
          {"read_hit_sectors", h.l2_read_hit_sectors},
          {"read_miss_sectors", h.l2_read_miss_sectors},
          {"hit_rate", h.l2_hit_rate()},
          {"fabric_bytes", h.l2_fabric_bytes()},
          {"fabric_read_sectors", h.l2_fabric_read_sectors},
          {"fabric_write_sectors", h.l2_fabric_write_sectors},
          {"fabric_miss_sectors", h.l2_fabric_miss_sectors}}},
        {"global", {{"load_bytes", h.global_load_bytes}, {"store_bytes", h.global_store_bytes}}},
        {"range_seconds", h.range_seconds},
        {"runs", m.hw_runs.size()}};
    if (m.hw_runs.size() > 1) {
      json dram = json::array(), fabric = json::array();
      for (const HwCounters& r : m.hw_runs) {
        dram.push_back({{"read_bytes", r.dram_read_bytes},
                        {"write_bytes", r.dram_write_bytes},
                        {"write_drained_bytes", r.dram_write_drained_bytes}});
        fabric.push_back({{"read_sectors", r.l2_fabric_read_sectors},
                          {"write_sectors", r.l2_fabric_write_sectors},
                          {"miss_sectors", r.l2_fabric_miss_sectors}});
      }
      j["counters"]["dram_runs"] = dram;
      j["counters"]["fabric_runs"] = fabric;  // the L2 fabric of each range, in the same order
    }
  } else {
    j["counters"] = {{"available", false}, {"reason", m.hw_unavailable.empty() ? "not asked for" : m.hw_unavailable}};
  }
  j["time"] = {{"median_s", m.time.median_s}, {"min_s", m.time.min_s},     {"max_s", m.time.max_s},
               {"runs", m.time.runs},         {"warmup", m.time.warmup},   {"l2_flushed", m.time.cold_l2},
               {"samples_s", m.time.samples_s}};
  j["matmul_flops"] = m.matmul_flops;
  j["causal"] = m.causal;
  j["tflops"] = m.tflops();
  if (m.checked)
    j["numerics"] = {{"max_abs_error", m.max_abs_error},
                     {"max_rel_error", m.max_rel_error},
                     {"max_abs_reference", m.max_abs_reference}};
  return j;
}

}  // namespace fasim::cuda
