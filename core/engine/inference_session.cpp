#include "engine/inference_session.h"

#include <algorithm>
#include <cstdio>

#include <torch/torch.h>

#include "engine/torch_compat.h"

namespace gs::engine {
namespace {

bool isOutOfMemory(const std::string& message) {
  return message.find("out of memory") != std::string::npos || message.find("not enough memory") != std::string::npos;
}

Status checkPrecision(Precision p, const torch::Device& device) {
  if (p == Precision::BF16 && !compat::autocastSupports(device.type(), torch::kBFloat16))
    return {StatusCode::InvalidArgument, "bf16 autocast is not available on " + device.str()};
  if (p == Precision::FP16 && !compat::autocastSupports(device.type(), torch::kHalf))
    return {StatusCode::InvalidArgument, "fp16 autocast needs a CUDA device with this LibTorch; use bf16 on the CPU"};
  if (p == Precision::INT8 && !device.is_cpu())
    return {StatusCode::InvalidArgument, "int8 dynamic quantisation runs on the CPU only; use fp16 or bf16 on CUDA"};
  return Status::ok();
}

}  // namespace

Result<torch::Device> parseDevice(const std::string& name) {
  try {
    torch::Device device(name);
    if (device.is_cuda() && !compat::cudaAvailable())
      return Status(StatusCode::InvalidArgument, "device '" + name + "' requested but CUDA is not available in this build or on this machine");
    if (!device.is_cpu() && !device.is_cuda())
      return Status(StatusCode::InvalidArgument, "device '" + name + "' is not supported (cpu or cuda)");
    return device;
  } catch (const c10::Error&) {
    return Status(StatusCode::InvalidArgument, "unknown device '" + name + "' (cpu, cuda or cuda:N)");
  }
}

data::CollateOptions collateOptionsFor(const model::LoadedModel& model, const SessionOptions& options) {
  data::CollateOptions c;
  c.convention = options.convention.value_or(model.metadata.convention.value_or(data::Convention::Official));
  c.spatial_pos_max = options.spatial_pos_max.value_or(model.metadata.spatial_pos_max.value_or(model.config.spatial_pos_max));
  c.multi_hop_max_dist = model.config.multi_hop_max_dist;
  return c;
}

Status precisionAvailable(Precision precision, const std::string& device) {
  auto d = parseDevice(device);
  if (!d.isOk()) return d.status();
  if (Status s = checkPrecision(precision, d.value()); !s.isOk()) return s;
  std::string error;
  if (precision == Precision::INT8 && !compat::selectInt8Engine(&error)) return {StatusCode::InvalidArgument, error};
  return Status::ok();
}

std::vector<std::string> availableDevices() {
  std::vector<std::string> out{"cpu"};
  if (compat::cudaAvailable())
    for (int i = 0; i < static_cast<int>(torch::cuda::device_count()); ++i) out.push_back("cuda:" + std::to_string(i));
  return out;
}

InferenceSession::InferenceSession(model::LoadedModel model, const SessionOptions& options, const torch::Device& device)
    : model_(std::move(model)), options_(options), collate_(collateOptionsFor(model_, options)), device_(device) {}

InferenceSession::~InferenceSession() = default;

Result<std::unique_ptr<InferenceSession>> InferenceSession::create(model::LoadedModel model, const SessionOptions& options) {
  if (!model.model) return Status(StatusCode::InvalidArgument, "no model loaded");
  auto device = parseDevice(options.device);
  if (!device.isOk()) return device.status();
  if (options.threads < 0) return Status(StatusCode::InvalidArgument, "threads must be >= 0");
  if (options.plan.max_batch_size < 1) return Status(StatusCode::InvalidArgument, "batch size must be at least 1");
  compat::setThreads(options.threads);
  std::unique_ptr<InferenceSession> session(new InferenceSession(std::move(model), options, device.value()));
  session->model_.model->eval();
  try {
    session->model_.model->to(device.value());
  } catch (const c10::Error& e) {
    return Status(StatusCode::OutOfMemory, std::string("cannot move the model to ") + device->str() + ": " + e.what_without_backtrace());
  }
  if (Status s = session->setPrecision(options.precision); !s.isOk()) return s;
  return session;
}

Status InferenceSession::setPrecision(Precision precision) {
  if (Status s = checkPrecision(precision, device_); !s.isOk()) return s;
  std::string error;
  if (!model_.model->setInt8(precision == Precision::INT8, &error)) return {StatusCode::InvalidArgument, error};
  if (options_.precision != precision) memory_model_ = data::MemoryModel();  // peaks differ per precision
  options_.precision = precision;
  return Status::ok();
}

Status InferenceSession::fitMemoryModel(const std::vector<const graph::Featurized*>& probes) {
  std::vector<const graph::Featurized*> usable;
  for (const auto* g : probes)
    if (g && g->numNodes() >= 1 && g->numNodes() <= model_.config.max_nodes) usable.push_back(g);
  if (usable.empty()) return Status(StatusCode::InvalidArgument, "no molecules to probe memory with");
  std::sort(usable.begin(), usable.end(), [](const auto* a, const auto* b) { return a->numNodes() < b->numNodes(); });
  std::vector<data::BatchShape> shapes;
  std::vector<int64_t> peaks;
  for (const auto* g : {usable.front(), usable[usable.size() / 2], usable.back()}) {
    for (int copies : {1, 4, 16}) {
      if (copies > options_.plan.max_batch_size && copies > 1) continue;
      auto tracker = std::make_shared<TensorMemoryTracker>();
      {
        TensorMemoryScope scope(tracker);
        const std::vector<const graph::Featurized*> members(static_cast<size_t>(copies), g);
        (void)forward(data::collate(members, collate_));
      }
      shapes.push_back({copies, g->numNodes()});
      peaks.push_back(tracker->peak());
    }
  }
  memory_model_ = data::MemoryModel::fit(shapes, peaks);
  if (!memory_model_.valid()) return Status(StatusCode::Internal, "the memory probes could not be fitted");
  return Status::ok();
}

std::string InferenceSession::deviceName() const { return device_.str(); }

torch::Tensor InferenceSession::forward(const data::GraphBatch& batch) {
  c10::InferenceMode inference;  // thread-local: set on the thread that runs the model
  const Precision p = options_.precision;
  const bool autocast = p == Precision::BF16 || p == Precision::FP16;
  compat::AutocastGuard guard(device_.type(), p == Precision::FP16 ? torch::kHalf : torch::kBFloat16, autocast);
  auto out = model_.model->forward(device_.is_cpu() ? batch : batch.to(device_));
  return out.to(torch::kCPU, torch::kFloat);
}

void InferenceSession::scatter(const torch::Tensor& raw, const data::Batch& batch, std::vector<Prediction>& out) const {
  const auto& md = model_.metadata;
  const int k = numOutputs();
  auto acc = raw.accessor<float, 2>();
  for (size_t b = 0; b < batch.size(); ++b) {
    Prediction& p = out[batch[b]];
    p.status = Status::ok();
    p.values.resize(k);
    for (int j = 0; j < k; ++j) {
      double v = acc[b][j];
      if (!md.target_std.empty()) v = v * md.target_std[j] + md.target_mean[j];
      p.values[j] = static_cast<float>(v);
    }
  }
}

void InferenceSession::runBatch(const std::vector<const graph::Featurized*>& molecules, const data::Batch& batch,
                                std::vector<Prediction>& out) {
  std::vector<const graph::Featurized*> members;
  members.reserve(batch.size());
  for (int i : batch) members.push_back(molecules[i]);
  std::string error;
  try {
    scatter(forward(data::collate(members, collate_)), batch, out);
    return;
  } catch (const std::bad_alloc&) {
    error = "not enough memory";
  } catch (const c10::Error& e) {
    error = e.what_without_backtrace();
  }
  if (isOutOfMemory(error) && batch.size() > 1) {  // retry in halves: one huge molecule must not sink its batch
    ++oom_retries_;
    const auto mid = batch.begin() + static_cast<std::ptrdiff_t>(batch.size() / 2);
    runBatch(molecules, data::Batch(batch.begin(), mid), out);
    runBatch(molecules, data::Batch(mid, batch.end()), out);
    return;
  }
  const StatusCode code = isOutOfMemory(error) ? StatusCode::OutOfMemory : StatusCode::Internal;
  for (int i : batch) out[i].status = Status(code, error.substr(0, error.find('\n')));
}

std::vector<Prediction> InferenceSession::predict(const std::vector<const graph::Featurized*>& molecules,
                                                  const RunCallbacks& callbacks) {
  std::vector<Prediction> out(molecules.size());
  std::optional<TensorMemoryScope> scope;
  if (callbacks.memory) scope.emplace(callbacks.memory);
  compat::setThreads(options_.threads);
  std::vector<int> eligible;
  for (size_t i = 0; i < molecules.size(); ++i) {
    const int n = molecules[i] ? molecules[i]->numNodes() : 0;
    if (!molecules[i] || n < 1) {
      out[i].status = Status(StatusCode::InvalidArgument, "no featurized molecule");
    } else if (n > model_.config.max_nodes) {
      out[i].status = Status(StatusCode::TooManyAtoms, std::to_string(n) + " atoms; the model takes at most " +
                                                           std::to_string(model_.config.max_nodes));
    } else {
      eligible.push_back(static_cast<int>(i));
    }
  }
  std::vector<int> eligible_sizes;
  for (int i : eligible) eligible_sizes.push_back(molecules[i]->numNodes());
  std::vector<data::Batch> plan;
  if (options_.memory_budget_bytes > 0 && !eligible.empty()) {
    if (!memory_model_.valid()) {
      std::vector<const graph::Featurized*> probes;
      for (int i : eligible) probes.push_back(molecules[i]);
      if (Status s = fitMemoryModel(probes); !s.isOk()) {
        for (int i : eligible) out[i].status = s;
        return out;
      }
    }
    auto budget_plan = data::planWithinBudget(eligible_sizes, memory_model_, options_.memory_budget_bytes, options_.plan);
    for (int j : budget_plan.over_budget) {
      const double need = memory_model_.predict({1, eligible_sizes[j]}) / 1048576.0;
      char msg[160];
      std::snprintf(msg, sizeof msg, "needs about %.1f MiB alone, over the %.1f MiB memory budget", need,
                    options_.memory_budget_bytes / 1048576.0);
      out[eligible[j]].status = Status(StatusCode::OutOfMemory, msg);
    }
    plan = std::move(budget_plan.batches);
  } else {
    plan = data::planBatches(eligible_sizes, options_.plan);
  }
  int64_t done = 0;
  int64_t total = 0;
  for (const auto& b : plan) total += static_cast<int64_t>(b.size());
  for (size_t b = 0; b < plan.size(); ++b) {
    data::Batch batch;
    for (int j : plan[b]) batch.push_back(eligible[j]);
    if (callbacks.cancelled && callbacks.cancelled()) {
      for (size_t r = b; r < plan.size(); ++r)
        for (int j : plan[r]) out[eligible[j]].status = Status(StatusCode::Cancelled, "run cancelled");
      break;
    }
    runBatch(molecules, batch, out);
    done += static_cast<int64_t>(batch.size());
    if (callbacks.progress) callbacks.progress(done, total);
  }
  return out;
}

}  // namespace gs::engine
