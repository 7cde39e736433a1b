#pragma once
// The steps of `train` that `distill` shares (jobs/train_job.cpp): the model to train, reading
// and splitting the labelled file, and training on folds, which may hold more molecules than the
// file (distillation adds molecules labelled by a teacher), followed by saving, the snapshot
// ensemble and the trust data, built from the labelled file alone. Internal to the training jobs;
// includes LibTorch through model/loader.h.
#include <string>
#include <vector>

#include "engine/trainer.h"
#include "jobs/labelled_data.h"
#include "jobs/train_job.h"
#include "model/loader.h"
#include "model/lora.h"

namespace gs::jobs {

// A progress note through callbacks.note, when set.
void note(const engine::TrainCallbacks& callbacks, const std::string& text);

struct Folds {
  std::vector<engine::TrainExample> train, valid, calib, test;
};

struct SplitData {
  LabelledData data;
  std::vector<data::Subset> split;  // per row of data
};

// The given model (fine-tuning, with the LoRA spec of its adapter-to-be) or a fresh one from the
// configuration, with the job's target names, units, description and collation recorded.
Result<model::LoadedModel> modelToTrain(const TrainJobOptions& options, bool lora, model::LoraSpec& spec,
                                        std::string* head_note);
// Output directory given, no output is an input (the job's input, `more_inputs`), and no output
// (the run's files and `more_outputs`) is one of them.
Status checkTrainOptions(const TrainJobOptions& options, const std::vector<std::string>& more_outputs = {},
                         const std::vector<std::string>& more_inputs = {});
// How the job reads its labelled file for a model of `config` (domain features when trust is built,
// scaffolds or fingerprints as the split needs them).
LabelledDataOptions labelledDataOptions(const TrainJobOptions& options, const bundle::GraphormerConfig& config);
// readLabelled then splitLabelled, each reported with its time through callbacks.note.
Result<SplitData> readAndSplit(const LabelledDataOptions& read, const data::SplitOptions& split_options,
                               const engine::TrainCallbacks& callbacks);
Folds foldsOf(const LabelledData& data, const std::vector<data::Subset>& split);
// Fits on folds.train (early stopping on folds.valid), writes split.csv, the model and, with a
// calibration fold, the snapshots and trust data from `split` (true labels only).
Result<TrainJobSummary> trainFolds(const TrainJobOptions& options, model::LoadedModel model, const SplitData& split,
                                   const Folds& folds, const model::LoraSpec* spec,
                                   const engine::TrainCallbacks& callbacks);

}  // namespace gs::jobs
