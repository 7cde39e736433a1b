#pragma once
// `graphormer-cli train`: reads a molecule file with one or more numeric target columns, splits it
// (seeded random split), trains or fine-tunes a Graphormer and writes <output>/model.safetensors
// (config, target names and normalisation inside) next to the trainer's best/last checkpoints.
// Rows whose molecule cannot be read or whose targets are all missing are counted and skipped.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "chem/featurize.h"
#include "data/record_reader.h"
#include "engine/trainer.h"

namespace gs::jobs {

struct TrainJobOptions {
  std::string input;
  std::vector<std::string> targets;  // column names (CSV) or SDF data items
  std::string output_dir;
  std::string model;           // fine-tune from this checkpoint; empty = a fresh model from `config`
  model::GraphormerConfig config;  // used when `model` is empty (num_classes is set from targets)
  data::ReaderOptions reader;
  chem::FeaturizeOptions featurize;
  double valid_fraction = 0.1;
  double test_fraction = 0.1;
  uint64_t init_seed = 0;
  engine::TrainOptions train;  // output_dir is set from the job's
  engine::TrainCallbacks callbacks;
};

struct TrainJobSummary {
  int64_t rows = 0;
  std::map<std::string, int64_t> skipped;  // reason -> count
  int64_t train = 0, valid = 0, test = 0;
  engine::TrainSummary training;
  std::vector<double> valid_mae, test_mae;  // per target, best epoch
  std::string model_path;
};

Result<TrainJobSummary> runTrain(const TrainJobOptions& options);

}  // namespace gs::jobs
