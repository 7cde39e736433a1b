#pragma once
// Every LibTorch-version and CUDA difference lives here; the rest of core uses device-generic
// calls. Builds against LibTorch 1.13 (Debian, CPU) and 2.x (PyTorch wheels, CUDA).
//   - autocast: 1.13 has per-backend setters (set_cpu_enabled, set_autocast_cpu_dtype); 2.4
//     replaced them with set_autocast_enabled(DeviceType, bool) / set_autocast_dtype.
//   - CUDA allocator statistics exist only in CUDA builds (GS_WITH_CUDA, set by CMake); their
//     StatType moved from c10::cuda::CUDACachingAllocator to c10::CachingDeviceAllocator.
//   - c10::MemoryReportingInfoBase::reportMemoryUsage took int64_t totals in 1.13 and size_t
//     later: MemoryReportTotal is whatever this LibTorch declares.
#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace gs::compat {

namespace detail {
template <typename F>
struct ThirdParameter;
template <typename C, typename R, typename A1, typename A2, typename A3, typename A4, typename A5>
struct ThirdParameter<R (C::*)(A1, A2, A3, A4, A5)> {
  using type = A3;
};
}  // namespace detail
// The type of the totals in c10::MemoryReportingInfoBase::reportMemoryUsage.
using MemoryReportTotal = detail::ThirdParameter<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::type;

// Enables autocast for one device type and dtype for the guard's lifetime, restoring the previous
// state after; the outermost guard clears the autocast weight cache. Thread-local, like autocast.
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, bool enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  bool active_ = false;
  bool prev_enabled_ = false;
  c10::ScalarType prev_dtype_ = c10::ScalarType::Float;
};

// Turns autocast off (CPU and CUDA) for its lifetime, for the few products that must stay in fp32.
class AutocastSuspend {
 public:
  AutocastSuspend();
  ~AutocastSuspend();
  AutocastSuspend(const AutocastSuspend&) = delete;
  AutocastSuspend& operator=(const AutocastSuspend&) = delete;

 private:
  bool cpu_ = false, cuda_ = false;
};

// Whether this build's autocast supports `dtype` on `device` (CPU: bfloat16 only in 1.13).
bool autocastSupports(c10::DeviceType device, c10::ScalarType dtype);

// Selects oneDNN (or, failing that, any available engine but QNNPACK, which is slower than fp32 on
// x86) for quantized ops. False with a message when no int8 engine exists.
bool selectInt8Engine(std::string* error);

// Intra-op threads for LibTorch and for the BLAS it links: OpenBLAS keeps its own pool, which
// at::set_num_threads does not reach, so a "one thread" run would otherwise use every core.
// Process-wide: every session, trainer and explanation in the process shares these pools. It is
// set when a command or the app opens its model runner (engine::InferenceSession::create,
// Trainer::fit, engine::explain), never per batch; threads <= 0 leaves the current setting
// (LibTorch's default: one per core). A server sets it once and opens its sessions with 0.
void setThreads(int threads);
// The intra-op thread count now in effect (at::get_num_threads).
int threads();

// "cpu", "cuda" or "cuda:N", refused with a message when this build or machine cannot run it.
Result<c10::Device> parseDevice(const std::string& name);

// The default generator's state for a device (CPU or CUDA), and restoring it: activation
// checkpointing replays dropout with these.
at::Tensor rngState(const c10::Device& device);
void setRngState(const c10::Device& device, const at::Tensor& state);

bool cudaAvailable();
// GPUs this process can see (0 without CUDA).
int cudaDeviceCount();
void synchronize(c10::DeviceType device);

struct CudaAllocatorStats {
  bool available = false;
  int64_t allocated = 0, peak_allocated = 0, reserved = 0, peak_reserved = 0;
};
CudaAllocatorStats cudaAllocatorStats(int device_index);
void cudaResetPeak(int device_index);
// Returns the CUDA caching allocator's unused blocks to the driver (after an out-of-memory error);
// nothing on the CPU.
void releaseCachedMemory(c10::DeviceType device);
// Whether an error message is an allocation failure (CUDA "out of memory", the CPU allocator's
// "not enough memory"), the errors a smaller batch or more checkpointing can avoid.
bool isOutOfMemory(const std::string& message);

// "1.13.1" style version of the LibTorch this binary was compiled against, and "+cuda" when built
// with CUDA.
std::string torchVersion();

}  // namespace gs::compat
