#include "jobs/train_job.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>

namespace gs::jobs {
namespace {

float parseTarget(const std::string& text) {
  if (text.empty()) return std::nanf("");
  char* end = nullptr;
  const float v = std::strtof(text.c_str(), &end);
  return end && *end == '\0' && std::isfinite(v) ? v : std::nanf("");
}

Result<std::vector<int>> targetColumns(const data::RecordReader& reader, const std::vector<std::string>& targets) {
  const auto columns = reader.columns();
  std::vector<int> out;
  for (const auto& t : targets) {
    auto it = std::find(columns.begin(), columns.end(), t);
    if (it == columns.end()) return Status(StatusCode::InvalidArgument, "target column '" + t + "' is not in the file's header");
    out.push_back(static_cast<int>(it - columns.begin()));
  }
  return out;
}

}  // namespace

Result<TrainJobSummary> runTrain(const TrainJobOptions& options) {
  if (options.targets.empty()) return Status(StatusCode::InvalidArgument, "name at least one target column");
  if (options.output_dir.empty()) return Status(StatusCode::InvalidArgument, "an output directory is needed");
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();
  auto cols = targetColumns(*reader.value(), options.targets);
  if (!cols.isOk()) return cols.status();

  model::LoadedModel model;
  if (!options.model.empty()) {
    auto loaded = model::loadModel(options.model);
    if (!loaded.isOk()) return loaded.status();
    model = std::move(loaded.value());
    if (model.config.num_classes != static_cast<int>(options.targets.size()))
      return Status(StatusCode::InvalidArgument, "the model has " + std::to_string(model.config.num_classes) +
                                                     " outputs but " + std::to_string(options.targets.size()) + " targets were named");
  } else {
    model.config = options.config;
    model.config.num_classes = static_cast<int>(options.targets.size());
    if (Status s = model.config.validate(); !s.isOk()) return s;
    model.model = model::Graphormer(model.config);
    model.model->initializeWeights(options.init_seed);
  }
  model.metadata.target_names = options.targets;
  model.metadata.convention = options.train.collate.convention;
  model.metadata.spatial_pos_max = options.train.collate.spatial_pos_max;

  TrainJobSummary summary;
  chem::FeaturizeOptions featurize = options.featurize;
  featurize.multi_hop_max_dist = model.config.multi_hop_max_dist;
  std::vector<chem::MoleculeRow> rows;
  std::vector<std::vector<float>> targets;
  data::RawRecord record;
  while (reader.value()->next(record)) {
    ++summary.rows;
    auto row = chem::featurizeRecord(record, featurize);
    if (!row.features) {
      ++summary.skipped[statusCodeName(row.status.code())];
      continue;
    }
    std::vector<float> y;
    for (int c : cols.value()) y.push_back(c < static_cast<int>(record.fields.size()) ? parseTarget(record.fields[c]) : std::nanf(""));
    if (std::all_of(y.begin(), y.end(), [](float v) { return std::isnan(v); })) {
      ++summary.skipped["no_target"];
      continue;
    }
    rows.push_back(std::move(row));
    targets.push_back(std::move(y));
  }
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(options.train.seed));
  const auto n = static_cast<int64_t>(order.size());
  const auto n_test = static_cast<int64_t>(std::llround(options.test_fraction * n));
  const auto n_valid = static_cast<int64_t>(std::llround(options.valid_fraction * n));
  std::vector<engine::TrainExample> train, valid, test;
  for (int64_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    engine::TrainExample e{&*rows[i].features, targets[i]};
    (k < n_test ? test : k < n_test + n_valid ? valid : train).push_back(e);
  }
  if (train.empty()) return Status(StatusCode::InvalidArgument, "no usable training molecules in '" + options.input + "'");
  summary.train = static_cast<int64_t>(train.size());
  summary.valid = static_cast<int64_t>(valid.size());
  summary.test = static_cast<int64_t>(test.size());

  engine::TrainOptions to = options.train;
  to.output_dir = options.output_dir;
  to.collate.multi_hop_max_dist = model.config.multi_hop_max_dist;
  engine::Trainer trainer(std::move(model), to);
  auto trained = trainer.fit(train, valid, options.callbacks);
  if (!trained.isOk()) return trained.status();
  summary.training = trained.value();
  if (!valid.empty()) summary.valid_mae = trainer.evaluate(valid);
  if (!test.empty()) summary.test_mae = trainer.evaluate(test);
  summary.model_path = options.output_dir + "/model.safetensors";
  if (Status s = model::saveModel(summary.model_path, *trainer.model().model, trainer.model().metadata); !s.isOk()) return s;
  return summary;
}

}  // namespace gs::jobs
