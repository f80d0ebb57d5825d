// `fasim gpu calibrate` (fasim/cuda/calibrate.hpp).
//
// No GPU needed: a synthetic Calibration gives a device TOML that
// fasim::parse_device accepts with the same figures; every figure has a
// comment saying who measured it, on what, when and how; the table, the JSON
// and the output-path rules (never a stock profile).
//
// GPU side (skipped visibly without a GPU): a short calibration gives
// positive figures in a plausible range and a TOML that parses, and each
// kernel family's code within the sizes recorded.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_support.hpp"
#include "fasim/cuda/calibrate.hpp"
#include "fasim/cuda/hw_counters.hpp"
#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"

using namespace fasim;

namespace {

// An H100-like calibration with made-up measured figures.
cuda::Calibration synthetic() {
  cuda::Calibration c;
  c.gpu = "NVIDIA H100 80GB HBM3";
  c.driver = "580.65.06";
  c.date = "2025-11-21";
  c.cuda_runtime = "13.0";
  c.stock = cuda::stock_profile_for(c.gpu);
  c.cc_major = 9;
  c.cc_minor = 0;
  c.sm_count = 132;
  c.sram_bytes_per_sm = 233472;
  c.sram_bytes_per_block = 232448;
  c.register_bytes_per_sm = 262144;
  c.register_bytes_per_block = 262144;
  c.l2_bytes = 52428800;
  c.hbm_bytes = 85520809984;
  c.peak_clock_ghz = 1.98;
  c.clock_ghz = 1.755;
  c.clock_matmul_ghz = 1.71;
  c.hbm_copy_gbps = 2950.5;
  c.hbm_read_gbps = 3120.25;
  c.l2_gbps = 6100;
  c.sram_bytes_per_clock_per_sm = 126.5;
  c.matmul_fp16_tflops = 620.5;
  c.matmul_bf16_tflops = 618.25;
  c.fp32_tflops = 58.75;
  c.exp_per_clock_per_sm = 15.9;
  c.expf_fast_per_clock_per_sm = 15.5;
  c.expf_per_clock_per_sm = 7.5;
  c.l2_latency_ns = 210.5;
  c.l2_latency_cycles = 370;
  c.hbm_latency_ns = 540.25;
  c.hbm_latency_cycles = 950;
  c.launch_overhead_us = 2.25;
  c.hbm_buffer_bytes = std::int64_t{1600} << 20;
  c.l2_working_set_bytes = 4 << 20;
  c.l2_chase_bytes = 4 << 20;
  c.l2_chase_steps = 65536;
  c.hbm_chase_bytes = 104857600;
  c.hbm_chase_steps = 16384;
  c.background_write_mib_per_s = 17.5;
  // Two runs a family, d = 64 and 128: read (data + code), data.
  const double KiB = 1024;
  c.code_fetch_runs = {{"naive", "fp32, 8 heads, N = 512, d = 64", 6291456, 6291456 + 238 * KiB},
                       {"naive", "fp32, 8 heads, N = 512, d = 128", 12582912, 12582912 + 300 * KiB},
                       {"flash1", "fp32, 8 heads, N = 512, d = 64", 3145728, 3145728 + 235 * KiB},
                       {"flash1", "fp32, 8 heads, N = 512, d = 128", 6291456, 6291456 + 401 * KiB},
                       {"flash2", "fp32, 8 heads, N = 512, d = 64", 3145728, 3145728 + 287 * KiB},
                       {"flash2", "fp32, 8 heads, N = 512, d = 128", 6291456, 6291456 + 281 * KiB},
                       {"flash2_mma", "fp16, 8 heads, N = 512, d = 64", 1572864, 1572864 + 71 * KiB},
                       // the GPU read less than the data (noise): the code counts as 0, not negative
                       {"flash2_mma", "fp16, 8 heads, N = 512, d = 128", 3145728, 3145728 - 5 * KiB}};
  return c;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("fasim-calibrate-test-" + name);
}

}  // namespace

TEST_CASE("calibrate: the TOML written parses with the measured figures", "[calibrate]") {
  const cuda::Calibration c = synthetic();
  REQUIRE(c.stock == "h100");
  const std::string text = cuda::device_toml(c);
  const DeviceSpec d = parse_device(text, "h100-measured.toml");
  CHECK(d.name == "h100-measured");
  CHECK(d.description.find("NVIDIA H100 80GB HBM3") != std::string::npos);
  CHECK(d.sm_count == 132);
  CHECK(d.clock_hz == Approx(1.755e9));
  CHECK(d.sram_bytes_per_sm == 233472);
  CHECK(d.sram_bytes_per_block == 232448);
  CHECK(d.sram_bandwidth_per_sm == Approx(126.5 * 1.755e9));
  CHECK(d.register_bytes_per_sm == 262144);
  CHECK(d.register_bytes_per_block == 262144);
  CHECK(d.l2_bytes == 52428800);
  CHECK(d.l2_line_bytes == 128);
  CHECK(d.l2_sector_bytes == 32);
  CHECK(d.l2_bandwidth == Approx(6100e9));
  CHECK(d.l2_latency_s == Approx(210.5e-9));
  CHECK(d.hbm_bytes == 85520809984);
  CHECK(d.hbm_bandwidth == Approx(2950.5e9).epsilon(1e-4));  // copy by default, 5 significant digits
  CHECK(d.hbm_latency_s == Approx(540.25e-9).epsilon(1e-4));
  CHECK(d.matmul_flops(DType::fp16) == Approx(620.5e12));
  CHECK(d.matmul_flops(DType::bf16) == Approx(618.25e12).epsilon(1e-4));
  CHECK(d.matmul_flops(DType::fp32) == Approx(58.75e12));  // the FMA rate
  CHECK(d.fp32_flops == Approx(58.75e12));
  CHECK(d.exp_rate == Approx(15.9 * 132 * 1.755e9));
  CHECK(d.launch_overhead_s == Approx(2.25e-6));
  CHECK(d.dram_background_write_rate == Approx(17.5 * 1024 * 1024));
  // The kernels' code: the mean of each family's two runs, beyond their data.
  CHECK(d.code_fetch.naive == Approx((238 + 300) / 2.0 * 1024));
  CHECK(d.code_fetch.flash1 == Approx((235 + 401) / 2.0 * 1024));
  CHECK(d.code_fetch.flash2 == Approx((287 + 281) / 2.0 * 1024));
  CHECK(d.code_fetch.flash2_mma == Approx(71 / 2.0 * 1024));
}

TEST_CASE("calibrate: the kernels' code not measured is left out of the TOML and says why", "[calibrate]") {
  cuda::Calibration c = synthetic();
  c.code_fetch_runs.clear();
  c.code_fetch_why_not = "libcupti.so not found";
  const std::string text = cuda::device_toml(c);
  CHECK(text.find("[code_fetch]") == std::string::npos);
  const fasim::CodeFetch recorded;  // what predictions fall back on
  CHECK(parse_device(text, "x.toml").code_fetch.flash2 == recorded.flash2);
  bool said = false;
  for (const auto& f : cuda::figures(c, nullptr)) {
    CHECK(f.key.rfind("code_fetch.", 0) != 0);
    if (f.key == "extra.code_fetch_kib")
      said = !f.toml && f.source == cuda::Source::not_measured &&
             f.how.find("libcupti.so not found") != std::string::npos;
  }
  CHECK(said);
  const DeviceSpec stock = load_device("h100");
  for (const auto& f : cuda::figures(c, &stock))
    if (f.key == "extra.code_fetch_kib") CHECK_FALSE(f.ratio().has_value());  // no "0.00" beside the stock figure
  // Measured: four TOML figures, before every extra, each naming its runs.
  c = synthetic();
  const auto figs = cuda::figures(c, nullptr);
  int code = 0;
  bool extras = false;
  for (const auto& f : figs) {
    extras = extras || !f.toml;
    if (f.key.rfind("code_fetch.", 0) != 0) continue;
    ++code;
    CHECK_FALSE(extras);
    CHECK(f.how.find("N = 512, d = 64") != std::string::npos);
    CHECK(f.how.find("N = 512, d = 128") != std::string::npos);
  }
  CHECK(code == 4);
}

TEST_CASE("calibrate: the first wave's block order comes from the stock profile, and says so", "[calibrate]") {
  cuda::Calibration c = synthetic();
  CHECK(cuda::device_toml(c).find("first_wave_runs") == std::string::npos);  // none copied: none written
  CHECK(cuda::device_toml(c).find("small_grid_fill") == std::string::npos);
  c.l2_partitions = 2;            // as calibrate says from sm_80 on
  cuda::copy_stock_placement(c);  // an H100 of 132 SMs and 2 partitions: the stock profile's runs
  REQUIRE(c.first_wave_runs == load_device("h100").l2_first_wave_runs);
  REQUIRE_FALSE(c.first_wave_runs.empty());
  const std::string text = cuda::device_toml(c);
  CHECK(parse_device(text, "x.toml").l2_first_wave_runs == c.first_wave_runs);
  CHECK(text.find("from the stock profile h100: a large grid's first wave") != std::string::npos);
  const std::string table = cuda::figures_table(c, nullptr);
  CHECK(table.find("l2.first_wave_runs: from the stock profile h100") != std::string::npos);
  // Its row sits with the TOML's figures, after the partitions, before the extras.
  const auto row = table.find("  l2.first_wave_runs "), partitions = table.find("  l2.partitions ");
  REQUIRE(row != std::string::npos);
  CHECK(partitions < row);
  CHECK(row < table.find("not in the TOML:"));
  CHECK(table.find("16, 48, 50, 18", row) < table.find('\n', row));
  CHECK(cuda::to_json(c, nullptr)["first_wave_runs"] == nlohmann::json(c.first_wave_runs));
  // The small grids' order comes along on the same terms.
  REQUIRE(c.small_grid_fill == load_device("h100").l2_small_grid_fill);
  REQUIRE(c.small_grid_fill.size() == 132);
  CHECK(parse_device(text, "x.toml").l2_small_grid_fill == c.small_grid_fill);
  CHECK(text.find("from the stock profile h100: the L2 half next to the SM a grid of one wave fills") !=
        std::string::npos);
  CHECK(table.find("l2.small_grid_fill: from the stock profile h100 (132 letters, not shown)") != std::string::npos);
  CHECK(cuda::to_json(c, nullptr)["small_grid_fill"] == c.small_grid_fill);
  // Another layout of SMs (a cut-down part), one partition, or no stock profile: nothing copied.
  c.sm_count = 114;
  cuda::copy_stock_placement(c);
  CHECK(c.first_wave_runs.empty());
  CHECK(c.small_grid_fill.empty());
  c = synthetic();
  c.l2_partitions = 1;
  cuda::copy_stock_placement(c);
  CHECK(c.first_wave_runs.empty());
  c = synthetic();
  c.l2_partitions = 2;
  c.stock.clear();
  cuda::copy_stock_placement(c);
  CHECK(c.first_wave_runs.empty());
}

TEST_CASE("calibrate: background writes not measured are left out of the TOML and say why", "[calibrate]") {
  cuda::Calibration c = synthetic();
  c.background_write_mib_per_s.reset();
  c.background_why_not = "libcupti.so not found";
  const std::string text = cuda::device_toml(c);
  CHECK(text.find("background_write_mib_per_s") == std::string::npos);
  CHECK(parse_device(text, "x.toml").dram_background_write_rate == 0);
  bool said = false;
  for (const auto& f : cuda::figures(c, nullptr))
    if (f.key == "extra.background_write_mib_per_s") {
      said = f.source == cuda::Source::not_measured && f.how.find("libcupti.so not found") != std::string::npos;
      CHECK_FALSE(f.toml);
    }
  CHECK(said);
  CHECK(cuda::figures_table(c, nullptr).find("not measured") != std::string::npos);
  // Measured as 0 (a GPU that writes nothing on its own) is a figure, not a failure.
  c.background_write_mib_per_s = 0.0;
  CHECK(parse_device(cuda::device_toml(c), "x.toml").dram_background_write_rate == 0);
  CHECK(cuda::device_toml(c).find("background_write_mib_per_s = 0") != std::string::npos);
}

TEST_CASE("calibrate: --hbm read puts the read-only figure in the TOML", "[calibrate]") {
  cuda::Calibration c = synthetic();
  c.hbm_figure = cuda::HbmFigure::read;
  const DeviceSpec d = parse_device(cuda::device_toml(c), "x.toml");
  CHECK(d.hbm_bandwidth == Approx(3120.25e9).epsilon(1e-4));
  bool extra_copy = false;
  for (const auto& f : cuda::figures(c, nullptr))
    if (f.key == "extra.hbm_copy_gbps") extra_copy = f.value == Approx(2950.5);
  CHECK(extra_copy);
}

TEST_CASE("calibrate: every figure has a comment naming the tool, GPU, driver, date and how", "[calibrate]") {
  const cuda::Calibration c = synthetic();
  const std::vector<std::string> lines = lines_of(cuda::device_toml(c));
  REQUIRE(lines.size() > 2);
  CHECK(lines[0].rfind("# Device profile measured by `fasim gpu calibrate`", 0) == 0);
  int keys = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty() || l[0] == '#' || l[0] == '[' || l.rfind("name", 0) == 0 || l.rfind("description", 0) == 0)
      continue;
    ++keys;
    INFO(l);
    const std::string& comment = lines[i - 1];
    CHECK(comment.rfind("# ", 0) == 0);
    CHECK(comment.find("`fasim gpu calibrate` on NVIDIA H100 80GB HBM3, driver 580.65.06, 2025-11-21") !=
          std::string::npos);
    CHECK(comment.size() > 90);  // says how, not just who
  }
  CHECK(keys == 27);  // 21 required keys, and the optional [l2] partitions, [hbm] background_write_mib_per_s
                      // and the four [code_fetch] keys
  const std::string text = cuda::device_toml(c);
  CHECK(text.find("# measured by `fasim gpu calibrate`") != std::string::npos);
  CHECK(text.find("from cudaGetDeviceProperties: sharedMemPerMultiprocessor") != std::string::npos);
  CHECK(text.find("from the datasheet: CUDA C++ Programming Guide: 128-byte lines") != std::string::npos);
  CHECK(text.find("mma.sync.m16n8k16") != std::string::npos);
}

TEST_CASE("calibrate: figures beside the stock profile, with sources", "[calibrate]") {
  const cuda::Calibration c = synthetic();
  const DeviceSpec stock = load_device("h100");
  const auto figs = cuda::figures(c, &stock);
  auto find = [&](const std::string& key) -> const cuda::Figure& {
    for (const auto& f : figs)
      if (f.key == key) return f;
    FAIL("no figure " << key);
    return figs.front();
  };
  CHECK(find("hbm.bandwidth_gbps").stock == Approx(3350));
  CHECK(*find("hbm.bandwidth_gbps").ratio() == Approx(2950.5 / 3350));
  CHECK(find("sram.bandwidth_bytes_per_clock_per_sm").stock == Approx(128));
  CHECK(find("rates.exp_per_clock_per_sm").stock == Approx(16));
  CHECK(find("rates.launch_overhead_us").stock == Approx(4));
  CHECK(find("l2.latency_ns").stock == Approx(260));
  CHECK(find("compute.clock_ghz").stock == Approx(1.98));
  CHECK(find("compute.sm_count").source == cuda::Source::device_properties);
  CHECK(find("l2.line_bytes").source == cuda::Source::datasheet);
  CHECK(find("rates.matmul_tflops_fp16").source == cuda::Source::measured);
  for (const auto& f : figs) {
    INFO(f.key);
    CHECK_FALSE(f.how.empty());
    CHECK(f.stock.has_value());
  }
  // No stock profile: no stock, no ratio.
  for (const auto& f : cuda::figures(c, nullptr)) {
    CHECK_FALSE(f.stock.has_value());
    CHECK_FALSE(f.ratio().has_value());
  }

  const std::string table = cuda::figures_table(c, &stock);
  CHECK(table.find("NVIDIA H100 80GB HBM3") != std::string::npos);
  CHECK(table.find("hbm.bandwidth_gbps") != std::string::npos);
  CHECK(table.find("0.88") != std::string::npos);  // 2950.5 / 3350
  CHECK(table.find("cudaGetDeviceProperties") != std::string::npos);
  CHECK(table.find("datasheet") != std::string::npos);

  const nlohmann::json j = cuda::to_json(c, &stock);
  CHECK(j["gpu"]["driver"] == "580.65.06");
  CHECK(j["stock"] == "h100");
  CHECK(j["name"] == "h100-measured");
  CHECK(j["hbm_figure"] == "copy");
  REQUIRE(j["figures"].is_array());
  CHECK(j["figures"].size() == figs.size());
  CHECK(j["figures"][0].contains("ratio"));
  CHECK(j["figures"][0].contains("source"));
}

TEST_CASE("calibrate: names and where the file goes", "[calibrate]") {
  CHECK(cuda::stock_profile_for("NVIDIA H200") == "h200");
  CHECK(cuda::stock_profile_for("NVIDIA H100 80GB HBM3") == "h100");
  CHECK(cuda::stock_profile_for("NVIDIA A100-SXM4-80GB") == "a100");
  CHECK(cuda::stock_profile_for("NVIDIA GeForce RTX 4090").empty());
  cuda::Calibration c = synthetic();
  CHECK(cuda::default_out_path(c) == "configs/devices/h100-measured.toml");
  c.gpu = "NVIDIA GeForce RTX 4090";
  c.stock = "";
  CHECK(cuda::measured_name(c) == "nvidia-geforce-rtx-4090-measured");
  CHECK(parse_device(cuda::device_toml(c), "x.toml").name == "nvidia-geforce-rtx-4090-measured");
}

TEST_CASE("calibrate: never overwrites a stock profile or a file it did not write", "[calibrate]") {
  for (const char* stock : {"configs/devices/h100.toml", "h200.toml", "/tmp/x/A100.toml", "configs/devices/toy.toml"}) {
    INFO(stock);
    const auto why = cuda::refuse_out_path(stock);
    REQUIRE(why);
    CHECK(why->find("stock profile") != std::string::npos);
    CHECK(why->find("-measured.toml") != std::string::npos);  // names the fix
  }
  const auto fresh = temp_file("fresh.toml");
  std::filesystem::remove(fresh);
  CHECK_FALSE(cuda::refuse_out_path(fresh.string()));

  const auto mine = temp_file("mine.toml");
  { std::ofstream(mine) << "name = \"mine\"\n"; }
  const auto why = cuda::refuse_out_path(mine.string());
  REQUIRE(why);
  CHECK(why->find("not written by `fasim gpu calibrate`") != std::string::npos);

  const auto ours = temp_file("ours.toml");
  { std::ofstream(ours) << cuda::device_toml(synthetic()); }
  CHECK_FALSE(cuda::refuse_out_path(ours.string()));
  std::filesystem::remove(mine);
  std::filesystem::remove(ours);
}

TEST_CASE("calibrate: a figure that is not a positive number is an error, not a broken file", "[calibrate]") {
  cuda::Calibration c = synthetic();
  c.l2_gbps = 0;
  CHECK_THROWS_WITH(cuda::device_toml(c), Catch::Contains("l2.bandwidth_gbps"));
  c = synthetic();
  c.hbm_latency_ns = std::nan("");
  CHECK_THROWS_WITH(cuda::device_toml(c), Catch::Contains("hbm.latency_ns"));
}

TEST_CASE("calibrate: on the GPU, a short run gives plausible figures", "[calibrate][gpu]") {
  FASIM_REQUIRE_GPU();
  cuda::CalibrateOptions o;
  o.runs = 20;
  o.warmup = 1;
  o.work = 0.05;  // short launches: a check of the plumbing, not the figures
  const cuda::Calibration c = cuda::calibrate(o);
  const DeviceSpec d = parse_device(cuda::device_toml(c), "gpu.toml");
  CHECK(d.sm_count > 0);
  CHECK(c.clock_ghz > 0.3);
  CHECK(c.clock_ghz < 3.5);
  CHECK(c.hbm_copy_gbps > 100);
  CHECK(c.hbm_read_gbps > 100);
  CHECK(c.l2_gbps > c.hbm_read_gbps * 0.8);  // L2 is not slower than DRAM
  CHECK(c.l2_latency_ns < c.hbm_latency_ns);
  CHECK(c.sram_bytes_per_clock_per_sm > 16);
  CHECK(c.sram_bytes_per_clock_per_sm < 260);
  const double fp32_per_clock = c.fp32_tflops * 1e12 / (c.clock_ghz * 1e9 * static_cast<double>(c.sm_count));
  CHECK(fp32_per_clock > 64);   // FLOP per clock per SM: 256 on sm_80/90 at full rate
  CHECK(fp32_per_clock < 300);
  CHECK(c.matmul_fp16_tflops > c.fp32_tflops);
  CHECK(c.matmul_bf16_tflops > c.fp32_tflops);
  CHECK(c.exp_per_clock_per_sm > 4);
  CHECK(c.exp_per_clock_per_sm < 40);
  CHECK(c.launch_overhead_us > 0.1);
  CHECK(c.launch_overhead_us < 100);
  // The kernels' code (with CUPTI): every run reads more than its data, by
  // about the size of the code it runs (docs/results/code-fetch-2026-11-29.md:
  // 58 to 400 KiB); the FP32 flash2 unrolls far more code than the tensor-core one.
  if (const auto why = cuda::cupti_unavailable()) {
    WARN("kernel code not measured: " << *why);
  } else {
    INFO(c.code_fetch_why_not);
    REQUIRE(c.code_fetch_why_not.empty());
    REQUIRE(c.code_fetch_runs.size() == 8);
    for (const cuda::CodeFetchRun& r : c.code_fetch_runs) {
      INFO(r.family << " " << r.shape);
      CHECK(r.code_bytes() > 16 * 1024);
      CHECK(r.code_bytes() < 2 * 1024 * 1024);
    }
    CHECK(d.code_fetch.flash2 > 2 * d.code_fetch.flash2_mma);
  }
  WARN(cuda::figures_table(c, nullptr));
}
