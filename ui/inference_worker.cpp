#include "inference_worker.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include <QElapsedTimer>

#include <sstream>

#include "data/smi_reader.h"
#include "engine/train_types.h"
#include "input_reader.h"
#include "jobs/bench_job.h"
#include "model/loader.h"
#include "predict/predictor.h"

namespace gs::ui {
namespace {

// Rows the app predicts together: results appear in the table chunk by chunk, so it is smaller
// than graphormer-cli's predict::kChunkRows. The planner buckets within a chunk, so on a long file
// the app's batches (and the last float bits of some predictions) can differ from the CLI's.
constexpr int kInteractiveChunkRows = 256;

QStringList toQt(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

QString toQt(const Status& s) { return QString::fromStdString(s.toString()); }

std::vector<predict::PredictedRow> pendingRows(const std::vector<data::RawRecord>& records) {
  std::vector<predict::PredictedRow> pending;
  pending.reserve(records.size());
  for (const auto& r : records) pending.push_back(predict::pendingRow(r));
  return pending;
}

// What the model card shows of the trust data beside the weights (predict/trust_ensemble.h); a
// file that cannot be read is reported when a run opens it.
void addTrust(const model::LoadedModel& m, ModelCard& card) {
  const std::string path = predict::TrustEnsemble::trustPath(m);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    card.trust_note =
        QObject::tr("This model has no trust data (trust.safetensors): predictions come without intervals or domain.");
    return;
  }
  auto trust = bundle::readTrust(path);
  if (!trust.isOk()) {
    card.trust_note = QString::fromStdString(trust.status().message());
    return;
  }
  card.calibration_molecules = static_cast<int>(trust->calibration_rows);
  const auto& ref = trust->reference;
  for (int j = 0; j < trust->outputs; ++j) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double v = ref.labels[static_cast<size_t>(i * trust->outputs + j)];
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    card.label_range.emplace_back(lo, hi);
  }
}

ModelCard modelCard(const model::LoadedModel& m) {
  ModelCard card;
  card.path = QString::fromStdString(m.weights_path);
  card.files = toQt(m.source.files());
  card.sha256 = QString::fromStdString(m.sha256);
  card.description = QString::fromStdString(m.metadata.description);
  for (int j = 0; j < m.config.num_classes; ++j) {
    card.target_names << QString::fromStdString(m.metadata.outputName(j));
    card.target_units << (j < static_cast<int>(m.metadata.target_units.size())
                              ? QString::fromStdString(m.metadata.target_units[j])
                              : QString());
  }
  card.layers = m.config.num_hidden_layers;
  card.embedding_dim = m.config.embedding_dim;
  card.heads = m.config.num_attention_heads;
  card.parameters = m.config.parameterCount();
  card.convention =
      QString::fromUtf8(graph::conventionName(m.metadata.convention.value_or(graph::Convention::Official)));
  card.notes = toQt(m.notes);
  addTrust(m, card);
  return card;
}

Result<engine::AttributionOptions> attributionOptions(const ExplainRequest& request, const RunSettings& settings) {
  auto method = engine::parseAttributionMethod(request.method.toStdString());
  if (!method.isOk()) return method.status();
  auto baseline = engine::parseBaseline(request.baseline.toStdString());
  if (!baseline.isOk()) return baseline.status();
  engine::AttributionOptions a;
  a.method = method.value();
  a.baseline = baseline.value();
  a.steps = std::max(3, request.steps);
  a.checkpoint_ratio = request.checkpoint_ratio;
  a.batch_size = std::max(1, std::min(settings.batch_size, 64));
  auto precision = tensor::parsePrecision(settings.precision.toStdString());
  a.precision =
      precision.isOk() && tensor::traits(precision.value()).trains ? precision.value() : tensor::Precision::FP32;
  return a;
}

QString explainSummary(const std::vector<jobs::ExplainedMolecule>& molecules, const engine::AttributionOptions& a,
                       double seconds, int64_t peak_bytes) {
  QString how = QString::fromUtf8(engine::attributionMethodName(a.method));
  if (a.method == engine::AttributionMethod::IntegratedGradients) {
    int64_t used = 0, explained = 0;
    for (const auto& m : molecules)
      if (m.status.isOk()) used += m.summary.steps, ++explained;
    how += InferenceWorker::tr(" from the %1 baseline, %2 of %3 steps per molecule")
               .arg(QString::fromUtf8(engine::baselineName(a.baseline)))
               .arg(explained ? double(used) / double(explained) : 0.0, 0, 'f', 1)
               .arg(a.steps);
  }
  int64_t ok = 0, cancelled = 0;
  for (const auto& m : molecules) ok += m.status.isOk(), cancelled += m.status.code() == StatusCode::Cancelled;
  const QString what =
      cancelled ? InferenceWorker::tr("Cancelled: explained %1 of %2 molecule(s)").arg(ok).arg(molecules.size())
                : InferenceWorker::tr("Explained %1 of %2 molecule(s)").arg(ok).arg(molecules.size());
  return InferenceWorker::tr("%1 with %2 (%3, checkpoint ratio %4) in %5 s; peak tensor memory %6 MiB")
      .arg(what, how)
      .arg(QString::fromUtf8(tensor::precisionName(a.precision)))
      .arg(a.checkpoint_ratio, 0, 'f', 2)
      .arg(seconds, 0, 'f', 1)
      .arg(peak_bytes / 1048576.0, 0, 'f', 1);
}

}  // namespace

Result<predict::PredictorOptions> toPredictorOptions(const RunSettings& settings, const bundle::ModelSource& model) {
  if (settings.device == kServerDevice)
    return Status(StatusCode::InvalidArgument,
                  "explanations, mode comparisons and training run on this computer: "
                  "choose cpu or a GPU as the device in Run settings");
  predict::PredictorOptions o;
  o.model = model;
  auto precision = tensor::parsePrecision(settings.precision.toStdString());
  if (!precision.isOk()) return precision.status();
  o.session.precision = precision.value();
  o.session.device = settings.device.toStdString();
  o.session.threads = settings.threads;
  o.session.plan.max_batch_size = std::max(1, settings.batch_size);
  predict::setMemoryBudget(o.session, settings.memory_budget_mib, o.session.plan.max_batch_size);
  if (!(settings.confidence > 0 && settings.confidence < 1))
    return Status(StatusCode::InvalidArgument, "confidence must lie between 0 and 1");
  o.confidence = settings.confidence;
  o.strip_salts = settings.strip_salts;
  return o;
}

struct InferenceWorker::Impl {
  std::shared_ptr<const model::LoadedModel> loaded;  // loaded once, shared read-only by predictors
  std::unique_ptr<predict::Predictor> predictor;     // for the last settings used
};

InferenceWorker::InferenceWorker(QObject* parent)
    : QObject(parent), impl_(std::make_unique<Impl>()), tracker_(std::make_shared<tensor::TensorMemoryTracker>()) {}

InferenceWorker::~InferenceWorker() = default;

QStringList InferenceWorker::devices() { return toQt(tensor::availableDevices()); }

std::vector<std::pair<QString, QString>> InferenceWorker::precisionOptions(const QString& device, bool training,
                                                                           int model_width) {
  std::vector<std::pair<QString, QString>> out;
  for (const auto& row : tensor::precisionTable()) {
    const tensor::Precision p = row.precision;
    Status s = training ? tensor::trainingPrecisionAvailable(p, device.toStdString())
                        : tensor::precisionAvailable(p, device.toStdString());
    if (s.isOk() && !training) s = tensor::precisionPays(p, model_width);
    out.emplace_back(QString::fromUtf8(tensor::precisionName(p)),
                     s.isOk() ? QString() : QString::fromStdString(s.message()));
  }
  return out;
}

void InferenceWorker::loadModel(const QString& path) {
  auto loaded = model::openModel(bundle::ModelSource{path.toStdString(), {}});
  if (!loaded.isOk()) {
    Q_EMIT modelFailed(toQt(loaded.status()));
    return;
  }
  impl_->predictor.reset();
  impl_->loaded = std::make_shared<const model::LoadedModel>(std::move(loaded.value()));
  Q_EMIT modelLoaded(modelCard(*impl_->loaded));
}

Result<predict::Predictor*> InferenceWorker::predictorFor(const RunSettings& settings) {
  if (!impl_->loaded) return Status(StatusCode::InvalidArgument, tr("No model is loaded.").toStdString());
  auto options = toPredictorOptions(settings, {impl_->loaded->weights_path, impl_->loaded->source.adapter});
  if (!options.isOk()) return options.status();
  if (!impl_->predictor || impl_->predictor->options() != options.value()) {
    impl_->predictor.reset();
    auto opened = predict::Predictor::open(impl_->loaded, options.value());
    if (!opened.isOk()) return opened.status();
    impl_->predictor = std::move(opened.value());
  }
  return impl_->predictor.get();
}

Status InferenceWorker::readInput(const RunInput& input, std::vector<data::RawRecord>& records, QStringList* columns) {
  std::vector<std::string> header;
  if (impl_->loaded) header = predict::predictionHeader(impl_->loaded->metadata, impl_->loaded->config.num_classes);
  InputTable table;
  Status s = readInputTable(input, header, table);
  records = std::move(table.records);
  if (columns) *columns = table.columns;
  return s;
}

void InferenceWorker::compare(const RunInput& input, const CompareRequest& request, const RunSettings& settings) {
  auto predictor = predictorFor(settings);
  auto modes = engine::parseModes(request.modes.toStdString(), std::max(1, settings.batch_size));
  auto workload = engine::parseWorkload(request.workload.toStdString());
  std::vector<data::RawRecord> records;
  Status read = readInput(input, records);
  for (const Status& s : {predictor.status(), modes.status(), workload.status(), read})
    if (!s.isOk()) return Q_EMIT compareFinished(QString::fromStdString(s.message()));
  predict::VectorReader source(records);
  const auto rows = predict::featurizeUsable(*predictor.value(), source, request.max_molecules, nullptr);
  if (rows.empty()) return Q_EMIT compareFinished(tr("No readable molecules to compare on."));
  engine::CompareOptions o;
  o.modes = modes.value();
  o.workload = workload.value();
  o.repeats = std::max(1, request.repeats);
  Q_EMIT compareStarted(static_cast<int>(o.modes.size()));
  engine::CompareCallbacks cb;
  cb.memory = tracker_;
  cb.cancelled = [this] { return cancelled_.load(); };
  cb.mode_started = [this](int k, int n, const std::string& label) {
    Q_EMIT compareModeStarted(k, n, QString::fromStdString(label));
  };
  cb.mode_done = [this](const engine::ModeResult& r) { Q_EMIT compareModeDone(r); };
  QElapsedTimer clock;
  clock.start();
  auto results = jobs::compareModes(*predictor.value(), rows, o, cb);
  Q_EMIT compareFinished(results.isOk() ? tr("Compared %1 modes on %2 molecules (%3, median of %4) in %5 s.")
                                              .arg(o.modes.size())
                                              .arg(rows.size())
                                              .arg(QString::fromUtf8(engine::workloadName(o.workload)))
                                              .arg(o.repeats)
                                              .arg(clock.elapsed() / 1000.0, 0, 'f', 1)
                                        : QString::fromStdString(results.status().message()));
}

void InferenceWorker::explain(const std::vector<data::RawRecord>& records, const ExplainRequest& request,
                              const RunSettings& settings) {
  RunSettings fp32 = settings;
  fp32.precision = QStringLiteral("fp32");  // the predictor only featurizes; explanations run on their own copy
  auto predictor = predictorFor(fp32);
  auto a = attributionOptions(request, settings);
  for (const Status& s : {predictor.status(), a.status()})
    if (!s.isOk()) return Q_EMIT explainFailed(toQt(s));
  engine::AttributionCallbacks cb;
  cb.memory = tracker_;
  cb.cancelled = [this] { return cancelled_.load(); };
  QElapsedTimer clock;
  clock.start();
  tracker_->resetPeak();
  auto molecules = jobs::explainRecords(*predictor.value(), records, a.value(), cb);
  if (!molecules.isOk()) return Q_EMIT explainFailed(toQt(molecules.status()));
  Q_EMIT explanationsReady(molecules.value(),
                           explainSummary(molecules.value(), a.value(), clock.elapsed() / 1000.0, tracker_->peak()));
}

void InferenceWorker::run(const RunInput& input, const RunSettings& settings) {
  if (settings.device == kServerDevice) return runOnServer(input, settings);
  auto predictor = predictorFor(settings);
  if (!predictor.isOk()) return Q_EMIT runFailed(toQt(predictor.status()));
  // Read every record first (cheap), so the table shows all rows in order at once.
  std::vector<data::RawRecord> records;
  QStringList columns;
  if (Status s = readInput(input, records, &columns); !s.isOk()) return Q_EMIT runFailed(toQt(s));
  Q_EMIT inputRead(pendingRows(records), columns);

  QElapsedTimer clock;
  clock.start();
  const auto total = static_cast<qint64>(records.size());
  qint64 first = 0;
  auto sink = [&](const std::vector<predict::PredictedRow>& rows) {
    Q_EMIT rowsDone(static_cast<int>(first), rows);
    first += static_cast<qint64>(rows.size());
    Q_EMIT progress(first, total, double(first) / std::max(1e-9, clock.nsecsElapsed() / 1e9));
    return Status::ok();
  };
  engine::RunCallbacks callbacks;
  callbacks.cancelled = [this] { return cancelled_.load(); };
  callbacks.memory = tracker_;
  callbacks.progress = [&](int64_t done, int64_t) {  // per batch, inside the current chunk
    const qint64 rows = first + static_cast<qint64>(done);
    Q_EMIT progress(rows, total, double(rows) / std::max(1e-9, clock.nsecsElapsed() / 1e9));
  };
  predict::VectorReader source(records);
  auto streamed = predict::predictStream(*predictor.value(), source, sink, callbacks, kInteractiveChunkRows);
  if (!streamed.isOk()) return Q_EMIT runFailed(toQt(streamed.status()));
  auto info = predictor.value()->runRecord();
  info.tool = "graphormer-studio";
  info.input = input.path.isEmpty() ? "(pasted)" : input.path.toStdString();
  info.seconds = clock.nsecsElapsed() / 1e9;
  Q_EMIT runFinished(streamed->cancelled || cancelled_.load(), info.seconds, info);
}

}  // namespace gs::ui

namespace gs::ui {

void InferenceWorker::runOnServer(const RunInput& input, const RunSettings& settings) {
  std::vector<data::RawRecord> records;
  QStringList columns;
  if (Status s = readInput(input, records, &columns); !s.isOk()) return Q_EMIT runFailed(toQt(s));
  Q_EMIT inputRead(pendingRows(records), columns);
  QElapsedTimer clock;
  clock.start();
  RemoteClient client(settings.server);
  RemoteModel model;
  const auto total = static_cast<qint64>(records.size());
  qint64 done = 0;
  const auto cancelled = [this] { return cancelled_.load(); };
  const auto note = [this](const QString& message) { Q_EMIT remoteNote(message); };
  // Chunks of the server client's size, so rows and progress arrive as they come.
  constexpr size_t kRows = 256;
  for (size_t first = 0; first < records.size(); first += kRows) {
    const std::vector<data::RawRecord> chunk(
        records.begin() + static_cast<std::ptrdiff_t>(first),
        records.begin() + static_cast<std::ptrdiff_t>(std::min(records.size(), first + kRows)));
    auto rows = predictOnServer(client, chunk, cancelled, note, &model);
    if (!rows.isOk()) return Q_EMIT runFailed(toQt(rows.status()));
    Q_EMIT rowsDone(static_cast<int>(done), rows.value());
    done += static_cast<qint64>(rows->size());
    Q_EMIT progress(done, total, double(done) / std::max(1e-9, clock.nsecsElapsed() / 1e9));
  }
  predict::RunRecord info;
  info.tool = "graphormer-studio (server " + settings.server.url.toStdString() + ")";
  info.input = input.path.isEmpty() ? "(pasted)" : input.path.toStdString();
  info.model_path = settings.server.url.toStdString();
  info.model_sha256 = model.sha256.toStdString();
  info.device = "server: " + model.device.toStdString();
  info.precision = model.precision.toStdString();
  info.outputs = static_cast<int>(model.outputs.size());
  info.seconds = clock.nsecsElapsed() / 1e9;
  Q_EMIT runFinished(cancelled_.load(), info.seconds, info);
}

}  // namespace gs::ui
