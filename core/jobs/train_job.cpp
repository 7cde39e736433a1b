#include "jobs/train_job.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "bundle/trust_file.h"
#include "engine/train_memory.h"
#include "engine/trainer.h"
#include "jobs/output_check.h"
#include "jobs/train_run.h"
#include "jobs/trust_builder.h"
#include "model/loader.h"
#include "model/lora.h"

namespace gs::jobs {

void note(const engine::TrainCallbacks& callbacks, const std::string& text) {
  if (callbacks.note) callbacks.note(text);
}

namespace {

std::string secondsSince(std::chrono::steady_clock::time_point start) {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

// Fine-tuning on other targets than the model predicts (the bundled model's eight properties ->
// the user's one assay): the encoder is kept, the head gets one fresh output per target, and what
// described the old outputs (units, normalisation, mirror invariance) goes with the old head.
Status replaceHead(model::LoadedModel& m, int outputs, uint64_t seed) {
  if (!m.source.adapter.empty())
    return Status(StatusCode::InvalidArgument, "'" + model::modelLabel(m) + "' carries a LoRA adapter for " +
                                                   std::to_string(m.config.num_classes) +
                                                   " outputs: name as many targets, or fine-tune its base model");
  auto config = m.config;
  config.num_classes = outputs;
  model::Graphormer fresh(config);
  fresh->initializeWeights(seed);
  torch::NoGradGuard no_grad;
  const auto old_params = m.model->named_parameters(), old_buffers = m.model->named_buffers();
  for (auto& p : fresh->named_parameters())
    if (const auto* old = old_params.find(p.key()); old && old->sizes() == p.value().sizes()) p.value().copy_(*old);
  for (auto& b : fresh->named_buffers())
    if (const auto* old = old_buffers.find(b.key()); old && old->sizes() == b.value().sizes()) b.value().copy_(*old);
  m.config = config;
  m.model = fresh;
  m.metadata.target_units.clear();
  m.metadata.target_mean.clear();
  m.metadata.target_std.clear();
  m.metadata.mirror_invariant.reset();
  m.metadata.description.clear();
  return Status::ok();
}

}  // namespace

Result<model::LoadedModel> modelToTrain(const TrainJobOptions& options, bool lora, model::LoraSpec& spec,
                                        std::string* head_note) {
  model::LoadedModel model;
  if (options.model) {
    auto loaded = model::openModel(*options.model);
    if (!loaded.isOk()) return loaded.status();
    model = std::move(loaded.value());
    if (lora && !model.source.adapter.empty())
      return Status(StatusCode::InvalidArgument,
                    "'" + model::modelLabel(model) +
                        "' already carries a LoRA adapter: train a new "
                        "adapter on its base model, or fine-tune the adapted model without --lora-rank");
    if (model.config.num_classes != static_cast<int>(options.targets.size()) && lora)
      return Status(StatusCode::InvalidArgument, "the model has " + std::to_string(model.config.num_classes) +
                                                     " outputs but " + std::to_string(options.targets.size()) +
                                                     " targets were named: a LoRA adapter keeps the model's head");
    if (model.config.num_classes != static_cast<int>(options.targets.size())) {
      *head_note = "fine-tuning '" + model::modelLabel(model) + "' (" + std::to_string(model.config.num_classes) +
                   " outputs) on " + std::to_string(options.targets.size()) +
                   " targets: its encoder is kept, the head is new";
      if (Status s = replaceHead(model, static_cast<int>(options.targets.size()), options.init_seed); !s.isOk())
        return s;
    }
    if (lora) {
      spec.rank = options.train.lora_rank;
      spec.alpha = options.train.lora_alpha > 0 ? options.train.lora_alpha : options.train.lora_rank;
      spec.base_sha256 = model.sha256;
      spec.base_path = model.weights_path;
      spec.base_config = model.config.toJson();
    }
  } else {
    model.config = options.config;
    model.config.num_classes = static_cast<int>(options.targets.size());
    if (Status s = model.config.validate(); !s.isOk()) return s;
    model.model = model::Graphormer(model.config);
    model.model->initializeWeights(options.init_seed);
  }
  model.metadata.target_names = options.targets;
  if (!options.target_units.empty()) {
    if (options.target_units.size() != options.targets.size())
      return Status(StatusCode::InvalidArgument, "give one unit per target (or none)");
    model.metadata.target_units = options.target_units;
  }
  if (!options.description.empty()) model.metadata.description = options.description;
  if (options.mirror_invariant) model.metadata.mirror_invariant = true;
  model.metadata.convention = options.train.collate.convention;
  model.metadata.spatial_pos_max = options.train.collate.spatial_pos_max;
  return model;
}

Folds foldsOf(const LabelledData& data, const std::vector<data::Subset>& split) {
  Folds f;
  for (size_t i = 0; i < data.rows.size(); ++i) {
    engine::TrainExample e{&*data.rows[i].features, data.targets[i]};
    const auto s = split[i];
    (s == data::Subset::Test    ? f.test
     : s == data::Subset::Valid ? f.valid
     : s == data::Subset::Calib ? f.calib
                                : f.train)
        .push_back(e);
  }
  return f;
}

Status checkTrainOptions(const TrainJobOptions& options, const std::vector<std::string>& more_outputs,
                         const std::vector<std::string>& more_inputs) {
  if (options.output_dir.empty()) return Status(StatusCode::InvalidArgument, "an output directory is needed");
  const bool lora = options.train.lora_rank > 0;
  if (lora && !options.model)
    return Status(StatusCode::InvalidArgument,
                  "LoRA adapts a trained model: give the base model to fine-tune (--model)");
  if (lora && options.train.freeze_layers > 0)
    return Status(StatusCode::InvalidArgument,
                  "LoRA already keeps every base weight fixed; do not combine it with freezing layers");
  if (options.snapshots < 0 || options.snapshot_epochs < 1)
    return Status(StatusCode::InvalidArgument, "snapshots must be >= 0 and snapshot epochs >= 1");
  auto outputs = engine::Trainer::checkpointFiles(options.output_dir);
  for (const char* name : {"split.csv", bundle::kWeightsFile, bundle::kAdapterFile, bundle::kTrustFile})
    outputs.push_back(options.output_dir + "/" + name);
  outputs.insert(outputs.end(), more_outputs.begin(), more_outputs.end());
  std::vector<std::string> inputs{options.input};
  inputs.insert(inputs.end(), more_inputs.begin(), more_inputs.end());
  return checkOutputs(outputs, inputs, options.model);
}

namespace {

// The snapshot ensemble, saved as <output>/snapshots/<k>; returns the member directories.
Result<std::vector<std::string>> trainSnapshots(const TrainJobOptions& options, engine::Trainer& trainer,
                                                const Folds& folds, const model::LoraSpec* spec,
                                                const engine::TrainCallbacks& callbacks) {
  std::vector<std::string> members;
  const double lr = options.snapshot_lr > 0 ? options.snapshot_lr : options.train.learning_rate / 2;
  const Status s = trainer.snapshotCycles(
      folds.train, options.snapshots, options.snapshot_epochs, lr,
      [&](int k) -> Status {
        if (options.recenter) trainer.recenter(folds.valid, kRecenterMinimum);
        const std::string member = "snapshots/" + std::to_string(k);
        std::error_code ec;
        std::filesystem::create_directories(options.output_dir + "/" + member, ec);
        auto written = model::saveBundle(options.output_dir + "/" + member, *trainer.model().model,
                                         trainer.model().metadata, spec);
        if (!written.isOk()) return written.status();
        members.push_back(member);
        return Status::ok();
      },
      callbacks);
  if (!s.isOk()) return s;
  return members;
}

// With a memory budget: probe, choose, apply the choice to `to` and report it.
Status fitToBudget(const TrainJobOptions& options, const model::LoadedModel& model,
                   const std::vector<engine::TrainExample>& train, engine::TrainOptions& to, TrainJobSummary& summary,
                   const engine::TrainCallbacks& callbacks) {
  if (options.memory_budget_mib <= 0) return Status::ok();
  engine::MemoryFitOptions mf;
  mf.budget_bytes = options.memory_budget_mib << 20;
  mf.allow_precision = options.fit_precision;
  auto fit = engine::fitTrainingToMemory(model, train, to, mf);
  if (!fit.isOk()) return fit.status();
  fit->applyTo(to);
  summary.memory_fit = fit.value();
  note(callbacks, "fit to memory: " + fit->summary());
  return Status::ok();
}

}  // namespace

Status exportModel(const std::string& run_dir, const std::string& destination) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(destination, ec) && (!fs::is_directory(destination, ec) || !fs::is_empty(destination, ec)))
    return Status(StatusCode::InvalidArgument, "'" + destination + "' is not empty: choose a new or empty directory");
  const bool adapter = fs::exists(run_dir + "/" + bundle::kAdapterFile, ec);
  const bool weights = fs::exists(run_dir + "/" + bundle::kWeightsFile, ec);
  if (!adapter && !weights) return Status(StatusCode::InvalidArgument, "'" + run_dir + "' holds no trained model yet");
  fs::create_directories(destination, ec);
  if (ec) return Status(StatusCode::IoError, "cannot create '" + destination + "': " + ec.message());
  for (const std::string name :
       {adapter ? bundle::kAdapterFile : bundle::kWeightsFile, bundle::kTrustFile, "split.csv", "snapshots"}) {
    const fs::path from = fs::path(run_dir) / name;
    if (!fs::exists(from, ec)) continue;
    fs::copy(from, fs::path(destination) / name, fs::copy_options::recursive, ec);
    if (ec) return Status(StatusCode::IoError, "cannot copy " + from.string() + ": " + ec.message());
  }
  return Status::ok();
}

LabelledDataOptions labelledDataOptions(const TrainJobOptions& options, const bundle::GraphormerConfig& config) {
  LabelledDataOptions read;
  read.input = options.input;
  read.targets = options.targets;
  read.reader = options.reader;
  read.featurize = chem::FeaturizeOptions::forModel(config, options.featurize.parse, options.featurize.atom_order);
  read.featurize.domain = options.split.calib_fraction > 0;
  read.scaffolds = options.split.kind == data::SplitKind::Scaffold;
  read.fingerprints = options.split.kind == data::SplitKind::Cluster;
  return read;
}

Result<SplitData> readAndSplit(const LabelledDataOptions& read, const data::SplitOptions& split_options,
                               const engine::TrainCallbacks& callbacks) {
  // Reading, featurizing and a cluster split of a large file take minutes before the first step:
  // each is reported with its time, so a user sees the run is working.
  const auto read_start = std::chrono::steady_clock::now();
  auto data = readLabelled(read);
  if (!data.isOk()) return data.status();
  note(callbacks, "read " + std::to_string(data->rows_read) + " rows (" + std::to_string(data->rows.size()) +
                      " usable) and featurized them in " + secondsSince(read_start));
  const auto split_start = std::chrono::steady_clock::now();
  auto split = splitLabelled(data.value(), split_options);
  if (!split.isOk()) return split.status();
  note(callbacks, "split the molecules in " + secondsSince(split_start));
  SplitData out;
  out.data = std::move(data.value());
  out.split = std::move(split.value());
  return out;
}

Result<TrainJobSummary> trainFolds(const TrainJobOptions& options, model::LoadedModel model, const SplitData& split,
                                   const Folds& folds, const model::LoraSpec* spec,
                                   const engine::TrainCallbacks& callbacks) {
  TrainJobSummary summary;
  summary.rows = split.data.rows_read;
  summary.skipped = split.data.skipped;
  if (folds.train.empty())
    return Status(StatusCode::InvalidArgument, "no usable training molecules in '" + options.input + "'");
  summary.train = static_cast<int64_t>(folds.train.size());
  summary.valid = static_cast<int64_t>(folds.valid.size());
  summary.calibration = static_cast<int64_t>(folds.calib.size());
  summary.test = static_cast<int64_t>(folds.test.size());

  engine::TrainOptions to = options.train;
  to.output_dir = options.output_dir;
  to.collate.multi_hop_max_dist = model.config.multi_hop_max_dist;
  if (Status st = fitToBudget(options, model, folds.train, to, summary, callbacks); !st.isOk()) return st;
  summary.train_used = to;
  engine::Trainer trainer(std::move(model), to);
  auto trained = trainer.fit(folds.train, folds.valid, callbacks);
  if (!trained.isOk()) return trained.status();
  summary.training = trained.value();
  if (Status s = writeSplitFile(options.output_dir + "/split.csv", split.data, split.split); !s.isOk()) return s;
  if (options.recenter && !summary.training.cancelled) {
    trainer.recenter(folds.valid, kRecenterMinimum);
    summary.output_offset = trainer.model().metadata.output_offset;
  }
  if (!folds.valid.empty()) summary.valid_mae = trainer.evaluate(folds.valid);
  if (!folds.test.empty()) summary.test_mae = trainer.evaluate(folds.test);
  auto written = model::saveBundle(options.output_dir, *trainer.model().model, trainer.model().metadata, spec);
  if (!written.isOk()) return written.status();
  summary.model_path = written.value();
  if (options.split.calib_fraction <= 0 || summary.training.cancelled) return summary;

  auto members = trainSnapshots(options, trainer, folds, spec, callbacks);
  if (!members.isOk()) return members.status();
  TrustBuildInputs tb;
  tb.model_dir = options.output_dir;
  tb.members = members.value();
  tb.data = &split.data;
  tb.split = &split.split;
  tb.split_options = options.split;
  tb.predictor.session.device = options.train.device;
  tb.predictor.session.threads = options.train.threads;
  auto built = buildTrust(tb);
  if (!built.isOk()) return built.status();
  summary.trust_path = built->path;
  summary.snapshots = built->members;
  summary.distance_share = built->distance_share;
  summary.q90 = built->q90;
  return summary;
}

Result<TrainJobSummary> runTrain(const TrainJobOptions& options, const engine::TrainCallbacks& callbacks) {
  if (Status s = checkTrainOptions(options); !s.isOk()) return s;
  const bool lora = options.train.lora_rank > 0;
  model::LoraSpec spec;
  std::string head_note;
  auto prepared = modelToTrain(options, lora, spec, &head_note);
  if (!prepared.isOk()) return prepared.status();
  if (!head_note.empty()) note(callbacks, head_note);
  auto split = readAndSplit(labelledDataOptions(options, prepared->config), options.split, callbacks);
  if (!split.isOk()) return split.status();
  const Folds folds = foldsOf(split->data, split->split);
  return trainFolds(options, std::move(prepared.value()), split.value(), folds, lora ? &spec : nullptr, callbacks);
}

}  // namespace gs::jobs
