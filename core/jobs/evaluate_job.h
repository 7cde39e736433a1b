#pragma once
// `graphormer-cli evaluate`: how good is a model on a labelled file, next to simple baselines, on
// the same seeded split that `train` uses. For every target: validation and test MAE of
//   mean   — the mean training target,
//   ridge  — ridge regression on Morgan fingerprints (radius 2, 2,048 bits), strength chosen on
//            the validation set,
//   knn    — mean target of the 5 training molecules nearest by Tanimoto on the same fingerprints,
//   model  — the Graphormer (when a model is given),
// and the test MAE of each by molecule size (heavy atoms). Baselines are fitted on the training
// subset only, so their numbers are comparable with a model trained with the same split options.
// The calibration fold is left out of everything. With a model that has trust data, the test
// molecules' intervals, σ and domain are scored too (jobs/trust_report.h).
#include <map>
#include <string>
#include <vector>

#include <optional>

#include "jobs/labelled_data.h"
#include "jobs/trust_report.h"
#include "predict/predictor.h"

namespace gs::jobs {

struct EvaluateJobOptions {
  std::string input;
  std::vector<std::string> targets;  // empty = the model's target names
  bool with_model = false;           // false = baselines only
  // Model ("" = the bundled default), session and parsing; parsing applies without a model too.
  predict::PredictorOptions predictor;
  data::ReaderOptions reader;
  data::SplitOptions split;
  int knn_k = 5;
  std::vector<double> ridge_lambdas{0.3, 1, 3, 10, 30, 100, 300, 1000};
  std::vector<int> size_edges{10, 15, 20, 25, 30, 40};  // heavy-atom bins: <=10, 11-15, ..., >40
};

struct MethodScores {
  std::string method;
  std::vector<double> valid_mae, test_mae;  // per target
};

struct SizeBin {
  int lo = 0, hi = 0;  // heavy atoms, inclusive; hi = 0 means no upper bound
  int64_t count = 0;
  std::map<std::string, double> test_mae;  // method -> MAE (mean over targets)
};

// A test molecule with the model's prediction (the parity plot and error-by-size views).
struct TestPoint {
  int64_t row = 0;  // 1-based input row
  std::string id, smiles;
  int heavy_atoms = 0;
  std::vector<double> truth, predicted;  // per target; NaN = missing / no prediction
};

struct EvaluateReport {
  std::string input;
  std::vector<std::string> targets;
  data::SplitOptions split;
  int64_t rows = 0, train = 0, valid = 0, calibration = 0, test = 0;
  std::map<std::string, int64_t> skipped;
  std::vector<MethodScores> methods;  // mean, ridge, knn[, model]
  std::vector<double> ridge_lambda;   // chosen per target
  int knn_k = 5;
  std::vector<SizeBin> by_size;
  std::string model_path, model_sha256;
  std::vector<TrustMetrics> trust;     // when the model has trust data
  std::vector<TestPoint> test_points;  // with a model: every test molecule
  std::string note;                    // e.g. the model was trained on another split, or has no trust data
};

Result<EvaluateReport> runEvaluate(const EvaluateJobOptions& options);
// Markdown tables of the report (what the CLI prints).
std::string formatReport(const EvaluateReport& report);

}  // namespace gs::jobs
