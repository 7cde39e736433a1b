#include "engine/inference_session.h"

#include <algorithm>
#include <cstdio>

#include <torch/torch.h>

#include "data/memory_planner.h"
#include "model/checkpoint.h"
#include "model/lora.h"
#include "tensor/collate.h"
#include "tensor/precision_dtype.h"
#include "tensor/torch_compat.h"

namespace gs::engine {
namespace {

using tensor::Precision;

}  // namespace

bool operator==(const SessionOptions& a, const SessionOptions& b) {
  return a.precision == b.precision && a.device == b.device && a.threads == b.threads && a.convention == b.convention &&
         a.spatial_pos_max == b.spatial_pos_max && a.plan.max_batch_size == b.plan.max_batch_size &&
         a.plan.bucketing == b.plan.bucketing && a.plan.window == b.plan.window &&
         a.plan.max_padded_nodes == b.plan.max_padded_nodes &&
         a.plan.max_attention_cells == b.plan.max_attention_cells && a.memory_budget_bytes == b.memory_budget_bytes &&
         a.autocast == b.autocast && a.embeddings == b.embeddings;
}

graph::CollateOptions collateOptionsFor(const bundle::GraphormerConfig& config, const bundle::ModelMetadata& metadata,
                                        const SessionOptions& options) {
  graph::CollateOptions c;
  c.convention = options.convention.value_or(metadata.convention.value_or(graph::Convention::Official));
  c.spatial_pos_max = options.spatial_pos_max.value_or(metadata.spatial_pos_max.value_or(config.spatial_pos_max));
  c.multi_hop_max_dist = config.multi_hop_max_dist;
  return c;
}

graph::CollateOptions collateOptionsFor(const model::LoadedModel& model, const SessionOptions& options) {
  return collateOptionsFor(model.config, model.metadata, options);
}

Status admit(const graph::Featurized* molecule, const bundle::GraphormerConfig& config) {
  const int n = molecule ? molecule->numNodes() : 0;
  if (n < 1) return Status(StatusCode::InvalidArgument, "no featurized molecule");
  if (n > config.max_nodes)
    return Status(StatusCode::TooManyAtoms,
                  std::to_string(n) + " atoms; the model takes at most " + std::to_string(config.max_nodes));
  return Status::ok();
}

struct InferenceSession::Impl {
  model::LoadedModel shared;                    // the loaded model: its module is only read
  model::Graphormer own{nullptr};               // this session's module (int8, 16-bit weights, another device), or none
  torch::ScalarType own_dtype = torch::kFloat;  // the 16-bit copies `own` holds, or kFloat
  SessionOptions options;
  graph::CollateOptions collate;
  torch::Device device{torch::kCPU};
  data::MemoryModel memory_model;
  int64_t oom_retries = 0;

  model::GraphormerImpl& module() { return own ? *own : *shared.model; }
  bool halfWeights(Precision p) const { return tensor::traits(p).sixteen_bit && !options.autocast; }
  static bool int8(Precision p) { return tensor::traits(p).weights == tensor::NumberFormat::Int8; }
  bool needsOwnCopy(Precision p) const {
    return !device.is_cpu() || int8(p) || halfWeights(p) || shared.model->is_training();
  }
  Status prepare(Precision p);
  torch::Tensor forward(tensor::GraphBatch batch);
  void scatter(const torch::Tensor& raw, const data::Batch& batch, std::vector<Prediction>& out) const;
  void runBatch(const std::vector<const graph::Featurized*>& molecules, const data::Batch& batch,
                std::vector<Prediction>& out);
  std::vector<data::Batch> plan(const std::vector<const graph::Featurized*>& molecules, std::vector<int>& eligible,
                                std::vector<Prediction>& out);
};

// The module this precision runs on: the shared one, or this session's copy made once (on another
// device, remade when 16-bit weights replaced its fp32 ones).
Status InferenceSession::Impl::prepare(Precision p) {
  if (!needsOwnCopy(p)) {
    own = nullptr;
    return Status::ok();
  }
  const bool on_device = !device.is_cpu();
  const auto dtype = halfWeights(p) ? tensor::weightType(p) : torch::kFloat;
  if (own && on_device && own_dtype != torch::kFloat && own_dtype != dtype) own = nullptr;  // its fp32 weights are gone
  if (!own) {
    try {
      // On the CPU the session's module shares the loaded weights (int8 and 16-bit add only their
      // copies); another device, or unmerged adapters, need a real copy.
      const bool share = !on_device && !model::hasLora(*shared.model);
      own = model::Graphormer(share ? shared.model->sharingWeights() : shared.model->copyAs(torch::kFloat, device));
      own->eval();
      own_dtype = torch::kFloat;
    } catch (const c10::Error& e) {
      return Status(StatusCode::OutOfMemory,
                    std::string("cannot copy the model to ") + device.str() + ": " + e.what_without_backtrace());
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::OutOfMemory, "not enough memory to copy the model");
    }
  }
  std::string error;
  if (!own->setInt8(int8(p), &error)) return {StatusCode::InvalidArgument, error};
  if (own_dtype != dtype) {
    own->setHalfWeights(dtype);
    if (on_device && dtype != torch::kFloat) own->releaseFloatWeights();  // a private copy: keep only 16 bits
    own_dtype = dtype;
  }
  return Status::ok();
}

torch::Tensor InferenceSession::Impl::forward(tensor::GraphBatch batch) {
  c10::InferenceMode inference;  // thread-local: set on the thread that runs the model
  const Precision p = options.precision;
  compat::AutocastGuard guard(device.type(), tensor::productType(p), tensor::traits(p).sixteen_bit && options.autocast);
  auto out = module().forward(device.is_cpu() ? std::move(batch) : batch.to(device), {}, options.embeddings);
  return out.to(torch::kCPU, torch::kFloat);
}

void InferenceSession::Impl::scatter(const torch::Tensor& raw, const data::Batch& batch,
                                     std::vector<Prediction>& out) const {
  const int k = shared.config.num_classes;
  auto acc = raw.accessor<float, 2>();
  for (size_t b = 0; b < batch.size(); ++b) {
    Prediction& p = out[batch[b]];
    p.status = Status::ok();
    p.values.resize(k);
    for (int j = 0; j < k; ++j) p.values[j] = static_cast<float>(shared.metadata.denormalize(j, acc[b][j]));
    p.embedding.assign(raw.size(1) - k, 0.0f);
    for (int64_t e = k; e < raw.size(1); ++e) p.embedding[e - k] = acc[b][e];
  }
}

void InferenceSession::Impl::runBatch(const std::vector<const graph::Featurized*>& molecules, const data::Batch& batch,
                                      std::vector<Prediction>& out) {
  std::vector<const graph::Featurized*> members;
  members.reserve(batch.size());
  for (int i : batch) members.push_back(molecules[i]);
  std::string error;
  try {
    scatter(forward(tensor::collate(members, collate)), batch, out);
    return;
  } catch (const std::bad_alloc&) {
    error = "not enough memory";
  } catch (const c10::Error& e) {
    error = e.what_without_backtrace();
  }
  if (compat::isOutOfMemory(error) && batch.size() > 1) {  // retry in halves: one huge molecule must not sink its batch
    ++oom_retries;
    const auto mid = batch.begin() + static_cast<std::ptrdiff_t>(batch.size() / 2);
    runBatch(molecules, data::Batch(batch.begin(), mid), out);
    runBatch(molecules, data::Batch(mid, batch.end()), out);
    return;
  }
  const StatusCode code = compat::isOutOfMemory(error) ? StatusCode::OutOfMemory : StatusCode::Internal;
  for (int i : batch) out[i].status = Status(code, error.substr(0, error.find('\n')));
}

// Admits the molecules (statuses of the others set in `out`) and plans their batches, by count or
// within the memory budget; plan indices are into `eligible`.
std::vector<data::Batch> InferenceSession::Impl::plan(const std::vector<const graph::Featurized*>& molecules,
                                                      std::vector<int>& eligible, std::vector<Prediction>& out) {
  std::vector<int> sizes;
  for (size_t i = 0; i < molecules.size(); ++i) {
    out[i].status = admit(molecules[i], shared.config);
    if (!out[i].status.isOk()) continue;
    eligible.push_back(static_cast<int>(i));
    sizes.push_back(molecules[i]->numNodes());
  }
  if (options.memory_budget_bytes <= 0 || eligible.empty()) return data::planBatches(sizes, options.plan);
  auto budget_plan = data::planWithinBudget(sizes, memory_model, options.memory_budget_bytes, options.plan);
  for (int j : budget_plan.over_budget) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "needs about %.1f MiB alone, over the %.1f MiB memory budget",
                  memory_model.predict({1, sizes[j]}) / 1048576.0, options.memory_budget_bytes / 1048576.0);
    out[eligible[j]].status = Status(StatusCode::OutOfMemory, msg);
  }
  return std::move(budget_plan.batches);
}

InferenceSession::InferenceSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
InferenceSession::~InferenceSession() = default;

Result<std::unique_ptr<InferenceSession>> InferenceSession::create(const model::LoadedModel& model,
                                                                   const SessionOptions& options) {
  if (!model.model) return Status(StatusCode::InvalidArgument, "no model loaded");
  auto device = compat::parseDevice(options.device);
  if (!device.isOk()) return device.status();
  if (options.threads < 0) return Status(StatusCode::InvalidArgument, "threads must be >= 0");
  if (options.plan.max_batch_size < 1) return Status(StatusCode::InvalidArgument, "batch size must be at least 1");
  compat::setThreads(options.threads);
  auto impl = std::make_unique<Impl>();
  impl->shared = model;
  impl->options = options;
  impl->options.precision = Precision::FP32;
  impl->collate = collateOptionsFor(model, options);
  impl->device = device.value();
  std::unique_ptr<InferenceSession> session(new InferenceSession(std::move(impl)));
  if (Status s = session->setPrecision(options.precision); !s.isOk()) return s;
  return session;
}

Status InferenceSession::setPrecision(Precision precision) {
  if (Status s = tensor::precisionAvailable(precision, impl_->options.device); !s.isOk()) return s;
  if (Status s = impl_->prepare(precision); !s.isOk()) return s;
  if (impl_->options.precision != precision) impl_->memory_model = data::MemoryModel();  // peaks differ per precision
  impl_->options.precision = precision;
  return Status::ok();
}

Status InferenceSession::fitMemoryModel(const std::vector<const graph::Featurized*>& probes) {
  std::vector<const graph::Featurized*> usable;
  for (const auto* g : probes)
    if (admit(g, impl_->shared.config).isOk()) usable.push_back(g);
  if (usable.empty()) return Status(StatusCode::InvalidArgument, "no molecules to probe memory with");
  std::sort(usable.begin(), usable.end(), [](const auto* a, const auto* b) { return a->numNodes() < b->numNodes(); });
  std::vector<data::BatchShape> shapes;
  std::vector<int64_t> peaks;
  for (const auto* g : {usable.front(), usable[usable.size() / 2], usable.back()}) {
    for (int copies : {1, 4, 16}) {
      if (copies > impl_->options.plan.max_batch_size && copies > 1) continue;
      auto tracker = std::make_shared<tensor::TensorMemoryTracker>();
      {
        tensor::TensorMemoryScope scope(tracker);
        const std::vector<const graph::Featurized*> members(static_cast<size_t>(copies), g);
        (void)impl_->forward(tensor::collate(members, impl_->collate));
      }
      shapes.push_back({copies, g->numNodes()});
      peaks.push_back(tracker->peak());
    }
  }
  impl_->memory_model = data::MemoryModel::fit(shapes, peaks);
  if (!impl_->memory_model.valid()) return Status(StatusCode::Internal, "the memory probes could not be fitted");
  return Status::ok();
}

std::vector<Prediction> InferenceSession::predict(const std::vector<const graph::Featurized*>& molecules,
                                                  const RunCallbacks& callbacks) {
  std::vector<Prediction> out(molecules.size());
  std::optional<tensor::TensorMemoryScope> scope;
  if (callbacks.memory) scope.emplace(callbacks.memory);
  if (impl_->options.memory_budget_bytes > 0 && !impl_->memory_model.valid()) {
    std::vector<const graph::Featurized*> probes;
    for (const auto* m : molecules)
      if (admit(m, impl_->shared.config).isOk()) probes.push_back(m);
    if (!probes.empty())
      if (Status s = fitMemoryModel(probes); !s.isOk()) {
        for (auto& p : out) p.status = s;
        return out;
      }
  }
  std::vector<int> eligible;
  const auto plan = impl_->plan(molecules, eligible, out);
  int64_t done = 0, total = 0;
  for (const auto& b : plan) total += static_cast<int64_t>(b.size());
  for (size_t b = 0; b < plan.size(); ++b) {
    if (callbacks.cancelled && callbacks.cancelled()) {
      for (size_t r = b; r < plan.size(); ++r)
        for (int j : plan[r]) out[eligible[j]].status = Status(StatusCode::Cancelled, "run cancelled");
      break;
    }
    data::Batch batch;
    for (int j : plan[b]) batch.push_back(eligible[j]);
    impl_->runBatch(molecules, batch, out);
    done += static_cast<int64_t>(batch.size());
    if (callbacks.progress) callbacks.progress(done, total);
  }
  return out;
}

std::string InferenceSession::memoryModelDescription() const { return impl_->memory_model.describe(); }
int64_t InferenceSession::outOfMemoryRetries() const { return impl_->oom_retries; }
const SessionOptions& InferenceSession::options() const { return impl_->options; }
const graph::CollateOptions& InferenceSession::collateOptions() const { return impl_->collate; }
const model::LoadedModel& InferenceSession::model() const { return impl_->shared; }
int InferenceSession::numOutputs() const { return impl_->shared.config.num_classes; }
std::string InferenceSession::deviceName() const { return impl_->device.str(); }
bool InferenceSession::usesLoadedModule() const { return !impl_->own; }

}  // namespace gs::engine
