// `fasim devices`: the built-in device profiles and their key figures; with
// --json every figure, as `fasim run --json` gives it under "device_spec".
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/format.hpp"
#include "fasim/report.hpp"
#include <nlohmann/json.hpp>

namespace fasim::cli {

Action add_devices(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("devices", "List the built-in device profiles");
  sub->add_flag("--json", *json, "Print JSON: every figure of every profile (the device_spec of `fasim run --json`)");
  return [json] {
    const std::vector<DeviceSpec> devs = builtin_devices();
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const DeviceSpec& d : devs) {
        nlohmann::json spec = device_spec_json(d);
        spec["matmul_flops_fp16"] = d.matmul_flops_fp16;  // as before device_spec: kept for scripts that read it
        out.push_back(std::move(spec));
      }
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::printf("%-6s %-26s %5s %12s %10s %10s %10s %12s\n", "name", "description", "SMs",
                "SRAM/block", "L2", "HBM", "HBM GB/s", "fp16 TFLOP/s");
    for (const DeviceSpec& d : devs) {
      std::printf("%-6s %-26s %5lld %12s %10s %10s %10.0f %12.1f\n", d.name.c_str(),
                  d.description.c_str(), static_cast<long long>(d.sm_count),
                  human_bytes(static_cast<double>(d.sram_bytes_per_block)).c_str(),
                  human_bytes(static_cast<double>(d.l2_bytes)).c_str(),
                  human_bytes(static_cast<double>(d.hbm_bytes)).c_str(), d.hbm_bandwidth / 1e9,
                  d.matmul_flops_fp16 / 1e12);
    }
    std::printf("\nUse one with --device NAME, or your own file with --device path/to/file.toml.\n");
    return 0;
  };
}

}  // namespace fasim::cli
