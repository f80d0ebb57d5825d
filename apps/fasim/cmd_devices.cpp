// `fasim devices`: the built-in device profiles and their key figures.
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/format.hpp"
#include <nlohmann/json.hpp>

namespace fasim::cli {

Action add_devices(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("devices", "List the built-in device profiles");
  sub->add_flag("--json", *json, "Print JSON");
  return [json] {
    const std::vector<DeviceSpec> devs = builtin_devices();
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const DeviceSpec& d : devs)
        out.push_back({{"name", d.name}, {"description", d.description}, {"sm_count", d.sm_count},
                       {"sram_bytes_per_block", d.sram_bytes_per_block}, {"l2_bytes", d.l2_bytes},
                       {"hbm_bytes", d.hbm_bytes}, {"hbm_bandwidth", d.hbm_bandwidth},
                       {"matmul_flops_fp16", d.matmul_flops_fp16}});
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
