#include "engine/trainer.h"

#include "common/named_enum.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "common/atomic_file.h"
#include "common/json_writer.h"
#include "common/stats.h"
#include "engine/activation_checkpoint.h"
#include "engine/loss_scaler.h"
#include "engine/train_state.h"
#include "model/lora.h"
#include "tensor/precision_dtype.h"
#include "tensor/torch_compat.h"

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
void targetStatistics(const std::vector<TrainExample>& train, int k, std::vector<double>& mean,
                      std::vector<double>& sd) {
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
      acc[i - begin][j] =
          std::isnan(e.targets[j]) ? kMissing : float((e.targets[j] - md.target_mean[j]) / md.target_std[j]);
  }
  return y;
}

}  // namespace

torch::Tensor maskedLossSum(const torch::Tensor& out, const torch::Tensor& target, TrainOptions::Loss kind) {
  const auto mask = torch::isfinite(target);
  const auto diff = (out - target.nan_to_num(0.0)).masked_fill(mask.logical_not(), 0.0);
  return (kind == TrainOptions::Loss::L1 ? diff.abs() : diff * diff).sum();
}

std::vector<std::string> Trainer::checkpointFiles(const std::string& output_dir) {
  return {output_dir + "/last.safetensors", output_dir + "/best.safetensors", output_dir + "/state.json",
          output_dir + "/optimizer.pt"};
}

Trainer::Trainer(model::LoadedModel model, TrainOptions options)
    : model_(std::move(model)), options_(std::move(options)) {}

std::vector<std::vector<float>> Trainer::predict(const std::vector<TrainExample>& examples) {
  const int k = model_.config.num_classes;
  std::vector<std::vector<float>> values;
  values.reserve(examples.size());
  const bool was_training = model_.model->is_training();
  model_.model->eval();
  torch::NoGradGuard no_grad;
  const auto device = model_.model->parameters().front().device();
  const auto& md = model_.metadata;
  // No activations are kept without gradients: twice the training pass's molecules fit.
  const size_t chunk =
      size_t(std::max(1, eval_batch_ > 0 ? std::min(options_.batch_size, 2 * eval_batch_) : options_.batch_size));
  for (size_t start = 0; start < examples.size(); start += chunk) {
    const size_t end = std::min(examples.size(), start + chunk);
    std::vector<const graph::Featurized*> mols;
    for (size_t i = start; i < end; ++i) mols.push_back(examples[i].graph);
    auto out = model_.model->forward(tensor::collate(mols, options_.collate).to(device)).to(torch::kCPU);
    auto acc = out.accessor<float, 2>();
    for (size_t i = start; i < end; ++i) {
      std::vector<float>& row = values.emplace_back(static_cast<size_t>(k));
      for (int j = 0; j < k; ++j) row[j] = static_cast<float>(md.denormalize(j, acc[i - start][j]));
    }
  }
  if (was_training) model_.model->train();
  return values;
}

std::vector<double> Trainer::evaluate(const std::vector<TrainExample>& examples) {
  const int k = model_.config.num_classes;
  std::vector<double> err(k, 0.0);
  std::vector<int64_t> count(k, 0);
  const auto values = predict(examples);
  for (size_t i = 0; i < examples.size(); ++i)
    for (int j = 0; j < k; ++j) {
      const float t = examples[i].targets[j];
      if (std::isnan(t)) continue;
      err[j] += std::abs(double(values[i][j]) - t);
      ++count[j];
    }
  for (int j = 0; j < k; ++j) err[j] = count[j] ? err[j] / count[j] : 0.0;
  return err;
}

std::vector<double> Trainer::recenter(const std::vector<TrainExample>& valid, int64_t min_count) {
  model_.metadata.output_offset.clear();
  std::vector<std::vector<float>> labels;
  labels.reserve(valid.size());
  for (const auto& e : valid) labels.push_back(e.targets);
  auto offsets = stats::medianResiduals(predict(valid), labels, model_.config.num_classes, min_count);
  if (std::any_of(offsets.begin(), offsets.end(), [](double d) { return d != 0; }))
    model_.metadata.output_offset = offsets;
  return offsets;
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
    if (!run.isOk())
      status = run.status();
    else if (run->cancelled)
      status = Status(StatusCode::Cancelled, "cancelled while training snapshots");
    else
      status = snapshot(k);
  }
  options_ = saved;
  return status;
}

std::vector<torch::Tensor> markTrainable(model::GraphormerImpl& model, const TrainOptions& o) {
  if (o.lora_rank > 0 && !model::hasLora(model))
    model::addLora(model, o.lora_rank, o.lora_alpha > 0 ? o.lora_alpha : o.lora_rank, o.seed * 31ULL + 17ULL);
  const bool lora = model::hasLora(model);
  std::vector<torch::Tensor> params;
  for (auto& p : model.named_parameters()) {
    p.value().set_requires_grad(lora ? model::isAdapterParameter(p.key()) : !frozen(p.key(), o.freeze_layers));
    if (p.value().requires_grad()) params.push_back(p.value());
  }
  return params;
}

bool Trainer::resumable(const std::string& output_dir) {
  const auto files = checkpointFiles(output_dir);
  return fs::exists(files[0]) && fs::exists(files[2]) && fs::exists(files[3]);
}

// What one fit() holds while it runs.
struct Trainer::Run {
  torch::Device device{torch::kCPU};
  std::vector<torch::Tensor> params;
  std::unique_ptr<torch::optim::AdamW> optimizer;
  std::unique_ptr<LossScaler> scaler;
  TrainState state;
  bool autocast = false;
  torch::ScalarType dtype = torch::kBFloat16;
  int64_t steps_per_epoch = 0, total_steps = 0;
  int memory_retries = 0;
  std::map<std::string, torch::Tensor> best_weights;  // without an output directory
};

namespace {

// The next memory setting after an out-of-memory error: a quarter of the layers more checkpointed,
// then half the micro-batch. False when nothing is left to give.
bool lowerMemory(int layers, int batch, TrainState& s, std::string& what) {
  const int checkpointed = checkpointedLayers(layers, s.checkpoint_ratio);
  if (checkpointed < layers) {
    const int more = std::min(layers, checkpointed + std::max(1, (layers + 3) / 4));
    s.checkpoint_ratio = double(more) / layers;
    what = "checkpoint ratio raised to " + std::to_string(s.checkpoint_ratio).substr(0, 4);
    return true;
  }
  const int micro = s.micro_batch > 0 ? std::min(s.micro_batch, batch) : batch;
  if (micro <= 1) return false;
  s.micro_batch = micro / 2;
  what = "micro-batch lowered to " + std::to_string(s.micro_batch) + " (batch " + std::to_string(batch) +
         " accumulated in " + std::to_string((batch + s.micro_batch - 1) / s.micro_batch) + " passes)";
  return true;
}

void dropGradients(const std::vector<torch::Tensor>& params) {
  for (auto p : params) p.mutable_grad() = torch::Tensor();
}

}  // namespace

Result<double> Trainer::step(Run& run, const std::vector<const graph::Featurized*>& mols, const torch::Tensor& target,
                             int64_t step, const TrainCallbacks& cb) {
  const auto& o = options_;
  auto& model = model_.model;
  const int64_t n = static_cast<int64_t>(mols.size());
  const auto present = torch::isfinite(target).sum().clamp_min(1).to(torch::kFloat);
  for (;;) {
    torch::manual_seed(o.seed * 7919ULL + static_cast<uint64_t>(step));
    const int64_t micro = run.state.micro_batch > 0 ? std::min<int64_t>(run.state.micro_batch, n) : n;
    const model::LayerRunner runner = checkpointRunner(model_.config.num_hidden_layers, run.state.checkpoint_ratio);
    std::string failure;
    try {
      run.optimizer->zero_grad();
      double loss = 0;
      for (int64_t begin = 0; begin < n; begin += micro) {
        const int64_t end = std::min(n, begin + micro);
        if (cb.before_forward) cb.before_forward(int(micro), run.state.checkpoint_ratio);
        const std::vector<const graph::Featurized*> part(mols.begin() + begin, mols.begin() + end);
        torch::Tensor out;
        {
          compat::AutocastGuard guard(run.device.type(), run.dtype, run.autocast);
          out = model->forward(tensor::collate(part, o.collate).to(run.device), runner);
        }
        const auto l = maskedLossSum(out.to(torch::kFloat), target.slice(0, begin, end), o.loss) / present;
        run.scaler->scale(l).backward();
        loss += l.item<double>();
      }
      if (run.scaler->unscaleAndCheck(run.params)) {
        if (o.clip_norm > 0) torch::nn::utils::clip_grad_norm_(run.params, o.clip_norm);
        run.optimizer->step();
      }
      return loss;
    } catch (const std::exception& e) {
      failure = e.what();
    }
    dropGradients(run.params);
    compat::releaseCachedMemory(run.device.type());
    if (!compat::isOutOfMemory(failure)) return Status(StatusCode::Internal, "training step failed: " + failure);
    std::string change;
    if (!o.adapt_to_memory || !lowerMemory(model_.config.num_hidden_layers, int(n), run.state, change))
      return Status(StatusCode::OutOfMemory,
                    "out of memory in a training step with every layer checkpointed and one "
                    "molecule per pass; train on a larger device or a smaller model");
    ++run.memory_retries;
    if (cb.note) cb.note("out of memory at step " + std::to_string(step + 1) + ": " + change + "; step retried");
  }
}

Status Trainer::saveProgress(Run& run) {
  if (options_.output_dir.empty()) return Status::ok();
  const auto files = checkpointFiles(options_.output_dir);
  if (Status st = model::saveModel(files[0], *model_.model, model_.metadata); !st.isOk()) return st;
  torch::save(*run.optimizer, files[3]);
  return writeState(files[2], run.state);
}

// Normalisation, head reset, LoRA, trainable parameters, optimizer and schedule.
void Trainer::prepare(Run& run, const std::vector<TrainExample>& train) {
  const auto& o = options_;
  const int k = model_.config.num_classes;
  model_.model->setInt8(false, nullptr);
  targetStatistics(train, k, model_.metadata.target_mean, model_.metadata.target_std);
  model_.metadata.output_offset.clear();
  if (o.reset_head) {
    torch::NoGradGuard no_grad;
    for (auto* lin :
         {model_.model->encoder->lm_head_transform_weight.get(), model_.model->classifier->classifier.get()}) {
      lin->weight.normal_(0.0, 0.02);
      if (lin->bias.defined()) lin->bias.zero_();
    }
    model_.model->classifier->lm_output_learned_bias.zero_();
  }
  run.params = markTrainable(*model_.model, o);
  model_.model->to(run.device);
  model_.model->train();
  run.optimizer = std::make_unique<torch::optim::AdamW>(
      run.params, torch::optim::AdamWOptions(o.learning_rate).weight_decay(o.weight_decay));
  run.scaler = std::make_unique<LossScaler>(tensor::traits(o.precision).loss_scaling);
  run.autocast = tensor::traits(o.precision).sixteen_bit;
  run.dtype = tensor::productType(o.precision);
  const int64_t bs = std::max(1, o.batch_size);
  run.steps_per_epoch = (static_cast<int64_t>(train.size()) + bs - 1) / bs;
  run.total_steps = run.steps_per_epoch * std::max(1, o.epochs);
  run.state.micro_batch = o.micro_batch;
  run.state.checkpoint_ratio = o.checkpoint_ratio;
}

// The state, last weights and optimizer of an interrupted run in the output directory.
Status Trainer::restore(Run& run) {
  const auto files = checkpointFiles(options_.output_dir);
  auto s = readState(files[2]);
  if (!s.isOk()) return s.status();
  run.state = s.value();
  auto ck = model::readCheckpoint(files[0]);
  if (!ck.isOk()) return ck.status();
  if (Status st = model::loadStateDict(*model_.model, ck->tensors); !st.isOk()) return st;
  try {
    torch::load(*run.optimizer, files[3]);
  } catch (const std::exception& e) {
    return Status(StatusCode::MalformedRecord,
                  files[3] + ": cannot restore the optimizer (" + std::string(e.what()).substr(0, 200) + ")");
  }
  return Status::ok();
}

Result<TrainSummary> Trainer::fit(const std::vector<TrainExample>& train, const std::vector<TrainExample>& valid,
                                  const TrainCallbacks& cb) {
  const auto& o = options_;
  const int k = model_.config.num_classes;
  if (train.empty()) return Status(StatusCode::InvalidArgument, "no training molecules");
  for (const auto* set : {&train, &valid})
    for (const auto& e : *set)
      if (!e.graph || static_cast<int>(e.targets.size()) != k)
        return Status(StatusCode::InvalidArgument,
                      "every example needs a molecule and " + std::to_string(k) + " target(s)");
  auto parsed_device = compat::parseDevice(o.device);
  if (!parsed_device.isOk()) return parsed_device.status();
  if (Status st = tensor::trainingPrecisionAvailable(o.precision, o.device); !st.isOk()) return st;
  Run run;
  run.device = parsed_device.value();
  compat::setThreads(o.threads);

  prepare(run, train);
  const bool persist = !o.output_dir.empty();
  if (persist) {
    std::error_code ec;
    fs::create_directories(o.output_dir, ec);
    if (ec || !fs::is_directory(o.output_dir, ec))
      return Status(StatusCode::IoError, "cannot create the output directory '" + o.output_dir + "'" +
                                             (ec ? ": " + ec.message() : ": a file of that name is in the way"));
  }
  const auto files = checkpointFiles(o.output_dir);
  const std::string& best = files[1];
  if (persist && o.resume && resumable(o.output_dir))
    if (Status st = restore(run); !st.isOk()) return st;
  TrainSummary summary;
  for (int epoch = run.state.epoch + 1; epoch <= o.epochs; ++epoch) {
    const auto t0 = std::chrono::steady_clock::now();
    auto done = runEpoch(run, epoch, train, cb);
    if (!done.isOk()) return done.status();
    if (!done.value()) {
      summary.cancelled = true;
      if (Status st = saveProgress(run); !st.isOk()) return st;
      break;
    }
    auto report = endEpoch(run, epoch, valid);
    if (!report.isOk()) return report.status();
    report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    summary.epochs.push_back(report.value());
    if (cb.epoch_done) cb.epoch_done(report.value());
    if (o.patience > 0 && run.state.since_best >= o.patience) {
      summary.stopped_early = true;
      break;
    }
  }
  summary.best_epoch = run.state.best_epoch;
  summary.best_valid_mae = run.state.best;
  summary.memory_retries = run.memory_retries;
  summary.micro_batch = run.state.micro_batch;
  summary.checkpoint_ratio = run.state.checkpoint_ratio;
  // Leave the best epoch's weights in the model.
  auto& model = model_.model;
  torch::NoGradGuard no_grad;
  if (persist && fs::exists(best)) {
    auto ck = model::readCheckpoint(best);
    if (ck.isOk()) (void)model::loadStateDict(*model, ck->tensors);
  } else if (!run.best_weights.empty()) {
    for (auto& p : model->named_parameters()) p.value().copy_(run.best_weights[p.key()]);
  }
  for (auto& p : model->parameters()) p.set_requires_grad(true);
  model->eval();
  return summary;
}

// The steps of one epoch from where the state stands; false when cancelled before its end.
Result<bool> Trainer::runEpoch(Run& run, int epoch, const std::vector<TrainExample>& train, const TrainCallbacks& cb) {
  const auto& o = options_;
  const int64_t bs = std::max(1, o.batch_size);
  std::vector<size_t> order(train.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(o.seed * 1000003ULL + static_cast<uint64_t>(epoch)));
  for (int64_t s = run.state.step; s < run.steps_per_epoch; ++s) {
    if (cb.cancelled && cb.cancelled()) return false;
    const int64_t step = (epoch - 1) * run.steps_per_epoch + s;
    std::vector<const graph::Featurized*> mols;
    const auto end = std::min<int64_t>((s + 1) * bs, static_cast<int64_t>(order.size()));
    const auto target = batchTargets(train, order, s * bs, end, model_.metadata, mols).to(run.device);
    for (auto& group : run.optimizer->param_groups())
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(learningRate(o, step, run.total_steps));
    auto l = this->step(run, mols, target, step, cb);
    if (!l.isOk()) return l.status();
    run.state.loss_sum += l.value();
    run.state.step = static_cast<int>(s + 1);
    if (cb.step_done) cb.step_done(step + 1, run.total_steps, l.value());
  }
  return true;
}

// Validation, the best weights and the saved progress after an epoch's last step.
Result<EpochReport> Trainer::endEpoch(Run& run, int epoch, const std::vector<TrainExample>& valid) {
  auto& state = run.state;
  EpochReport r;
  r.epoch = epoch;
  r.train_loss = state.loss_sum / double(run.steps_per_epoch);
  r.skipped_steps = run.scaler->skippedSteps();
  r.snapshot = snapshot_;
  r.micro_batch = state.micro_batch;
  r.checkpoint_ratio = state.checkpoint_ratio;
  eval_batch_ = state.micro_batch;
  if (!valid.empty()) {
    r.valid_mae_per_target = evaluate(valid);
    const auto& mae = r.valid_mae_per_target;
    r.valid_mae = std::accumulate(mae.begin(), mae.end(), 0.0) / double(mae.size());
  }
  r.improved = valid.empty() || r.valid_mae < state.best;
  if (r.improved) {
    state.best = valid.empty() ? r.train_loss : r.valid_mae;
    state.best_epoch = epoch;
    state.since_best = 0;
    if (!options_.output_dir.empty()) {
      if (Status st = model::saveModel(checkpointFiles(options_.output_dir)[1], *model_.model, model_.metadata);
          !st.isOk())
        return st;
    } else {
      torch::NoGradGuard no_grad;
      for (const auto& p : model_.model->named_parameters()) run.best_weights[p.key()] = p.value().detach().clone();
    }
  } else {
    ++state.since_best;
  }
  state.epoch = epoch;
  state.step = 0;
  state.loss_sum = 0;
  if (Status st = saveProgress(run); !st.isOk()) return st;
  return r;
}

}  // namespace gs::engine
