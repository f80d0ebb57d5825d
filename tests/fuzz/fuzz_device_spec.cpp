// libFuzzer target: a device TOML file (parse_device), as a user would pass
// with --device my.toml. Either it parses into figures the simulator can
// use, or it is one UserError line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fasim/device_spec.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using fasim::fuzz::require;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const fasim::DeviceSpec d = fasim::parse_device(text, "fuzz.toml");
    require(!d.name.empty(), "a device has a name");
    require(d.sm_count > 0 && d.clock_hz > 0, "compute figures are positive");
    require(d.sram_bytes_per_block > 0 && d.sram_bytes_per_block <= d.sram_bytes_per_sm, "SRAM per block fits the SM");
    require(d.register_bytes_per_block > 0 && d.register_bytes_per_block <= d.register_bytes_per_sm,
            "registers per block fit the SM");
    require(d.l2_sector_bytes > 0 && d.l2_line_bytes % d.l2_sector_bytes == 0 && d.l2_bytes % d.l2_line_bytes == 0,
            "L2 is whole lines of whole sectors");
    require(d.hbm_bytes > 0 && d.hbm_bandwidth > 0 && d.l2_bandwidth > 0, "memory figures are positive");
    for (fasim::DType t : {fasim::DType::fp32, fasim::DType::fp16, fasim::DType::bf16})
      require(d.matmul_flops(t) > 0, "matmul rates are positive");
  } catch (const fasim::UserError& e) {
    fasim::fuzz::check_one_line(e.what());
  }
  return 0;
}
