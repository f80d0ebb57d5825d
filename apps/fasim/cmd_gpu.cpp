// `fasim gpu run`: run one attention forward pass on the GPU with the
// simulator's shape, tiles and inputs, and print what was measured: the
// kernel's own HBM byte counters, the CUPTI hardware counters (DRAM, L2,
// global loads/stores), the median time, TFLOP/s and the error against an
// fp64 reference. A fasim built without CUDA keeps the command and says so.
// --causal runs the causal kernels; --kernel picks a version (5, naive-cublas:
// the cuBLAS baseline, whose HBM bytes are a closed form, not counted).
#include <cctype>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "fasim/error.hpp"
#include "fasim/format.hpp"
#include "fasim/scenario.hpp"
#include "fasim/tiling.hpp"
#include "run_options.hpp"

#if FASIM_HAVE_CUDA
#include "fasim/cuda/measure.hpp"
#endif

namespace fasim::cli {

// ---- shared with cmd_compare.cpp (declared there) ---------------------------

/// Throws UserError (exit 2) when this build or this machine cannot run the
/// GPU commands: no CUDA in the build, or no usable GPU (the reason).
void require_gpu() {
#if FASIM_HAVE_CUDA
  if (auto why = cuda::gpu_unavailable()) throw UserError(*why);
#else
  throw UserError(
      "this fasim was built without CUDA (FASIM_CUDA=OFF); rebuild with the cuda preset: "
      "cmake --preset cuda && cmake --build --preset cuda");
#endif
}

/// resolve(), then, if neither --device nor the scenario names a device, the
/// built-in profile of the GPU in use (h100, h200, a100), with that profile's
/// default tiles unless tiles were given. `note` says which profile and why.
RunConfig resolve_for_gpu(const RunFlags& f, std::string& note) {
  RunConfig c = resolve(f);
  note.clear();
#if FASIM_HAVE_CUDA
  Scenario sc;
  if (f.given("--scenario")) sc = load_scenario(f.scenario);
  if (f.given("--device") || sc.device) return c;
  const std::string gpu = cuda::gpu_info().name;
  std::string pick;
  for (const char* known : {"H200", "H100", "A100"})
    if (gpu.find(known) != std::string::npos) {
      pick = known;
      for (char& ch : pick) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      break;
    }
  if (pick.empty()) {
    note = "simulated device: " + c.device.name + " (no built-in profile for " + gpu + "; --device FILE.toml to describe it)";
    return c;
  }
  if (pick != c.device.name) {
    c.device = load_device(pick);
    if (!(f.given("--br") || f.given("--bc") || sc.br || sc.bc))
      c.mapping = default_tiles(c.mapping, c.workload, c.device);  // keeps double_buffer, splits, per-SM cap
  }
  note = "simulated device: " + pick + ", the profile of this GPU (--device to choose another)";
#endif
  return c;
}

// `fasim gpu calibrate` (cmd_calibrate.cpp).
Action add_gpu_calibrate(CLI::App& gpu);

namespace {

struct GpuArgs {
  RunFlags flags;
  bool json = false;
  bool no_counters = false;
  int runs = 20;
  std::string kernel = "auto";
};

#if FASIM_HAVE_CUDA
std::string bytes(double b) { return with_commas(static_cast<std::int64_t>(b + 0.5)) + " B"; }

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void print_measurement(std::ostream& os, const RunConfig& c, const cuda::Measurement& m, const std::string& note) {
  const Workload& w = c.workload;
  os << "fasim gpu run: " << name(c.mapping.algo) << " on " << m.gpu.description << ", driver " << m.gpu.driver
     << "\n";
  os << "  kernel    " << static_cast<int>(m.version) << " (" << cuda::name(m.version) << ")\n";
  os << "  workload  batch " << w.batch << " x heads " << w.heads << ", N " << w.N << ", d " << w.d << ", "
     << name(w.dtype) << (w.causal ? ", causal" : "") << "\n";
  if (m.version == cuda::KernelVersion::naive_cublas)
    os << "  tiles     cuBLAS picks its own (Br, Bc only set the simulated naive)\n";
  else
    os << "  tiles     Br " << c.mapping.br << ", Bc " << c.mapping.bc << "\n";
  if (!m.blocks_per_sm.empty()) os << "  occupancy " << cuda::occupancy_text(m, c.mapping) << "\n";
  os << "  L2        " << cuda::l2_start_name(m.l2) << " ("
     << (m.l2 == L2Start::cold ? "flushed before every timed run and every counter pass"
                               : "the launch ran just before: inputs left in L2")
     << "; " << human_bytes(static_cast<double>(m.gpu.l2_bytes)) << ")\n";
  if (!note.empty()) os << "  " << note << "\n";

  if (m.own_counted)
    os << "\nHBM traffic, the kernel's own counters (bytes the tiles moved; equal to `fasim run`)\n";
  else
    os << "\nHBM traffic, CLOSED FORM, not counted: each tensor once per step (cuBLAS moves bytes the kernel\n"
          "cannot count; this is the least GEMM, softmax, GEMM can move, not `fasim run`'s tiled naive)\n";
  os << "  " << pad("tensor", 8, false) << pad("read", 20) << pad("written", 20) << "\n";
  for (TensorId t : kAllTensors) {
    const Traffic& x = m.own[static_cast<std::size_t>(index(t))];
    if (x.total() == 0) continue;
    os << "  " << pad(std::string(name(t)), 8, false) << pad(with_commas(x.read_bytes), 20)
       << pad(with_commas(x.write_bytes), 20) << "\n";
  }
  const Traffic total = m.own_total();
  os << "  " << pad("total", 8, false) << pad(with_commas(total.read_bytes), 20) << pad(with_commas(total.write_bytes), 20)
     << "\n";

  if (m.hw) {
    const cuda::HwCounters& h = *m.hw;
    os << "\nhardware counters (CUPTI range profiler on " << h.chip << ", one range and its drain, " << h.passes
       << " passes, L2 " << cuda::l2_start_name(h.l2_start) << ")\n";
    os << "  DRAM read          " << pad(bytes(h.dram_read_bytes), 22) << "\n";
    os << "  DRAM write         " << pad(bytes(h.dram_write_bytes), 22)
       << "   (written data still in L2 at the end is not in it)\n";
    os << "  DRAM write, drained" << pad(bytes(h.dram_write_drained_bytes), 22)
       << "   (and what a read-only pass over 2x the L2 then wrote back)\n";
    os << "  L2 read (SMs)      " << pad(bytes(h.l2_read_bytes()), 22) << "   hit rate "
       << fmt("%.1f%%", 100 * h.l2_hit_rate()) << "\n";
    os << "  L2 write (SMs)     " << pad(bytes(h.l2_write_bytes()), 22) << "\n";
    os << "  L2 fabric          " << pad(bytes(h.l2_fabric_bytes()), 22)
       << "   (between the two L2 halves: far-homed sectors a copy lacked, far stores)\n";
    os << "  global loads       " << pad(bytes(h.global_load_bytes), 22) << "   (LSU; cp.async copies are not in it)\n";
    os << "  global stores      " << pad(bytes(h.global_store_bytes), 22) << "\n";
  } else {
    os << "\nhardware counters   unavailable: " << m.hw_unavailable << "\n";
  }

  os << "\ntime        median " << micros(m.time.median_s, 3) << " (min " << micros(m.time.min_s, 3) << ", max "
     << micros(m.time.max_s, 3) << ") of " << m.time.runs << " runs after " << m.time.warmup
     << " warm-up, CUDA events, " << (m.time.cold_l2 ? "L2 flushed before each" : "L2 warm") << "\n";
  os << "throughput  " << fmt("%.1f", m.tflops()) << " TFLOP/s (4*B*H*N^2*d" << (m.causal ? " / 2 (causal)" : "")
     << " = " << human_count(m.matmul_flops) << "FLOP over the median)\n";
  if (m.checked)
    os << "numerics    max abs error " << fmt("%.2e", m.max_abs_error) << ", max rel error "
       << fmt("%.2e", m.max_rel_error) << " against an fp64 reference\n";
  else
    os << "numerics    not checked (--no-numerics)\n";
}
#endif

}  // namespace

Action add_gpu(CLI::App& app) {
  auto args = std::make_shared<GpuArgs>();
  CLI::App* gpu = app.add_subcommand("gpu", "Run the CUDA kernels on this machine's GPU and measure them");
  gpu->require_subcommand(1);
  CLI::App* run = gpu->add_subcommand(
      "run", "Run one forward pass on the GPU: own byte counters, DRAM/L2 hardware counters, median time, error");
  add_run_flags(*run, args->flags);
  run->add_flag("--json", args->json, "Print one JSON object instead of the summary");
  run->add_option("--runs", args->runs, "Timed runs, 20 to 100000; the median of them is the time (default 20)")
      ->check(in_range(20, 100000));
  run->add_flag("--no-counters", args->no_counters,
                "Skip the CUPTI counters (to run under ncu or compute-sanitizer, which cannot share them)");
  run->add_option("--kernel", args->kernel,
                  "Kernel version: auto (default: the version of --algo), 1 naive, 2 flash2-fp32, 3 flash1-fp32, "
                  "4 flash2-mma, 5 naive-cublas (or cublas; with --algo naive), 6 flash2-fast (fp16/bf16), "
                  "7 flash2-hopper (fp16/bf16, Br 128; H100/H200 only, the fastest)");
  run->footer(
      "The simulated device (for naive's softmax tiling and the default tiles) is the built-in profile of\n"
      "this GPU when --device is not given. --l2 cold (default) flushes L2 before every timed run and every\n"
      "counter pass; --l2 warm runs the launch once first. Times come from separate, unprofiled runs.\n"
      "--causal: every version runs it (query i sees keys j <= i); TFLOP/s then count half the FLOPs.\n"
      "--kernel 5 (naive-cublas, with --algo naive) is standard attention by cuBLAS, as PyTorch's eager code\n"
      "runs it; its HBM bytes are a closed form (each tensor once per step), not counted.");

  Action calibrate = add_gpu_calibrate(*gpu);

  return [args, gpu, calibrate]() -> int {
    if (gpu->got_subcommand("calibrate")) return calibrate();
#if FASIM_HAVE_CUDA
    // Bad input first, before asking for a GPU: the version, the variant flags.
    std::optional<cuda::KernelVersion> version;
    if (args->kernel != "auto") {
      version = cuda::parse_version(args->kernel);
      if (!version)
        throw UserError("unknown kernel '" + args->kernel +
                        "'; use --kernel auto, 1 to 7, or a name: naive, flash2-fp32, flash1-fp32, flash2-mma, "
                        "naive-cublas, flash2-fast, flash2-hopper");
    }
    const RunConfig pre = resolve(args->flags);
    if (args->flags.given("--input-scale"))  // random_inputs draws N(0, 1), as the check's simulation must
      throw UserError("--input-scale is for the simulator; the GPU run draws N(0, 1) inputs: leave it out, or use "
                      "`fasim run --input-scale`");
    if (auto why = cuda::unsupported_variant(pre.workload)) throw UserError(*why);
    if (version && cuda::algo_of(*version) != pre.mapping.algo)  // says which --algo the version runs
      throw UserError(cuda::unsupported(*version, pre.workload, pre.mapping, true).value_or("kernel/algo mismatch"));
#endif
    require_gpu();
#if FASIM_HAVE_CUDA
    std::string note;
    const RunConfig c = resolve_for_gpu(args->flags, note);
    validate(c.workload, c.mapping, c.device);
    cuda::MeasureOptions options;
    options.version = version;
    options.timed_runs = args->runs;
    options.check = c.options.numerics;
    options.counters = !args->no_counters;
    const cuda::Measurement m = cuda::measure(c.device, c.workload, c.mapping, c.options.l2, c.options.seed, options);
    if (args->json) {
      nlohmann::json j = cuda::to_json(m);
      j["workload"] = {{"batch", c.workload.batch}, {"heads", c.workload.heads}, {"N", c.workload.N},
                       {"d", c.workload.d}, {"dtype", std::string(name(c.workload.dtype))},
                       {"causal", c.workload.causal}};
      j["mapping"] = {{"algo", std::string(name(c.mapping.algo))}, {"br", c.mapping.br}, {"bc", c.mapping.bc},
                      {"blocks_per_sm", c.mapping.blocks_per_sm}};
      j["device"] = c.device.name;
      std::cout << j.dump(2) << "\n";
    } else {
      print_measurement(std::cout, c, m, note);
    }
    return m.hw || args->no_counters ? 0 : 1;
#else
    return 2;
#endif
  };
}

}  // namespace fasim::cli
