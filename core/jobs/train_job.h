#pragma once
// `graphormer-cli train`: reads a molecule file with one or more numeric target columns, splits it
// (seeded random or Bemis–Murcko scaffold split), trains or fine-tunes a Graphormer and writes
//   <output>/model.safetensors    the trained model (config, target names and normalisation inside)
//   <output>/adapter.safetensors  instead, for a LoRA run: the adapter alone, for the base model
//   <output>/split.csv            row,id,subset for every usable input row
//   <output>/snapshots/<k>/       the snapshot ensemble (model or adapter files), when snapshots > 0
//   <output>/trust.safetensors    trust data (jobs/trust_builder.h), when calib_fraction > 0
// next to the trainer's best/last checkpoints (resume state). Rows whose molecule cannot be read
// or whose targets are all missing are counted and skipped.
#include <map>
#include <string>
#include <vector>

#include <optional>

#include "bundle/model_source.h"
#include "engine/train_types.h"
#include "jobs/labelled_data.h"
#include "predict/predictor_options.h"

namespace gs::jobs {

struct TrainJobOptions {
  std::string input;
  std::vector<std::string> targets;       // column names (CSV) or SDF data items
  std::vector<std::string> target_units;  // stored in the model (shown in tables); may be empty
  std::string description;                // stored in the model card
  bool mirror_invariant = false;          // the targets are the same for both enantiomers (metadata)
  std::string output_dir;
  std::optional<bundle::ModelSource> model;  // fine-tune from this model; nullopt = a fresh model from `config`
  bundle::GraphormerConfig config;           // used when `model` is empty (num_classes is set from targets)
  data::ReaderOptions reader;
  chem::FeaturizeOptions featurize;
  data::SplitOptions split;
  uint64_t init_seed = 0;
  engine::TrainOptions train;  // output_dir is set from the job's; lora_rank > 0 needs `model`
  // Snapshot ensemble for σ: this many further cycles of snapshot_epochs each, the learning rate
  // restarting at snapshot_lr (0 = half the training rate). 0 = none (σ from distance alone).
  int snapshots = 5;
  int snapshot_epochs = 2;
  double snapshot_lr = 0;
  // > 0: before training, probe and choose the micro-batch and checkpoint ratio (and, with
  // fit_precision, the precision) that fit this budget in the least time (engine/train_memory.h).
  int64_t memory_budget_mib = 0;
  bool fit_precision = false;
  // Re-centre each output (and each snapshot's) on the validation fold: the model's median error
  // there becomes its output offset (bundle::ModelMetadata::output_offset), where at least
  // kRecenterMinimum validation molecules carry that label.
  bool recenter = true;
};

constexpr int64_t kRecenterMinimum = 50;

struct TrainJobSummary {
  int64_t rows = 0;
  std::map<std::string, int64_t> skipped;  // reason -> count
  int64_t train = 0, valid = 0, calibration = 0, test = 0;
  engine::TrainSummary training;
  std::vector<double> valid_mae, test_mae;  // per target, best epoch (after re-centring)
  std::vector<double> output_offset;        // per target, added by re-centring (empty = none)
  std::string model_path;                   // model.safetensors, or adapter.safetensors for LoRA
  std::string trust_path;                   // "" when no calibration fold was asked for
  int snapshots = 0;
  double distance_share = 0, q90 = 0;           // σ's mix and the 90 % multiplier (output 0)
  std::optional<engine::MemoryFit> memory_fit;  // with a memory budget: what was chosen and why
  engine::TrainOptions train_used;              // the training options in effect (after fitting to memory)
};

// Copies what `predict --model` reads of a training run (model.safetensors or adapter.safetensors,
// trust.safetensors, snapshots/, split.csv) into `destination`, a new or empty directory; never
// overwrites a file. The resume state (best/last checkpoints, optimizer) stays behind.
Status exportModel(const std::string& run_dir, const std::string& destination);

Result<TrainJobSummary> runTrain(const TrainJobOptions& options, const engine::TrainCallbacks& callbacks = {});

}  // namespace gs::jobs
