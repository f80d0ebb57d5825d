// Device TOML: built-in figures, conversions to SI, and every kind of bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "test_data.hpp"

using Catch::Contains;
using fasim::DeviceSpec;
using fasim::UserError;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The valid fixture with one line changed (or removed, if `to` is empty).
std::string mydev_with(const std::string& from, const std::string& to) {
  std::string text = slurp(data_dir() + "/devices/mydev.toml");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

DeviceSpec parse_mydev(const std::string& from, const std::string& to) {
  return fasim::parse_device(mydev_with(from, to), "mydev.toml");
}

}  // namespace

TEST_CASE("built-in devices parse, in a stable order", "[device]") {
  const auto all = fasim::builtin_devices();
  REQUIRE(all.size() == 4);
  CHECK(all[0].name == "a100");
  CHECK(all[1].name == "h100");
  CHECK(all[2].name == "h200");
  CHECK(all[3].name == "toy");
  for (const auto& d : all) {
    CHECK(d.source == "built-in");
    CHECK_FALSE(d.description.empty());
    CHECK(d.l2_line_bytes == 128);
    CHECK(d.l2_sector_bytes == 32);
  }
}

TEST_CASE("a100 figures", "[device]") {
  const auto d = fasim::load_device("a100");
  CHECK(d.description == "NVIDIA A100 SXM4 80GB");
  CHECK(d.sm_count == 108);
  CHECK(d.clock_hz == Approx(1.41e9));
  CHECK(d.sram_bytes_per_sm == 167936);
  CHECK(d.sram_bytes_per_block == 166912);
  CHECK(d.register_bytes_per_sm == 262144);
  CHECK(d.l2_bytes == 41943040);
  CHECK(d.hbm_bytes == 85899345920);
  CHECK(d.hbm_bandwidth == Approx(2039e9));
  CHECK(d.matmul_flops(fasim::DType::fp16) == Approx(312e12));
  CHECK(d.matmul_flops(fasim::DType::bf16) == Approx(312e12));
  CHECK(d.matmul_flops(fasim::DType::fp32) == Approx(19.5e12));
  CHECK(d.fp32_flops == Approx(19.5e12));
  CHECK(d.exp_rate == Approx(16.0 * 108 * 1.41e9));
}

TEST_CASE("h100 figures", "[device]") {
  const auto d = fasim::load_device("h100");
  CHECK(d.description == "NVIDIA H100 SXM5 80GB");
  CHECK(d.sm_count == 132);
  CHECK(d.clock_hz == Approx(1.98e9));
  CHECK(d.sram_bytes_per_sm == 233472);
  CHECK(d.sram_bytes_per_block == 232448);
  CHECK(d.sram_bandwidth_per_sm == Approx(128 * 1.98e9));
  CHECK(d.register_bytes_per_block == 262144);
  CHECK(d.l2_bytes == 52428800);
  CHECK(d.hbm_bytes == 85899345920);
  CHECK(d.hbm_bandwidth == Approx(3350e9));
  CHECK(d.matmul_flops(fasim::DType::fp16) == Approx(989.4e12));
  CHECK(d.matmul_flops(fasim::DType::fp32) == Approx(66.9e12));
  CHECK(d.fp32_flops == Approx(66.9e12));
  CHECK(d.exp_rate == Approx(16.0 * 132 * 1.98e9));
  // Estimates: only sanity, they are recalibrated.
  CHECK(d.l2_bandwidth > d.hbm_bandwidth);
  CHECK(d.l2_latency_s < d.hbm_latency_s);
  CHECK(d.launch_overhead_s > 0);
}

TEST_CASE("h200 figures", "[device]") {
  const auto d = fasim::load_device("h200");
  CHECK(d.sm_count == 132);
  CHECK(d.l2_bytes == 62914560);
  CHECK(d.hbm_bytes == 150109880320);  // measured on a lent H200 (cudaGetDeviceProperties)
  CHECK(d.hbm_bandwidth == Approx(4800e9));
  CHECK(d.matmul_flops(fasim::DType::bf16) == Approx(989.4e12));
}

TEST_CASE("toy figures", "[device]") {
  const auto d = fasim::load_device("toy");
  CHECK(d.sm_count == 4);
  CHECK(d.clock_hz == Approx(1e9));
  CHECK(d.sram_bytes_per_sm == 4096);
  CHECK(d.sram_bytes_per_block == 4096);
  CHECK(d.register_bytes_per_sm == 8192);
  CHECK(d.l2_bytes == 65536);
  CHECK(d.hbm_bytes == 64 * 1024 * 1024);
  CHECK(d.hbm_bandwidth == Approx(100e9));
  CHECK(d.matmul_flops(fasim::DType::fp16) == Approx(1e12));
  CHECK(d.exp_rate == Approx(4.0 * 4 * 1e9));
}

TEST_CASE("built-in names are case-insensitive", "[device]") {
  CHECK(fasim::load_device("H100").name == "h100");
  CHECK(fasim::load_device("Toy").name == "toy");
}

TEST_CASE("unknown device name lists the known ones", "[device]") {
  REQUIRE_THROWS_AS(fasim::load_device("h900"), UserError);
  REQUIRE_THROWS_WITH(fasim::load_device("h900"),
                      "unknown device 'h900'; known: a100, h100, h200, toy, or pass a path to a .toml file");
}

TEST_CASE("a user device file loads by path, with every conversion", "[device]") {
  const std::string path = data_dir() + "/devices/mydev.toml";
  const auto d = fasim::load_device(path);
  CHECK(d.name == "mydev");
  CHECK(d.source == path);
  CHECK(d.sm_count == 10);
  CHECK(d.clock_hz == Approx(2e9));
  CHECK(d.sram_bytes_per_sm == 8192);
  CHECK(d.sram_bytes_per_block == 6144);
  CHECK(d.sram_bandwidth_per_sm == Approx(64.5 * 2e9));
  CHECK(d.register_bytes_per_sm == 16384);
  CHECK(d.register_bytes_per_block == 12288);
  CHECK(d.l2_bytes == 131072);
  CHECK(d.l2_line_bytes == 64);
  CHECK(d.l2_sector_bytes == 16);
  CHECK(d.l2_bandwidth == Approx(250.5e9));
  CHECK(d.l2_latency_s == Approx(150e-9));
  CHECK(d.hbm_bytes == 1073741824);
  CHECK(d.hbm_bandwidth == Approx(50e9));
  CHECK(d.hbm_latency_s == Approx(400e-9));
  CHECK(d.matmul_flops(fasim::DType::fp32) == Approx(0.5e12));
  CHECK(d.matmul_flops(fasim::DType::fp16) == Approx(2e12));
  CHECK(d.matmul_flops(fasim::DType::bf16) == Approx(3e12));
  CHECK(d.fp32_flops == Approx(0.75e12));
  CHECK(d.exp_rate == Approx(8.0 * 10 * 2e9));
  CHECK(d.launch_overhead_s == Approx(2.5e-6));
}

TEST_CASE("an unreadable device file names the path and the reason", "[device]") {
  REQUIRE_THROWS_WITH(fasim::load_device("no/such/dev.toml"),
                      "cannot read device file 'no/such/dev.toml': No such file or directory; check the path");
  REQUIRE_THROWS_WITH(fasim::load_device(data_dir() + "/devices/"),
                      "cannot read device file '" + data_dir() + "/devices/': it is a directory; check the path");
}

TEST_CASE("a syntax error reports file:line:col", "[device]") {
  const std::string text = "name = \"x\"\n[compute]\nsm_count = = 4\n";
  REQUIRE_THROWS_AS(fasim::parse_device(text, "h100.toml"), UserError);
  REQUIRE_THROWS_WITH(fasim::parse_device(text, "h100.toml"), Contains("h100.toml:3:12: syntax error: "));
  REQUIRE_THROWS_WITH(fasim::parse_device(text, "h100.toml"), Contains("; fix the TOML syntax there"));
}

TEST_CASE("a typo in a user file points at the key", "[device]") {
  const std::string path = data_dir() + "/devices/typo.toml";
  REQUIRE_THROWS_WITH(fasim::load_device(path),
                      path + ":11:1: unknown key [sram] bytes_per_smm; known keys: bytes_per_sm, bytes_per_block, "
                             "bandwidth_bytes_per_clock_per_sm");
}

TEST_CASE("missing keys and tables name what to add", "[device]") {
  REQUIRE_THROWS_WITH(parse_mydev("bandwidth_gbps = 50\n", ""),
                      "mydev.toml: missing key [hbm] bandwidth_gbps (a number, GB/s); add it");
  REQUIRE_THROWS_WITH(parse_mydev("sm_count = 10\n", ""),
                      "mydev.toml: missing key [compute] sm_count (a positive integer, count); add it");
  REQUIRE_THROWS_WITH(parse_mydev("name = \"mydev\"\n", ""), "mydev.toml: missing key name (a string); add it");
  REQUIRE_THROWS_WITH(parse_mydev("[hbm]\nbytes = 1073741824\nbandwidth_gbps = 50\nlatency_ns = 400\n", ""),
                      "mydev.toml: missing table [hbm] (keys: bytes, bandwidth_gbps, latency_ns); add it");
}

TEST_CASE("bad values name the key and what was given", "[device]") {
  REQUIRE_THROWS_WITH(parse_mydev("sm_count = 10", "sm_count = -3"),
                      "mydev.toml:7:1: [compute] sm_count must be a positive integer, got -3; set it to the GPU's "
                      "SM count, e.g. 132");
  REQUIRE_THROWS_WITH(parse_mydev("sm_count = 10", "sm_count = 0"),
                      "mydev.toml:7:1: [compute] sm_count must be a positive integer, got 0; set it to the GPU's "
                      "SM count, e.g. 132");
  REQUIRE_THROWS_WITH(parse_mydev("bandwidth_gbps = 50", "bandwidth_gbps = 0"),
                      "mydev.toml:28:1: [hbm] bandwidth_gbps must be a positive number, got 0; set it to the "
                      "memory's bandwidth in GB/s, e.g. 3350");
  REQUIRE_THROWS_WITH(parse_mydev("matmul_tflops_fp16 = 2", "matmul_tflops_fp16 = -1"),
                      Contains("[rates] matmul_tflops_fp16 must be a positive number, got -1; give the device's "
                               "figure in TFLOP/s"));
  REQUIRE_THROWS_WITH(parse_mydev("sm_count = 10", "sm_count = 10.5"),
                      Contains("[compute] sm_count must be a positive integer, got 10.5"));
  REQUIRE_THROWS_WITH(parse_mydev("sm_count = 10", "sm_count = \"ten\""),
                      Contains("[compute] sm_count must be a positive integer, got \"ten\""));
  REQUIRE_THROWS_WITH(parse_mydev("clock_ghz = 2 ", "clock_ghz = true"),
                      Contains("[compute] clock_ghz must be a positive number, got true"));
  REQUIRE_THROWS_WITH(parse_mydev("clock_ghz = 2 ", "clock_ghz = 0"),
                      Contains("[compute] clock_ghz must be a positive number, got 0"));
  REQUIRE_THROWS_WITH(parse_mydev("latency_ns = 400", "latency_ns = inf"),
                      Contains("[hbm] latency_ns must be a positive number, got inf"));
  REQUIRE_THROWS_WITH(parse_mydev("latency_ns = 400", "latency_ns = nan"), Contains("[hbm] latency_ns"));
  REQUIRE_THROWS_WITH(parse_mydev("latency_ns = 400", "latency_ns = [400]"),
                      Contains("[hbm] latency_ns must be a positive number, got an array"));
  REQUIRE_THROWS_WITH(parse_mydev("name = \"mydev\"", "name = 3"), Contains("mydev.toml:3:1: name must be a string"));
  REQUIRE_THROWS_WITH(parse_mydev("name = \"mydev\"", "name = \"\""), Contains("name must not be empty"));
  REQUIRE_THROWS_WITH(fasim::parse_device("rates = 1\n", "x.toml"),
                      "x.toml:1:1: [rates] must be a table, got 1; write it as a [rates] section");
}

TEST_CASE("unknown tables and keys are errors", "[device]") {
  REQUIRE_THROWS_WITH(parse_mydev("[rates]", "[ratez]"),
                      Contains("unknown key ratez; known top-level keys: name, description, compute, sram, "
                               "registers, l2, hbm, rates, code_fetch"));
  REQUIRE_THROWS_WITH(parse_mydev("name = \"mydev\"", "name = \"mydev\"\ncolour = \"green\""),
                      Contains("mydev.toml:4:1: unknown key colour"));
  REQUIRE_THROWS_WITH(parse_mydev("launch_overhead_us = 2.5", "launch_overhead_us = 2.5\nfp64_tflops = 1"),
                      Contains("unknown key [rates] fp64_tflops; known keys: matmul_tflops_fp32,"));
}

TEST_CASE("figures must agree with each other", "[device]") {
  REQUIRE_THROWS_WITH(parse_mydev("bytes_per_block = 6144", "bytes_per_block = 9000"),
                      "mydev.toml:12:1: [sram] bytes_per_block (9000) must not exceed [sram] bytes_per_sm (8192); "
                      "a block cannot use more than its SM has, lower it");
  REQUIRE_THROWS_WITH(parse_mydev("bytes_per_block = 12288", "bytes_per_block = 20000"),
                      Contains("[registers] bytes_per_block (20000) must not exceed [registers] bytes_per_sm"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 128"),
                      Contains("[l2] sector_bytes (128) must not exceed [l2] line_bytes (64)"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 48"),
                      Contains("[l2] sector_bytes (48) must divide [l2] line_bytes (64)"));
  REQUIRE_THROWS_WITH(parse_mydev("bytes = 131072", "bytes = 131000"),
                      Contains("[l2] bytes (131000) must be a multiple of [l2] line_bytes (64)"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\npartitions = 3"),
                      Contains("[l2] bytes (131072) must be a multiple of [l2] line_bytes (64) x [l2] partitions (3)"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\npartitions = 64"),
                      Contains("[l2] partitions (64) must not exceed [compute] sm_count"));
}

TEST_CASE("figures past any GPU are refused with their maximum", "[device]") {
  // 2^62-byte lines x 4 partitions wrapped to 0 in int64 and divided by it (SIGFPE).
  const std::string huge = "4611686018427387904";
  REQUIRE_THROWS_WITH(parse_mydev("line_bytes = 64", "line_bytes = " + huge),
                      "mydev.toml:21:1: [l2] line_bytes must be at most 1048576 bytes, got " + huge +
                          "; no GPU comes near it, lower it");
  REQUIRE_THROWS_WITH(parse_mydev("bytes = 131072\nline_bytes = 64",
                                  "bytes = " + huge + "\nline_bytes = " + huge + "\npartitions = 4"),
                      "mydev.toml:20:1: [l2] bytes must be at most 1099511627776 bytes, got " + huge +
                          "; no GPU comes near it, lower it");
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\npartitions = 1025"),
                      Contains("[l2] partitions must be at most 1024, got 1025"));
  // 10^12 SMs asked the machine model for a terabyte of SM state (std::bad_alloc).
  REQUIRE_THROWS_WITH(parse_mydev("sm_count = 10", "sm_count = 1000000000000"),
                      Contains("[compute] sm_count must be at most 4096, got 1000000000000"));
  // 1e305 GHz is finite, but not once in Hz: the check is on the file's figure.
  REQUIRE_THROWS_WITH(parse_mydev("clock_ghz = 2 ", "clock_ghz = 1e305"),
                      Contains("[compute] clock_ghz must be at most 100 GHz"));
  REQUIRE_THROWS_WITH(parse_mydev("bytes_per_block = 6144", "bytes_per_block = 4398046511104"),
                      Contains("[sram] bytes_per_block must be at most 1073741824 bytes, got 4398046511104"));
  REQUIRE_THROWS_WITH(parse_mydev("launch_overhead_us = 2.5", "launch_overhead_us = 1e7"),
                      Contains("[rates] launch_overhead_us must be at most 1000000 microseconds"));
  // A figure so small that it is 0 in SI units (1e-320 ns is 0 s in a double;
  // toml++ echoes the subnormal as 9.99...e-321).
  REQUIRE_THROWS_WITH(parse_mydev("latency_ns = 400", "latency_ns = 1e-320"),
                      Contains("[hbm] latency_ns (9.99") && Contains(") is too small to compute with; give"));
  // The largest accepted figures still parse.
  const DeviceSpec d = parse_mydev("sm_count = 10", "sm_count = 4096");
  CHECK(d.sm_count == 4096);
}

TEST_CASE("[l2] partitions is optional: 1 when left out, 2 on the NVIDIA data-centre GPUs", "[device]") {
  CHECK(parse_mydev("sector_bytes = 16", "sector_bytes = 16").l2_partitions == 1);
  CHECK(parse_mydev("sector_bytes = 16", "sector_bytes = 16\npartitions = 2").l2_partitions == 2);
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\npartitions = 0"),
                      Contains("[l2] partitions must be a positive integer, got 0"));
  for (const char* name : {"a100", "h100", "h200"}) CHECK(fasim::load_device(name).l2_partitions == 2);
  CHECK(fasim::load_device("toy").l2_partitions == 1);
}

TEST_CASE("[l2] ways is optional: kL2Ways when left out, 0 (fully associative) on the toy", "[device]") {
  CHECK(parse_mydev("sector_bytes = 16", "sector_bytes = 16").l2_ways == fasim::kL2Ways);
  CHECK(parse_mydev("sector_bytes = 16", "sector_bytes = 16\nways = 0").l2_ways == 0);
  CHECK(parse_mydev("sector_bytes = 16", "sector_bytes = 16\nways = 16").l2_ways == 16);
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\nways = -1"),
                      Contains("[l2] ways must be an integer, 0 or more, got -1"));
  REQUIRE_THROWS_WITH(parse_mydev("bytes = 131072\n", "bytes = 32768\nways = 1024\n"),
                      Contains("[l2] ways (1024) must not exceed the lines of one partition (512)"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\nways = 99999"),
                      Contains("[l2] ways (99999) must be at most 1024; use 0 for one fully associative set"));
  for (const char* name : {"a100", "h100", "h200"}) CHECK(fasim::load_device(name).l2_ways == 64);
  CHECK(fasim::load_device("toy").l2_ways == 0);
}

TEST_CASE("[l2] first_wave_runs is optional: none when left out, the measured runs on the H100 and H200", "[device]") {
  CHECK(parse_mydev("sector_bytes = 16", "sector_bytes = 16").l2_first_wave_runs.empty());
  const std::string two = "sector_bytes = 16\npartitions = 2\n";
  CHECK(parse_mydev("sector_bytes = 16", two + "first_wave_runs = [4, 6]").l2_first_wave_runs ==
        std::vector<std::int64_t>{4, 6});
  // The runs must cover the 10 SMs once, with 2 or more partitions, as positive integers.
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", two + "first_wave_runs = [4, 5]"),
                      Contains("[l2] first_wave_runs adds up to 9 SMs, but [compute] sm_count is 10; the runs must "
                               "cover every SM once"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\nfirst_wave_runs = [10]"),
                      Contains("[l2] first_wave_runs needs [l2] partitions of 2 or more (got 1)"));
  for (const char* bad : {"[4, 0, 6]", "[4, -1, 7]", "[4.5, 5.5]", "[]", "10", "[\"a\"]"})
    REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", two + "first_wave_runs = " + bad),
                        Contains("[l2] first_wave_runs must be a list of positive integers, e.g. [16, 48, 50, 18]"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", two + "first_wave_runs = [5, 99999]"),
                      Contains("[l2] first_wave_runs must be at most 4096"));
  for (const char* name : {"h100", "h200"})
    CHECK(fasim::load_device(name).l2_first_wave_runs == std::vector<std::int64_t>{16, 48, 50, 18});
  CHECK(fasim::load_device("a100").l2_first_wave_runs.empty());  // not measured
}

TEST_CASE("[l2] small_grid_fill is optional: none when left out, the measured order on the H100 and H200", "[device]") {
  CHECK(parse_mydev("sector_bytes = 16", "sector_bytes = 16").l2_small_grid_fill.empty());
  const std::string two = "sector_bytes = 16\npartitions = 2\n";
  CHECK(parse_mydev("sector_bytes = 16", two + "small_grid_fill = \"AAAABBBABB\"").l2_small_grid_fill == "AAAABBBABB");
  // One letter A or B for each of the 10 SMs, with two partitions.
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", "sector_bytes = 16\nsmall_grid_fill = \"AAAABBBABB\""),
                      Contains("[l2] small_grid_fill needs [l2] partitions = 2 (got 1)"));
  REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", two + "small_grid_fill = \"AAAABBBAB\""),
                      Contains("[l2] small_grid_fill has 9 letters, but [compute] sm_count is 10; give one letter for "
                               "every SM"));
  for (const char* bad : {"\"AAAABBBABC\"", "\"\"", "[\"AB\"]", "10", "\"aaaabbbabb\""})
    REQUIRE_THROWS_WITH(parse_mydev("sector_bytes = 16", two + "small_grid_fill = " + bad),
                        Contains("[l2] small_grid_fill must be a string of the letters A and B, one an SM"));
  for (const char* name : {"h100", "h200"}) {
    const std::string fill = fasim::load_device(name).l2_small_grid_fill;
    REQUIRE(fill.size() == 132);
    CHECK(std::count(fill.begin(), fill.end(), 'A') == 66);  // each half is next to 66 SMs
    CHECK(fill.substr(0, 16) == "AAAAAAAAABBBAAAB");          // 16 blocks: 12 + 4
  }
  CHECK(fasim::load_device("a100").l2_small_grid_fill.empty());  // not measured
}

TEST_CASE("[hbm] background_write_mib_per_s is optional: 0 when left out, in bytes/s when given", "[device]") {
  const DeviceSpec plain = parse_mydev("sector_bytes = 16", "sector_bytes = 16");
  CHECK(plain.dram_background_write_rate == 0);
  CHECK(parse_mydev("[hbm]\n", "[hbm]\nbackground_write_mib_per_s = 17.5\n").dram_background_write_rate ==
        17.5 * 1024 * 1024);
  CHECK(parse_mydev("[hbm]\n", "[hbm]\nbackground_write_mib_per_s = 0\n").dram_background_write_rate == 0);
  REQUIRE_THROWS_WITH(parse_mydev("[hbm]\n", "[hbm]\nbackground_write_mib_per_s = -1\n"),
                      Contains("[hbm] background_write_mib_per_s must be a number, 0 or more, got -1"));
  REQUIRE_THROWS_WITH(parse_mydev("[hbm]\n", "[hbm]\nbackground_write_mib_per_s = \"fast\"\n"),
                      Contains("[hbm] background_write_mib_per_s must be a number, 0 or more"));
}

TEST_CASE("[code_fetch] is optional: fasim's recorded medians when left out, KiB to bytes when given", "[device]") {
  const DeviceSpec plain = parse_mydev("sector_bytes = 16", "sector_bytes = 16");
  const fasim::CodeFetch recorded;  // docs/results/code-fetch-2026-11-29.md
  CHECK(plain.code_fetch.naive == 240 * 1024);
  CHECK(plain.code_fetch.flash1 == 220 * 1024);
  CHECK(plain.code_fetch.flash2 == 280 * 1024);
  CHECK(plain.code_fetch.flash2_mma == 72 * 1024);
  // The stock profiles of the GPUs they were recorded on spell them out, the same.
  for (const char* gpu : {"h100", "h200"}) {
    const fasim::CodeFetch c = fasim::load_device(gpu).code_fetch;
    CHECK(c.naive == recorded.naive);
    CHECK(c.flash1 == recorded.flash1);
    CHECK(c.flash2 == recorded.flash2);
    CHECK(c.flash2_mma == recorded.flash2_mma);
  }
  const DeviceSpec given =
      parse_mydev("[hbm]\n", "[code_fetch]\nflash1_kib = 317.5\nflash2_mma_kib = 0\n\n[hbm]\n");
  CHECK(given.code_fetch.flash1 == 317.5 * 1024);
  CHECK(given.code_fetch.flash2_mma == 0);
  CHECK(given.code_fetch.naive == recorded.naive);  // the keys left out keep their defaults
  CHECK(given.code_fetch.flash2 == recorded.flash2);
  REQUIRE_THROWS_WITH(parse_mydev("[hbm]\n", "[code_fetch]\nnaive_kib = -3\n\n[hbm]\n"),
                      Contains("[code_fetch] naive_kib must be a number, 0 or more, got -3"));
  REQUIRE_THROWS_WITH(parse_mydev("[hbm]\n", "[code_fetch]\nflash3_kib = 3\n\n[hbm]\n"),
                      Contains("unknown key [code_fetch] flash3_kib; known keys: naive_kib, flash1_kib, flash2_kib, "
                               "flash2_mma_kib"));
  REQUIRE_THROWS_WITH(parse_mydev("[hbm]\n", "[code_fetch]\nflash2_kib = 2e6\n\n[hbm]\n"),
                      Contains("[code_fetch] flash2_kib must be at most 1048576 KiB"));
}

TEST_CASE("rates and bandwidths below any GPU are refused with their floor", "[device]") {
  // 5e-324 GB/s made "time inf us"; 1e-300 TFLOP/s a 70-digit time.
  REQUIRE_THROWS_WITH(parse_mydev("bandwidth_gbps = 50", "bandwidth_gbps = 5e-324"),
                      Contains("mydev.toml:28:1: [hbm] bandwidth_gbps must be at least 1 GB/s, got ") &&
                          Contains("; no GPU is that slow, give the device's real figure"));
  REQUIRE_THROWS_WITH(parse_mydev("matmul_tflops_fp16 = 2", "matmul_tflops_fp16 = 1e-300"),
                      "mydev.toml:33:1: [rates] matmul_tflops_fp16 must be at least 0.001 TFLOP/s, got 1e-300; no "
                      "GPU is that slow, give the device's real figure");
  REQUIRE_THROWS_WITH(parse_mydev("bandwidth_gbps = 250.5", "bandwidth_gbps = 0.5"),
                      Contains("[l2] bandwidth_gbps must be at least 1 GB/s, got 0.5"));
  REQUIRE_THROWS_WITH(parse_mydev("clock_ghz = 2 ", "clock_ghz = 0.001"),
                      Contains("[compute] clock_ghz must be at least 0.01 GHz, got 0.001"));
  REQUIRE_THROWS_WITH(parse_mydev("bandwidth_bytes_per_clock_per_sm = 64.5", "bandwidth_bytes_per_clock_per_sm = 1e-9"),
                      Contains("[sram] bandwidth_bytes_per_clock_per_sm must be at least 1 bytes per clock"));
  REQUIRE_THROWS_WITH(parse_mydev("exp_per_clock_per_sm = 8", "exp_per_clock_per_sm = 1e-200"),
                      Contains("[rates] exp_per_clock_per_sm must be at least 0.01 exponentials per clock"));
  // The floors themselves are accepted.
  const DeviceSpec d = parse_mydev("bandwidth_gbps = 50", "bandwidth_gbps = 1");
  CHECK(d.hbm_bandwidth == 1e9);
  CHECK(parse_mydev("fp32_tflops = 0.75", "fp32_tflops = 0.001").fp32_flops == Approx(1e9));
}

TEST_CASE("[l2] sampled_sets must sample an L2 of the profile's geometry", "[device]") {
  const std::string h100 = slurp(std::string(FASIM_SOURCE_DIR) + "/configs/devices/h100.toml");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = h100;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  // The H200's 60 MiB sample ran silently on a 25 MiB L2.
  REQUIRE_THROWS_WITH(fasim::parse_device(with("bytes = 52428800", "bytes = 26214400\nsampled_sets = \"h200\""), "q2.toml"),
                      "q2.toml:24:1: [l2] sampled_sets 'h200' samples a 60 MiB L2 of 2 halves (15,360 sets x 16 ways "
                      "x 128 B each); this profile's L2 is 25 MiB: drop sampled_sets or make [l2] match");
  REQUIRE_THROWS_WITH(fasim::parse_device(with("bytes = 52428800", "bytes = 52428800\nsampled_sets = \"h200\""), "q.toml"),
                      Contains("this profile's L2 is 50 MiB: drop sampled_sets"));
  // An L2 of the sample's size, halves and lines takes it (the count model's ways are a fit, not compared).
  const DeviceSpec d =
      fasim::parse_device(with("bytes = 52428800", "bytes = 62914560\nsampled_sets = \"h200\""), "ok.toml");
  CHECK(d.l2_sampled_sets == "h200");
  // The stock profiles that name the sample still load.
  CHECK(fasim::load_device("h200").l2_sampled_sets == "h200");
  for (const char* f : {"/docs/results/h200-2026-11-21-measured.toml", "/docs/results/h200-2026-11-22-measured.toml"})
    CHECK(fasim::load_device(std::string(FASIM_SOURCE_DIR) + f).l2_sampled_sets == "h200");
}
