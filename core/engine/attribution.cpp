#include "engine/attribution.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "common/named_enum.h"
#include "data/batch_planner.h"
#include "engine/activation_checkpoint.h"
#include "engine/inference_session.h"
#include "model/checkpoint.h"
#include "tensor/collate.h"
#include "tensor/precision_dtype.h"
#include "tensor/torch_compat.h"

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
  tensor::GraphBatch graphs;
  int node_offset = 0;  // the collate convention's node-index offset
};

constexpr int64_t kCarbonIndex = 5;  // OGB atom feature 0 is atomic number - 1

// The encoder input of the batch with every heteroatom made a carbon (atom feature 0 only; charge,
// hydrogens, hybridization, aromaticity and ring membership stay). Carbon rows are copied from `x`
// so their difference from the baseline is exactly zero.
torch::Tensor carbonBaseline(model::GraphEncoderImpl& enc, const Batch& batch, const torch::Tensor& x) {
  auto nodes = batch.graphs.input_nodes.clone();
  auto element = nodes.select(2, 0);
  const int64_t carbon = kCarbonIndex + batch.node_offset;
  const auto is_carbon = element.eq(carbon) | element.eq(0);  // padding rows stay padding
  element.masked_fill_(element.ne(0), carbon);
  tensor::GraphBatch swapped = batch.graphs;
  swapped.input_nodes = nodes;
  auto x0 = enc.normalizeEmbeddings(enc.graph_node_feature(swapped)).to(torch::kFloat);
  // Row 0 is the graph token, the same in both.
  auto keep = torch::cat({torch::ones_like(is_carbon.narrow(1, 0, 1)), is_carbon}, 1).unsqueeze(-1);
  return torch::where(keep, x, x0);
}

// Raw output `k` for the encoder input x [B, T, C] (graph token and atoms, after the embedding
// layer norm), [B] float32. `m` is the explanation copy of the layers, in the bias's dtype.
torch::Tensor outputFor(model::GraphormerImpl& m, const torch::Tensor& x, const torch::Tensor& bias, int k,
                        const model::LayerRunner& runner) {
  return m.forwardFromEncoderInput(x.to(bias.scalar_type()), bias, runner).select(1, k).to(torch::kFloat);
}

// Mask [B, T, 1]: 1 on atom rows, 0 on the graph token and padding.
torch::Tensor atomMask(const std::vector<const graph::Featurized*>& mols, const std::vector<int>& members, int64_t t,
                       const torch::Device& device) {
  auto mask = torch::zeros({static_cast<int64_t>(members.size()), t, 1});
  for (size_t b = 0; b < members.size(); ++b)
    mask.index_put_({static_cast<int64_t>(b), torch::indexing::Slice(1, 1 + mols[members[b]]->numNodes())}, 1.0);
  return mask.to(device);
}

// One point on the integrated-gradients path of a molecule: its output and, per encoder row, the
// gradient times the path direction (the row's share of dF/dalpha).
struct PathPoint {
  double alpha = 0;
  double f = 0;
  std::vector<double> atoms;
  double slope() const { return std::accumulate(atoms.begin(), atoms.end(), 0.0); }
};

struct PathIntegral {
  torch::Tensor attributions;  // [B, T] double: the integral of each row's share
  torch::Tensor f0;            // [B] float: the output at the baseline
  std::vector<int> points;     // gradient evaluations per molecule
};

// Integrates the gradient along alpha in [0, 1] by adaptive Simpson panels, one grid per molecule.
// Paths of steep models have narrow spikes (on the fixture weights |dF/dalpha| reaches 49 over 2 %
// of the path) that a uniform rule resolves only with hundreds of steps, while a trained model's
// path is smooth. So: a quarter of the budget goes to a uniform grid of panels for every molecule;
// then, round by round, each molecule whose gap is not yet within kTolerance splits the panel
// whose Simpson sum misses F(b) - F(a) the most (two new points; the outputs come with the
// gradients, from the same forward, so the choice costs nothing). The budget is pooled over the
// batch: `steps` points per molecule on average, a molecule whose gap is within `tolerance` of
// |F(1) - F(0)| (or of 1 % of the path's variation, if larger) stops and leaves its share to the
// others, and none takes more than kMaxShare times its share. The gap is exact (sum of the
// panels' misses), so convergence is known, not estimated.
// `evaluate(rows, alphas, points)` fills f and atoms at alphas[i] for batch row rows[i].
constexpr int kMaxShare = 4;

template <typename Evaluate>
std::optional<PathIntegral> integratePath(size_t molecules, int64_t rows, int steps, double tolerance,
                                          const AttributionCallbacks& cb, Evaluate evaluate) {
  steps = std::max(3, steps);
  const int panels = std::max(1, (steps / 4 - 1) / 2);  // of the starting grid: 2 * panels + 1 points
  int64_t budget = static_cast<int64_t>(molecules) * (steps - (2 * panels + 1));
  const int max_points = kMaxShare * steps;
  std::vector<std::vector<PathPoint>> grid(molecules);  // sorted by alpha; panels are (2i, 2i+1, 2i+2)
  auto add = [&](const std::vector<int64_t>& which, const std::vector<double>& alphas) {
    std::vector<PathPoint> points(which.size());
    evaluate(which, alphas, points.data());
    for (size_t i = 0; i < which.size(); ++i) {
      points[i].alpha = alphas[i];
      auto& g = grid[static_cast<size_t>(which[i])];
      g.insert(
          std::upper_bound(g.begin(), g.end(), alphas[i], [](double a, const PathPoint& p) { return a < p.alpha; }),
          std::move(points[i]));
    }
    return !(cb.cancelled && cb.cancelled());
  };
  auto miss = [](const PathPoint& a, const PathPoint& m, const PathPoint& b) {  // signed
    return (a.slope() + 4.0 * m.slope() + b.slope()) * (b.alpha - a.alpha) / 6.0 - (b.f - a.f);
  };
  std::vector<int64_t> all(molecules);
  std::iota(all.begin(), all.end(), int64_t{0});
  for (int j = 0; j <= 2 * panels; ++j)
    if (!add(all, std::vector<double>(molecules, double(j) / (2 * panels)))) return std::nullopt;
  while (budget > 0) {
    std::vector<int64_t> which;
    std::vector<double> first, second;
    for (size_t b = 0; b < molecules; ++b) {
      const auto& g = grid[b];
      if (static_cast<int>(g.size()) + 2 > max_points) continue;
      size_t worst = 0;
      double worst_miss = -1, gap = 0, variation = 0;
      for (size_t i = 0; i + 2 < g.size(); i += 2) {
        const double e = miss(g[i], g[i + 1], g[i + 2]);
        gap += e;
        variation += std::abs(g[i + 2].f - g[i].f);
        if (std::abs(e) > worst_miss) worst = i, worst_miss = std::abs(e);
      }
      if (std::abs(gap) <= tolerance * std::max(std::abs(g.back().f - g.front().f), 0.01 * variation)) continue;
      which.push_back(static_cast<int64_t>(b));
      first.push_back(0.5 * (g[worst].alpha + g[worst + 1].alpha));
      second.push_back(0.5 * (g[worst + 1].alpha + g[worst + 2].alpha));
    }
    if (which.empty()) break;
    const auto affordable = static_cast<size_t>(budget / 2);  // pairs left in the pool
    if (which.size() > affordable) {
      which.resize(affordable);
      first.resize(affordable);
      second.resize(affordable);
    }
    if (which.empty()) break;
    budget -= static_cast<int64_t>(2 * which.size());
    if (!add(which, first) || !add(which, second)) return std::nullopt;
  }
  PathIntegral out;
  out.attributions = torch::zeros({static_cast<int64_t>(molecules), rows}, torch::kDouble);
  out.f0 = torch::zeros({static_cast<int64_t>(molecules)}, torch::kFloat);
  auto acc = out.attributions.accessor<double, 2>();
  for (size_t b = 0; b < molecules; ++b) {
    const auto& g = grid[b];
    out.f0[static_cast<int64_t>(b)] = g.front().f;
    out.points.push_back(static_cast<int>(g.size()));
    for (size_t i = 0; i + 2 < g.size(); i += 2) {
      const double h = (g[i + 2].alpha - g[i].alpha) / 6.0;
      for (int64_t r = 0; r < rows; ++r) acc[b][r] += h * (g[i].atoms[r] + 4.0 * g[i + 1].atoms[r] + g[i + 2].atoms[r]);
    }
  }
  return out;
}

// The integrated-gradients baseline: atom rows replaced (the molecule's mean atom row, carbons in
// place of heteroatoms, or zero); the graph token and padding rows stay as they are.
torch::Tensor pathBaseline(model::GraphEncoderImpl& enc, const Batch& batch, const torch::Tensor& x,
                           const torch::Tensor& mask, AttributionOptions::Baseline baseline) {
  if (baseline == AttributionOptions::Baseline::Carbon) {
    torch::NoGradGuard no_grad;
    return carbonBaseline(enc, batch, x);
  }
  torch::Tensor atoms0 = torch::zeros_like(x);
  if (baseline == AttributionOptions::Baseline::MeanAtom)
    atoms0 = ((x * mask).sum(1, true) / mask.sum(1, true).clamp_min(1.0)).expand_as(x);  // [B, 1, C] each
  return x * (1.0 - mask) + atoms0 * mask;
}

void gradientAttributions(model::LoadedModel& lm, model::GraphormerImpl& encoder,
                          const std::vector<const graph::Featurized*>& mols, Batch& batch, const AttributionOptions& o,
                          const torch::Device& device, std::vector<Attribution>& out, const AttributionCallbacks& cb) {
  auto& m = encoder;                              // layers and head (forward + backward)
  auto& enc = *lm.model->encoder->graph_encoder;  // embeddings, bias, baselines (no gradients)
  const auto runner = checkpointRunner(lm.config.num_hidden_layers, o.checkpoint_ratio);
  torch::Tensor x, bias;
  {
    torch::NoGradGuard no_grad;
    x = enc.normalizeEmbeddings(enc.graph_node_feature(batch.graphs)).to(torch::kFloat);
    bias = enc.attentionBias(batch.graphs).to(m.parameters().front().scalar_type());
  }
  const int64_t t = x.size(1);
  const auto mask = atomMask(mols, batch.members, t, device);
  const double scale = lm.metadata.outputScale(o.output);  // attributions are in output units
  torch::Tensor fx, fbase;
  std::vector<int> steps_used;
  {
    torch::NoGradGuard no_grad;
    fx = outputFor(m, x, bias, o.output, runner);
  }
  torch::Tensor attr;
  if (o.method == AttributionMethod::GradientTimesInput) {
    auto xi = x.detach().requires_grad_(true);
    outputFor(m, xi, bias, o.output, runner).sum().backward();
    attr = (xi.grad() * x * mask).sum(-1);
  } else {
    const torch::Tensor x0 = pathBaseline(enc, batch, x, mask, o.baseline);
    const auto delta = x - x0;
    auto path = integratePath(
        batch.members.size(), t, o.steps, std::max(0.0, o.tolerance), cb,
        [&](const std::vector<int64_t>& which, const std::vector<double>& alphas, PathPoint* points) {
          const bool everyone = static_cast<int64_t>(which.size()) == x.size(0);
          const auto index = torch::tensor(which, torch::kLong).to(device);
          auto pick = [&](const torch::Tensor& v) { return everyone ? v : v.index_select(0, index); };
          const auto d = pick(delta);
          auto a = torch::tensor(alphas, torch::kDouble).to(torch::kFloat).to(device).view({-1, 1, 1});
          auto xs = (pick(x0) + d * a).detach().requires_grad_(true);
          auto f = outputFor(m, xs, pick(bias), o.output, runner);
          f.sum().backward();
          const auto c = (d * xs.grad() * pick(mask)).sum(-1).to(torch::kCPU, torch::kDouble).contiguous();
          const auto fc = f.detach().to(torch::kCPU, torch::kDouble).contiguous();
          for (size_t i = 0; i < which.size(); ++i) {
            points[i].f = fc.data_ptr<double>()[i];
            points[i].atoms.assign(c.data_ptr<double>() + i * t, c.data_ptr<double>() + (i + 1) * t);
          }
        });
    if (!path) return;  // cancelled
    attr = path->attributions;
    fbase = path->f0;
    steps_used = path->points;
  }
  const auto a = attr.to(torch::kCPU, torch::kDouble).contiguous();
  const auto fxc = fx.to(torch::kCPU);
  const auto fbc = fbase.defined() ? fbase.to(torch::kCPU) : torch::Tensor();
  auto acc = a.accessor<double, 2>();
  storeAtoms(
      mols, batch.members, scale, [&](int64_t b, int i) { return acc[b][1 + i]; }, out);
  for (size_t b = 0; b < batch.members.size(); ++b) {
    Attribution& r = out[batch.members[b]];
    r.prediction = lm.metadata.denormalize(o.output, fxc[static_cast<int64_t>(b)].item<double>());
    if (fbc.defined()) {
      r.baseline_prediction = lm.metadata.denormalize(o.output, fbc[static_cast<int64_t>(b)].item<double>());
      r.completeness_gap = r.sum - (r.prediction - r.baseline_prediction);
      r.steps = steps_used[b];
    }
  }
}

void rolloutAttributions(model::LoadedModel& lm, const std::vector<const graph::Featurized*>& mols, Batch& batch,
                         int output, std::vector<Attribution>& out) {
  auto& m = *lm.model;
  std::vector<torch::Tensor> attention;
  std::vector<model::SelfAttentionImpl*> layers;
  for (const auto& l : *m.encoder->graph_encoder->layers)
    layers.push_back(l->as<model::EncoderLayerImpl>()->self_attn.get());
  for (auto* l : layers) l->captureAttention(&attention);
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    y = m.forward(batch.graphs).to(torch::kCPU);
  }
  for (auto* l : layers) l->captureAttention(nullptr);
  torch::NoGradGuard no_grad;
  torch::Tensor rollout;
  for (const auto& a : attention) {
    auto af = a.to(torch::kCPU, torch::kFloat);
    const auto eye = torch::eye(af.size(1)).unsqueeze(0);
    auto mixed = 0.5 * af + 0.5 * eye;  // the residual connection
    mixed = mixed / mixed.sum(-1, true);
    rollout = rollout.defined() ? torch::bmm(mixed, rollout) : mixed;
  }
  const auto roll = rollout.defined()
                        ? rollout.to(torch::kDouble).contiguous()
                        : torch::zeros({static_cast<int64_t>(batch.members.size()), 1, 1}, torch::kDouble);
  auto acc = roll.accessor<double, 3>();
  storeAtoms(
      mols, batch.members, 1.0, [&](int64_t b, int i) { return rollout.defined() ? acc[b][0][1 + i] : 0.0; }, out);
  for (size_t b = 0; b < batch.members.size(); ++b)
    out[batch.members[b]].prediction =
        lm.metadata.denormalize(output, y[static_cast<int64_t>(b)][output].item<double>());
}

}  // namespace

namespace {
constexpr NameTable<AttributionMethod, 3> kMethods = {{AttributionMethod::IntegratedGradients, "ig"},
                                                      {AttributionMethod::GradientTimesInput, "gradxinput"},
                                                      {AttributionMethod::AttentionRollout, "rollout"}};
constexpr NameTable<AttributionBaseline, 3> kBaselines = {{AttributionBaseline::MeanAtom, "mean"},
                                                          {AttributionBaseline::Carbon, "carbon"},
                                                          {AttributionBaseline::Zero, "zero"}};
}  // namespace

const char* attributionMethodName(AttributionMethod m) { return nameIn(kMethods, m); }
Result<AttributionMethod> parseAttributionMethod(const std::string& name) {
  return parseIn(kMethods, name, "explanation method");
}
const char* baselineName(AttributionBaseline b) { return nameIn(kBaselines, b); }
Result<AttributionBaseline> parseBaseline(const std::string& name) { return parseIn(kBaselines, name, "baseline"); }

Result<std::vector<Attribution>> attribute(const model::LoadedModel& model,
                                           const std::vector<const graph::Featurized*>& molecules,
                                           const AttributionOptions& o, const AttributionCallbacks& cb) {
  if (o.output < 0 || o.output >= model.config.num_classes)
    return Status(StatusCode::InvalidArgument, "the model has no output " + std::to_string(o.output));
  if (const auto& t = tensor::traits(o.precision); !t.trains)
    return Status(StatusCode::InvalidArgument, std::string(t.training_note) + ": explain in fp32 or bf16");
  if (o.threads < 0) return Status(StatusCode::InvalidArgument, "threads must be >= 0");
  if (Status s = tensor::precisionAvailable(o.precision, o.device); !s.isOk()) return s;
  const torch::Device device = compat::parseDevice(o.device).value();  // checked just above
  const graph::CollateOptions collate = collateOptionsFor(model, {});
  // Explanations run on a copy of the model on the device, in eval mode, FP32 and unpacked, whose
  // weights need no gradient: backward computes input gradients only, autograd keeps only what
  // those need (no layer inputs saved for weight gradients), and the shared model is never
  // touched. 16-bit explanations run the layers and head from a second, 16-bit copy without
  // autocast, so the activations backward keeps are 16-bit too (autocast keeps FP32 layer-norm
  // and softmax tensors and saves little); embeddings and baselines stay FP32 (no 16-bit
  // embedding_bag on the CPU), computed once per batch.
  auto frozenCopy = [&](torch::ScalarType dtype) {
    model::Graphormer copy(model.model->copyAs(dtype, device));
    for (auto& p : copy->parameters()) p.requires_grad_(false);
    copy->eval();
    return copy;
  };
  model::LoadedModel m = model;
  m.model = frozenCopy(torch::kFloat);
  model::Graphormer encoder = m.model;
  if (o.method != AttributionMethod::AttentionRollout && tensor::traits(o.precision).sixteen_bit)
    encoder = frozenCopy(tensor::productType(o.precision));
  std::vector<Attribution> out(molecules.size());
  std::optional<tensor::TensorMemoryScope> scope;
  if (cb.memory) scope.emplace(cb.memory);
  compat::setThreads(o.threads);
  std::vector<int> eligible, sizes;
  for (size_t i = 0; i < molecules.size(); ++i) {
    out[i].status = admit(molecules[i], model.config);
    if (!out[i].status.isOk()) continue;
    eligible.push_back(static_cast<int>(i));
    sizes.push_back(molecules[i]->numNodes());
  }
  data::PlanOptions plan;
  plan.max_batch_size = std::max(1, o.batch_size);
  int64_t done = 0;
  for (const auto& planned : data::planBatches(sizes, plan)) {
    if (cb.cancelled && cb.cancelled()) break;
    Batch batch;
    std::vector<const graph::Featurized*> members;
    for (int j : planned) {
      batch.members.push_back(eligible[j]);
      members.push_back(molecules[eligible[j]]);
    }
    batch.graphs = tensor::collate(members, collate).to(device);
    batch.node_offset = graph::nodeIndexOffset(collate.convention);
    try {
      if (o.method == AttributionMethod::AttentionRollout)
        rolloutAttributions(m, molecules, batch, o.output, out);
      else
        gradientAttributions(m, *encoder, molecules, batch, o, device, out, cb);
    } catch (const c10::Error& e) {
      for (int i : batch.members)
        out[i].status = Status(StatusCode::Internal, std::string(e.what_without_backtrace()).substr(0, 200));
    } catch (const std::bad_alloc&) {
      for (int i : batch.members) out[i].status = Status(StatusCode::OutOfMemory, "not enough memory for this batch");
    }
    done += static_cast<int64_t>(planned.size());
    if (cb.progress) cb.progress(done, static_cast<int64_t>(eligible.size()));
  }
  if (cb.cancelled && cb.cancelled())  // the batches not started, and one stopped part-way
    for (int i : eligible)
      if (out[i].atoms.empty() && out[i].status.isOk())
        out[i].status = Status(StatusCode::Cancelled, "explanation cancelled");
  return out;
}

}  // namespace gs::engine
