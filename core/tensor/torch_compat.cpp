#include "tensor/torch_compat.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <algorithm>
#include <mutex>

#ifdef GS_WITH_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#if __has_include(<c10/core/CachingDeviceAllocator.h>)
#include <c10/core/CachingDeviceAllocator.h>
namespace gs_cuda_stats = c10::CachingDeviceAllocator;  // 2.x: the device-generic allocator stats
#else
namespace gs_cuda_stats = c10::cuda::CUDACachingAllocator;
#endif
#endif

#define GS_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace gs::compat {
namespace {

bool autocastEnabled(c10::DeviceType device) {
#if GS_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

c10::ScalarType autocastDtype(c10::DeviceType device) {
#if GS_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                        : at::autocast::get_autocast_gpu_dtype();
#endif
}

void setAutocast(c10::DeviceType device, bool enabled, c10::ScalarType dtype) {
#if GS_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(device, enabled);
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

}  // namespace

AutocastGuard::AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, bool enabled) : device_(device) {
  if (!enabled) return;
  active_ = true;
  prev_enabled_ = autocastEnabled(device);
  prev_dtype_ = autocastDtype(device);
  setAutocast(device, true, dtype);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  setAutocast(device_, prev_enabled_, prev_dtype_);
}

AutocastSuspend::AutocastSuspend()
    : cpu_(autocastEnabled(c10::DeviceType::CPU)), cuda_(autocastEnabled(c10::DeviceType::CUDA)) {
  if (cpu_) setAutocast(c10::DeviceType::CPU, false, autocastDtype(c10::DeviceType::CPU));
  if (cuda_) setAutocast(c10::DeviceType::CUDA, false, autocastDtype(c10::DeviceType::CUDA));
}

AutocastSuspend::~AutocastSuspend() {
  if (cpu_) setAutocast(c10::DeviceType::CPU, true, autocastDtype(c10::DeviceType::CPU));
  if (cuda_) setAutocast(c10::DeviceType::CUDA, true, autocastDtype(c10::DeviceType::CUDA));
}

bool autocastSupports(c10::DeviceType device, c10::ScalarType dtype) {
  if (device == c10::DeviceType::CUDA) return dtype == c10::ScalarType::Half || dtype == c10::ScalarType::BFloat16;
  if (device != c10::DeviceType::CPU) return false;
#if GS_TORCH_AT_LEAST(2, 0)
  return dtype == c10::ScalarType::BFloat16 || dtype == c10::ScalarType::Half;
#else
  return dtype == c10::ScalarType::BFloat16;
#endif
}

bool selectInt8Engine(std::string* error) {
  auto& ctx = at::globalContext();
  const auto engines = ctx.supportedQEngines();
  auto has = [&](at::QEngine e) { return std::find(engines.begin(), engines.end(), e) != engines.end(); };
  if (ctx.qEngine() != at::QEngine::QNNPACK && ctx.qEngine() != at::QEngine::NoQEngine) return true;
  for (at::QEngine e : {at::QEngine::ONEDNN, at::QEngine::FBGEMM}) {
    if (has(e)) {
      ctx.setQEngine(e);
      return true;
    }
  }
  if (error) *error = "this LibTorch build has no x86 int8 engine (oneDNN or FBGEMM)";
  return false;
}

int threads() { return at::get_num_threads(); }

Result<c10::Device> parseDevice(const std::string& name) {
  try {
    c10::Device device(name);
    if (device.is_cuda() && !cudaAvailable())
      return Status(StatusCode::InvalidArgument,
                    "device '" + name + "' requested but CUDA is not available in this build or on this machine");
    if (!device.is_cpu() && !device.is_cuda())
      return Status(StatusCode::InvalidArgument, "device '" + name + "' is not supported (cpu or cuda)");
    return device;
  } catch (const c10::Error&) {
    return Status(StatusCode::InvalidArgument, "unknown device '" + name + "' (cpu, cuda or cuda:N)");
  }
}

void setThreads(int threads) {
  if (threads <= 0) return;
  at::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(threads);
}

namespace {
at::Generator defaultGenerator(const c10::Device& device) {
#ifdef GS_WITH_CUDA
  if (device.is_cuda()) return at::cuda::detail::getDefaultCUDAGenerator(device.has_index() ? device.index() : 0);
#else
  (void)device;
#endif
  return at::detail::getDefaultCPUGenerator();
}
}  // namespace

at::Tensor rngState(const c10::Device& device) {
  auto gen = defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void setRngState(const c10::Device& device, const at::Tensor& state) {
  auto gen = defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

bool cudaAvailable() { return torch::cuda::is_available(); }

int cudaDeviceCount() { return cudaAvailable() ? static_cast<int>(torch::cuda::device_count()) : 0; }

void synchronize(c10::DeviceType device) {
  if (device == c10::DeviceType::CUDA && cudaAvailable()) torch::cuda::synchronize();
}

CudaAllocatorStats cudaAllocatorStats(int device_index) {
  CudaAllocatorStats s;
#ifdef GS_WITH_CUDA
  if (!cudaAvailable()) return s;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device_index));
  constexpr auto kAll = static_cast<size_t>(gs_cuda_stats::StatType::AGGREGATE);
  s.available = true;
  s.allocated = stats.allocated_bytes[kAll].current;
  s.peak_allocated = stats.allocated_bytes[kAll].peak;
  s.reserved = stats.reserved_bytes[kAll].current;
  s.peak_reserved = stats.reserved_bytes[kAll].peak;
#else
  (void)device_index;
#endif
  return s;
}

void cudaResetPeak(int device_index) {
#ifdef GS_WITH_CUDA
  if (cudaAvailable()) c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device_index));
#else
  (void)device_index;
#endif
}

void releaseCachedMemory(c10::DeviceType device) {
#ifdef GS_WITH_CUDA
  if (device == c10::DeviceType::CUDA && cudaAvailable()) c10::cuda::CUDACachingAllocator::emptyCache();
#else
  (void)device;
#endif
}

bool isOutOfMemory(const std::string& message) {
  return message.find("out of memory") != std::string::npos || message.find("not enough memory") != std::string::npos ||
         message.find("can't allocate memory") != std::string::npos;
}

std::string torchVersion() {
  std::string v = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                  std::to_string(TORCH_VERSION_PATCH);
#ifdef GS_WITH_CUDA
  v += "+cuda";
#endif
  return v;
}

}  // namespace gs::compat
