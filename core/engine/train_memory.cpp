#include "engine/train_memory.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "engine/activation_checkpoint.h"
#include "tensor/collate.h"
#include "tensor/memory_probe.h"
#include "tensor/precision_dtype.h"
#include "tensor/torch_compat.h"

namespace gs::engine {
namespace {

using Clock = std::chrono::steady_clock;

std::string mib(double bytes) {
  char text[32];
  const double m = bytes / (1024.0 * 1024.0);
  std::snprintf(text, sizeof text, m < 100 ? "%.1f MiB" : "%.0f MiB", m);
  return text;
}

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
// Probes of one precision: memory and time per pass at ratio 0 and 1, linear in the pass size, on
// the largest molecules (size T); a pass of smaller molecules (padded to its largest, t) takes the
// per-molecule part times (t / T)^gamma, gamma measured on median-size molecules (1 <= gamma <= 2:
// linear layers grow with t, attention with t²).
struct PrecisionModel {
  tensor::Precision precision = tensor::Precision::FP32;
  Line mem0, mem1, time0, time1;
  double gamma = 1.5;
  double memory(int m, double share) const { return mem0.at(m) + share * (mem1.at(m) - mem0.at(m)); }
  // Seconds of `passes` passes of m molecules whose size factors (t / T)^gamma sum to `scaled`.
  double seconds(int m, double share, double passes, double scaled) const {
    const double a = time0.a + share * (time1.a - time0.a), b = time0.b + share * (time1.b - time0.b);
    return passes * a + b * m * scaled;
  }
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
// Forward + backward of `mols` (gradients accumulate; the caller drops them).
void pass(ProbeSetup& s, const std::vector<const graph::Featurized*>& mols, double ratio, tensor::Precision precision) {
  const auto runner = checkpointRunner(s.layers, ratio);
  torch::Tensor out;
  {
    compat::AutocastGuard guard(s.device.type(), tensor::productType(precision), tensor::traits(precision).sixteen_bit);
    out = s.model->forward(tensor::collate(mols, s.collate).to(s.device), runner);
  }
  out.to(torch::kFloat).abs().mean().backward();
}

void dropGradients(ProbeSetup& s) {
  for (auto param : s.params) param.mutable_grad() = torch::Tensor();
}

Probe probe(ProbeSetup& s, PeakMeter& meter, int m, double ratio, tensor::Precision precision, size_t first = 0) {
  const std::vector<const graph::Featurized*> mols(s.largest.begin() + first, s.largest.begin() + first + m);
  Probe p;
  p.seconds = INFINITY;
  for (int rep = 0; rep < 3; ++rep) {  // a warm-up, then the faster of two timed passes
    meter.start();
    const auto t0 = Clock::now();
    pass(s, mols, ratio, precision);
    compat::synchronize(s.device.type());
    if (rep > 0) p.seconds = std::min(p.seconds, std::chrono::duration<double>(Clock::now() - t0).count());
    p.bytes = std::max(p.bytes, meter.peak());
    dropGradients(s);
  }
  return p;
}

// Seconds per batch of a setting on real batches (a shuffled sample of the training molecules,
// split into its passes), measured on a second round over them: the first pays for LibTorch's
// first use of each shape, which a training run pays once.
double measureSetting(ProbeSetup& s, const std::vector<std::vector<const graph::Featurized*>>& batches,
                      const MemoryFitCandidate& c) {
  double total = 0;
  for (int round = 0; round < 2; ++round)
    for (const auto& batch : batches) {
      const auto t0 = Clock::now();
      for (size_t p = 0; p < batch.size(); p += size_t(c.micro_batch))
        pass(s, {batch.begin() + p, batch.begin() + std::min(batch.size(), p + size_t(c.micro_batch))},
             c.checkpoint_ratio, c.precision);
      compat::synchronize(s.device.type());
      dropGradients(s);
      if (round == 1) total += std::chrono::duration<double>(Clock::now() - t0).count();
    }
  return total / double(std::max<size_t>(1, batches.size()));
}

std::vector<std::vector<const graph::Featurized*>> sampleBatches(const ProbeSetup& s, int batch) {
  std::vector<const graph::Featurized*> order(s.largest);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  std::vector<std::vector<const graph::Featurized*>> out;
  for (size_t b = 0; b < order.size() && out.size() < 2; b += size_t(batch))
    out.emplace_back(order.begin() + b, order.begin() + std::min(order.size(), b + size_t(batch)));
  return out;
}

// Time lines: the per-pass overhead from one smallest molecule (its own small compute removed),
// the per-molecule part from 1 and m2 largest; with every layer checkpointed, both scaled by what
// checkpointing costs one largest molecule (never faster than without).
void fitTimes(PrecisionModel& pm, const Probe& a, const Probe& b, const Probe& c, const Probe& d, const Probe& small,
              double small_share, int m2) {
  const double per_molecule = m2 > 1 ? std::max(0.0, (b.seconds - a.seconds) / (m2 - 1)) : 0.0;
  const double overhead = std::clamp(small.seconds - per_molecule * std::pow(small_share, 1.5), 0.0, a.seconds);
  pm.time0 = Line{overhead, std::max(0.0, (b.seconds - overhead) / m2)};
  const double slower = std::max(1.0, c.seconds / std::max(1e-9, a.seconds));
  pm.time1 = Line{overhead * slower, std::max(pm.time0.b, (std::max(b.seconds, d.seconds) - overhead * slower) / m2)};
}

PrecisionModel probePrecision(ProbeSetup& s, PeakMeter& meter, int m2, tensor::Precision precision) {
  PrecisionModel pm;
  pm.precision = precision;
  const Probe a = probe(s, meter, 1, 0.0, precision), b = probe(s, meter, m2, 0.0, precision);
  const Probe c = probe(s, meter, 1, 1.0, precision), d = probe(s, meter, m2, 1.0, precision);
  const Probe small = probe(s, meter, 1, 0.0, precision, s.largest.size() - 1);
  const double big = s.largest.front()->numNodes();
  fitTimes(pm, a, b, c, d, small, s.largest.back()->numNodes() / big, m2);
  pm.mem0 = Line::through(1, a.bytes, m2, b.bytes);
  pm.mem1 = Line::through(1, std::min(a.bytes, c.bytes), m2, std::min(b.bytes, d.bytes));
  const size_t middle = s.largest.size() / 2 >= size_t(m2) / 2 ? s.largest.size() / 2 - size_t(m2) / 2 : 0;
  const double median = s.largest[middle]->numNodes();
  if (median < 0.8 * big && middle + size_t(m2) <= s.largest.size()) {
    const Probe med = probe(s, meter, m2, 0.0, precision, middle);
    const double full = pm.time0.b * m2, measured = med.seconds - pm.time0.a;
    if (full > 0 && measured > 0) pm.gamma = std::clamp(std::log(measured / full) / std::log(median / big), 1.0, 2.0);
  }
  return pm;
}

int64_t tensorBytes(const std::vector<torch::Tensor>& tensors) {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.numel() * static_cast<int64_t>(t.element_size());
  return n;
}

// The epoch's passes of m molecules (batches of `batch` in a shuffled order, split into passes):
// their count and the sum of (largest size in the pass / T)^gamma.
std::pair<double, double> passShape(const std::vector<int>& sizes, int batch, int m, double gamma) {
  std::vector<int> order(sizes);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(12345));
  const double top = *std::max_element(sizes.begin(), sizes.end());
  double passes = 0, scaled = 0;
  for (size_t b = 0; b < order.size(); b += size_t(batch)) {
    const size_t end = std::min(order.size(), b + size_t(batch));
    for (size_t p = b; p < end; p += size_t(m)) {
      const int largest = *std::max_element(order.begin() + p, order.begin() + std::min(end, p + size_t(m)));
      passes += 1;
      scaled += std::pow(largest / top, gamma);
    }
  }
  return {passes, scaled};
}

// Pass sizes to consider: the batch, then halves (rounded up) down to one.
std::vector<int> passSizes(int batch) {
  std::vector<int> sizes;
  for (int m = batch; m >= 1; m = (m == 1 ? 0 : (m + 1) / 2)) {
    if (sizes.empty() || sizes.back() != m) sizes.push_back(m);
  }
  return sizes;
}

std::vector<tensor::Precision> precisionsToTry(const TrainOptions& o, const MemoryFitOptions& fit,
                                               const torch::Device& device) {
  std::vector<tensor::Precision> out{o.precision};
  if (!fit.allow_precision) return out;
  for (const auto& t : tensor::precisionTable()) {  // the 16-bit ones that train here, in table order
    if (t.precision == o.precision || !t.sixteen_bit) continue;
    if (tensor::trainingPrecisionAvailable(t.precision, device.str()).isOk()) out.push_back(t.precision);
  }
  return out;
}

}  // namespace

std::string MemoryFit::summary() const {
  const auto& c = chosen;
  const int passes = (batch_size + c.micro_batch - 1) / std::max(1, c.micro_batch);
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.2f", c.checkpoint_ratio);
  char factor[64];
  if (c.measured_seconds > 0 && unconstrained.measured_seconds > 0)
    std::snprintf(factor, sizeof factor, "%.2f s per batch, %.2fx", c.measured_seconds,
                  c.measured_seconds / unconstrained.measured_seconds);
  else if (c.measured_seconds > 0)
    std::snprintf(factor, sizeof factor, "%.2f s per batch, about %.2fx", c.measured_seconds, c.time_factor);
  else
    std::snprintf(factor, sizeof factor, "about %.2fx", c.time_factor);
  std::string s = "batch " + std::to_string(batch_size);
  if (passes > 1) s += " in " + std::to_string(passes) + " passes of " + std::to_string(c.micro_batch);
  s += ", checkpoint ratio " + std::string(ratio) + ", " + tensor::precisionName(c.precision) + ": predicted peak " +
       mib(c.predicted_bytes) + " of " + mib(double(budget_bytes)) + ", " + factor + " the time of batch " +
       std::to_string(batch_size) + " in one pass without checkpointing (" + mib(unconstrained.predicted_bytes) + ")";
  return s;
}

void MemoryFit::applyTo(TrainOptions& options) const {
  options.micro_batch = chosen.micro_batch >= batch_size ? 0 : chosen.micro_batch;
  options.checkpoint_ratio = chosen.checkpoint_ratio;
  options.precision = chosen.precision;
}

namespace {

// A copy of the model prepared as training will use it, and the training molecules, largest first.
ProbeSetup prepareProbes(const model::LoadedModel& model, const std::vector<TrainExample>& train,
                         const TrainOptions& options, const torch::Device& device) {
  ProbeSetup s;
  s.device = device;
  s.layers = model.config.num_hidden_layers;
  s.collate = options.collate;
  s.model = model::Graphormer(model.model->copyAs(torch::kFloat, s.device));
  s.params = markTrainable(*s.model, options);
  s.model->train();
  for (const auto& e : train) s.largest.push_back(e.graph);
  std::stable_sort(s.largest.begin(), s.largest.end(), [](auto* a, auto* b) { return a->numNodes() > b->numNodes(); });
  return s;
}

// Weights, gradients and AdamW's moments; a copy of the best weights when they stay in memory; and
// AdamW's step temporaries (the square root of the second moment and its scaled copy) for the
// largest trainable parameter.
int64_t staticBytes(const ProbeSetup& s, bool best_in_memory) {
  std::vector<torch::Tensor> all;
  for (const auto& p : s.model->parameters()) all.push_back(p);
  int64_t largest_param = 0;
  for (const auto& p : s.params) largest_param = std::max(largest_param, tensorBytes({p}));
  return tensorBytes(all) * (best_in_memory ? 2 : 1) + 2 * tensorBytes(s.params) + 2 * largest_param;
}

// Every (precision, pass size, checkpointed layers) with its predicted peak and epoch time.
void enumerate(const ProbeSetup& s, const std::vector<PrecisionModel>& models, const MemoryFitOptions& fit,
               MemoryFit& out) {
  const int b = out.batch_size;
  std::vector<int> sizes;
  for (const auto* g : s.largest) sizes.push_back(g->numNodes());
  const auto [ref_passes, ref_scaled] = passShape(sizes, b, b, models.front().gamma);
  const double reference = std::max(1e-9, models.front().seconds(b, 0.0, ref_passes, ref_scaled));
  out.unconstrained = {
      models.front().precision, b, 0.0, double(out.static_bytes) + models.front().memory(b, 0.0), 1.0, 0, false};
  out.unconstrained.fits = out.unconstrained.predicted_bytes * fit.margin <= double(fit.budget_bytes);
  for (const auto& pm : models)
    for (int m : passSizes(b)) {
      const auto [passes, scaled] = passShape(sizes, b, m, pm.gamma);
      for (int k = 0; k <= s.layers; ++k) {
        const double share = double(k) / std::max(1, s.layers);
        // Passes after the first add their gradients to those already there: count one more set.
        const double accumulation = m < b ? double(out.gradient_bytes) : 0.0;
        MemoryFitCandidate c{pm.precision,
                             m,
                             share,
                             double(out.static_bytes) + pm.memory(m, share) + accumulation,
                             pm.seconds(m, share, passes, scaled) / reference,
                             0,
                             false};
        c.fits = c.predicted_bytes * fit.margin <= double(fit.budget_bytes);
        out.candidates.push_back(c);
      }
    }
}

bool isUnconstrained(const MemoryFitCandidate& c, const MemoryFit& out) {
  return c.precision == out.unconstrained.precision && c.micro_batch == out.batch_size && c.checkpoint_ratio == 0;
}

// The settings predicted fastest that fit (and the user's batch in one pass, when it fits), timed
// on a few real batches; the fastest measured, or null when nothing fits.
MemoryFitCandidate* chooseMeasured(ProbeSetup& s, MemoryFit& out) {
  std::vector<MemoryFitCandidate*> shortlist;
  for (auto& c : out.candidates)
    if (c.fits) shortlist.push_back(&c);
  std::stable_sort(shortlist.begin(), shortlist.end(), [](auto* x, auto* y) {
    return x->time_factor < y->time_factor * 0.97 ||
           (x->time_factor <= y->time_factor * 1.03 && x->checkpoint_ratio < y->checkpoint_ratio);
  });
  if (shortlist.size() > 3) shortlist.resize(3);
  for (auto& c : out.candidates)
    if (c.fits && isUnconstrained(c, out) && std::find(shortlist.begin(), shortlist.end(), &c) == shortlist.end())
      shortlist.push_back(&c);
  const auto batches = sampleBatches(s, out.batch_size);
  double fastest = INFINITY;
  for (auto* c : shortlist) {
    c->measured_seconds = measureSetting(s, batches, *c);
    fastest = std::min(fastest, c->measured_seconds);
    if (isUnconstrained(*c, out)) out.unconstrained.measured_seconds = c->measured_seconds;
  }
  // Within 5 % of the fastest (timing noise), the least checkpointing, then the largest passes.
  MemoryFitCandidate* best = nullptr;
  for (auto* c : shortlist)
    if (c->measured_seconds <= fastest * 1.05 &&
        (!best || c->checkpoint_ratio < best->checkpoint_ratio ||
         (c->checkpoint_ratio == best->checkpoint_ratio && c->micro_batch > best->micro_batch)))
      best = c;
  return best;
}

Status nothingFits(const MemoryFit& out, double margin) {
  const auto smallest =
      std::min_element(out.candidates.begin(), out.candidates.end(),
                       [](const auto& x, const auto& y) { return x.predicted_bytes < y.predicted_bytes; });
  return Status(StatusCode::OutOfMemory, "a training step needs at least " + mib(smallest->predicted_bytes * margin) +
                                             " (one molecule per pass, " + "every layer checkpointed, " +
                                             tensor::precisionName(smallest->precision) + ", with a " +
                                             std::to_string(std::lround((margin - 1) * 100)) +
                                             " % margin); the budget is " + mib(double(out.budget_bytes)));
}

}  // namespace

Result<MemoryFit> fitTrainingToMemory(const model::LoadedModel& model, const std::vector<TrainExample>& train,
                                      const TrainOptions& options, const MemoryFitOptions& fit) {
  if (fit.budget_bytes <= 0) return Status(StatusCode::InvalidArgument, "the memory budget must be positive");
  if (train.empty()) return Status(StatusCode::InvalidArgument, "no training molecules to probe");
  auto device = compat::parseDevice(options.device);
  if (!device.isOk()) return device.status();
  const auto t0 = Clock::now();
  ProbeSetup s = prepareProbes(model, train, options, device.value());
  MemoryFit out;
  out.budget_bytes = fit.budget_bytes;
  out.batch_size = std::max(1, std::min<int>(options.batch_size, static_cast<int>(train.size())));
  out.static_bytes = staticBytes(s, options.output_dir.empty());
  out.gradient_bytes = tensorBytes(s.params);
  PeakMeter meter(s.device);
  std::vector<PrecisionModel> models;
  for (auto p : precisionsToTry(options, fit, s.device))
    models.push_back(probePrecision(s, meter, std::min(out.batch_size, 16), p));
  enumerate(s, models, fit, out);
  const MemoryFitCandidate* best = chooseMeasured(s, out);
  out.probe_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!best) return nothingFits(out, fit.margin);
  out.chosen = *best;
  return out;
}

}  // namespace gs::engine
