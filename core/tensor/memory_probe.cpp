#include "tensor/memory_probe.h"

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "tensor/torch_compat.h"

namespace gs::tensor {
namespace {

class Reporter final : public c10::MemoryReportingInfoBase {
 public:
  explicit Reporter(std::shared_ptr<TensorMemoryTracker> t) : tracker_(std::move(t)) {}
  void reportMemoryUsage(void*, int64_t alloc_size, compat::MemoryReportTotal, compat::MemoryReportTotal,
                         c10::Device device) override {
    if (device.is_cpu()) tracker_->record(alloc_size);
  }
  bool memoryProfilingEnabled() const override { return true; }

 private:
  std::shared_ptr<TensorMemoryTracker> tracker_;
};

// NVML through dlopen: no link-time dependency on the driver.
struct Nvml {
  using Init = int (*)();
  using Handle = int (*)(unsigned, void**);
  struct Info {
    unsigned long long total, free, used;
  };
  using MemInfo = int (*)(void*, Info*);
  void* lib = nullptr;
  Handle handle = nullptr;
  MemInfo mem_info = nullptr;
  bool ok = false;

  static Nvml& get() {
    static Nvml nvml;
    static std::once_flag once;
    std::call_once(once, [] {
      nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
      if (!nvml.lib) return;
      auto init = reinterpret_cast<Init>(dlsym(nvml.lib, "nvmlInit_v2"));
      nvml.handle = reinterpret_cast<Handle>(dlsym(nvml.lib, "nvmlDeviceGetHandleByIndex_v2"));
      nvml.mem_info = reinterpret_cast<MemInfo>(dlsym(nvml.lib, "nvmlDeviceGetMemoryInfo"));
      nvml.ok = init && nvml.handle && nvml.mem_info && init() == 0;
    });
    return nvml;
  }
  bool read(int index, int64_t* used, int64_t* total) const {
    void* device = nullptr;
    Info info{};
    if (!ok || handle(static_cast<unsigned>(index), &device) != 0 || mem_info(device, &info) != 0) return false;
    *used = static_cast<int64_t>(info.used);
    *total = static_cast<int64_t>(info.total);
    return true;
  }
};

}  // namespace

void TensorMemoryTracker::record(int64_t delta) {
  int64_t now = current_.fetch_add(delta, std::memory_order_relaxed) + delta;
  if (now < 0) {  // a free of memory allocated outside the scope
    current_.fetch_sub(now, std::memory_order_relaxed);
    now = 0;
  }
  int64_t prev = peak_.load(std::memory_order_relaxed);
  while (now > prev && !peak_.compare_exchange_weak(prev, now, std::memory_order_relaxed)) {
  }
}

struct TensorMemoryScope::Impl {
  explicit Impl(std::shared_ptr<TensorMemoryTracker> t)
      : guard(c10::DebugInfoKind::PROFILER_STATE, std::make_shared<Reporter>(std::move(t))) {}
  c10::DebugInfoGuard guard;
};

TensorMemoryScope::TensorMemoryScope(std::shared_ptr<TensorMemoryTracker> tracker)
    : impl_(std::make_unique<Impl>(std::move(tracker))) {}
TensorMemoryScope::~TensorMemoryScope() = default;

void readProcessMemory(int64_t* rss, int64_t* rss_peak) {
  *rss = *rss_peak = -1;
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    long long kb = 0;
    if (std::sscanf(line, "VmRSS: %lld kB", &kb) == 1)
      *rss = kb * 1024;
    else if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1)
      *rss_peak = kb * 1024;
  }
  std::fclose(f);
}

bool resetProcessPeak() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

MemoryProbe::MemoryProbe(std::shared_ptr<TensorMemoryTracker> tracker, int cuda_device)
    : tracker_(std::move(tracker)), cuda_device_(cuda_device) {}

bool MemoryProbe::nvmlAvailable() const { return Nvml::get().ok; }

MemorySample MemoryProbe::sample() const {
  MemorySample s;
  if (tracker_) {
    s.tensor_bytes = tracker_->current();
    s.tensor_peak_bytes = tracker_->peak();
  }
  readProcessMemory(&s.rss_bytes, &s.rss_peak_bytes);
  if (cuda_device_ >= 0) {
    const auto cuda = compat::cudaAllocatorStats(cuda_device_);
    if (cuda.available) {
      s.cuda_allocated_bytes = cuda.allocated;
      s.cuda_peak_allocated_bytes = cuda.peak_allocated;
      s.cuda_reserved_bytes = cuda.reserved;
    }
    Nvml::get().read(cuda_device_, &s.device_used_bytes, &s.device_total_bytes);
  }
  return s;
}

}  // namespace gs::tensor
