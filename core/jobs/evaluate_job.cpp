#include "jobs/evaluate_job.h"

#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>

#include "engine/baselines.h"
#include "model/loader.h"
#include "similarity/knn.h"

namespace gs::jobs {
namespace {

// predictions[method][row][target]; NaN where a method has no prediction.
using Predictions = std::vector<std::vector<double>>;

double mae(const Predictions& pred, const LabelledData& data, const std::vector<size_t>& rows, size_t target) {
  double sum = 0;
  int64_t n = 0;
  for (size_t i : rows) {
    const float t = data.targets[i][target];
    const double p = pred[i][target];
    if (std::isnan(t) || std::isnan(p)) continue;
    sum += std::abs(p - t);
    ++n;
  }
  return n ? sum / double(n) : std::nan("");
}

double meanOverTargets(const Predictions& pred, const LabelledData& data, const std::vector<size_t>& rows, size_t k) {
  double sum = 0;
  int n = 0;
  for (size_t j = 0; j < k; ++j) {
    const double m = mae(pred, data, rows, j);
    if (!std::isnan(m)) sum += m, ++n;
  }
  return n ? sum / n : std::nan("");
}

}  // namespace

namespace {

// Opens the model (when asked) and takes its target names when none were given.
Result<std::unique_ptr<predict::Predictor>> openModel(const EvaluateJobOptions& options, EvaluateReport& report) {
  if (!options.with_model) return std::unique_ptr<predict::Predictor>();
  auto opened = predict::Predictor::open(options.predictor);
  if (!opened.isOk()) return opened.status();
  const auto& m = opened.value()->model();
  report.model_path = model::modelLabel(m);
  report.model_sha256 = m.sha256;
  if (report.targets.empty())
    for (int j = 0; j < m.config.num_classes; ++j) report.targets.push_back(m.metadata.outputName(j));
  if (static_cast<int>(report.targets.size()) != m.config.num_classes)
    return Status(StatusCode::InvalidArgument, "the model has " + std::to_string(m.config.num_classes) +
                                                   " outputs but " + std::to_string(report.targets.size()) +
                                                   " targets were named");
  return opened;
}

struct Subsets {
  std::vector<size_t> train, valid, calib, test;
};

Subsets subsetsOf(const std::vector<data::Subset>& split) {
  Subsets sets;
  for (size_t i = 0; i < split.size(); ++i) {
    const auto s = split[i];
    (s == data::Subset::Test    ? sets.test
     : s == data::Subset::Valid ? sets.valid
     : s == data::Subset::Calib ? sets.calib
                                : sets.train)
        .push_back(i);
  }
  return sets;
}

// Scores the test molecules' trust (intervals, σ, domain) when the model has trust data.
void scoreTrust(const predict::Predictor& p, const LabelledData& d, const Subsets& sets,
                const std::vector<predict::PredictedRow>& out, const data::SplitOptions& split,
                EvaluateReport& report) {
  if (!p.trust()) {
    report.note = p.trustNote();
    return;
  }
  const auto& trust = p.trust()->assessor();
  if (trust.data().split_json != data::splitJson(split))
    report.note = "the model's trust data was built on the split " + trust.data().split_json +
                  "; this evaluation uses " + data::splitJson(split) +
                  ": its test molecules may include the model's training or calibration molecules";
  std::vector<const predict::PredictedRow*> rows;
  std::vector<std::vector<float>> labels;
  for (size_t i : sets.test) {
    rows.push_back(&out[i]);
    labels.push_back(d.targets[i]);
  }
  report.trust = trustMetrics(trust, rows, labels, report.targets);
}

// Mean and ridge predictions for every row, k-NN for the validation and test rows (all fitted on
// the training rows only).
Result<std::vector<Predictions>> baselines(const LabelledData& d, const Subsets& sets,
                                           const EvaluateJobOptions& options, EvaluateReport& report) {
  const size_t k = report.targets.size(), n = d.rows.size();
  auto fps = [&](const std::vector<size_t>& rows) {
    std::vector<const similarity::BitFingerprint*> out;
    for (size_t i : rows) out.push_back(&d.fingerprints[i]);
    return out;
  };
  auto column = [&](const std::vector<size_t>& rows, size_t j) {
    std::vector<float> out;
    for (size_t i : rows) out.push_back(d.targets[i][j]);
    return out;
  };
  // Scored rows: validation and test (the neighbour search over every row was most of the time).
  std::vector<size_t> scored = sets.valid;
  scored.insert(scored.end(), sets.test.begin(), sets.test.end());
  const auto train_fp = fps(sets.train), valid_fp = fps(sets.valid), scored_fp = fps(scored);
  std::vector<Predictions> preds(3, Predictions(n, std::vector<double>(k, std::nan(""))));
  std::vector<std::vector<float>> train_y, valid_y;
  for (size_t j = 0; j < k; ++j) {
    train_y.push_back(column(sets.train, j));
    valid_y.push_back(column(sets.valid, j));
  }
  auto ridge = engine::RidgeRegression::fitSelectEach(train_fp, train_y, valid_fp, valid_y, options.ridge_lambdas);
  if (!ridge.isOk()) return ridge.status();
  for (size_t j = 0; j < k; ++j) {
    const double mean = engine::meanTarget(train_y[j]);
    for (size_t i = 0; i < n; ++i) preds[0][i][j] = mean;
    const auto& fit = ridge.value()[j];
    report.ridge_lambda.push_back(fit.lambda());
    for (size_t i = 0; i < n; ++i) preds[1][i][j] = fit.predict(d.fingerprints[i]);
  }
  const auto knn = similarity::knnPredictEach(train_fp, train_y, scored_fp, options.knn_k);
  for (size_t j = 0; j < k; ++j)
    for (size_t q = 0; q < scored.size(); ++q) preds[2][scored[q]][j] = knn[j][q];
  return preds;
}

// Test error by molecule size (heavy atoms), for every method.
std::vector<SizeBin> sizeBins(const LabelledData& d, const std::vector<size_t>& test, const std::vector<int>& edges,
                              const std::vector<std::string>& names, const std::vector<Predictions>& preds, size_t k) {
  std::vector<SizeBin> out;
  for (size_t b = 0; b <= edges.size(); ++b) {
    SizeBin bin;
    bin.lo = b == 0 ? 1 : edges[b - 1] + 1;
    bin.hi = b < edges.size() ? edges[b] : 0;
    std::vector<size_t> rows;
    for (size_t i : test) {
      const int atoms = d.rows[i].num_atoms;
      if (atoms >= bin.lo && (bin.hi == 0 || atoms <= bin.hi)) rows.push_back(i);
    }
    bin.count = static_cast<int64_t>(rows.size());
    if (rows.empty()) continue;
    for (size_t m = 0; m < names.size(); ++m) bin.test_mae[names[m]] = meanOverTargets(preds[m], d, rows, k);
    out.push_back(bin);
  }
  return out;
}

// With a split file, `split_rows` receives it (read once, for the graphs to keep and the split).
Result<LabelledData> readEvaluationData(const EvaluateJobOptions& options, const predict::Predictor* predictor,
                                        const std::vector<std::string>& targets,
                                        std::shared_ptr<SplitFileRows>* split_rows) {
  LabelledDataOptions read;
  read.input = options.input;
  read.targets = targets;
  read.reader = options.reader;
  read.featurize = predictor ? predictor->featurizeOptions() : chem::FeaturizeOptions{};
  if (!predictor) {
    read.featurize.parse = options.predictor.parse;
    read.featurize.atom_order = options.predictor.atom_order;
  }
  read.scaffolds = options.split.kind == data::SplitKind::Scaffold;
  read.fingerprints = true;  // baselines and the cluster split
  if (!options.split.file.empty()) {
    // The split is known before reading: training molecules only fit the baselines and
    // calibration molecules are not scored, so their graphs (most of the memory: 4 GB for 55,000
    // molecules) are never kept.
    auto subsets = readSplitFile(options.split.file);
    if (!subsets.isOk()) return subsets.status();
    auto rows = std::make_shared<SplitFileRows>(std::move(subsets.value()));
    *split_rows = rows;
    read.graph_needed = [rows](int64_t row) {
      auto it = rows->find(row);
      return it == rows->end() || it->second.second == data::Subset::Valid || it->second.second == data::Subset::Test;
    };
  }
  return readLabelled(read);
}

std::vector<TestPoint> testPoints(const LabelledData& d, const std::vector<size_t>& test, const Predictions& model) {
  std::vector<TestPoint> points;
  for (size_t i : test) {
    const auto& row = d.rows[i];
    TestPoint p{row.row, row.id, row.canonical.empty() ? row.input : row.canonical, row.num_atoms, {}, model[i]};
    p.truth.assign(d.targets[i].begin(), d.targets[i].end());
    for (auto& t : p.truth) t = std::isfinite(t) ? t : std::nan("");
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace

Result<EvaluateReport> runEvaluate(const EvaluateJobOptions& options) {
  EvaluateReport report;
  report.input = options.input;
  report.split = options.split;
  report.knn_k = options.knn_k;
  report.targets = options.targets;
  auto predictor = openModel(options, report);
  if (!predictor.isOk()) return predictor.status();
  std::shared_ptr<SplitFileRows> split_rows;
  auto data = readEvaluationData(options, predictor.value().get(), report.targets, &split_rows);
  if (!data.isOk()) return data.status();
  auto split = splitLabelled(data.value(), options.split, split_rows.get());
  if (!split.isOk()) return split.status();
  auto& d = data.value();
  report.rows = d.rows_read;
  report.skipped = d.skipped;
  const Subsets sets = subsetsOf(split.value());
  report.train = static_cast<int64_t>(sets.train.size());
  report.valid = static_cast<int64_t>(sets.valid.size());
  report.calibration = static_cast<int64_t>(sets.calib.size());
  report.test = static_cast<int64_t>(sets.test.size());
  if (sets.train.empty())
    return Status(StatusCode::InvalidArgument, "no training molecules in '" + options.input + "'");
  auto preds = baselines(d, sets, options, report);
  if (!preds.isOk()) return preds.status();
  std::vector<std::string> names{"mean", "ridge", "knn"};
  const size_t k = report.targets.size(), n = d.rows.size();
  if (predictor.value()) {
    names.push_back("model");
    preds->emplace_back(n, std::vector<double>(k, std::nan("")));
    // The model is scored on validation and test molecules only: the training and calibration
    // molecules' graphs are dropped (the baselines are fitted), so the ensemble predicts a fifth.
    for (const auto* unscored : {&sets.train, &sets.calib})
      for (size_t i : *unscored) d.rows[i].features.reset();
    const auto out = predictor.value()->predict(d.rows);
    for (size_t i = 0; i < n; ++i)
      if (out[i].status.isOk() && out[i].values.size() == k)
        for (size_t j = 0; j < k; ++j) preds->back()[i][j] = out[i].values[j];
    scoreTrust(*predictor.value(), d, sets, out, options.split, report);
    report.test_points = testPoints(d, sets.test, preds->back());
  }
  for (size_t m = 0; m < names.size(); ++m) {
    MethodScores s;
    s.method = names[m];
    for (size_t j = 0; j < k; ++j) {
      s.valid_mae.push_back(mae(preds.value()[m], d, sets.valid, j));
      s.test_mae.push_back(mae(preds.value()[m], d, sets.test, j));
    }
    report.methods.push_back(s);
  }
  report.by_size = sizeBins(d, sets.test, options.size_edges, names, preds.value(), k);
  return report;
}

std::string formatReport(const EvaluateReport& r) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(4);
  out << "input: " << r.input << "\n";
  if (!r.model_path.empty()) out << "model: " << r.model_path << " (sha256 " << r.model_sha256 << ")\n";
  out << "split: " << data::splitKindName(r.split.kind) << ", seed " << r.split.seed << ", valid "
      << r.split.valid_fraction << ", calibration " << r.split.calib_fraction << ", test " << r.split.test_fraction
      << "; rows " << r.rows << " -> train " << r.train << ", valid " << r.valid << ", calibration " << r.calibration
      << ", test " << r.test;
  for (const auto& [why, count] : r.skipped) out << "; skipped " << why << " " << count;
  out << "\n\n";
  for (size_t j = 0; j < r.targets.size(); ++j) {
    out << "| " << r.targets[j] << " | valid MAE | test MAE |\n|---|---:|---:|\n";
    for (const auto& m : r.methods) {
      std::string name = m.method;
      if (name == "ridge" && j < r.ridge_lambda.size()) {
        std::ostringstream l;
        l << "ridge (Morgan, lambda " << r.ridge_lambda[j] << ")";
        name = l.str();
      } else if (name == "knn") {
        name = std::to_string(r.knn_k) + "-NN Tanimoto (Morgan)";
      } else if (name == "mean") {
        name = "mean of training targets";
      } else if (name == "model") {
        name = "Graphormer";
      }
      out << "| " << name << " | " << m.valid_mae[j] << " | " << m.test_mae[j] << " |\n";
    }
    out << "\n";
  }
  out << "| heavy atoms | test molecules |";
  for (const auto& m : r.methods) out << " " << m.method << " |";
  out << "\n|---|---:|";
  for (size_t m = 0; m < r.methods.size(); ++m) out << "---:|";
  out << "\n";
  for (const auto& b : r.by_size) {
    out << "| " << b.lo << (b.hi ? "–" + std::to_string(b.hi) : std::string("+")) << " | " << b.count << " |";
    for (const auto& m : r.methods) out << " " << b.test_mae.at(m.method) << " |";
    out << "\n";
  }
  out << formatTrustMetrics(r.trust);
  if (!r.note.empty()) out << "\nnote: " << r.note << "\n";
  return out.str();
}

}  // namespace gs::jobs
