#include "engine/trainer.h"

#include "common/named_enum.h"

#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "common/json_writer.h"
#include "engine/activation_checkpoint.h"
#include "engine/loss_scaler.h"
#include "tensor/torch_compat.h"
#include "model/lora.h"

namespace gs::engine {
namespace {
constexpr NameTable<TrainOptions::Schedule, 2> kSchedules{{TrainOptions::Schedule::Cosine, "cosine"},
                                                         {TrainOptions::Schedule::Linear, "linear"}};
constexpr NameTable<TrainOptions::Loss, 2> kLosses{{TrainOptions::Loss::L1, "l1"}, {TrainOptions::Loss::MSE, "mse"}};
}  // namespace

const char* scheduleName(TrainOptions::Schedule schedule) { return nameIn(kSchedules, schedule); }
Result<TrainOptions::Schedule> parseSchedule(const std::string& name) { return parseIn(kSchedules, name, "schedule"); }
const char* lossName(TrainOptions::Loss loss) { return nameIn(kLosses, loss); }
Result<TrainOptions::Loss> parseLoss(const std::string& name) { return parseIn(kLosses, name, "loss"); }

namespace fs = std::filesystem;
namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

// Per-output mean and standard deviation of the training targets, missing values skipped.
void targetStatistics(const std::vector<TrainExample>& train, int k, std::vector<double>& mean, std::vector<double>& sd) {
  mean.assign(k, 0.0);
  sd.assign(k, 1.0);
  for (int j = 0; j < k; ++j) {
    double sum = 0, sq = 0;
    int64_t n = 0;
    for (const auto& e : train) {
      const float v = e.targets[j];
      if (std::isnan(v)) continue;
      sum += v;
      sq += double(v) * v;
      ++n;
    }
    if (n == 0) continue;
    mean[j] = sum / n;
    const double var = sq / n - mean[j] * mean[j];
    sd[j] = var > 1e-12 ? std::sqrt(var) : 1.0;
  }
}

bool frozen(const std::string& name, int freeze_layers) {
  if (freeze_layers <= 0) return false;
  const std::string enc = "encoder.graph_encoder.";
  if (name.rfind(enc + "graph_node_feature.", 0) == 0 || name.rfind(enc + "graph_attn_bias.", 0) == 0 ||
      name.rfind(enc + "emb_layer_norm.", 0) == 0)
    return true;
  const std::string layers = enc + "layers.";
  if (name.rfind(layers, 0) != 0) return false;
  return std::stoi(name.substr(layers.size())) < freeze_layers;
}

double learningRate(const TrainOptions& o, int64_t step, int64_t total) {
  const int64_t warmup = std::llround(o.warmup_fraction * total);
  if (step < warmup) return o.learning_rate * double(step + 1) / double(warmup);
  const double progress = total > warmup ? double(step - warmup) / double(total - warmup) : 1.0;
  if (o.schedule == TrainOptions::Schedule::Linear) return o.learning_rate * std::max(0.0, 1.0 - progress);
  return o.learning_rate * 0.5 * (1.0 + std::cos(M_PI * std::min(progress, 1.0)));
}

// Normalised targets [B, K] of examples order[begin, end) (NaN where missing); their molecules go to `mols`.
torch::Tensor batchTargets(const std::vector<TrainExample>& examples, const std::vector<size_t>& order, int64_t begin,
                           int64_t end, const bundle::ModelMetadata& md, std::vector<const graph::Featurized*>& mols) {
  const int64_t k = static_cast<int64_t>(md.target_mean.size());
  auto y = torch::empty({end - begin, k}, torch::kFloat);
  auto acc = y.accessor<float, 2>();
  for (int64_t i = begin; i < end; ++i) {
    const auto& e = examples[order[i]];
    mols.push_back(e.graph);
    for (int64_t j = 0; j < k; ++j)
      acc[i - begin][j] = std::isnan(e.targets[j]) ? kMissing : float((e.targets[j] - md.target_mean[j]) / md.target_std[j]);
  }
  return y;
}

// Mean L1 or squared error over the present (finite) targets.
torch::Tensor maskedLoss(const torch::Tensor& out, const torch::Tensor& target, TrainOptions::Loss kind) {
  const auto mask = torch::isfinite(target);
  const auto diff = (out - target.nan_to_num(0.0)).masked_fill(mask.logical_not(), 0.0);
  const auto n = mask.sum().clamp_min(1);
  return (kind == TrainOptions::Loss::L1 ? diff.abs() : diff * diff).sum() / n;
}

struct State {
  int epoch = 0, best_epoch = 0, since_best = 0;
  double best = std::numeric_limits<double>::infinity();
};

Status writeState(const std::string& path, const State& s) {
  std::ofstream out(path);
  JsonWriter w(out);
  w.beginObject().field("epoch", s.epoch).field("best_epoch", s.best_epoch).field("since_best", s.since_best)
      .field("best_valid_mae", s.best).endObject();
  return out ? Status::ok() : Status(StatusCode::IoError, "cannot write " + path);
}

Result<State> readState(const std::string& path) {
  auto json = bundle::readJsonFile(path);
  if (!json.isOk()) return json.status();
  State s;
  const auto* e = json->find("epoch");
  const auto* be = json->find("best_epoch");
  const auto* sb = json->find("since_best");
  const auto* b = json->find("best_valid_mae");
  if (!e || !be || !sb || !b) return Status(StatusCode::MalformedRecord, path + ": incomplete training state");
  s.epoch = int(e->asInteger());
  s.best_epoch = int(be->asInteger());
  s.since_best = int(sb->asInteger());
  s.best = b->asNumber();
  return s;
}

}  // namespace

std::vector<std::string> Trainer::checkpointFiles(const std::string& output_dir) {
  return {output_dir + "/last.safetensors", output_dir + "/best.safetensors", output_dir + "/state.json",
          output_dir + "/optimizer.pt"};
}

Trainer::Trainer(model::LoadedModel model, TrainOptions options) : model_(std::move(model)), options_(std::move(options)) {}

std::vector<double> Trainer::evaluate(const std::vector<TrainExample>& examples) {
  const int k = model_.config.num_classes;
  std::vector<double> err(k, 0.0);
  std::vector<int64_t> count(k, 0);
  const bool was_training = model_.model->is_training();
  model_.model->eval();
  torch::NoGradGuard no_grad;
  const auto device = model_.model->parameters().front().device();
  const auto& md = model_.metadata;
  for (size_t start = 0; start < examples.size(); start += std::max(1, options_.batch_size)) {
    const size_t end = std::min(examples.size(), start + std::max(1, options_.batch_size));
    std::vector<const graph::Featurized*> mols;
    for (size_t i = start; i < end; ++i) mols.push_back(examples[i].graph);
    auto out = model_.model->forward(tensor::collate(mols, options_.collate).to(device)).to(torch::kCPU);
    auto acc = out.accessor<float, 2>();
    for (size_t i = start; i < end; ++i) {
      for (int j = 0; j < k; ++j) {
        const float t = examples[i].targets[j];
        if (std::isnan(t)) continue;
        const double pred = md.denormalize(j, acc[i - start][j]);
        err[j] += std::abs(pred - t);
        ++count[j];
      }
    }
  }
  for (int j = 0; j < k; ++j) err[j] = count[j] ? err[j] / count[j] : 0.0;
  if (was_training) model_.model->train();
  return err;
}

Status Trainer::snapshotCycles(const std::vector<TrainExample>& train, int cycles, int epochs, double learning_rate,
                               const std::function<Status(int)>& snapshot, const TrainCallbacks& callbacks) {
  const TrainOptions saved = options_;
  Status status = Status::ok();
  for (int k = 1; k <= cycles && status.isOk(); ++k) {
    options_.epochs = std::max(1, epochs);
    options_.learning_rate = learning_rate;
    options_.warmup_fraction = 0;
    options_.schedule = TrainOptions::Schedule::Cosine;
    options_.patience = 0;
    options_.output_dir.clear();
    options_.resume = false;
    options_.reset_head = false;
    options_.seed = saved.seed + 7777ULL * static_cast<uint64_t>(k);
    snapshot_ = k;
    auto run = fit(train, {}, callbacks);
    snapshot_ = 0;
    if (!run.isOk()) status = run.status();
    else if (run->cancelled) status = Status(StatusCode::Cancelled, "cancelled while training snapshots");
    else status = snapshot(k);
  }
  options_ = saved;
  return status;
}

Result<TrainSummary> Trainer::fit(const std::vector<TrainExample>& train, const std::vector<TrainExample>& valid,
                                  const TrainCallbacks& cb) {
  const auto& o = options_;
  const int k = model_.config.num_classes;
  if (train.empty()) return Status(StatusCode::InvalidArgument, "no training molecules");
  for (const auto* set : {&train, &valid})
    for (const auto& e : *set)
      if (!e.graph || static_cast<int>(e.targets.size()) != k)
        return Status(StatusCode::InvalidArgument, "every example needs a molecule and " + std::to_string(k) + " target(s)");
  if (o.precision == tensor::Precision::INT8) return Status(StatusCode::InvalidArgument, "int8 is an inference mode; train in fp32, bf16 or fp16");
  auto parsed_device = compat::parseDevice(o.device);
  if (!parsed_device.isOk()) return parsed_device.status();
  const torch::Device device = parsed_device.value();
  if (o.precision == tensor::Precision::FP16 && !device.is_cuda())
    return Status(StatusCode::InvalidArgument, "fp16 training needs CUDA (loss scaling); use bf16 on the CPU");
  compat::setThreads(o.threads);

  auto& model = model_.model;
  model->setInt8(false, nullptr);
  targetStatistics(train, k, model_.metadata.target_mean, model_.metadata.target_std);
  if (o.reset_head) {
    torch::NoGradGuard no_grad;
    for (auto* lin : {model->encoder->lm_head_transform_weight.get(), model->classifier->classifier.get()}) {
      lin->weight.normal_(0.0, 0.02);
      if (lin->bias.defined()) lin->bias.zero_();
    }
    model->classifier->lm_output_learned_bias.zero_();
  }
  if (o.lora_rank > 0 && !model::hasLora(*model))
    model::addLora(*model, o.lora_rank, o.lora_alpha > 0 ? o.lora_alpha : o.lora_rank, o.seed * 31ULL + 17ULL);
  const bool lora = model::hasLora(*model);
  std::vector<torch::Tensor> params;
  for (auto& p : model->named_parameters()) {
    p.value().set_requires_grad(lora ? model::isAdapterParameter(p.key()) : !frozen(p.key(), o.freeze_layers));
    if (p.value().requires_grad()) params.push_back(p.value());
  }
  model->to(device);
  model->train();
  torch::optim::AdamW optimizer(params, torch::optim::AdamWOptions(o.learning_rate).weight_decay(o.weight_decay));
  LossScaler scaler(o.precision == tensor::Precision::FP16);
  const model::LayerRunner runner = checkpointRunner(model_.config.num_hidden_layers, o.checkpoint_ratio);
  const int64_t bs = std::max(1, o.batch_size);
  const int64_t steps_per_epoch = (static_cast<int64_t>(train.size()) + bs - 1) / bs;
  const int64_t total_steps = steps_per_epoch * std::max(1, o.epochs);

  State state;
  const bool persist = !o.output_dir.empty();
  if (persist) {
    std::error_code ec;
    fs::create_directories(o.output_dir, ec);
    if (ec || !fs::is_directory(o.output_dir, ec))
      return Status(StatusCode::IoError, "cannot create the output directory '" + o.output_dir + "'" +
                                             (ec ? ": " + ec.message() : ": a file of that name is in the way"));
  }
  const auto files = checkpointFiles(o.output_dir);
  const std::string &last = files[0], &best = files[1], &state_file = files[2], &optim_file = files[3];
  if (persist && o.resume && fs::exists(state_file)) {
    auto s = readState(state_file);
    if (!s.isOk()) return s.status();
    state = s.value();
    auto ck = model::readCheckpoint(last);
    if (!ck.isOk()) return ck.status();
    if (Status st = model::loadStateDict(*model, ck->tensors); !st.isOk()) return st;
    torch::load(optimizer, optim_file);
  }
  std::map<std::string, torch::Tensor> best_weights;
  TrainSummary summary;
  summary.best_epoch = state.best_epoch;
  summary.best_valid_mae = state.best;
  const bool autocast = o.precision == tensor::Precision::BF16 || o.precision == tensor::Precision::FP16;
  const auto dtype = o.precision == tensor::Precision::FP16 ? torch::kHalf : torch::kBFloat16;
  for (int epoch = state.epoch + 1; epoch <= o.epochs; ++epoch) {
    if (cb.cancelled && cb.cancelled()) {
      summary.cancelled = true;
      break;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<size_t> order(train.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(o.seed * 1000003ULL + static_cast<uint64_t>(epoch)));
    torch::manual_seed(o.seed * 7919ULL + static_cast<uint64_t>(epoch));
    double loss_sum = 0;
    for (int64_t s = 0; s < steps_per_epoch; ++s) {
      const int64_t step = (epoch - 1) * steps_per_epoch + s;
      std::vector<const graph::Featurized*> mols;
      const auto end = std::min<int64_t>((s + 1) * bs, static_cast<int64_t>(order.size()));
      const auto target = batchTargets(train, order, s * bs, end, model_.metadata, mols).to(device);
      for (auto& group : optimizer.param_groups())
        static_cast<torch::optim::AdamWOptions&>(group.options()).lr(learningRate(o, step, total_steps));
      optimizer.zero_grad();
      torch::Tensor out;
      {
        compat::AutocastGuard guard(device.type(), dtype, autocast);
        out = model->forward(tensor::collate(mols, o.collate).to(device), runner);
      }
      const auto loss = maskedLoss(out.to(torch::kFloat), target, o.loss);
      scaler.scale(loss).backward();
      if (scaler.unscaleAndCheck(params)) {
        if (o.clip_norm > 0) torch::nn::utils::clip_grad_norm_(params, o.clip_norm);
        optimizer.step();
      }
      const double l = loss.item<double>();
      loss_sum += l;
      if (cb.step_done) cb.step_done(step + 1, total_steps, l);
    }
    EpochReport r;
    r.epoch = epoch;
    r.train_loss = loss_sum / double(steps_per_epoch);
    r.skipped_steps = scaler.skippedSteps();
    r.snapshot = snapshot_;
    if (!valid.empty()) {
      const auto mae = evaluate(valid);
      r.valid_mae = std::accumulate(mae.begin(), mae.end(), 0.0) / double(k);
    }
    r.improved = valid.empty() || r.valid_mae < state.best;
    if (r.improved) {
      state.best = valid.empty() ? r.train_loss : r.valid_mae;
      state.best_epoch = epoch;
      state.since_best = 0;
      if (persist) {
        if (Status st = model::saveModel(best, *model, model_.metadata); !st.isOk()) return st;
      } else {
        torch::NoGradGuard no_grad;
        for (const auto& p : model->named_parameters()) best_weights[p.key()] = p.value().detach().clone();
      }
    } else {
      ++state.since_best;
    }
    state.epoch = epoch;
    if (persist) {
      if (Status st = model::saveModel(last, *model, model_.metadata); !st.isOk()) return st;
      torch::save(optimizer, optim_file);
      if (Status st = writeState(state_file, state); !st.isOk()) return st;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    summary.epochs.push_back(r);
    if (cb.epoch_done) cb.epoch_done(r);
    if (o.patience > 0 && state.since_best >= o.patience) {
      summary.stopped_early = true;
      break;
    }
  }
  summary.best_epoch = state.best_epoch;
  summary.best_valid_mae = state.best;
  // Leave the best epoch's weights in the model.
  torch::NoGradGuard no_grad;
  if (persist && fs::exists(best)) {
    auto ck = model::readCheckpoint(best);
    if (ck.isOk()) (void)model::loadStateDict(*model, ck->tensors);
  } else if (!best_weights.empty()) {
    for (auto& p : model->named_parameters()) p.value().copy_(best_weights[p.key()]);
  }
  for (auto& p : model->parameters()) p.set_requires_grad(true);
  model->eval();
  return summary;
}

}  // namespace gs::engine
