#include "engine/attribution.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "data/batch_planner.h"
#include "data/collate.h"
#include "engine/activation_checkpoint.h"
#include "engine/inference_session.h"
#include "engine/torch_compat.h"
#include "model/checkpoint.h"

namespace gs::engine {
namespace {

// Copies atom k's value (from `value(b, k)`, k = 0..n-1) of every molecule in the batch into its
// result, in output units, and sets the sum.
template <typename ValueOf>
void storeAtoms(const std::vector<const graph::Featurized*>& mols, const std::vector<int>& members, double scale,
                ValueOf value, std::vector<Attribution>& out) {
  for (size_t b = 0; b < members.size(); ++b) {
    Attribution& r = out[members[b]];
    const int n = mols[members[b]]->numNodes();
    r.atoms.resize(n);
    double sum = 0;
    for (int i = 0; i < n; ++i) {
      r.atoms[i] = static_cast<float>(value(static_cast<int64_t>(b), i) * scale);
      sum += r.atoms[i];
    }
    r.sum = sum;
    r.status = Status::ok();
  }
}

struct Batch {
  std::vector<int> members;  // molecule indices
  data::GraphBatch graphs;
};

// Raw output `k` for the encoder input x [B, T, C] (graph token and atoms, after the embedding
// layer norm), [B] float32.
torch::Tensor outputFor(model::GraphormerImpl& m, const torch::Tensor& x, const torch::Tensor& bias, int k,
                        const model::LayerRunner& runner, const AttributionOptions& o, const torch::Device& device) {
  const bool autocast = o.precision == Precision::BF16 || o.precision == Precision::FP16;
  compat::AutocastGuard guard(device.type(), o.precision == Precision::FP16 ? torch::kHalf : torch::kBFloat16, autocast);
  return m.forwardFromEncoderInput(x, bias, runner).select(1, k).to(torch::kFloat);
}

// Mask [B, T, 1]: 1 on atom rows, 0 on the graph token and padding.
torch::Tensor atomMask(const std::vector<const graph::Featurized*>& mols, const std::vector<int>& members, int64_t t,
                       const torch::Device& device) {
  auto mask = torch::zeros({static_cast<int64_t>(members.size()), t, 1});
  for (size_t b = 0; b < members.size(); ++b)
    mask.index_put_({static_cast<int64_t>(b), torch::indexing::Slice(1, 1 + mols[members[b]]->numNodes())}, 1.0);
  return mask.to(device);
}

void gradientAttributions(model::LoadedModel& lm, const std::vector<const graph::Featurized*>& mols, Batch& batch,
                          const AttributionOptions& o, const torch::Device& device, std::vector<Attribution>& out,
                          const AttributionCallbacks& cb) {
  auto& m = *lm.model;
  auto& enc = *m.encoder->graph_encoder;
  const auto runner = checkpointRunner(lm.config.num_hidden_layers, o.checkpoint_ratio);
  torch::Tensor x, bias;
  {
    torch::NoGradGuard no_grad;
    x = enc.normalizeEmbeddings(enc.graph_node_feature(batch.graphs)).to(torch::kFloat);
    bias = enc.attentionBias(batch.graphs);
  }
  const int64_t t = x.size(1);
  const auto mask = atomMask(mols, batch.members, t, device);
  const double scale = lm.metadata.target_std.empty() ? 1.0 : lm.metadata.target_std[o.output];
  const double shift = lm.metadata.target_mean.empty() ? 0.0 : lm.metadata.target_mean[o.output];
  torch::Tensor fx, fbase;
  {
    torch::NoGradGuard no_grad;
    fx = outputFor(m, x, bias, o.output, runner, o, device);
  }
  torch::Tensor attr;
  if (o.method == AttributionMethod::GradientTimesInput) {
    auto xi = x.detach().requires_grad_(true);
    outputFor(m, xi, bias, o.output, runner, o, device).sum().backward();
    attr = (xi.grad() * x * mask).sum(-1);
  } else {
    // Baseline: atom rows replaced (the molecule's mean atom row, or scaled); the graph token and
    // padding rows stay as they are.
    torch::Tensor atoms0;
    if (o.baseline == AttributionOptions::Baseline::MeanAtom) {
      const auto mean = (x * mask).sum(1, true) / mask.sum(1, true).clamp_min(1.0);  // [B, 1, C]
      atoms0 = mean.expand_as(x);
    } else {
      atoms0 = x * o.baseline_scale;
    }
    const auto x0 = x * (1.0 - mask) + atoms0 * mask;
    const auto delta = x - x0;
    {
      torch::NoGradGuard no_grad;
      fbase = outputFor(m, x0, bias, o.output, runner, o, device);
    }
    auto grad_sum = torch::zeros_like(x);
    const int steps = std::max(1, o.steps);
    for (int s = 0; s < steps; ++s) {  // midpoint rule
      if (cb.cancelled && cb.cancelled()) return;
      auto xs = (x0 + delta * ((s + 0.5) / steps)).detach().requires_grad_(true);
      outputFor(m, xs, bias, o.output, runner, o, device).sum().backward();
      grad_sum += xs.grad();
    }
    grad_sum /= double(steps);
    attr = (delta * grad_sum * mask).sum(-1);
  }
  const auto a = attr.to(torch::kCPU, torch::kDouble).contiguous();
  const auto fxc = fx.to(torch::kCPU);
  const auto fbc = fbase.defined() ? fbase.to(torch::kCPU) : torch::Tensor();
  auto acc = a.accessor<double, 2>();
  storeAtoms(mols, batch.members, scale, [&](int64_t b, int i) { return acc[b][1 + i]; }, out);
  for (size_t b = 0; b < batch.members.size(); ++b) {
    Attribution& r = out[batch.members[b]];
    r.prediction = fxc[static_cast<int64_t>(b)].item<double>() * scale + shift;
    if (fbc.defined()) {
      r.baseline_prediction = fbc[static_cast<int64_t>(b)].item<double>() * scale + shift;
      r.completeness_gap = r.sum - (r.prediction - r.baseline_prediction);
    }
  }
}

void rolloutAttributions(model::LoadedModel& lm, const std::vector<const graph::Featurized*>& mols, Batch& batch,
                         int output, std::vector<Attribution>& out) {
  auto& m = *lm.model;
  std::vector<torch::Tensor> attention;
  std::vector<model::SelfAttentionImpl*> layers;
  for (const auto& l : *m.encoder->graph_encoder->layers) layers.push_back(l->as<model::EncoderLayerImpl>()->self_attn.get());
  for (auto* l : layers) l->captureAttention(&attention);
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    y = m.forward(batch.graphs).to(torch::kCPU);
  }
  for (auto* l : layers) l->captureAttention(nullptr);
  const double scale = lm.metadata.target_std.empty() ? 1.0 : lm.metadata.target_std[output];
  const double shift = lm.metadata.target_mean.empty() ? 0.0 : lm.metadata.target_mean[output];
  torch::NoGradGuard no_grad;
  torch::Tensor rollout;
  for (const auto& a : attention) {
    auto af = a.to(torch::kCPU, torch::kFloat);
    const auto eye = torch::eye(af.size(1)).unsqueeze(0);
    auto mixed = 0.5 * af + 0.5 * eye;  // the residual connection
    mixed = mixed / mixed.sum(-1, true);
    rollout = rollout.defined() ? torch::bmm(mixed, rollout) : mixed;
  }
  const auto roll = rollout.defined() ? rollout.to(torch::kDouble).contiguous() : torch::zeros({static_cast<int64_t>(batch.members.size()), 1, 1}, torch::kDouble);
  auto acc = roll.accessor<double, 3>();
  storeAtoms(mols, batch.members, 1.0, [&](int64_t b, int i) { return rollout.defined() ? acc[b][0][1 + i] : 0.0; }, out);
  for (size_t b = 0; b < batch.members.size(); ++b)
    out[batch.members[b]].prediction = y[static_cast<int64_t>(b)][output].item<double>() * scale + shift;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double avg = 0.5 * double(i + j) + 1.0;
    for (size_t k = i; k <= j; ++k) r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}

}  // namespace

const char* attributionMethodName(AttributionMethod m) {
  switch (m) {
    case AttributionMethod::IntegratedGradients: return "ig";
    case AttributionMethod::GradientTimesInput: return "gradxinput";
    case AttributionMethod::AttentionRollout: return "rollout";
  }
  return "ig";
}

Result<AttributionMethod> parseAttributionMethod(const std::string& name) {
  for (auto m : {AttributionMethod::IntegratedGradients, AttributionMethod::GradientTimesInput, AttributionMethod::AttentionRollout})
    if (name == attributionMethodName(m)) return m;
  return Status(StatusCode::InvalidArgument, "unknown explanation method '" + name + "' (ig, gradxinput or rollout)");
}

Result<std::vector<Attribution>> explain(const model::LoadedModel& model, const std::vector<const graph::Featurized*>& molecules,
                                         const AttributionOptions& o, const AttributionCallbacks& cb) {
  if (o.output < 0 || o.output >= model.config.num_classes)
    return Status(StatusCode::InvalidArgument, "the model has no output " + std::to_string(o.output));
  if (o.precision == Precision::INT8) return Status(StatusCode::InvalidArgument, "int8 weights have no gradients: explain in fp32 or bf16");
  if (Status s = precisionAvailable(o.precision, o.device); !s.isOk()) return s;
  SessionOptions so;
  so.device = o.device;
  so.threads = o.threads;
  auto session = InferenceSession::create(model, so);  // validates the device, moves the weights there
  if (!session.isOk()) return session.status();
  const torch::Device device(session.value()->deviceName());
  const data::CollateOptions collate = session.value()->collateOptions();
  session.value().reset();
  model::LoadedModel m = model;
  m.model->setInt8(false, nullptr);
  m.model->eval();
  std::vector<Attribution> out(molecules.size());
  std::optional<TensorMemoryScope> scope;
  if (cb.memory) scope.emplace(cb.memory);
  compat::setThreads(o.threads);
  std::vector<int> eligible, sizes;
  for (size_t i = 0; i < molecules.size(); ++i) {
    const int n = molecules[i] ? molecules[i]->numNodes() : 0;
    if (n < 1) {
      out[i].status = Status(StatusCode::InvalidArgument, "no featurized molecule");
    } else if (n > model.config.max_nodes) {
      out[i].status = Status(StatusCode::TooManyAtoms, std::to_string(n) + " atoms; the model takes at most " + std::to_string(model.config.max_nodes));
    } else {
      eligible.push_back(static_cast<int>(i));
      sizes.push_back(n);
    }
  }
  data::PlanOptions plan;
  plan.max_batch_size = std::max(1, o.batch_size);
  int64_t done = 0;
  for (const auto& planned : data::planBatches(sizes, plan)) {
    if (cb.cancelled && cb.cancelled()) {
      for (auto& r : out)
        if (r.atoms.empty() && r.status.isOk()) r.status = Status(StatusCode::Cancelled, "explanation cancelled");
      break;
    }
    Batch batch;
    std::vector<const graph::Featurized*> members;
    for (int j : planned) {
      batch.members.push_back(eligible[j]);
      members.push_back(molecules[eligible[j]]);
    }
    batch.graphs = data::collate(members, collate).to(device);
    try {
      if (o.method == AttributionMethod::AttentionRollout) rolloutAttributions(m, molecules, batch, o.output, out);
      else gradientAttributions(m, molecules, batch, o, device, out, cb);
    } catch (const c10::Error& e) {
      for (int i : batch.members) out[i].status = Status(StatusCode::Internal, std::string(e.what_without_backtrace()).substr(0, 200));
    } catch (const std::bad_alloc&) {
      for (int i : batch.members) out[i].status = Status(StatusCode::OutOfMemory, "not enough memory for this batch");
    }
    for (auto& p : m.model->parameters()) p.mutable_grad() = torch::Tensor();
    done += static_cast<int64_t>(planned.size());
    if (cb.progress) cb.progress(done, static_cast<int64_t>(eligible.size()));
  }
  return out;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const auto ra = ranks(a), rb = ranks(b);
  const double n = double(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace gs::engine
