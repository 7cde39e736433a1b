#include "inference_worker.h"

#include <QElapsedTimer>

#include <sstream>

#include "chem/featurize.h"
#include "data/smi_reader.h"
#include "engine/inference_session.h"
#include "jobs/predict_job.h"
#include "model/loader.h"

namespace gs::ui {
namespace {

constexpr int kChunk = 64;  // rows featurized and predicted together: one cancel/progress step

QStringList toQt(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

}  // namespace

struct InferenceWorker::Impl {
  std::optional<model::LoadedModel> loaded;  // the model as loaded (kept for new sessions)
  std::unique_ptr<engine::InferenceSession> session;
  engine::SessionOptions session_options;
};

InferenceWorker::InferenceWorker(QObject* parent)
    : QObject(parent), impl_(std::make_unique<Impl>()), tracker_(std::make_shared<engine::TensorMemoryTracker>()) {}

InferenceWorker::~InferenceWorker() = default;

QStringList InferenceWorker::devices() { return toQt(engine::availableDevices()); }

std::vector<std::pair<QString, QString>> InferenceWorker::precisionOptions(const QString& device) {
  std::vector<std::pair<QString, QString>> out;
  for (auto p : {engine::Precision::FP32, engine::Precision::BF16, engine::Precision::FP16, engine::Precision::INT8}) {
    const Status s = engine::precisionAvailable(p, device.toStdString());
    out.emplace_back(QString::fromUtf8(engine::precisionName(p)), s.isOk() ? QString() : QString::fromStdString(s.message()));
  }
  return out;
}

void InferenceWorker::loadModel(const QString& path) {
  auto loaded = model::openModel(bundle::ModelSource{path.toStdString(), {}});
  if (!loaded.isOk()) {
    Q_EMIT modelFailed(QString::fromStdString(loaded.status().toString()));
    return;
  }
  impl_->session.reset();
  const auto& m = loaded.value();
  ModelCard card;
  card.path = QString::fromStdString(m.weights_path);
  card.files = toQt(m.source.files());
  card.sha256 = QString::fromStdString(m.sha256);
  card.description = QString::fromStdString(m.metadata.description);
  for (int j = 0; j < m.config.num_classes; ++j) {
    card.target_names << QString::fromStdString(m.metadata.outputName(j));
    card.target_units << (j < static_cast<int>(m.metadata.target_units.size()) ? QString::fromStdString(m.metadata.target_units[j]) : QString());
  }
  card.layers = m.config.num_hidden_layers;
  card.embedding_dim = m.config.embedding_dim;
  card.heads = m.config.num_attention_heads;
  card.parameters = m.config.parameterCount();
  card.convention = QString::fromUtf8(data::conventionName(m.metadata.convention.value_or(data::Convention::Official)));
  card.notes = toQt(m.notes);
  impl_->loaded = std::move(loaded.value());
  Q_EMIT modelLoaded(card);
}

bool InferenceWorker::readInput(const RunInput& input, std::vector<data::RawRecord>& records) {
  std::unique_ptr<data::RecordReader> reader;
  std::istringstream text(input.text.toStdString());
  data::ReaderOptions ro;
  ro.smiles_column = input.smiles_column.toStdString();
  ro.id_column = input.id_column.toStdString();
  if (!input.path.isEmpty()) {
    auto r = data::openReader(input.path.toStdString(), ro);
    if (!r.isOk()) {
      Q_EMIT runFailed(QString::fromStdString(r.status().toString()));
      return false;
    }
    reader = std::move(r.value());
  } else {
    reader = data::makeReader(data::FileFormat::Smi, text, ro);
  }
  data::RawRecord record;
  while (reader->next(record)) records.push_back(record);
  return true;
}

void InferenceWorker::compare(const RunInput& input, const CompareRequest& request, const RunSettings& settings) {
  cancelled_.store(false);
  if (!impl_->loaded) {
    Q_EMIT compareFinished(tr("No model is loaded."));
    return;
  }
  engine::CompareOptions o;
  auto modes = engine::parseModes(request.modes.toStdString(), std::max(1, settings.batch_size));
  auto workload = engine::parseWorkload(request.workload.toStdString());
  if (!modes.isOk() || !workload.isOk()) {
    Q_EMIT compareFinished(QString::fromStdString((modes.isOk() ? workload.status() : modes.status()).message()));
    return;
  }
  o.modes = modes.value();
  o.workload = workload.value();
  o.repeats = std::max(1, request.repeats);
  o.device = settings.device.toStdString();
  o.threads = settings.threads;
  std::vector<data::RawRecord> records;
  if (!readInput(input, records)) {
    Q_EMIT compareFinished(tr("Could not read the input."));
    return;
  }
  chem::FeaturizeOptions fo;
  fo.multi_hop_max_dist = impl_->loaded->config.multi_hop_max_dist;
  std::vector<graph::Featurized> features;
  for (const auto& r : records) {
    if (static_cast<int>(features.size()) >= request.max_molecules) break;
    auto row = chem::featurizeRecord(r, fo);
    if (row.features && row.num_atoms <= impl_->loaded->config.max_nodes) features.push_back(std::move(*row.features));
  }
  if (features.empty()) {
    Q_EMIT compareFinished(tr("No readable molecules to compare on."));
    return;
  }
  std::vector<const graph::Featurized*> mols;
  for (const auto& f : features) mols.push_back(&f);
  impl_->session.reset();  // the comparison re-packs the shared weights; start the next run afresh
  Q_EMIT compareStarted(static_cast<int>(o.modes.size()));
  engine::CompareCallbacks cb;
  cb.memory = tracker_;
  cb.cancelled = [this] { return cancelled_.load(); };
  cb.mode_started = [this](int k, int n, const std::string& label) { Q_EMIT compareModeStarted(k, n, QString::fromStdString(label)); };
  cb.mode_done = [this](const engine::ModeResult& r) { Q_EMIT compareModeDone(r); };
  QElapsedTimer clock;
  clock.start();
  auto results = engine::runComparison(*impl_->loaded, mols, o, cb);
  Q_EMIT compareFinished(results.isOk() ? tr("Compared %1 modes on %2 molecules (%3, median of %4) in %5 s.")
                                              .arg(o.modes.size()).arg(mols.size()).arg(QString::fromUtf8(engine::workloadName(o.workload)))
                                              .arg(o.repeats).arg(clock.elapsed() / 1000.0, 0, 'f', 1)
                                        : QString::fromStdString(results.status().message()));
}

void InferenceWorker::explain(const std::vector<data::RawRecord>& records, const ExplainRequest& request,
                              const RunSettings& settings) {
  cancelled_.store(false);
  if (!impl_->loaded) {
    Q_EMIT explainFailed(tr("No model is loaded."));
    return;
  }
  jobs::ExplainJobOptions o;
  auto method = engine::parseAttributionMethod(request.method.toStdString());
  if (!method.isOk()) {
    Q_EMIT explainFailed(QString::fromStdString(method.status().message()));
    return;
  }
  auto baseline = engine::parseBaseline(request.baseline.toStdString());
  if (!baseline.isOk()) {
    Q_EMIT explainFailed(QString::fromStdString(baseline.status().message()));
    return;
  }
  auto& a = o.attribution;
  a.method = method.value();
  a.baseline = baseline.value();
  a.steps = std::max(3, request.steps);
  a.checkpoint_ratio = request.checkpoint_ratio;
  a.device = settings.device.toStdString();
  a.threads = settings.threads;
  a.batch_size = std::max(1, std::min(settings.batch_size, 64));
  if (!engine::parsePrecision(settings.precision.toStdString(), &a.precision) || a.precision == engine::Precision::INT8)
    a.precision = engine::Precision::FP32;  // int8 weights have no gradients: explain in fp32
  o.callbacks.memory = tracker_;
  o.callbacks.cancelled = [this] { return cancelled_.load(); };
  // Explanations run on their own copy of the weights; the prediction session stays as it is.
  QElapsedTimer clock;
  clock.start();
  tracker_->resetPeak();
  Status error;
  auto molecules = jobs::explainRecords(*impl_->loaded, records, o, &error);
  if (!error.isOk()) {
    Q_EMIT explainFailed(QString::fromStdString(error.toString()));
    return;
  }
  QString how = QString::fromUtf8(engine::attributionMethodName(a.method));
  if (a.method == engine::AttributionMethod::IntegratedGradients) {
    int64_t used = 0, explained = 0;
    for (const auto& m : molecules)
      if (m.status.isOk()) used += m.summary.steps, ++explained;
    how += tr(" from the %1 baseline, %2 of %3 steps per molecule")
               .arg(QString::fromUtf8(engine::baselineName(a.baseline)))
               .arg(explained ? double(used) / double(explained) : 0.0, 0, 'f', 1)
               .arg(a.steps);
  }
  const QString summary = tr("Explained %1 molecule(s) with %2 (%3, checkpoint ratio %4) in %5 s; peak tensor memory %6 MiB")
                              .arg(molecules.size()).arg(how)
                              .arg(QString::fromUtf8(engine::precisionName(a.precision))).arg(a.checkpoint_ratio, 0, 'f', 2)
                              .arg(clock.elapsed() / 1000.0, 0, 'f', 1).arg(tracker_->peak() / 1048576.0, 0, 'f', 1);
  Q_EMIT explanationsReady(molecules, summary);
}

void InferenceWorker::run(const RunInput& input, const RunSettings& settings) {
  cancelled_.store(false);
  if (!impl_->loaded) {
    Q_EMIT runFailed(tr("No model is loaded."));
    return;
  }
  engine::SessionOptions so;
  so.device = settings.device.toStdString();
  if (!engine::parsePrecision(settings.precision.toStdString(), &so.precision)) {
    Q_EMIT runFailed(tr("Unknown precision '%1'.").arg(settings.precision));
    return;
  }
  so.plan.max_batch_size = std::max(1, settings.batch_size);
  so.threads = settings.threads;
  if (settings.memory_budget_mib > 0) {
    // Batches sized by the session's memory model (fitted on probe batches) to the budget; the
    // batch-size setting stays the cap only when it is larger.
    so.memory_budget_bytes = settings.memory_budget_mib * 1024 * 1024;
    so.plan.max_batch_size = std::max(so.plan.max_batch_size, 4096);
  }
  // A new session when the settings changed (the model itself is loaded once).
  const bool same = impl_->session && impl_->session_options.device == so.device && impl_->session_options.threads == so.threads &&
                    impl_->session_options.plan.max_batch_size == so.plan.max_batch_size &&
                    impl_->session_options.memory_budget_bytes == so.memory_budget_bytes;
  if (!same) {
    impl_->session.reset();
    model::LoadedModel copy = *impl_->loaded;  // the session owns its model; share weights
    auto session = engine::InferenceSession::create(std::move(copy), so);
    if (!session.isOk()) {
      Q_EMIT runFailed(QString::fromStdString(session.status().toString()));
      return;
    }
    impl_->session = std::move(session.value());
    impl_->session_options = so;
  }
  if (Status s = impl_->session->setPrecision(so.precision); !s.isOk()) {
    Q_EMIT runFailed(QString::fromStdString(s.toString()));
    return;
  }
  impl_->session_options.precision = so.precision;

  // Read every record first (cheap), so the table shows all rows in order at once.
  std::vector<data::RawRecord> records;
  if (!readInput(input, records)) return;
  std::vector<jobs::PredictedRow> pending(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    pending[i].row = records[i].row;
    pending[i].id = records[i].id;
    pending[i].input = records[i].kind == data::RecordKind::Smiles ? records[i].text : std::string();
  }
  Q_EMIT inputRead(pending);

  chem::FeaturizeOptions fo;
  fo.multi_hop_max_dist = impl_->session->collateOptions().multi_hop_max_dist;
  engine::RunCallbacks callbacks;
  callbacks.cancelled = [this] { return cancelled_.load(); };
  callbacks.memory = tracker_;
  QElapsedTimer clock;
  clock.start();
  const auto total = static_cast<qint64>(records.size());
  qint64 done = 0;
  bool cancelled = false;
  for (size_t first = 0; first < records.size(); first += kChunk) {
    const size_t end = std::min(records.size(), first + kChunk);
    if (cancelled_.load()) {
      cancelled = true;
      std::vector<jobs::PredictedRow> rest(pending.begin() + static_cast<std::ptrdiff_t>(first), pending.end());
      for (auto& r : rest) r.status = Status(StatusCode::Cancelled, "not predicted: the run was cancelled");
      Q_EMIT rowsDone(static_cast<int>(first), rest);
      break;
    }
    std::vector<chem::MoleculeRow> rows;
    for (size_t i = first; i < end; ++i) {
      auto row = chem::featurizeRecord(records[i], fo);
      if (row.input.empty()) row.input = pending[i].input;
      rows.push_back(std::move(row));
    }
    std::vector<jobs::PredictedRow> out;
    try {
      out = jobs::predictRows(*impl_->session, rows, callbacks);
    } catch (const std::exception& e) {
      Q_EMIT runFailed(tr("Inference failed: %1").arg(QString::fromUtf8(e.what())));
      return;
    }
    Q_EMIT rowsDone(static_cast<int>(first), out);
    done = static_cast<qint64>(end);
    const double seconds = std::max(1e-9, clock.nsecsElapsed() / 1e9);
    Q_EMIT progress(done, total, double(done) / seconds);
  }
  auto info = jobs::sessionRunInfo(*impl_->session, impl_->loaded->sha256);
  info.tool = "graphormer-studio";
  info.input = input.path.isEmpty() ? "(pasted)" : input.path.toStdString();
  info.adapter_path = impl_->loaded->source.adapter;
  info.adapter_sha256 = impl_->loaded->adapter_sha256;
  info.seconds = clock.nsecsElapsed() / 1e9;
  Q_EMIT runFinished(cancelled, info.seconds, info);
}

}  // namespace gs::ui
