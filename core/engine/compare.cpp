#include "engine/compare.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/named_enum.h"
#include "common/stats.h"
#include "data/batch_planner.h"
#include "engine/activation_checkpoint.h"
#include "engine/inference_session.h"
#include "model/checkpoint.h"
#include "tensor/collate.h"
#include "tensor/precision_dtype.h"
#include "tensor/torch_compat.h"

namespace gs::engine {
namespace {

using Clock = std::chrono::steady_clock;
using Outputs = std::vector<std::vector<float>>;  // per molecule; empty = no prediction

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

Outputs toOutputs(const std::vector<Prediction>& p) {
  Outputs out(p.size());
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i].status.isOk()) out[i] = p[i].values;
  return out;
}

void deltas(const Outputs& ref, const Outputs& got, ModeResult& r) {
  std::vector<double> max, sum;
  int64_t n = 0;  // molecules compared
  for (size_t i = 0; i < ref.size() && i < got.size(); ++i) {
    if (ref[i].empty() || got[i].size() != ref[i].size()) continue;
    max.resize(ref[i].size(), 0.0);
    sum.resize(ref[i].size(), 0.0);
    for (size_t j = 0; j < ref[i].size(); ++j) {
      const double d = std::abs(double(got[i][j]) - double(ref[i][j]));
      max[j] = std::max(max[j], d);
      sum[j] += d;
    }
    ++n;
  }
  r.output_max_abs_delta = max;
  r.output_mean_abs_delta.clear();
  for (double s : sum) r.output_mean_abs_delta.push_back(s / double(n));
  r.max_abs_delta = max.empty() ? 0 : *std::max_element(max.begin(), max.end());
  double total = 0;
  for (double s : sum) total += s;
  r.mean_abs_delta = sum.empty() ? 0 : total / double(n * static_cast<int64_t>(sum.size()));
}

// Peak tensor memory of a mode and of each of its batches (the trace). The tracker's high-water
// mark is reset after every batch, so the mode's peak is kept here.
struct Memory {
  std::shared_ptr<tensor::TensorMemoryTracker> tracker;
  int cuda_device = -1;
  int64_t base = 0, mode_peak = 0;
  Clock::time_point t0;
  void start(ModeResult& r) {
    tensor::resetProcessPeak();
    if (cuda_device >= 0) compat::cudaResetPeak(cuda_device);
    tracker->resetPeak();
    base = tracker->current();
    mode_peak = 0;
    t0 = Clock::now();
    r.trace_seconds.clear();
    r.trace_tensor_bytes.clear();
  }
  void sample(ModeResult& r) {
    const int64_t batch_peak = tracker->peak() - base;
    mode_peak = std::max(mode_peak, batch_peak);
    tracker->resetPeak();
    r.trace_seconds.push_back(seconds(t0, Clock::now()));
    r.trace_tensor_bytes.push_back(batch_peak);
  }
  void finish(ModeResult& r) {
    mode_peak = std::max(mode_peak, tracker->peak() - base);
    r.peak_tensor_bytes = std::max(r.peak_tensor_bytes, mode_peak);
    int64_t rss = -1, hwm = -1;
    tensor::readProcessMemory(&rss, &hwm);
    r.peak_rss_bytes = std::max(r.peak_rss_bytes, hwm);
    if (cuda_device >= 0) {
      const auto s = compat::cudaAllocatorStats(cuda_device);
      if (s.available) r.peak_cuda_allocated_bytes = std::max(r.peak_cuda_allocated_bytes, s.peak_allocated);
      const auto d = tensor::MemoryProbe(nullptr, cuda_device).sample();
      r.peak_device_used_bytes = std::max(r.peak_device_used_bytes, d.device_used_bytes);
    }
  }
};

// One timed pass of the inference workload; returns its outputs.
Outputs inferencePass(InferenceSession& session, const std::vector<const graph::Featurized*>& mols, Memory& memory,
                      ModeResult& r, const CompareCallbacks& cb) {
  RunCallbacks rc;
  rc.memory = memory.tracker;
  rc.cancelled = cb.cancelled;
  rc.progress = [&](int64_t, int64_t) { memory.sample(r); };
  return toOutputs(session.predict(mols, rc));
}

// One pass of forward + backward over every batch (as in fine-tuning, without the optimizer step).
Outputs trainPass(model::LoadedModel& m, const std::vector<const graph::Featurized*>& mols, const CompareMode& mode,
                  const torch::Device& device, const graph::CollateOptions& collate, Memory& memory, ModeResult& r,
                  const CompareCallbacks& cb) {
  tensor::TensorMemoryScope scope(memory.tracker);
  std::vector<int> sizes;
  for (const auto* g : mols) sizes.push_back(g->numNodes());
  data::PlanOptions plan;
  plan.max_batch_size = mode.batch_size;
  const auto runner = checkpointRunner(m.config.num_hidden_layers, mode.checkpoint_ratio);
  const bool autocast = tensor::traits(mode.precision).sixteen_bit;
  const auto dtype = tensor::productType(mode.precision);
  const auto& md = m.metadata;
  Outputs out(mols.size());
  for (const auto& batch : data::planBatches(sizes, plan)) {
    if (cb.cancelled && cb.cancelled()) break;
    std::vector<const graph::Featurized*> members;
    for (int i : batch) members.push_back(mols[i]);
    torch::Tensor y;
    {
      compat::AutocastGuard guard(device.type(), dtype, autocast);
      y = m.model->forward(tensor::collate(members, collate).to(device), runner).to(torch::kFloat);
    }
    y.sum().backward();
    for (auto& p : m.model->parameters()) p.mutable_grad() = torch::Tensor();
    const auto host = y.detach().to(torch::kCPU).contiguous();
    auto acc = host.accessor<float, 2>();
    for (size_t b = 0; b < batch.size(); ++b) {
      auto& o = out[batch[b]];
      for (int64_t j = 0; j < host.size(1); ++j) o.push_back(float(md.denormalize(static_cast<int>(j), acc[b][j])));
    }
    memory.sample(r);
  }
  compat::synchronize(device.type());
  return out;
}

// What every mode of one comparison shares.
struct Run {
  const model::LoadedModel& model;
  const std::vector<const graph::Featurized*>& molecules;
  const CompareOptions& options;
  const SessionOptions& session;  // device and threads; FP32
  const graph::CollateOptions& collate;
  const torch::Device& device;
  Memory& memory;
  const CompareCallbacks& cb;
};

// Warm-up, then `repeats` timed inference passes through a session in the mode's precision.
Outputs timeInference(const Run& run, const CompareMode& mode, ModeResult& r, std::vector<double>& times) {
  SessionOptions mo = run.session;
  mo.precision = mode.precision;
  mo.plan.max_batch_size = mode.batch_size;
  auto session = InferenceSession::create(run.model, mo);
  if (!session.isOk()) {
    r.status = session.status();
    return {};
  }
  Outputs got;
  for (int w = 0; w < run.options.warmup; ++w) (void)session.value()->predict(run.molecules);
  for (int rep = 0; rep < std::max(1, run.options.repeats); ++rep) {
    run.memory.start(r);
    const auto t0 = Clock::now();
    got = inferencePass(*session.value(), run.molecules, run.memory, r, run.cb);
    compat::synchronize(run.device.type());
    times.push_back(seconds(t0, Clock::now()));
    run.memory.finish(r);
  }
  return got;
}

// Timed as in fine-tuning (training mode: dropout on, its masks stored) on a copy of the weights,
// so training mode and gradients stay in it; the outputs for the accuracy comparison come from one
// more pass with dropout off.
Outputs timeTraining(const Run& run, const CompareMode& mode, ModeResult& r, std::vector<double>& times) {
  model::LoadedModel m = run.model;
  m.model = model::Graphormer(run.model.model->copyAs(torch::kFloat, run.device));
  m.model->train();
  for (int w = 0; w < run.options.warmup; ++w)
    (void)trainPass(m, run.molecules, mode, run.device, run.collate, run.memory, r, run.cb);
  for (int rep = 0; rep < std::max(1, run.options.repeats); ++rep) {
    run.memory.start(r);
    const auto t0 = Clock::now();
    (void)trainPass(m, run.molecules, mode, run.device, run.collate, run.memory, r, run.cb);
    times.push_back(seconds(t0, Clock::now()));
    run.memory.finish(r);
  }
  m.model->eval();
  ModeResult scratch;
  return trainPass(m, run.molecules, mode, run.device, run.collate, run.memory, scratch, run.cb);
}

// Whether the mode's precision can run the workload on the device (training: the gradient rules too).
Status modeAvailable(const CompareMode& mode, const CompareOptions& options) {
  return options.workload == Workload::Train ? tensor::trainingPrecisionAvailable(mode.precision, options.device)
                                             : tensor::precisionAvailable(mode.precision, options.device);
}

}  // namespace

namespace {
constexpr NameTable<Workload, 2> kWorkloads{{Workload::Inference, "inference"}, {Workload::Train, "train"}};
}  // namespace

const char* workloadName(Workload w) { return nameIn(kWorkloads, w); }

Result<Workload> parseWorkload(const std::string& name) { return parseIn(kWorkloads, name, "workload"); }

std::string CompareMode::label() const {
  std::ostringstream out;
  out << tensor::precisionName(precision);
  if (checkpoint_ratio > 0) out << "+ckpt=" << checkpoint_ratio;
  out << "+bs=" << batch_size;
  if (!model.empty()) out << "@" << model;
  return out.str();
}

std::string CompareMode::description(const char* separator) const {
  static const char* kPrecisionWords[] = {"FP32", "BF16 mixed precision", "FP16 mixed precision", "INT8 weights"};
  std::ostringstream out;
  if (!model.empty()) out << "model " << model << separator;
  out << kPrecisionWords[static_cast<int>(precision)];
  if (checkpoint_ratio >= 1.0) {
    out << separator << "every layer recomputed";
  } else if (checkpoint_ratio > 0) {
    out << separator << std::lround(checkpoint_ratio * 100.0) << " % of layers recomputed";
  }
  out << separator << "batch " << batch_size;
  return out.str();
}

Result<std::vector<CompareMode>> parseModes(const std::string& list, int default_batch) {
  std::vector<CompareMode> modes;
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    CompareMode m;
    m.batch_size = default_batch;
    if (const auto at = item.find('@'); at != std::string::npos) {
      m.model = item.substr(at + 1);
      if (m.model.empty())
        return Status(StatusCode::InvalidArgument, "mode '" + item + "': name a model after '@' (e.g. bf16@fast)");
      item.resize(at);
    }
    std::istringstream parts(item);
    std::string part;
    bool first = true;
    while (std::getline(parts, part, '+')) {
      auto bad = [&] {
        return Status(StatusCode::InvalidArgument,
                      "mode '" + item + "': cannot read '" + part + "' (PRECISION[+ckpt=R][+bs=N][@MODEL])");
      };
      if (first) {
        auto precision = tensor::parsePrecision(part);
        if (!precision.isOk()) return bad();
        m.precision = precision.value();
        first = false;
      } else if (part.rfind("ckpt=", 0) == 0) {
        char* end = nullptr;
        m.checkpoint_ratio = std::strtod(part.c_str() + 5, &end);
        if (*end || !(m.checkpoint_ratio >= 0 && m.checkpoint_ratio <= 1)) return bad();
      } else if (part.rfind("bs=", 0) == 0) {
        char* end = nullptr;
        const long bs = std::strtol(part.c_str() + 3, &end, 10);
        if (*end || bs < 1 || bs > 65536) return bad();
        m.batch_size = static_cast<int>(bs);
      } else {
        return bad();
      }
    }
    modes.push_back(m);
  }
  if (modes.empty()) return Status(StatusCode::InvalidArgument, "no modes given (e.g. fp32,bf16+ckpt=0.5,int8+bs=64)");
  return modes;
}

std::vector<CompareMode> presetModes(int batch_size) {
  return {{tensor::Precision::FP32, 0.0, batch_size, {}},
          {tensor::Precision::BF16, 0.0, batch_size, {}},
          {tensor::Precision::FP32, 1.0, batch_size, {}},
          {tensor::Precision::BF16, 1.0, batch_size, {}},
          {tensor::Precision::INT8, 0.0, batch_size, {}}};
}

std::vector<CompareMode> modelModes(const std::vector<std::string>& models, int batch_size) {
  std::vector<CompareMode> modes;
  for (const auto& name : models)
    for (auto precision : {tensor::Precision::FP32, tensor::Precision::BF16})
      modes.push_back({precision, 0.0, batch_size, name});
  return modes;
}

namespace {

// The model a mode runs: the one compared, or another one of options.models with the same outputs.
Result<const model::LoadedModel*> modelOfMode(const model::LoadedModel& compared, const CompareMode& mode,
                                               const CompareOptions& options) {
  if (mode.model.empty()) return &compared;
  const auto it = options.models.find(mode.model);
  if (it == options.models.end() || !it->second)
    return Status(StatusCode::InvalidArgument, "model '" + mode.model + "' was not loaded for the comparison");
  if (it->second->metadata.target_names != compared.metadata.target_names ||
      it->second->config.num_classes != compared.config.num_classes)
    return Status(StatusCode::InvalidArgument,
                  "model '" + mode.model + "' predicts other outputs than the model compared: no |Δ| to measure");
  return it->second.get();
}

}  // namespace

Result<std::vector<ModeResult>> runComparison(const model::LoadedModel& model,
                                              const std::vector<const graph::Featurized*>& molecules,
                                              const CompareOptions& options, const CompareCallbacks& cb) {
  if (molecules.empty()) return Status(StatusCode::InvalidArgument, "no molecules to compare on");
  if (options.modes.empty()) return Status(StatusCode::InvalidArgument, "no modes to compare");
  SessionOptions so;
  so.device = options.device;
  so.threads = options.threads;
  graph::CollateOptions collate;
  std::string device_name;
  {
    auto probe = InferenceSession::create(model, so);  // FP32, shares the weights
    if (!probe.isOk()) return probe.status();
    collate = probe.value()->collateOptions();
    device_name = probe.value()->deviceName();
  }
  const torch::Device device(device_name);
  // The accuracy cost of a mode is measured against FP32 inference at the mode's own batch size:
  // the batch decides each molecule's padded length, hence the shapes of every matrix product,
  // and BLAS kernels may sum in another order for other shapes (last-bit differences that depend on
  // the CPU and the kernel chosen, not on the mode).
  std::map<int, Outputs> references;
  auto reference = [&](int batch_size) -> Result<const Outputs*> {
    auto it = references.find(batch_size);
    if (it != references.end()) return &it->second;
    SessionOptions ro = so;
    ro.plan.max_batch_size = batch_size;
    auto session = InferenceSession::create(model, ro);
    if (!session.isOk()) return session.status();
    return &references.emplace(batch_size, toOutputs(session.value()->predict(molecules))).first->second;
  };

  Memory memory;
  memory.tracker = cb.memory ? cb.memory : std::make_shared<tensor::TensorMemoryTracker>();
  memory.cuda_device = device.is_cuda() ? device.index() < 0 ? 0 : device.index() : -1;
  std::vector<ModeResult> results;
  for (size_t k = 0; k < options.modes.size(); ++k) {
    if (cb.cancelled && cb.cancelled()) return Status(StatusCode::Cancelled, "comparison cancelled");
    const CompareMode& mode = options.modes[k];
    if (cb.mode_started) cb.mode_started(static_cast<int>(k), static_cast<int>(options.modes.size()), mode.label());
    ModeResult r;
    r.mode = mode;
    r.workload = options.workload;
    r.molecules = static_cast<int64_t>(molecules.size());
    r.status = modeAvailable(mode, options);
    const model::LoadedModel* mode_model = &model;
    if (r.status.isOk()) {
      auto other = modelOfMode(model, mode, options);
      if (other.isOk())
        mode_model = other.value();
      else
        r.status = other.status();
    }
    const Outputs* ref = nullptr;
    if (r.status.isOk()) {
      auto got_ref = reference(mode.batch_size);
      if (got_ref.isOk())
        ref = got_ref.value();
      else
        r.status = got_ref.status();
    }
    if (!r.status.isOk()) {
      results.push_back(r);
      if (cb.mode_done) cb.mode_done(r);
      continue;
    }
    const Run mode_run{*mode_model, molecules, options, so, collate, device, memory, cb};
    std::vector<double> times;
    Outputs got;
    try {
      got = options.workload == Workload::Inference ? timeInference(mode_run, mode, r, times)
                                                    : timeTraining(mode_run, mode, r, times);
    } catch (const c10::Error& e) {
      r.status = Status(StatusCode::Internal, std::string(e.what_without_backtrace()).substr(0, 300));
    } catch (const std::bad_alloc&) {
      r.status = Status(StatusCode::OutOfMemory, "not enough memory");
    }
    if (r.status.isOk()) {
      const double t = stats::median(times);  // times is never empty here (repeats >= 1)
      r.ms_per_molecule = 1000.0 * t / double(molecules.size());
      r.molecules_per_s = t > 0 ? double(molecules.size()) / t : 0;
      deltas(*ref, got, r);
    }
    results.push_back(r);
    if (cb.mode_done) cb.mode_done(r);
  }
  return results;
}

}  // namespace gs::engine
