#pragma once
// The server's counters and histograms, rendered in the Prometheus text format (version 0.0.4):
// base units (seconds), counters ending in _total, histograms with cumulative `le` buckets.
// Thread-safe: any thread records, GET /metrics renders.
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "tensor/memory_probe.h"

namespace gs::serve {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
  void render(std::ostream& out, const std::string& name, const std::string& help) const;
  int64_t count() const;
  double sum() const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mutex_;
  std::vector<int64_t> counts_;  // per bucket, not cumulative; the last is +Inf
  double sum_ = 0;
};

// Gauges the server reads at render time.
struct GaugeSnapshot {
  bool ready = false, draining = false;
  int64_t queue_molecules = 0, queue_bytes = 0, requests_in_flight = 0, connections = 0;
  int workers = 0;
  std::string model_name, model_sha256, precision, device;
  tensor::MemorySample memory;  // -1 fields where not measured
  int64_t out_of_memory_retries = 0;
  double uptime_seconds = 0;
};

class Metrics {
 public:
  Metrics();
  void countRequest(const std::string& endpoint, int http_status);
  void countMolecules(const std::string& status, int64_t n);
  void countRejection(const std::string& reason);
  void countReload(bool ok);
  // One scheduler batch handed to the engine: its molecules, heavy atoms and time.
  void observeBatch(int64_t molecules, int64_t atoms, double compute_seconds);
  // Forward passes of the served model (the engine may split a batch by size).
  void countForwardPasses(int64_t n) { forward_passes_.fetch_add(n); }

  Histogram queue_seconds, request_seconds;
  int64_t forwardPasses() const { return forward_passes_.load(); }
  int64_t batchedMolecules() const { return batched_molecules_.load(); }
  std::string render(const GaugeSnapshot& gauges) const;

 private:
  Histogram compute_seconds_, batch_molecules_, batch_atoms_;
  std::atomic<int64_t> forward_passes_{0}, batched_molecules_{0};
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, int64_t> requests_;
  std::map<std::string, int64_t> molecules_, rejections_;
  std::array<int64_t, 2> reloads_{0, 0};  // failed, ok
};

}  // namespace gs::serve
