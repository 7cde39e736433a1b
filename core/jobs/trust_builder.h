#pragma once
// Building a trained model's trust data (bundle/trust_file.h) from its own training run: the
// reference set and domain from the training fold, σ's weights from the validation fold, the
// conformal scores and similarity thresholds from the calibration fold (used for nothing else),
// with the ensemble members (snapshots) the run saved. `train` calls it for every model.
#include <string>
#include <vector>

#include "jobs/labelled_data.h"
#include "predict/predictor_options.h"

namespace gs::jobs {

struct TrustBuildInputs {
  std::string model_dir;               // the trained model (model.safetensors or adapter.safetensors)
  std::vector<std::string> members;    // snapshot directories, relative to model_dir
  const LabelledData* data = nullptr;  // rows featurized with domain features
  const std::vector<data::Subset>* split = nullptr;
  data::SplitOptions split_options;
  predict::PredictorOptions predictor;  // device, threads, batch size for the predictions
};

struct TrustBuildSummary {
  std::string path;
  int64_t reference = 0, valid = 0, calibration = 0;
  int members = 0;
  std::vector<double> output_offset;  // with recenter: the model's offsets now (per output)
  double distance_share = 0;  // λ chosen for output 0
  double q90 = 0;             // the 90 % multiplier of output 0
};

Result<TrustBuildSummary> buildTrust(const TrustBuildInputs& inputs);

// `graphormer-cli calibrate`: rebuilds a trained model directory's trust data from a labelled
// file split exactly as train split it (same split options), with the snapshots the directory
// holds (snapshots/<k>). For a model whose trust file is missing, stale or from an older build.
struct CalibrateJobOptions {
  std::string model_dir;
  std::string input;
  std::vector<std::string> targets;  // empty = the model's target names
  data::ReaderOptions reader;
  data::SplitOptions split;
  predict::PredictorOptions predictor;  // device, threads, parsing
  // First re-centre the model and each snapshot on the validation fold (as train does) and rewrite
  // their weights files' metadata; not for a LoRA adapter.
  bool recenter = false;
};
Result<TrustBuildSummary> runCalibrate(const CalibrateJobOptions& options);

// `graphormer-cli calibrate --series`: a copy of a model directory whose intervals are calibrated
// on a labelled series of the user's own molecules (predict/trust.h, recalibrateOnSeries): the
// training run's calibration fold stands for the training data's chemistry, not for a new series,
// whose errors can be larger at every similarity. σ, the domain and the model are kept; the model
// directory itself is not changed.
struct SeriesCalibrationOptions {
  std::string model_dir;
  std::string input;                 // labelled series (CSV / SDF), columns named like the outputs
  std::string output_dir;            // new directory: the model's files and the recalibrated trust
  std::vector<std::string> targets;  // outputs labelled in the file; empty = every output
  data::ReaderOptions reader;
  predict::PredictorOptions predictor;
};

struct SeriesCalibrationSummary {
  std::string path;                      // the new trust file
  std::vector<std::string> outputs;      // the model's
  std::vector<int> labelled;             // series labels per output
  std::vector<double> before, after;     // pooled 90 % multiplier per output
  int64_t rows = 0;                      // usable series molecules
  int minimum = 0;                       // labels an output needs to be recalibrated
};
Result<SeriesCalibrationSummary> runSeriesCalibration(const SeriesCalibrationOptions& options);

}  // namespace gs::jobs
