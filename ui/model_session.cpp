#include "model_session.h"

#include "jobs/model_summary.h"
#include "predict/predictor.h"
#include "tensor/precision.h"

namespace gs::ui {
namespace {

ModelCard modelCard(const jobs::ModelSummary& s) {
  ModelCard card;
  card.path = QString::fromStdString(s.source.path);
  card.files = toQt(s.files);
  card.sha256 = QString::fromStdString(s.sha256);
  card.description = QString::fromStdString(s.description);
  card.target_names = toQt(s.target_names);
  card.target_units = toQt(s.target_units);
  card.layers = s.layers;
  card.embedding_dim = s.embedding_dim;
  card.heads = s.heads;
  card.parameters = s.parameters;
  card.convention = QString::fromStdString(s.convention);
  card.notes = toQt(s.notes);
  card.trust_note = QString::fromStdString(s.trust_note);
  card.calibration_molecules = static_cast<int>(s.calibration_molecules);
  card.calibration_series = QString::fromStdString(s.calibration_series);
  card.label_range = s.label_range;
  return card;
}

}  // namespace

QStringList toQt(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

QString toQt(const Status& s) { return QString::fromStdString(s.toString()); }

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

QStringList availableDevices() { return toQt(tensor::availableDevices()); }

std::vector<std::pair<QString, QString>> precisionOptions(const QString& device, bool training, int model_width) {
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

struct ModelSession::Impl {
  jobs::OpenedModel opened;                       // its model is null until one loads
  std::unique_ptr<predict::Predictor> predictor;  // for the last settings used
};

ModelSession::ModelSession()
    : impl_(std::make_unique<Impl>()), tracker_(std::make_shared<tensor::TensorMemoryTracker>()) {}

ModelSession::~ModelSession() = default;

bool ModelSession::hasModel() const { return impl_->opened.model != nullptr; }

Result<ModelCard> ModelSession::load(const QString& path) {
  auto opened = jobs::openForPrediction(bundle::ModelSource{path.toStdString(), {}});
  if (!opened.isOk()) return opened.status();
  impl_->predictor.reset();
  impl_->opened = std::move(opened.value());
  return modelCard(impl_->opened.summary);
}

Result<predict::Predictor*> ModelSession::predictorFor(const RunSettings& settings) {
  if (!hasModel()) return Status(StatusCode::InvalidArgument, QObject::tr("No model is loaded.").toStdString());
  auto options = toPredictorOptions(settings, impl_->opened.summary.source);
  if (!options.isOk()) return options.status();
  if (!impl_->predictor || impl_->predictor->options() != options.value()) {
    impl_->predictor.reset();
    auto opened = predict::Predictor::open(impl_->opened.model, options.value());
    if (!opened.isOk()) return opened.status();
    impl_->predictor = std::move(opened.value());
  }
  return impl_->predictor.get();
}

Status ModelSession::readInput(const RunInput& input, std::vector<data::RawRecord>& records,
                               QStringList* columns) const {
  InputTable table;
  Status s = readInputTable(input, impl_->opened.summary.prediction_header, table);
  records = std::move(table.records);
  if (columns) *columns = table.columns;
  return s;
}

void ModelWorker::load(const QString& path) {
  auto card = session_->load(path);
  if (!card.isOk()) return Q_EMIT modelFailed(toQt(card.status()));
  Q_EMIT modelLoaded(card.value());
}

}  // namespace gs::ui
