#pragma once
// Memory figures for the live chart and the benchmarks, cheap enough to sample at 20 Hz from any
// thread:
//   - tensor bytes allocated by LibTorch's CPU allocator on threads inside a TensorMemoryScope
//     (exact, from c10's memory reporting; excludes BLAS/oneDNN scratch, which RSS shows);
//   - process RSS and its high-water mark (VmRSS / VmHWM in /proc/self/status);
//   - the CUDA caching allocator's statistics in CUDA builds;
//   - device memory as nvidia-smi sees it, via NVML when libnvidia-ml.so.1 can be loaded.
#include <atomic>
#include <cstdint>
#include <memory>

namespace gs::tensor {

// Counters fed by c10's allocator reports. Thread-safe; shared by the scopes that feed it.
class TensorMemoryTracker {
 public:
  int64_t current() const { return current_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  // Starts a new peak window at the current level.
  void resetPeak() { peak_.store(current(), std::memory_order_relaxed); }
  void record(int64_t delta);

 private:
  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> peak_{0};
};

// While alive, CPU tensor allocations and frees on this thread are reported to `tracker`
// (c10's reporting is thread-local: create the scope on the thread that runs the model).
class TensorMemoryScope {
 public:
  explicit TensorMemoryScope(std::shared_ptr<TensorMemoryTracker> tracker);
  ~TensorMemoryScope();
  TensorMemoryScope(const TensorMemoryScope&) = delete;
  TensorMemoryScope& operator=(const TensorMemoryScope&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct MemorySample {
  int64_t tensor_bytes = -1;  // -1 = not measured
  int64_t tensor_peak_bytes = -1;
  int64_t rss_bytes = -1;
  int64_t rss_peak_bytes = -1;  // since process start (VmHWM)
  int64_t cuda_allocated_bytes = -1;
  int64_t cuda_peak_allocated_bytes = -1;
  int64_t cuda_reserved_bytes = -1;
  int64_t device_used_bytes = -1;  // NVML, whole device
  int64_t device_total_bytes = -1;
};

// Reads /proc/self/status; -1 fields where unavailable.
void readProcessMemory(int64_t* rss, int64_t* rss_peak);
// Resets the process's peak RSS (VmHWM) to its current RSS (Linux: "5" to /proc/self/clear_refs),
// so the next peak measures one phase alone. False where the kernel does not allow it.
bool resetProcessPeak();

class MemoryProbe {
 public:
  explicit MemoryProbe(std::shared_ptr<TensorMemoryTracker> tracker = nullptr, int cuda_device = -1);
  MemorySample sample() const;
  bool nvmlAvailable() const;

 private:
  std::shared_ptr<TensorMemoryTracker> tracker_;
  int cuda_device_;
};

}  // namespace gs::tensor
