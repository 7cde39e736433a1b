#pragma once
// A model opened for a caller that does not compile LibTorch (the app): the model itself travels
// as an opaque shared pointer to predict::Predictor::open; what people see of it (names, units,
// size, files, trust) is plain data here.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bundle/model_source.h"
#include "common/status.h"

namespace gs::model {
struct LoadedModel;
}

namespace gs::jobs {

struct ModelSummary {
  bundle::ModelSource source;      // weights path and adapter, as predictors open them
  std::vector<std::string> files;  // every file the model was loaded from (weights, config.json, adapter)
  std::string sha256, description, convention;
  std::vector<std::string> target_names, target_units;  // one per output
  int layers = 0, embedding_dim = 0, heads = 0;
  int64_t parameters = 0;
  std::vector<std::string> notes;
  // The columns `predict` writes for this model (an input with them is a results file).
  std::vector<std::string> prediction_header;
  // Trust: "" when the model has trust data, else why not; its calibration size and the
  // training labels' range per output (NaN-free; +inf/-inf for an output with no label).
  std::string trust_note;
  int64_t calibration_molecules = 0;
  std::string calibration_series;  // after calibrate --series: the series file's name
  std::vector<std::pair<double, double>> label_range;
};

struct OpenedModel {
  std::shared_ptr<const model::LoadedModel> model;  // shared read-only by predictors
  ModelSummary summary;
};

// model::openModel, then the summary; the error names the file and what is wrong with it.
Result<OpenedModel> openForPrediction(const bundle::ModelSource& source);

}  // namespace gs::jobs
