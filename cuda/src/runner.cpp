// The host side of the CUDA backend: checks that a GPU and a kernel version
// can run a workload, makes the simulator's inputs, owns the GPU buffers,
// launches, and reads back O, L and the kernels' own byte counters.
#include "fasim/cuda/runner.hpp"

#include <Eigen/Core>
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>

#include "fasim/error.hpp"
#include "kernels.hpp"

namespace fasim::cuda {

namespace k = kernels;

static_assert(k::kQ == index(TensorId::Q) && k::kK == index(TensorId::K) &&
              k::kV == index(TensorId::V) && k::kO == index(TensorId::O) &&
              k::kS == index(TensorId::S) && k::kP == index(TensorId::P) &&
              k::kM == index(TensorId::m) && k::kL == index(TensorId::l) &&
              k::kLse == index(TensorId::L) && k::kCounterTensors == kTensorCount,
              "kernel counter rows must follow fasim::TensorId");
static_assert(k::kFp32 == static_cast<int>(DType::fp32) && k::kFp16 == static_cast<int>(DType::fp16) &&
              k::kBf16 == static_cast<int>(DType::bf16), "storage codes must follow fasim::DType");

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw CudaError(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}
#define FASIM_CUDA_CHECK(call) check((call), #call)

std::string to_s(std::int64_t x) { return std::to_string(x); }

k::Params params(const Workload& w, const Mapping& m, bool rows_fit) {
  k::Params p;
  p.bh = static_cast<int>(w.bh());
  p.n = static_cast<int>(w.N);
  p.d = static_cast<int>(w.d);
  p.br = static_cast<int>(m.br);
  p.bc = static_cast<int>(m.bc);
  p.scale = static_cast<float>(w.scale());
  p.storage = static_cast<int>(w.dtype);
  p.rows_fit = rows_fit;
  p.causal = w.causal;
  p.blocks_per_sm = static_cast<int>(m.blocks_per_sm);
  return p;
}

std::size_t shared_bytes(KernelVersion v, const k::Params& p) {
  switch (v) {
    case KernelVersion::naive: return k::shared_bytes_naive(p);
    case KernelVersion::flash2: return k::shared_bytes_flash2(p);
    case KernelVersion::flash1: return k::shared_bytes_flash1(p);
    case KernelVersion::flash2_mma: return k::shared_bytes_flash2_mma(p);
    case KernelVersion::naive_cublas: return k::shared_bytes_naive_cublas(p);
    case KernelVersion::flash2_fast: return k::shared_bytes_flash2_fast(p);
    case KernelVersion::flash2_hopper: return k::shared_bytes_flash2_hopper(p);
  }
  return 0;
}

// Element bits of the storage type, and back.
void encode(const std::vector<float>& x, DType t, std::vector<unsigned char>& out) {
  out.resize(x.size() * static_cast<std::size_t>(bytes_of(t)));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (t == DType::fp32) {
      std::memcpy(&out[4 * i], &x[i], 4);
    } else {
      const std::uint16_t bits = t == DType::fp16 ? Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(x[i]))
                                                  : Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(x[i]));
      std::memcpy(&out[2 * i], &bits, 2);
    }
  }
}

std::vector<float> decode(const std::vector<unsigned char>& in, DType t) {
  const std::size_t count = in.size() / static_cast<std::size_t>(bytes_of(t));
  std::vector<float> x(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (t == DType::fp32) {
      std::memcpy(&x[i], &in[4 * i], 4);
    } else {
      std::uint16_t bits;
      std::memcpy(&bits, &in[2 * i], 2);
      x[i] = t == DType::fp16 ? static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits))
                              : static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
    }
  }
  return x;
}

}  // namespace

std::string_view name(KernelVersion v) {
  switch (v) {
    case KernelVersion::naive: return "naive";
    case KernelVersion::flash2: return "flash2-fp32";
    case KernelVersion::flash1: return "flash1-fp32";
    case KernelVersion::flash2_mma: return "flash2-mma";
    case KernelVersion::naive_cublas: return "naive-cublas";
    case KernelVersion::flash2_fast: return "flash2-fast";
    case KernelVersion::flash2_hopper: return "flash2-hopper";
  }
  return "?";
}

std::optional<KernelVersion> parse_version(std::string_view text) {
  if (text == "cublas") return KernelVersion::naive_cublas;
  for (KernelVersion v : kAllVersions)
    if (text == name(v) || text == std::to_string(static_cast<int>(v))) return v;
  return std::nullopt;
}

bool counts_own_bytes(KernelVersion v) { return v != KernelVersion::naive_cublas; }

std::optional<std::string> unsupported_variant(const Workload& w) {
  std::string drop;
  auto add = [&](bool bad, const char* flag) {
    if (bad) drop += (drop.empty() ? "" : ", ") + std::string(flag);
  };
  add(w.window > 0, "--window");
  add(w.n_kv_heads() != w.heads, "--kv-heads");
  add(w.n_keys() != w.N, "--N-kv");
  add(w.page_size != 0, "--page-size");
  if (drop.empty()) return std::nullopt;
  return "the CUDA kernels compute plain or causal attention only (N_kv = N, no window, no GQA, no pages); "
         "drop " + drop + " for a GPU run (--causal is fine)";
}

ByteCounts naive_cublas_hbm(const Workload& w) {
  const std::int64_t e = w.elem_bytes(), head = w.bh() * w.N * w.d * e, scores = w.bh() * w.N * w.N * e;
  ByteCounts c{};
  auto at = [&](TensorId t) -> Traffic& { return c[static_cast<std::size_t>(index(t))]; };
  at(TensorId::Q) = {head, 0};
  at(TensorId::K) = {head, 0};
  at(TensorId::V) = {head, 0};
  at(TensorId::O) = {0, head};
  at(TensorId::S) = {scores, scores};  // written by GEMM 1, read by the softmax
  at(TensorId::P) = {scores, scores};  // written by the softmax, read by GEMM 2
  return c;
}

Algo algo_of(KernelVersion v) {
  switch (v) {
    case KernelVersion::naive:
    case KernelVersion::naive_cublas: return Algo::naive;
    case KernelVersion::flash1: return Algo::flash1;
    case KernelVersion::flash2:
    case KernelVersion::flash2_mma:
    case KernelVersion::flash2_fast:
    case KernelVersion::flash2_hopper: return Algo::flash2;
  }
  return Algo::flash2;
}

KernelVersion default_version(const Workload& w, const Mapping& m) {
  switch (m.algo) {
    case Algo::naive: return KernelVersion::naive;
    case Algo::flash1: return KernelVersion::flash1;
    case Algo::flash2:
    case Algo::decode: break;  // no decode kernel: unsupported() says so
  }
  return k::flash2_mma_supports(params(w, m, true)) ? KernelVersion::flash2_mma : KernelVersion::flash2;
}

std::optional<std::string> gpu_unavailable() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) cudaGetLastError();
  // Every reason ends in its fix; without a GPU, `fasim run` still simulates.
  const std::string elsewhere = "run on a machine with an NVIDIA GPU (`fasim run` simulates without one)";
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
    return "no CUDA device found; " + elsewhere;
  if (e == cudaErrorInsufficientDriver)
    return "no NVIDIA driver, or one older than CUDA runtime " + std::to_string(CUDART_VERSION / 1000) + "." +
           std::to_string(CUDART_VERSION % 1000 / 10) + " (" + cudaGetErrorString(e) +
           "); install or update the NVIDIA driver, or " + elsewhere;
  if (e != cudaSuccess)
    return std::string("no usable CUDA device (") + cudaGetErrorString(e) + "); check it with nvidia-smi, or " +
           elsewhere;
  cudaDeviceProp prop{};
  if (const cudaError_t p = cudaGetDeviceProperties(&prop, 0); p != cudaSuccess)
    return std::string("cannot read the GPU's properties (") + cudaGetErrorString(p) +
           "); check it with nvidia-smi, or " + elsewhere;
  const std::string sm = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  if (prop.major < 8)
    return std::string(prop.name) + " is " + sm +
           "; the kernels need sm_80 or newer (mma.sync with bf16): run on an A100, H100 or newer GPU "
           "(`fasim run` simulates without one)";
  if (const cudaError_t img = k::probe_kernel_image(); img != cudaSuccess) {
    cudaGetLastError();
    return std::string(prop.name) + " (" + sm + ") cannot load the kernels (" + cudaGetErrorString(img) +
           "); rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(prop.major) +
           std::to_string(prop.minor);
  }
  return std::nullopt;
}

std::string gpu_description() {
  cudaDeviceProp prop{};
  FASIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
         ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
         std::to_string(prop.sharedMemPerBlockOptin / 1024) + " KiB shared memory per block)";
}

std::optional<std::string> unsupported(KernelVersion v, const Workload& w, const Mapping& m,
                                       bool rows_fit) {
  const std::string who = "CUDA kernel " + std::to_string(static_cast<int>(v)) + " (" +
                          std::string(name(v)) + ")";
  if (m.algo == Algo::decode)
    return "no CUDA kernel runs decode (split-KV); use --algo naive, flash1 or flash2 for a GPU run";
  if (m.algo != algo_of(v))
    return who + " runs " + std::string(name(algo_of(v))) + ", not " + std::string(name(m.algo)) +
           "; pass --algo " + std::string(name(algo_of(v))) + " or pick a version of " + std::string(name(m.algo));
  if (auto why = unsupported_variant(w)) return who + ": " + *why;
  if (w.bh() * w.N * std::max<std::int64_t>(w.N, w.d) >= (std::int64_t{1} << 40) ||
      w.bh() * (w.N / m.br + 1) >= (std::int64_t{1} << 31) ||
      (v == KernelVersion::naive_cublas && w.bh() * w.N >= (std::int64_t{1} << 31)))
    return who + ": the shape is too large for one GPU run; use smaller --N, --batch or --heads";
  if (v == KernelVersion::naive_cublas) {
    if (m.blocks_per_sm > 0)
      return who + ": cuBLAS launches its own GEMMs, so their blocks per SM cannot be held; drop "
             "--blocks-per-sm or use kernel 1 (naive)";
    if (const std::string why = k::cublas_unavailable(); !why.empty()) return who + ": " + why;
  }
  const k::Params p = params(w, m, rows_fit);
  if (v == KernelVersion::flash2_mma && !k::flash2_mma_supports(p))
    return who + " runs fp16/bf16 with Br, Bc, d in {64, 128}; got " + std::string(name(w.dtype)) +
           ", Br=" + to_s(m.br) + ", Bc=" + to_s(m.bc) + ", d=" + to_s(w.d) +
           "; use those tiles or kernel 2 (flash2-fp32)";
  if (v == KernelVersion::flash2_fast && !k::flash2_fast_supports(p))
    return who + " runs fp16/bf16 with Br in {64, 128} and (d = 64, Bc in {64, 128}) or (d = 128, Bc = 64); got " +
           std::string(name(w.dtype)) + ", Br=" + to_s(m.br) + ", Bc=" + to_s(m.bc) + ", d=" + to_s(w.d) +
           "; use those tiles or kernel 4 (flash2-mma)";
  if (v == KernelVersion::flash2_hopper && !k::flash2_hopper_supports(p))
    return who + " runs fp16/bf16 with Br = 128 and Bc, d in {64, 128}; got " + std::string(name(w.dtype)) +
           ", Br=" + to_s(m.br) + ", Bc=" + to_s(m.bc) + ", d=" + to_s(w.d) +
           "; use those tiles or kernel 6 (flash2-fast)";
  if (v == KernelVersion::flash2_hopper && !k::flash2_hopper_built())
    return who + " was not built: it needs the sm_90a target; rebuild with -DCMAKE_CUDA_ARCHITECTURES=90 "
           "(Hopper), or use kernel 6 (flash2-fast)";
  const bool fp32_tiles = v == KernelVersion::naive || v == KernelVersion::flash2 || v == KernelVersion::flash1;
  if (fp32_tiles && m.br * w.d > k::kThreads * k::kOutPerThread)
    return who + " keeps the (Br, d) output tile in registers: Br*d must be <= " +
           to_s(k::kThreads * k::kOutPerThread) + ", got Br=" + to_s(m.br) + ", d=" + to_s(w.d) +
           "; use a smaller --br";
  if (gpu_unavailable()) return std::nullopt;  // the rest needs the GPU's figures
  cudaDeviceProp prop{};
  FASIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (v == KernelVersion::flash2_hopper && (prop.major != 9 || prop.minor != 0))
    return who + " runs on Hopper (sm_90: H100, H200) only; " + prop.name + " is sm_" +
           std::to_string(prop.major) + std::to_string(prop.minor) + ": use kernel 6 (flash2-fast)";
  const std::size_t need = shared_bytes(v, p);
  if (need > prop.sharedMemPerBlockOptin)
    return who + " needs " + to_s(static_cast<std::int64_t>(need)) + " B of shared memory per block; " +
           prop.name + " gives " + to_s(static_cast<std::int64_t>(prop.sharedMemPerBlockOptin)) +
           (v == KernelVersion::naive_cublas
                ? " B for one row of S; use a smaller --N"
                : v == KernelVersion::naive && rows_fit
                ? " B; the simulated device's SRAM is larger than this GPU's: simulate this GPU"
                : " B; use smaller --br or --bc");
  return std::nullopt;
}

Inputs random_inputs(const Workload& w, std::uint64_t seed) {
  Inputs in;
  std::mt19937_64 rng(seed);
  for (std::vector<float>* t : {&in.q, &in.k, &in.v}) {
    std::normal_distribution<float> normal(0.0f, 1.0f);  // one per tensor, as the simulator
    t->resize(static_cast<std::size_t>(w.bh() * w.N * w.d));
    for (float& x : *t) x = round_to(w.dtype, normal(rng));
  }
  return in;
}

struct DeviceRun::Buffers {
  Workload w;
  KernelVersion version;
  k::Params p;
  k::Blas* blas = nullptr;  ///< version 5's cuBLAS handle
  std::vector<void*> owned;
  std::vector<std::pair<void*, std::size_t>> poisoned;
  k::Occupancy occupancy;  ///< what the last counting launch's kernels got

  void* alloc(std::size_t bytes, bool poison) {
    void* ptr = nullptr;
    FASIM_CUDA_CHECK(cudaMalloc(&ptr, bytes));
    owned.push_back(ptr);
    if (poison) poisoned.emplace_back(ptr, bytes);
    return ptr;
  }
  ~Buffers() {
    k::blas_destroy(blas);
    for (void* ptr : owned) cudaFree(ptr);
  }
};

DeviceRun::DeviceRun(const Workload& w, const Mapping& m, const RunOptions& options)
    : b_(std::make_unique<Buffers>()) {
  if (auto why = gpu_unavailable()) throw UserError(*why);
  if (auto why = unsupported(options.version, w, m, options.rows_fit)) throw UserError(*why);
  b_->w = w;
  b_->version = options.version;
  b_->p = params(w, m, options.rows_fit);
  k::Params& p = b_->p;
  const std::size_t b = static_cast<std::size_t>(w.elem_bytes());
  const std::size_t head = static_cast<std::size_t>(w.bh() * w.N * w.d) * b;
  const std::size_t rows = static_cast<std::size_t>(w.bh() * w.N) * sizeof(float);
  const std::size_t scores = static_cast<std::size_t>(w.bh() * w.N * w.N) * b;
  const Algo a = algo_of(options.version);
  const std::size_t total = options.pad_bytes + 4 * head + (a == Algo::naive ? 2 * scores : 2 * rows);
  std::size_t free_bytes = 0, total_bytes = 0;
  FASIM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (total > free_bytes)
    throw UserError("this run needs " + to_s(static_cast<std::int64_t>(total >> 20)) +
                    " MiB of GPU memory, " + to_s(static_cast<std::int64_t>(free_bytes >> 20)) +
                    " MiB are free; use smaller --N, --batch or --heads");
  if (options.pad_bytes > 0) b_->alloc(options.pad_bytes, false);  // moves the tensors' pages
  p.q = b_->alloc(head, false);
  p.k = b_->alloc(head, false);
  p.v = b_->alloc(head, false);
  p.o = b_->alloc(head, true);
  if (a == Algo::naive) {
    p.s = b_->alloc(scores, true);
    p.p = b_->alloc(scores, true);
  } else if (a == Algo::flash1) {
    p.m = static_cast<float*>(b_->alloc(rows, true));
    p.l = static_cast<float*>(b_->alloc(rows, true));
  } else {
    p.lse = static_cast<float*>(b_->alloc(rows, true));
  }
  p.counters = static_cast<unsigned long long*>(
      b_->alloc(k::kCounterSlots * sizeof(unsigned long long), false));
  reset_counters();
  if (options.version == KernelVersion::naive_cublas) {
    std::string why;
    b_->blas = k::blas_create(why);
    if (b_->blas == nullptr) throw CudaError("cuBLAS: " + why);
  }
}

DeviceRun::~DeviceRun() = default;

void DeviceRun::upload(const Inputs& in) {
  const std::size_t elems = static_cast<std::size_t>(b_->w.bh() * b_->w.N * b_->w.d);
  if (in.q.size() != elems || in.k.size() != elems || in.v.size() != elems)
    throw UserError("Q, K and V need " + std::to_string(elems) + " values each (batch*heads x N x d)");
  std::vector<unsigned char> bytes;
  const std::pair<const std::vector<float>*, const void*> tensors[] = {
      {&in.q, b_->p.q}, {&in.k, b_->p.k}, {&in.v, b_->p.v}};
  for (const auto& [host, dev] : tensors) {
    encode(*host, b_->w.dtype, bytes);
    FASIM_CUDA_CHECK(cudaMemcpy(const_cast<void*>(dev), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  }
  for (const auto& [ptr, size] : b_->poisoned) FASIM_CUDA_CHECK(cudaMemset(ptr, 0xFF, size));  // NaN in every dtype
  reset_counters();
}

void DeviceRun::reset_counters() {
  FASIM_CUDA_CHECK(cudaMemset(b_->p.counters, 0, k::kCounterSlots * sizeof(unsigned long long)));
}

void DeviceRun::launch(bool count) {
  k::Params p = b_->p;
  if (!count) p.counters = nullptr;
  if (count) {  // counting launches are not timed: the occupancy query costs nothing there
    b_->occupancy = {};
    p.occupancy = &b_->occupancy;
  }
  switch (b_->version) {
    case KernelVersion::naive: FASIM_CUDA_CHECK(k::launch_naive(p, nullptr)); break;
    case KernelVersion::flash2: FASIM_CUDA_CHECK(k::launch_flash2(p, nullptr)); break;
    case KernelVersion::flash1: FASIM_CUDA_CHECK(k::launch_flash1(p, nullptr)); break;
    case KernelVersion::flash2_mma: FASIM_CUDA_CHECK(k::launch_flash2_mma(p, nullptr)); break;
    case KernelVersion::flash2_fast: FASIM_CUDA_CHECK(k::launch_flash2_fast(p, nullptr)); break;
    case KernelVersion::flash2_hopper: FASIM_CUDA_CHECK(k::launch_flash2_hopper(p, nullptr)); break;
    case KernelVersion::naive_cublas:
      if (const std::string e = k::launch_naive_cublas(p, b_->blas, nullptr); !e.empty())
        throw CudaError("CUDA error in version 5 (naive-cublas), " + e);
      break;
  }
}

void DeviceRun::synchronize() { FASIM_CUDA_CHECK(cudaDeviceSynchronize()); }

RunResult DeviceRun::read() {
  synchronize();
  const Workload& w = b_->w;
  RunResult r;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(w.bh() * w.N * w.d * w.elem_bytes()));
  FASIM_CUDA_CHECK(cudaMemcpy(bytes.data(), b_->p.o, bytes.size(), cudaMemcpyDeviceToHost));
  r.o = decode(bytes, w.dtype);
  if (b_->p.lse != nullptr) {
    r.lse.resize(static_cast<std::size_t>(w.bh() * w.N));
    FASIM_CUDA_CHECK(cudaMemcpy(r.lse.data(), b_->p.lse, r.lse.size() * sizeof(float), cudaMemcpyDeviceToHost));
  }
  unsigned long long c[k::kCounterSlots];
  FASIM_CUDA_CHECK(cudaMemcpy(c, b_->p.counters, sizeof c, cudaMemcpyDeviceToHost));
  for (int t = 0; t < kTensorCount; ++t)
    r.hbm[static_cast<std::size_t>(t)] = {static_cast<std::int64_t>(c[2 * t + k::kRead]),
                                          static_cast<std::int64_t>(c[2 * t + k::kWrite])};
  if (!counts_own_bytes(b_->version)) {
    r.hbm = naive_cublas_hbm(w);
    r.hbm_counted = false;
  }
  r.blocks_per_sm.assign(b_->occupancy.blocks_per_sm, b_->occupancy.blocks_per_sm + b_->occupancy.kernels);
  return r;
}

RunResult run(const Workload& w, const Mapping& m, const Inputs& in, const RunOptions& options) {
  DeviceRun dr(w, m, options);
  dr.upload(in);
  dr.launch(options.count);
  return dr.read();
}

}  // namespace fasim::cuda
