// The kernel families whose code `fasim gpu calibrate` measures: one table
// for calibrate.cpp, which runs each family, and calibrate_toml.cpp, which
// writes each family's figure into [code_fetch] (fidelity.hpp,
// code_fetch_bytes, is where the model adds it).
#pragma once

#include <array>
#include <string_view>

#include "fasim/device_spec.hpp"
#include "fasim/dtype.hpp"
#include "fasim/mapping.hpp"

namespace fasim::cuda::detail {

struct CodeFetchFamily {
  std::string_view key;       // the [code_fetch] key less "_kib"; CodeFetchRun::family
  std::string_view label;     // the figure's name in calibrate's table
  Algo algo;                  // the family's runs: this algorithm ...
  DType dtype;                // ... in this type (fp16 flash2 is the tensor-core kernel)
  double CodeFetch::*figure;  // the device profile's figure, in bytes
};

inline constexpr std::array<CodeFetchFamily, 4> kCodeFetchFamilies{{
    {"naive", "code of naive (3 kernels)", Algo::naive, DType::fp32, &CodeFetch::naive},
    {"flash1", "code of flash1", Algo::flash1, DType::fp32, &CodeFetch::flash1},
    {"flash2", "code of flash2, FP32 units", Algo::flash2, DType::fp32, &CodeFetch::flash2},
    {"flash2_mma", "code of flash2, tensor cores", Algo::flash2, DType::fp16, &CodeFetch::flash2_mma},
}};

}  // namespace fasim::cuda::detail
