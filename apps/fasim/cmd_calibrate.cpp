// `fasim gpu calibrate`: measure, on this machine's GPU, each figure of the
// device TOML that the timing model uses (HBM and L2 bandwidth and latency,
// shared-memory bandwidth, matmul, FP32 and exp rates, launch overhead, the
// SM clock, the DRAM writes the GPU makes on its own, the code fasim's
// kernels fetch in a cold run), print them beside the
// built-in profile of the GPU, and write a device TOML (default
// configs/devices/<gpu>-measured.toml) that any command takes with --device.
// Registered by cmd_gpu.cpp; a fasim built without CUDA
// keeps the command and says so (exit 2).
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "run_options.hpp"

#if FASIM_HAVE_CUDA
#include <nlohmann/json.hpp>

#include "fasim/cuda/calibrate.hpp"
#include "fasim/cuda/measure.hpp"
#endif

namespace fasim::cli {

// Defined in cmd_gpu.cpp.
void require_gpu();

namespace {

struct CalibrateArgs {
  std::string out;
  std::string hbm = "copy";
  bool json = false;
  int runs = 20;
  int warmup = 3;
};

}  // namespace

Action add_gpu_calibrate(CLI::App& gpu) {
  auto a = std::make_shared<CalibrateArgs>();
  CLI::App* sub = gpu.add_subcommand(
      "calibrate", "Measure this GPU's figures (bandwidths, latencies, rates, clock) and write a device TOML");
  sub->add_option("--out", a->out,
                  "Device TOML to write (default configs/devices/<gpu>-measured.toml); never a stock profile");
  sub->add_option("--hbm", a->hbm,
                  "HBM figure for the TOML: copy (read + write, default) or read (read only); both are printed")
      ->check(CLI::IsMember({"copy", "read"}));
  sub->add_option("--runs", a->runs, "Timed runs per benchmark, 20 to 100000; the median is the figure (default 20)")
      ->check(in_range(20, 100000));
  sub->add_option("--warmup", a->warmup, "Untimed runs before the timed ones, 1 to 1000 (default 3)")
      ->check(in_range(1, 1000));
  sub->add_flag("--json", a->json, "Print the figures as one JSON object instead of the table");
  sub->footer(
      "Each figure of the TOML says where it comes from: measured (a microbenchmark, the median of the\n"
      "timed runs with CUDA events), cudaGetDeviceProperties, or the datasheet, and how it was measured.\n"
      "The DRAM writes the GPU makes on its own are counted with CUPTI around an idle kernel, and the\n"
      "code each of fasim's kernels fetches from DRAM in cold runs of them; without CUPTI those figures\n"
      "are left out and the output says why.\n"
      "Clocks are read, never changed. Takes about 20 s (an H200) and about 4 GiB of GPU memory.\n"
      "Use the file with --device FILE.toml. A file written into configs/devices/ becomes a built-in\n"
      "profile at the next build.");

  return [a, sub]() -> int {
    [[maybe_unused]] const bool to_file = file_flag_given(*sub, "--out", a->out, "configs/devices/mygpu-measured.toml");
    require_gpu();
#if FASIM_HAVE_CUDA
    // Refuse a stock profile or someone else's file, and open the output
    // before measuring, so a bad --out fails at once, not after the run.
    cuda::Calibration who;
    who.gpu = cuda::gpu_info().name;
    who.stock = cuda::stock_profile_for(who.gpu);
    const std::string path = to_file ? a->out : cuda::default_out_path(who);
    if (auto why = cuda::refuse_out_path(path)) throw UserError(*why);
    AtomicFile file(path);
    cuda::CalibrateOptions o;
    o.runs = a->runs;
    o.warmup = a->warmup;
    o.hbm = a->hbm == "read" ? cuda::HbmFigure::read : cuda::HbmFigure::copy;
    const cuda::Calibration c = cuda::calibrate(o, [](std::string_view line) { std::cerr << line << "\n"; });
    std::optional<DeviceSpec> stock;
    if (!c.stock.empty()) stock = load_device(c.stock);
    const DeviceSpec* s = stock ? &*stock : nullptr;

    const std::string text = cuda::device_toml(c);
    parse_device(text, path);  // what we write must load (throws UserError, exit 2, if not)
    file.stream() << text;
    file.commit();

    if (a->json) {
      nlohmann::json j = cuda::to_json(c, s);
      j["out"] = path;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << cuda::figures_table(c, s) << "\nwrote " << path << " (use it with --device " << path << ")\n";
    }
    return 0;
#else
    return 2;
#endif
  };
}

}  // namespace fasim::cli
