#include "serve/metrics.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace gs::serve {
namespace {

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Label values escape backslash, quote and newline.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void header(std::ostream& out, const std::string& name, const char* type, const std::string& help) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
}

void gauge(std::ostream& out, const std::string& name, const std::string& help, double v) {
  header(out, name, "gauge", help);
  out << name << ' ' << number(v) << '\n';
}

void optionalGauge(std::ostream& out, const std::string& name, const std::string& help, int64_t v) {
  if (v >= 0) gauge(out, name, help, static_cast<double>(v));
}

std::vector<double> secondsBuckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  size_t b = 0;
  while (b < bounds_.size() && value > bounds_[b]) ++b;
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_[b];
  sum_ += value;
}

int64_t Histogram::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t n = 0;
  for (int64_t c : counts_) n += c;
  return n;
}

double Histogram::sum() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sum_;
}

void Histogram::render(std::ostream& out, const std::string& name, const std::string& help) const {
  std::lock_guard<std::mutex> lock(mutex_);
  header(out, name, "histogram", help);
  int64_t cumulative = 0;
  for (size_t b = 0; b <= bounds_.size(); ++b) {
    cumulative += counts_[b];
    const double le = b < bounds_.size() ? bounds_[b] : INFINITY;
    out << name << "_bucket{le=\"" << number(le) << "\"} " << cumulative << '\n';
  }
  out << name << "_sum " << number(sum_) << '\n' << name << "_count " << cumulative << '\n';
}

Metrics::Metrics()
    : queue_seconds(secondsBuckets()),
      request_seconds(secondsBuckets()),
      compute_seconds_(secondsBuckets()),
      batch_molecules_({1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}),
      batch_atoms_({32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768}) {}

void Metrics::countRequest(const std::string& endpoint, int http_status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, http_status}];
}

void Metrics::countMolecules(const std::string& status, int64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  molecules_[status] += n;
}

void Metrics::countRejection(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++rejections_[reason];
}

void Metrics::countReload(bool ok) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++reloads_[ok ? 1 : 0];
}

void Metrics::observeBatch(int64_t molecules, int64_t atoms, double compute_seconds) {
  batched_molecules_.fetch_add(molecules);
  batch_molecules_.observe(static_cast<double>(molecules));
  batch_atoms_.observe(static_cast<double>(atoms));
  compute_seconds_.observe(compute_seconds);
}

std::string Metrics::render(const GaugeSnapshot& g) const {
  std::ostringstream out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    header(out, "graphormer_requests_total", "counter", "HTTP requests by endpoint and status code.");
    for (const auto& [key, n] : requests_)
      out << "graphormer_requests_total{endpoint=\"" << label(key.first) << "\",code=\"" << key.second << "\"} " << n
          << '\n';
    header(out, "graphormer_molecules_total", "counter", "Molecules answered, by per-molecule status.");
    for (const auto& [status, n] : molecules_)
      out << "graphormer_molecules_total{status=\"" << label(status) << "\"} " << n << '\n';
    header(out, "graphormer_rejections_total", "counter", "Requests refused before compute, by reason.");
    for (const auto& [reason, n] : rejections_)
      out << "graphormer_rejections_total{reason=\"" << label(reason) << "\"} " << n << '\n';
    header(out, "graphormer_reloads_total", "counter", "Model reloads by result.");
    out << "graphormer_reloads_total{result=\"ok\"} " << reloads_[1] << "\ngraphormer_reloads_total{result=\"failed\"} "
        << reloads_[0] << '\n';
  }
  header(out, "graphormer_forward_passes_total", "counter", "Forward passes of the served model.");
  out << "graphormer_forward_passes_total " << forward_passes_.load() << '\n';
  header(out, "graphormer_batched_molecules_total", "counter", "Molecules run through the model.");
  out << "graphormer_batched_molecules_total " << batched_molecules_.load() << '\n';
  queue_seconds.render(out, "graphormer_queue_duration_seconds", "Time a molecule waited in the queue.");
  compute_seconds_.render(out, "graphormer_compute_duration_seconds", "Time of one batch (featurize + forward).");
  request_seconds.render(out, "graphormer_request_duration_seconds", "Time from a request's body to its response.");
  batch_molecules_.render(out, "graphormer_batch_molecules", "Molecules per batch handed to the engine.");
  batch_atoms_.render(out, "graphormer_batch_atoms", "Heavy atoms per batch handed to the engine.");
  gauge(out, "graphormer_ready", "1 when the model is loaded and warm and the server is not draining.",
        g.ready ? 1 : 0);
  gauge(out, "graphormer_draining", "1 after SIGTERM.", g.draining ? 1 : 0);
  gauge(out, "graphormer_queue_molecules", "Molecules admitted and not yet computed.",
        static_cast<double>(g.queue_molecules));
  gauge(out, "graphormer_queue_bytes", "Bytes of SMILES admitted and not yet computed.",
        static_cast<double>(g.queue_bytes));
  gauge(out, "graphormer_requests_in_flight", "Requests admitted and not yet answered.",
        static_cast<double>(g.requests_in_flight));
  gauge(out, "graphormer_connections", "Open client connections.", static_cast<double>(g.connections));
  gauge(out, "graphormer_workers", "Inference worker threads.", g.workers);
  gauge(out, "graphormer_out_of_memory_retries", "Batches split after an out-of-memory error.",
        static_cast<double>(g.out_of_memory_retries));
  gauge(out, "graphormer_uptime_seconds", "Seconds since the server started.", g.uptime_seconds);
  optionalGauge(out, "graphormer_tensor_bytes", "CPU tensor memory of the inference threads.", g.memory.tensor_bytes);
  optionalGauge(out, "graphormer_process_resident_bytes", "Resident set size of the server.", g.memory.rss_bytes);
  optionalGauge(out, "graphormer_cuda_allocated_bytes", "CUDA caching allocator: allocated.",
                g.memory.cuda_allocated_bytes);
  optionalGauge(out, "graphormer_cuda_reserved_bytes", "CUDA caching allocator: reserved.",
                g.memory.cuda_reserved_bytes);
  optionalGauge(out, "graphormer_device_used_bytes", "GPU memory in use (NVML, whole device).",
                g.memory.device_used_bytes);
  optionalGauge(out, "graphormer_device_total_bytes", "GPU memory (NVML).", g.memory.device_total_bytes);
  header(out, "graphormer_model_info", "gauge", "The served model.");
  out << "graphormer_model_info{name=\"" << label(g.model_name) << "\",sha256=\"" << label(g.model_sha256)
      << "\",precision=\"" << label(g.precision) << "\",device=\"" << label(g.device) << "\"} 1\n";
  return out.str();
}

}  // namespace gs::serve
