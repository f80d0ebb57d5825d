// The CUPTI Range Profiler + Profiler Host API sequence (GPU.md):
//   cuptiProfilerInitialize -> cuptiDeviceGetChipName -> GetCounterAvailability
//   -> HostInitialize -> ConfigAddMetrics -> GetConfigImage -> GetNumOfPasses
//   -> RangeProfilerEnable(ctx) -> GetCounterDataSize -> CounterDataImageInitialize
//   -> SetConfig(user range, user replay)
//   -> per pass { Start; flush (then, warm: launch); PushRange; launch; PopRange;
//                 PushRange; flush (the drain); PopRange; Stop }
//      until every pass is submitted
//   -> DecodeData -> GetCounterDataInfo -> EvaluateToGpuValues
//   -> RangeProfilerDisable, HostDeinitialize, ProfilerDeInitialize.
// Every parameter struct starts from its _STRUCT_SIZE; every call is checked.
// libcupti is opened with dlopen, so nothing links against it.
#include "fasim/cuda/hw_counters.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "fasim/cuda/dlopen_first.hpp"
#include "fasim/cuda/gpu_timer.hpp"
#include "fasim/cuda/runner.hpp"

#ifndef FASIM_CUPTI_LIBRARY
#define FASIM_CUPTI_LIBRARY ""
#endif

namespace fasim::cuda {

namespace {

// Every CUPTI parameter struct: zeroed, with its structSize set.
template <class P>
P params(std::size_t size) {
  P p{};
  p.structSize = size;
  return p;
}

// ---- libcupti, opened at run time -------------------------------------------

#define FASIM_CUPTI_FUNCTIONS(X)                                                                        \
  X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiProfilerDeInitialize)                       \
  X(cuptiDeviceGetChipName) X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerDeviceSupported)      \
  X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostConfigAddMetrics)  \
  X(cuptiProfilerHostGetConfigImageSize) X(cuptiProfilerHostGetConfigImage)                              \
  X(cuptiProfilerHostGetNumOfPasses) X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) \
  X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize)                                   \
  X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerSetConfig)                         \
  X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop) X(cuptiRangeProfilerPushRange)                    \
  X(cuptiRangeProfilerPopRange) X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataInfo)

struct Cupti {
#define FASIM_DECLARE(f) decltype(&::f) f = nullptr;
  FASIM_CUPTI_FUNCTIONS(FASIM_DECLARE)
#undef FASIM_DECLARE
  std::string error;  // why it did not load; empty if it did
};

const Cupti& cupti() {
  static Cupti api;
  static std::once_flag once;
  std::call_once(once, [] {
    const OpenedLibrary found = dlopen_first({"libcupti.so.13", "libcupti.so", FASIM_CUPTI_LIBRARY,
                                              "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
                                              "/usr/local/cuda/lib64/libcupti.so.13"},
                                             RTLD_NOW | RTLD_GLOBAL);
    void* lib = found.handle;
    if (lib == nullptr) {
      api.error = "cannot load CUPTI (tried " + found.tried + "; last: " + found.last_error +
                  "); put the CUDA toolkit's CUPTI folder (with libcupti.so.13, libnvperf_host.so and "
                  "libnvperf_target.so) on LD_LIBRARY_PATH";
      return;
    }
#define FASIM_LOAD(f)                                                                   \
  api.f = reinterpret_cast<decltype(&::f)>(dlsym(lib, #f));                             \
  if (api.f == nullptr && api.error.empty())                                            \
    api.error = "the CUPTI library found has no " #f " (CUPTI 12.6 or newer is needed)";
    FASIM_CUPTI_FUNCTIONS(FASIM_LOAD)
#undef FASIM_LOAD
  });
  if (!api.error.empty()) throw CudaError(api.error);
  return api;
}

std::string result_text(CUptiResult r) {
  const char* s = nullptr;
  const Cupti& api = cupti();
  if (api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s != nullptr) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

std::string hint(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "; the driver lets only administrators read GPU counters (RmProfilingAdminOnly=1): run as root, or "
             "load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0";
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return "; another profiler (ncu, nsys, DCGM) holds the counters: run fasim outside it";
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return "; a metric name is not known for this GPU";
    default: return "";
  }
}

#define FASIM_CUPTI(call, ...)                                                                        \
  do {                                                                                                \
    const CUptiResult r_ = cupti().call(__VA_ARGS__);                                                 \
    if (r_ != CUPTI_SUCCESS)                                                                          \
      throw CudaError(std::string("CUPTI error in " #call ": ") + result_text(r_) + hint(r_));         \
  } while (0)

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

std::vector<const char*> c_names(const std::vector<std::string>& metrics) {
  std::vector<const char*> out;
  for (const std::string& m : metrics) out.push_back(m.c_str());
  return out;
}

// ---- RAII guards: undo each step even when a later one throws ---------------

struct ProfilerSession {  // cuptiProfilerInitialize / DeInitialize
  ProfilerSession() {
    auto p = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    FASIM_CUPTI(cuptiProfilerInitialize, &p);
  }
  ~ProfilerSession() {
    auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
    cupti().cuptiProfilerDeInitialize(&p);
  }
  ProfilerSession(const ProfilerSession&) = delete;
  ProfilerSession& operator=(const ProfilerSession&) = delete;
};

// A profiler host object for a chip (cuptiProfilerHostInitialize / Deinitialize).
struct HostObject {
  CUpti_Profiler_Host_Object* host = nullptr;
  HostObject(const std::string& chip, const std::uint8_t* availability) {
    auto init = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    init.pChipName = chip.c_str();
    init.pCounterAvailabilityImage = availability;
    if (const CUptiResult r = cupti().cuptiProfilerHostInitialize(&init); r != CUPTI_SUCCESS)
      throw CudaError("CUPTI error in cuptiProfilerHostInitialize (chip '" + chip + "'): " + result_text(r) +
                      (r == CUPTI_ERROR_INVALID_CHIP_NAME || r == CUPTI_ERROR_INVALID_PARAMETER
                           ? "; this CUPTI does not know that chip"
                           : hint(r)));
    host = init.pHostObject;
  }
  ~HostObject() {
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = host;
    cupti().cuptiProfilerHostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
};

// "; metrics unknown on GH100: a, b": which of the metrics the chip rejects, one by one.
std::string unknown_metrics(const std::string& chip, const std::vector<const char*>& metrics) {
  std::string bad;
  for (const char* m : metrics) {
    const HostObject one(chip, nullptr);
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = one.host;
    const char* names[] = {m};
    add.ppMetricNames = names;
    add.numMetrics = 1;
    if (cupti().cuptiProfilerHostConfigAddMetrics(&add) != CUPTI_SUCCESS)
      bad += (bad.empty() ? "" : ", ") + std::string(m);
  }
  return bad.empty() ? "" : "; metrics unknown on " + chip + ": " + bad + " (check the names for this GPU)";
}

// The host object with the metrics added and the config image made from them.
struct HostConfig {
  HostObject object;
  std::vector<std::uint8_t> image;
  std::size_t passes = 0;

  HostConfig(const std::string& chip, const std::vector<const char*>& metrics, const std::uint8_t* availability)
      : object(chip, availability) {
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = object.host;
    add.ppMetricNames = const_cast<const char**>(metrics.data());
    add.numMetrics = metrics.size();
    if (const CUptiResult r = cupti().cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
      const std::string which = unknown_metrics(chip, metrics);
      throw CudaError("CUPTI error in cuptiProfilerHostConfigAddMetrics: " + result_text(r) +
                      (which.empty() ? hint(r) : which));
    }

    auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = object.host;
    FASIM_CUPTI(cuptiProfilerHostGetConfigImageSize, &size);
    image.resize(size.configImageSize);
    auto get = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    get.pHostObject = object.host;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    FASIM_CUPTI(cuptiProfilerHostGetConfigImage, &get);

    auto np = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    np.configImageSize = image.size();
    np.pConfigImage = image.data();
    FASIM_CUPTI(cuptiProfilerHostGetNumOfPasses, &np);
    passes = np.numOfPasses;
  }
};

struct RangeProfiler {  // cuptiRangeProfilerEnable / Disable
  CUpti_RangeProfiler_Object* object = nullptr;
  explicit RangeProfiler(CUcontext ctx) {
    auto p = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    p.ctx = ctx;
    FASIM_CUPTI(cuptiRangeProfilerEnable, &p);
    object = p.pRangeProfilerObject;
  }
  ~RangeProfiler() {
    auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object;
    cupti().cuptiRangeProfilerDisable(&p);
  }
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;
};

// The current context of the runtime (its primary context), through the
// driver entry point the runtime exposes: fasim does not link libcuda.
CUcontext current_context() {
  check_cuda(cudaFree(nullptr), "cudaFree(nullptr) (context creation)");
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check_cuda(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found),
             "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
  if (fn == nullptr || found != cudaDriverEntryPointSuccess)
    throw CudaError("the CUDA driver has no cuCtxGetCurrent entry point; update the NVIDIA driver");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    throw CudaError("no current CUDA context to profile (cuCtxGetCurrent failed)");
  return ctx;
}

std::string support_problem(int device) {
  auto p = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  p.cuDevice = device;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  FASIM_CUPTI(cuptiProfilerDeviceSupported, &p);
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "";
  std::string why;
  auto add = [&](CUpti_Profiler_Support_Level level, const char* what) {
    if (level == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED || level == CUPTI_PROFILER_CONFIGURATION_DISABLED)
      why += std::string(why.empty() ? "" : ", ") + what +
             (level == CUPTI_PROFILER_CONFIGURATION_DISABLED ? " (disabled)" : "");
  };
  add(p.architecture, "GPU architecture");
  add(p.sli, "SLI");
  add(p.vGpu, "vGPU");
  add(p.confidentialCompute, "confidential computing");
  add(p.cmp, "CMP mining GPU");
  add(p.wsl, "WSL");
  return "this GPU cannot be profiled through CUPTI" + (why.empty() ? std::string() : " (" + why + ")") +
         "; hardware counters are unavailable here";
}

}  // namespace

std::string_view l2_start_name(L2Start s) { return s == L2Start::warm ? "warm" : "cold"; }

std::optional<std::string> cupti_unavailable() {
  try {
    (void)cupti();
  } catch (const CudaError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::size_t profiler_passes(std::string_view chip, const std::vector<std::string>& metrics) {
  const std::vector<const char*> names = c_names(metrics);
  const HostConfig config(std::string(chip), names, nullptr);
  return config.passes;
}

HwCounters profile_range(const std::function<void()>& launch, const ProfileOptions& options) {
  constexpr std::size_t kRanges = 2;  // the kernel, then the drain
  const std::vector<std::string> metric_strings(kHwMetrics.begin(), kHwMetrics.end());
  const std::vector<const char*> metrics = c_names(metric_strings);

  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  const CUcontext ctx = current_context();
  L2Flusher flusher;  // allocated before profiling starts

  const ProfilerSession session;
  if (const std::string why = support_problem(device); !why.empty()) throw CudaError(why);

  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device);
  FASIM_CUPTI(cuptiDeviceGetChipName, &chip);
  HwCounters out;
  out.chip = chip.pChipName != nullptr ? chip.pChipName : "";
  out.l2_start = options.l2;

  auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = ctx;
  FASIM_CUPTI(cuptiProfilerGetCounterAvailability, &avail);
  std::vector<std::uint8_t> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  FASIM_CUPTI(cuptiProfilerGetCounterAvailability, &avail);

  const HostConfig config(out.chip, metrics, availability.data());
  out.passes = config.passes;
  const RangeProfiler profiler(ctx);

  auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = profiler.object;
  size.pMetricNames = const_cast<const char**>(metrics.data());
  size.numMetrics = metrics.size();
  size.maxNumOfRanges = kRanges;
  size.maxNumRangeTreeNodes = kRanges;
  FASIM_CUPTI(cuptiRangeProfilerGetCounterDataSize, &size);
  std::vector<std::uint8_t> counter_data(size.counterDataSize);
  auto image = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  image.pRangeProfilerObject = profiler.object;
  image.counterDataSize = counter_data.size();
  image.pCounterData = counter_data.data();
  FASIM_CUPTI(cuptiRangeProfilerCounterDataImageInitialize, &image);

  auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = profiler.object;
  set.configSize = config.image.size();
  set.pConfig = config.image.data();
  set.counterDataImageSize = counter_data.size();
  set.pCounterDataImage = counter_data.data();
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = kRanges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  FASIM_CUPTI(cuptiRangeProfilerSetConfig, &set);

  bool submitted = false;
  for (std::size_t pass = 0; !submitted; ++pass) {
    if (pass > config.passes + 2)
      throw CudaError("CUPTI asked for more than " + std::to_string(config.passes + 2) +
                      " passes of a range it said needs " + std::to_string(config.passes));
    auto start = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = profiler.object;
    FASIM_CUPTI(cuptiRangeProfilerStart, &start);
    // The start of every pass, outside the range but after Start: Start
    // leaves about 3 MiB of its own dirty data in L2 (H200), and a kernel
    // that evicts it was charged those DRAM writes. Flushed before Start, a
    // read-only pass over 2x the L2 inside the range counted 2.8 to 3.1 MiB
    // written; flushed after, 0.02 MiB (docs/results/h200-2026-11-22-cupti-start-writes.md).
    flusher.flush();
    if (options.l2 == L2Start::warm) {
      launch();
      check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (warm-up launch)");
    }
    // Range 0: the kernel. Range 1: the drain, a read-only flush that writes
    // back the dirty data the kernel left in L2 (and nothing of its own).
    for (std::size_t range = 0; range < kRanges; ++range) {
      const std::string name = range == 0 ? options.range_name : options.range_name + " drain";
      auto push = params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
      push.pRangeProfilerObject = profiler.object;
      push.pRangeName = name.c_str();
      FASIM_CUPTI(cuptiRangeProfilerPushRange, &push);
      if (range == 0) {
        launch();
        check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (profiled launch)");
      } else {
        flusher.flush();
      }
      auto pop = params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
      pop.pRangeProfilerObject = profiler.object;
      FASIM_CUPTI(cuptiRangeProfilerPopRange, &pop);
    }
    auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = profiler.object;
    FASIM_CUPTI(cuptiRangeProfilerStop, &stop);
    submitted = stop.isAllPassSubmitted != 0;
  }

  auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = profiler.object;
  FASIM_CUPTI(cuptiRangeProfilerDecodeData, &decode);
  if (decode.numOfRangeDropped != 0)
    throw CudaError("CUPTI dropped " + std::to_string(decode.numOfRangeDropped) + " profiled range(s)");
  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  FASIM_CUPTI(cuptiRangeProfilerGetCounterDataInfo, &info);
  if (info.numTotalRanges != kRanges)
    throw CudaError("CUPTI recorded " + std::to_string(info.numTotalRanges) + " ranges, expected " +
                    std::to_string(kRanges));

  auto evaluate = [&](std::size_t range) {
    std::vector<double> values(metrics.size(), 0.0);
    auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    eval.pHostObject = config.object.host;
    eval.pCounterDataImage = counter_data.data();
    eval.counterDataImageSize = counter_data.size();
    eval.rangeIndex = range;
    eval.ppMetricNames = const_cast<const char**>(metrics.data());
    eval.numMetrics = metrics.size();
    eval.pMetricValues = values.data();
    FASIM_CUPTI(cuptiProfilerHostEvaluateToGpuValues, &eval);
    return values;
  };
  const std::vector<double> values = evaluate(0);
  const std::vector<double> drain = evaluate(1);

  static_assert(kHwMetrics.size() == 12, "each metric of kHwMetrics is read into its field below, in order");
  out.dram_read_bytes = values[0];
  out.dram_write_bytes = values[1];
  out.dram_write_drained_bytes = values[1] + drain[1];
  out.l2_read_sectors = values[2];
  out.l2_write_sectors = values[3];
  out.l2_read_hit_sectors = values[4];
  out.l2_read_miss_sectors = values[5];
  out.global_load_bytes = values[6];
  out.global_store_bytes = values[7];
  out.range_seconds = values[8] * 1e-9;  // gpu__time_duration is in ns
  out.l2_fabric_read_sectors = values[9];
  out.l2_fabric_write_sectors = values[10];
  out.l2_fabric_miss_sectors = values[11];
  return out;
}

HwCounters median_of(const std::vector<HwCounters>& runs) {
  if (runs.empty()) throw std::invalid_argument("median_of: no runs");
  HwCounters out = runs.front();
  auto median = [&runs](double HwCounters::*field) {
    std::vector<double> v;
    v.reserve(runs.size());
    for (const HwCounters& h : runs) v.push_back(h.*field);
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
  };
  for (double HwCounters::*f :
       {&HwCounters::dram_read_bytes, &HwCounters::dram_write_bytes, &HwCounters::dram_write_drained_bytes,
        &HwCounters::l2_read_sectors,
        &HwCounters::l2_write_sectors, &HwCounters::l2_read_hit_sectors, &HwCounters::l2_read_miss_sectors,
        &HwCounters::global_load_bytes, &HwCounters::global_store_bytes, &HwCounters::range_seconds,
        &HwCounters::l2_fabric_read_sectors, &HwCounters::l2_fabric_write_sectors, &HwCounters::l2_fabric_miss_sectors})
    out.*f = median(f);
  return out;
}

}  // namespace fasim::cuda
