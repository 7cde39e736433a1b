#include "engine/train_memory.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "engine/activation_checkpoint.h"
#include "tensor/collate.h"
#include "tensor/memory_probe.h"
#include "tensor/torch_compat.h"

namespace gs::engine {
namespace {

using Clock = std::chrono::steady_clock;

std::string mib(double bytes) { return std::to_string(std::llround(bytes / (1024.0 * 1024.0))) + " MiB"; }

// One probe: peak bytes above the level before the pass, and its seconds.
struct Probe {
  double bytes = 0, seconds = 0;
};

// A line through two probes at pass sizes m1 < m2: value(m) = a + b·m.
struct Line {
  double a = 0, b = 0;
  static Line through(int m1, double v1, int m2, double v2) {
    Line l;
    l.b = m2 > m1 ? std::max(0.0, (v2 - v1) / (m2 - m1)) : 0.0;
    l.a = std::max(0.0, v1 - l.b * m1);
    return l;
  }
  double at(double m) const { return a + b * m; }
};

// Probes of one precision: memory and time per pass at ratio 0 and 1, linear in the pass size.
struct PrecisionModel {
  tensor::Precision precision = tensor::Precision::FP32;
  Line mem0, mem1, time0, time1;
  double memory(int m, double share) const { return mem0.at(m) + share * (mem1.at(m) - mem0.at(m)); }
  double seconds(int m, double share) const { return time0.at(m) + share * (time1.at(m) - time0.at(m)); }
};

// Measures the peak of a pass: LibTorch's CPU tensor memory on this thread, or the CUDA allocator.
class PeakMeter {
 public:
  explicit PeakMeter(const torch::Device& device) : device_(device) {
    if (!device.is_cuda()) scope_ = std::make_unique<tensor::TensorMemoryScope>(tracker_);
  }
  void start() {
    if (device_.is_cuda()) {
      compat::synchronize(device_.type());
      compat::cudaResetPeak(device_.index() < 0 ? 0 : device_.index());
      base_ = compat::cudaAllocatorStats(device_.index() < 0 ? 0 : device_.index()).allocated;
    } else {
      tracker_->resetPeak();
      base_ = tracker_->current();
    }
  }
  double peak() const {
    if (device_.is_cuda()) {
      compat::synchronize(device_.type());
      return double(compat::cudaAllocatorStats(device_.index() < 0 ? 0 : device_.index()).peak_allocated - base_);
    }
    return double(tracker_->peak() - base_);
  }

 private:
  torch::Device device_;
  std::shared_ptr<tensor::TensorMemoryTracker> tracker_ = std::make_shared<tensor::TensorMemoryTracker>();
  std::unique_ptr<tensor::TensorMemoryScope> scope_;
  int64_t base_ = 0;
};

struct ProbeSetup {
  model::Graphormer model{nullptr};
  std::vector<torch::Tensor> params;
  std::vector<const graph::Featurized*> largest;  // training molecules, largest first
  graph::CollateOptions collate;
  torch::Device device{torch::kCPU};
  int layers = 0;
};

// Forward + backward of the m largest molecules (gradients dropped after), measured the second time.
Probe probe(ProbeSetup& s, PeakMeter& meter, int m, double ratio, tensor::Precision precision) {
  const std::vector<const graph::Featurized*> mols(s.largest.begin(), s.largest.begin() + m);
  const auto runner = checkpointRunner(s.layers, ratio);
  const bool autocast = precision != tensor::Precision::FP32;
  const auto dtype = precision == tensor::Precision::FP16 ? torch::kHalf : torch::kBFloat16;
  Probe p;
  for (int rep = 0; rep < 2; ++rep) {
    meter.start();
    const auto t0 = Clock::now();
    {
      torch::Tensor out;
      {
        compat::AutocastGuard guard(s.device.type(), dtype, autocast);
        out = s.model->forward(tensor::collate(mols, s.collate).to(s.device), runner);
      }
      out.to(torch::kFloat).abs().mean().backward();
    }
    compat::synchronize(s.device.type());
    p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    p.bytes = std::max(p.bytes, meter.peak());
    for (auto param : s.params) param.mutable_grad() = torch::Tensor();
  }
  return p;
}

PrecisionModel probePrecision(ProbeSetup& s, PeakMeter& meter, int m1, int m2, tensor::Precision precision) {
  PrecisionModel pm;
  pm.precision = precision;
  const Probe a = probe(s, meter, m1, 0.0, precision), b = probe(s, meter, m2, 0.0, precision);
  const Probe c = probe(s, meter, m1, 1.0, precision), d = probe(s, meter, m2, 1.0, precision);
  pm.mem0 = Line::through(m1, a.bytes, m2, b.bytes);
  pm.mem1 = Line::through(m1, std::min(a.bytes, c.bytes), m2, std::min(b.bytes, d.bytes));
  pm.time0 = Line::through(m1, a.seconds, m2, b.seconds);
  pm.time1 = Line::through(m1, std::max(a.seconds, c.seconds), m2, std::max(b.seconds, d.seconds));
  return pm;
}

int64_t tensorBytes(const std::vector<torch::Tensor>& tensors) {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.numel() * static_cast<int64_t>(t.element_size());
  return n;
}

// Pass sizes to consider: the batch, then halves (rounded up) down to one.
std::vector<int> passSizes(int batch) {
  std::vector<int> sizes;
  for (int m = batch; m >= 1; m = (m == 1 ? 0 : (m + 1) / 2)) {
    if (sizes.empty() || sizes.back() != m) sizes.push_back(m);
  }
  return sizes;
}

std::vector<tensor::Precision> precisionsToTry(const TrainOptions& o, const MemoryFitOptions& fit, const torch::Device& device) {
  std::vector<tensor::Precision> out{o.precision};
  if (!fit.allow_precision) return out;
  for (auto p : {tensor::Precision::BF16, tensor::Precision::FP16}) {
    if (p == o.precision || (p == tensor::Precision::FP16 && !device.is_cuda())) continue;
    if (tensor::precisionAvailable(p, o.device).isOk()) out.push_back(p);
  }
  return out;
}

}  // namespace

std::string MemoryFit::summary() const {
  const auto& c = chosen;
  const int passes = (batch_size + c.micro_batch - 1) / std::max(1, c.micro_batch);
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.2f", c.checkpoint_ratio);
  char factor[16];
  std::snprintf(factor, sizeof factor, "%.2f", c.time_factor);
  std::string s = "batch " + std::to_string(batch_size);
  if (passes > 1) s += " in " + std::to_string(passes) + " passes of " + std::to_string(c.micro_batch);
  s += ", checkpoint ratio " + std::string(ratio) + ", " + tensor::precisionName(c.precision) + ": predicted peak " +
       mib(c.predicted_bytes) + " of " + mib(double(budget_bytes)) + ", " + factor + "x the time of batch " +
       std::to_string(batch_size) + " in one pass without checkpointing (" + mib(unconstrained.predicted_bytes) + ")";
  return s;
}

void MemoryFit::applyTo(TrainOptions& options) const {
  options.micro_batch = chosen.micro_batch >= batch_size ? 0 : chosen.micro_batch;
  options.checkpoint_ratio = chosen.checkpoint_ratio;
  options.precision = chosen.precision;
}

Result<MemoryFit> fitTrainingToMemory(const model::LoadedModel& model, const std::vector<TrainExample>& train,
                                      const TrainOptions& options, const MemoryFitOptions& fit) {
  if (fit.budget_bytes <= 0) return Status(StatusCode::InvalidArgument, "the memory budget must be positive");
  if (train.empty()) return Status(StatusCode::InvalidArgument, "no training molecules to probe");
  auto device = compat::parseDevice(options.device);
  if (!device.isOk()) return device.status();
  const auto t0 = Clock::now();
  ProbeSetup s;
  s.device = device.value();
  s.layers = model.config.num_hidden_layers;
  s.collate = options.collate;
  s.model = model::Graphormer(model.model->copyAs(torch::kFloat, s.device));
  s.params = markTrainable(*s.model, options);
  s.model->train();
  for (const auto& e : train) s.largest.push_back(e.graph);
  std::stable_sort(s.largest.begin(), s.largest.end(), [](auto* a, auto* b) { return a->numNodes() > b->numNodes(); });

  MemoryFit out;
  out.budget_bytes = fit.budget_bytes;
  out.batch_size = std::max(1, std::min<int>(options.batch_size, static_cast<int>(train.size())));
  std::vector<torch::Tensor> all;
  for (const auto& p : s.model->parameters()) all.push_back(p);
  const int64_t best_copy = options.output_dir.empty() ? tensorBytes(all) : 0;  // best weights kept in memory
  out.static_bytes = tensorBytes(all) + 2 * tensorBytes(s.params) + best_copy;
  const int m2 = std::min(out.batch_size, 16), m1 = std::max(1, m2 / 4);
  PeakMeter meter(s.device);
  std::vector<PrecisionModel> models;
  for (auto p : precisionsToTry(options, fit, s.device)) models.push_back(probePrecision(s, meter, m1, m2, p));
  out.probe_seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  const int b = out.batch_size;
  const auto epochSeconds = [&](const PrecisionModel& pm, int m, double share) {
    return double((b + m - 1) / m) * pm.seconds(m, share);
  };
  const double reference = std::max(1e-9, epochSeconds(models.front(), b, 0.0));
  out.unconstrained = {models.front().precision, b, 0.0, double(out.static_bytes) + models.front().memory(b, 0.0), 1.0, false};
  out.unconstrained.fits = out.unconstrained.predicted_bytes * fit.margin <= double(fit.budget_bytes);
  const MemoryFitCandidate* best = nullptr;
  for (const auto& pm : models)
    for (int m : passSizes(b))
      for (int k = 0; k <= s.layers; ++k) {
        const double share = double(k) / std::max(1, s.layers);
        MemoryFitCandidate c{pm.precision, m, share, double(out.static_bytes) + pm.memory(m, share),
                             epochSeconds(pm, m, share) / reference, false};
        c.fits = c.predicted_bytes * fit.margin <= double(fit.budget_bytes);
        out.candidates.push_back(c);
      }
  for (const auto& c : out.candidates)
    if (c.fits && (!best || c.time_factor < best->time_factor)) best = &c;
  if (!best) {
    const auto smallest = std::min_element(out.candidates.begin(), out.candidates.end(),
                                           [](const auto& x, const auto& y) { return x.predicted_bytes < y.predicted_bytes; });
    return Status(StatusCode::OutOfMemory,
                  "a training step needs at least " + mib(smallest->predicted_bytes * fit.margin) + " (one molecule per pass, " +
                      "every layer checkpointed, " + tensor::precisionName(smallest->precision) + ", with a 10 % margin); the budget is " +
                      mib(double(fit.budget_bytes)));
  }
  out.chosen = *best;
  return out;
}

}  // namespace gs::engine
