#include "jobs/trust_builder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "common/json_writer.h"
#include "common/sha256.h"
#include "common/stats.h"
#include "jobs/train_job.h"
#include "model/loader.h"
#include "predict/predictor.h"

namespace gs::jobs {
namespace {

using Molecules = std::vector<const graph::Featurized*>;

// Row indices of one subset and their featurized molecules.
struct Fold {
  std::vector<size_t> rows;
  Molecules molecules;
};

Fold foldOf(const LabelledData& data, const std::vector<data::Subset>& split, data::Subset subset) {
  Fold f;
  for (size_t i = 0; i < data.rows.size(); ++i)
    if (split[i] == subset && data.rows[i].features && data.rows[i].domain) {
      f.rows.push_back(i);
      f.molecules.push_back(&*data.rows[i].features);
    }
  return f;
}

// values[molecule][member][output], the model itself first (NaN where it failed); a snapshot that
// could not predict a molecule is left out of that molecule's ensemble.
void addMember(predict::Predictor& p, const Fold& fold, int outputs,
               std::vector<std::vector<std::vector<float>>>& values,
               std::vector<std::vector<float>>* embeddings = nullptr) {
  const auto predictions = p.session().predict(fold.molecules);
  if (embeddings)
    for (const auto& pr : predictions) embeddings->push_back(pr.status.isOk() ? pr.embedding : std::vector<float>{});
  values.resize(fold.rows.size());
  for (size_t i = 0; i < fold.rows.size(); ++i) {
    if (predictions[i].status.isOk())
      values[i].push_back(predictions[i].values);
    else if (values[i].empty())
      values[i].push_back(std::vector<float>(static_cast<size_t>(outputs), std::nanf("")));
  }
}

predict::TrustFold trustFold(const LabelledData& data, const Fold& fold,
                             std::vector<std::vector<std::vector<float>>> values, const predict::TrustAssessor& probe,
                             const std::vector<std::vector<float>>& embeddings) {
  predict::TrustFold t;
  t.values = std::move(values);
  if (probe.usesEmbeddings())
    for (const auto& e : embeddings) t.latent.push_back(probe.rawLatentDistance(e));
  for (size_t i = 0; i < fold.rows.size(); ++i) {
    const auto& row = data.rows[fold.rows[i]];
    std::vector<similarity::Neighbour> nearest;
    t.distance.push_back(probe.distance(*row.domain, &nearest));
    t.nn_similarity.push_back(nearest.empty() ? 0.0 : nearest[0].similarity);
    t.neighbour_error.push_back(probe.neighbourError(nearest));
    std::vector<float> labels = data.targets[fold.rows[i]];
    // A molecule the model itself could not predict carries no error: leave it out.
    if (std::isnan(t.values[i][0][0])) labels.assign(labels.size(), std::nanf(""));
    t.labels.push_back(std::move(labels));
  }
  return t;
}

Result<std::unique_ptr<predict::Predictor>> openPlain(const std::string& dir, predict::PredictorOptions options,
                                                      bool embeddings = false) {
  options.model = bundle::ModelSource{dir, ""};
  options.trust = false;
  options.session.embeddings = embeddings;
  return predict::Predictor::open(options);
}

constexpr int64_t kLatentReference = 4096;  // training embeddings kept for l(x)

// Evenly spaced training molecules' embeddings (all of them when there are fewer).
bundle::LatentReference latentSample(const std::vector<engine::Prediction>& train) {
  bundle::LatentReference ref;
  std::vector<const std::vector<float>*> ok;
  for (const auto& p : train)
    if (p.status.isOk() && !p.embedding.empty()) ok.push_back(&p.embedding);
  if (ok.empty()) return ref;
  ref.dim = static_cast<int>(ok[0]->size());
  const auto n = static_cast<int64_t>(ok.size()), keep = std::min(n, kLatentReference);
  for (int64_t i = 0; i < keep; ++i) {
    const auto* e = ok[static_cast<size_t>(i * n / keep)];
    ref.embeddings.insert(ref.embeddings.end(), e->begin(), e->end());
  }
  return ref;
}

// A fold's l(x) in units of `scale` (1 where the embedding distance is missing).
void scaleLatent(predict::TrustFold& fold, double scale) {
  for (double& d : fold.latent) d = std::isfinite(d) ? d / scale : 1.0;
}

// l(x) in units of its calibration median.
void normaliseLatent(predict::TrustFold& valid, predict::TrustFold& calib, bundle::LatentReference& ref) {
  std::vector<double> finite;
  for (double d : calib.latent)
    if (std::isfinite(d)) finite.push_back(d);
  const double scale = finite.empty() ? 1.0 : stats::median(finite);
  ref.scale = scale > 0 ? scale : 1.0;
  for (auto* fold : {&valid, &calib}) scaleLatent(*fold, ref.scale);
}

// Each output's 90 % multiplier from its pooled calibration scores (NaN when too few).
std::vector<double> pooledQ90(const bundle::TrustData& t) {
  std::vector<double> q;
  for (const auto& s : t.calibration_scores) {
    auto c = stats::ConformalScores::fromScores(s);
    q.push_back(c.isOk() ? c->quantile(0.9) : std::nan(""));
  }
  return q;
}

std::string memberSha(const model::LoadedModel& m) { return m.source.adapter.empty() ? m.sha256 : m.adapter_sha256; }

}  // namespace

Result<TrustBuildSummary> buildTrust(const TrustBuildInputs& in) {
  const LabelledData& data = *in.data;
  const auto& split = *in.split;
  auto primary = openPlain(in.model_dir, in.predictor, /*embeddings=*/true);
  if (!primary.isOk()) return primary.status();
  auto& model = *primary.value();
  bundle::TrustData trust;
  trust.model_sha256 = model.model().sha256;
  trust.adapter_sha256 = model.model().adapter_sha256;
  trust.outputs = model.numOutputs();
  trust.split_json = data::splitJson(in.split_options);
  const Fold train = foldOf(data, split, data::Subset::Train), valid = foldOf(data, split, data::Subset::Valid),
             calib = foldOf(data, split, data::Subset::Calib);
  const auto train_predictions = model.session().predict(train.molecules);
  for (size_t i = 0; i < train.rows.size(); ++i) {
    const auto& row = data.rows[train.rows[i]];
    const auto& p = train_predictions[i];
    predict::addReference(
        trust, *row.domain, row.id, row.canonical, data.targets[train.rows[i]],
        p.status.isOk() ? p.values : std::vector<float>(static_cast<size_t>(trust.outputs), std::nanf("")));
  }
  predict::finishDomain(trust.domain);
  trust.latent = latentSample(train_predictions);
  std::vector<std::vector<std::vector<float>>> valid_values, calib_values;
  std::vector<std::vector<float>> valid_embeddings, calib_embeddings;
  addMember(model, valid, trust.outputs, valid_values, &valid_embeddings);
  addMember(model, calib, trust.outputs, calib_values, &calib_embeddings);
  for (const auto& member : in.members) {
    auto m = openPlain(in.model_dir + "/" + member, in.predictor);
    if (!m.isOk()) return m.status();
    trust.members.push_back(member);
    trust.member_sha256.push_back(memberSha(m.value()->model()));
    addMember(*m.value(), valid, trust.outputs, valid_values);
    addMember(*m.value(), calib, trust.outputs, calib_values);
  }
  for (size_t i = 0; i < split.size(); ++i)
    ++*(split[i] == data::Subset::Train   ? &trust.train_rows
        : split[i] == data::Subset::Valid ? &trust.valid_rows
        : split[i] == data::Subset::Calib ? &trust.calibration_rows
                                          : &trust.test_rows);
  const predict::TrustAssessor probe(trust);
  auto valid_fold = trustFold(data, valid, std::move(valid_values), probe, valid_embeddings);
  auto calib_fold = trustFold(data, calib, std::move(calib_values), probe, calib_embeddings);
  if (probe.usesEmbeddings()) normaliseLatent(valid_fold, calib_fold, trust.latent);
  if (Status s = predict::fitTrust(trust, valid_fold, calib_fold); !s.isOk()) return s;
  TrustBuildSummary summary;
  summary.path = in.model_dir + "/" + bundle::kTrustFile;
  if (Status s = bundle::writeTrust(summary.path, trust); !s.isOk()) return s;
  summary.reference = trust.reference.size();
  summary.valid = static_cast<int64_t>(valid.rows.size());
  summary.calibration = static_cast<int64_t>(calib.rows.size());
  summary.members = static_cast<int>(trust.members.size());
  summary.distance_share = trust.sigma.distance_share;
  summary.q90 = pooledQ90(trust)[0];
  return summary;
}

namespace {

// Adds the median error on the validation fold to the offsets of the model in `dir` (its predictions
// already include any earlier offset) and rewrites its weights file; returns the offsets now.
Result<std::vector<double>> recenterModel(const std::string& dir, const LabelledData& data,
                                          const std::vector<data::Subset>& split, predict::PredictorOptions po) {
  po.session.precision = tensor::Precision::FP32;
  auto p = openPlain(dir, po);
  if (!p.isOk()) return p.status();
  if (!p.value()->model().source.adapter.empty())
    return Status(StatusCode::InvalidArgument, "'" + dir + "' is a LoRA adapter: re-centre it by training it again");
  const Fold valid = foldOf(data, split, data::Subset::Valid);
  const auto predictions = p.value()->session().predict(valid.molecules);
  std::vector<std::vector<float>> values, labels;
  for (size_t i = 0; i < predictions.size(); ++i)
    if (predictions[i].status.isOk()) {
      values.push_back(predictions[i].values);
      labels.push_back(data.targets[valid.rows[i]]);
    }
  const int outputs = p.value()->numOutputs();
  p.value().reset();
  const auto residual = stats::medianResiduals(values, labels, outputs, kRecenterMinimum);
  auto model = model::openModel(bundle::ModelSource{dir, ""});
  if (!model.isOk()) return model.status();
  auto& md = model->metadata;
  md.output_offset.resize(static_cast<size_t>(outputs), 0.0);
  for (int j = 0; j < outputs; ++j) md.output_offset[j] += residual[j];
  if (auto saved = model::saveBundle(dir, *model->model, md); !saved.isOk()) return saved.status();
  return md.output_offset;
}

// The snapshot directories of a model directory, in cycle order.
std::vector<std::string> snapshotMembers(const std::string& dir) {
  std::vector<std::string> members;
  for (int k = 1; std::filesystem::exists(dir + "/snapshots/" + std::to_string(k)); ++k)
    members.push_back("snapshots/" + std::to_string(k));
  return members;
}

}  // namespace

Result<TrustBuildSummary> runCalibrate(const CalibrateJobOptions& options) {
  if (options.split.calib_fraction <= 0)
    return Status(StatusCode::InvalidArgument, "calibration needs a calibration fold (--calibration-fraction > 0)");
  auto probe = openPlain(options.model_dir, options.predictor);
  if (!probe.isOk()) return probe.status();
  LabelledDataOptions read;
  read.input = options.input;
  read.targets = options.targets;
  if (read.targets.empty())
    for (int j = 0; j < probe.value()->numOutputs(); ++j)
      read.targets.push_back(probe.value()->model().metadata.outputName(j));
  read.reader = options.reader;
  read.featurize = probe.value()->featurizeOptions();
  read.featurize.domain = true;
  read.scaffolds = options.split.kind == data::SplitKind::Scaffold;
  read.fingerprints = options.split.kind == data::SplitKind::Cluster;
  probe.value().reset();
  auto data = readLabelled(read);
  if (!data.isOk()) return data.status();
  auto split = splitLabelled(data.value(), options.split);
  if (!split.isOk()) return split.status();
  TrustBuildInputs in;
  in.model_dir = options.model_dir;
  in.members = snapshotMembers(options.model_dir);
  std::vector<double> offsets;
  if (options.recenter)
    for (size_t k = 0; k <= in.members.size(); ++k) {
      auto done = recenterModel(k == 0 ? in.model_dir : in.model_dir + "/" + in.members[k - 1], data.value(),
                                split.value(), options.predictor);
      if (!done.isOk()) return done.status();
      if (k == 0) offsets = done.value();
    }
  in.data = &data.value();
  in.split = &split.value();
  in.split_options = options.split;
  in.predictor = options.predictor;
  auto built = buildTrust(in);
  if (built.isOk()) built->output_offset = offsets;
  return built;
}

namespace {

// The series' labels as one column per model output (NaN for outputs the file does not label).
Result<LabelledData> readSeries(const SeriesCalibrationOptions& o, predict::Predictor& model,
                                std::vector<std::string>* outputs) {
  for (int j = 0; j < model.numOutputs(); ++j) outputs->push_back(model.model().metadata.outputName(j));
  LabelledDataOptions read;
  read.input = o.input;
  read.targets = o.targets.empty() ? *outputs : o.targets;
  std::vector<size_t> column;
  for (const auto& t : read.targets) {
    const auto at = std::find(outputs->begin(), outputs->end(), t);
    if (at == outputs->end())
      return Status(StatusCode::InvalidArgument, "--targets: '" + t + "' is not an output of the model");
    column.push_back(static_cast<size_t>(at - outputs->begin()));
  }
  read.reader = o.reader;
  read.featurize = model.featurizeOptions();
  read.featurize.domain = true;
  auto data = readLabelled(read);
  if (!data.isOk()) return data.status();
  for (auto& row : data->targets) {
    std::vector<float> full(outputs->size(), std::nanf(""));
    for (size_t k = 0; k < column.size(); ++k) full[column[k]] = row[k];
    row = std::move(full);
  }
  return data;
}

std::string seriesJson(const SeriesCalibrationOptions& o, const std::vector<int>& labelled) {
  std::ostringstream out;
  JsonWriter w(out);
  auto sha = sha256File(o.input);
  w.beginObject().field("file", std::filesystem::path(o.input).filename().string());
  w.field("sha256", sha.isOk() ? sha.value() : std::string()).key("labelled").beginArray();
  for (int n : labelled) w.value(n);
  w.endArray().endObject();
  return out.str();
}


}  // namespace

Result<SeriesCalibrationSummary> runSeriesCalibration(const SeriesCalibrationOptions& o) {
  namespace fs = std::filesystem;
  if (o.output_dir.empty())
    return Status(StatusCode::InvalidArgument, "calibrate --series needs --output DIR (a new model directory)");
  if (fs::exists(o.output_dir))
    return Status(StatusCode::InvalidArgument, "'" + o.output_dir + "' exists: --output must be a new directory");
  auto trust = bundle::readTrust(o.model_dir + "/" + bundle::kTrustFile);
  if (!trust.isOk()) return trust.status();
  auto primary = openPlain(o.model_dir, o.predictor, /*embeddings=*/true);
  if (!primary.isOk()) return primary.status();
  auto& model = *primary.value();
  if (trust->model_sha256 != model.model().sha256 || trust->adapter_sha256 != model.model().adapter_sha256)
    return Status(StatusCode::InvalidArgument, "the trust data in '" + o.model_dir +
                                                   "' was built for other weights: run calibrate on it first");
  SeriesCalibrationSummary summary;
  auto data = readSeries(o, model, &summary.outputs);
  if (!data.isOk()) return data.status();
  const std::vector<data::Subset> all(data->rows.size(), data::Subset::Calib);
  const Fold series = foldOf(data.value(), all, data::Subset::Calib);
  std::vector<std::vector<std::vector<float>>> values;
  std::vector<std::vector<float>> embeddings;
  addMember(model, series, trust->outputs, values, &embeddings);
  for (const auto& member : trust->members) {
    auto m = openPlain(o.model_dir + "/" + member, o.predictor);
    if (!m.isOk()) return m.status();
    addMember(*m.value(), series, trust->outputs, values);
  }
  const predict::TrustAssessor probe(trust.value());
  auto fold = trustFold(data.value(), series, std::move(values), probe, embeddings);
  scaleLatent(fold, trust->latent.scale);
  summary.before = pooledQ90(trust.value());
  summary.labelled = predict::recalibrateOnSeries(trust.value(), fold);
  summary.after = pooledQ90(trust.value());
  summary.rows = static_cast<int64_t>(series.rows.size());
  summary.minimum = predict::kSeriesMinimum;
  trust->series = seriesJson(o, summary.labelled);
  std::error_code ec;
  if (const auto parent = fs::path(o.output_dir).parent_path(); !parent.empty()) fs::create_directories(parent, ec);
  if (!ec) fs::copy(o.model_dir, o.output_dir, fs::copy_options::recursive, ec);
  summary.path = o.output_dir + "/" + bundle::kTrustFile;
  Status written = ec ? Status(StatusCode::IoError, "copying '" + o.model_dir + "' to '" + o.output_dir + "': " + ec.message())
                      : bundle::writeTrust(summary.path, trust.value());
  if (!written.isOk()) fs::remove_all(o.output_dir, ec);  // it did not exist: leave nothing half-made
  if (!written.isOk()) return written;
  return summary;
}

}  // namespace gs::jobs
