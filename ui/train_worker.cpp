#include "train_worker.h"

#include <QElapsedTimer>

#include <cmath>
#include <filesystem>
#include <limits>

#include "chem/molecule.h"
#include "data/record_reader.h"
#include "jobs/evaluate_job.h"
#include "jobs/train_command.h"
#include "jobs/train_job.h"

namespace gs::ui {
namespace {

constexpr int kPreviewRows = 8;

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const auto& s : list) out.push_back(s.toStdString());
  return out;
}

bool isNumber(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end && *end == '\0' && std::isfinite(v);
}

Status applyModel(const TrainRequest& r, jobs::TrainJobOptions& o) {
  if (r.start == QLatin1String("fresh")) {
    auto preset = bundle::GraphormerConfig::preset(r.preset.toStdString());
    if (!preset.isOk()) return preset.status();
    o.config = preset.value();
    if (r.layers > 0) o.config.num_hidden_layers = r.layers;
    if (r.dim > 0) o.config.embedding_dim = r.dim;
    if (r.heads > 0) o.config.num_attention_heads = r.heads;
    if (r.ffn > 0) o.config.ffn_embedding_dim = r.ffn;
    if (r.mode != QLatin1String("full"))
      return Status(StatusCode::InvalidArgument, "a fresh model trains in full: fine-tune modes need a trained model");
    return Status::ok();
  }
  if (r.start == QLatin1String("opened") && r.model_path.isEmpty())
    return Status(StatusCode::InvalidArgument, "open a model to fine-tune");
  o.model = bundle::ModelSource{r.start == QLatin1String("opened") ? r.model_path.toStdString() : std::string(), {}};
  if (r.mode == QLatin1String("freeze"))
    o.train.freeze_layers = std::max(1, r.freeze_layers);
  else if (r.mode == QLatin1String("head"))
    o.train.reset_head = true;
  else if (r.mode == QLatin1String("lora"))
    o.train.lora_rank = std::max(1, r.lora_rank);
  else if (r.mode != QLatin1String("full"))
    return Status(StatusCode::InvalidArgument, "unknown fine-tune mode '" + r.mode.toStdString() + "'");
  return Status::ok();
}

QString methodName(const std::string& m) { return QString::fromStdString(m); }

// Baselines, parity points, error by size and interval coverage of the trained model, as evaluate computes them.
void scoreModel(const jobs::TrainJobOptions& o, TrainOutcome& out) {
  jobs::EvaluateJobOptions e;
  e.input = o.input;
  e.targets = o.targets;
  e.with_model = true;
  e.predictor.model = bundle::ModelSource{o.output_dir, {}};
  e.predictor.session.device = o.train.device;
  e.predictor.parse = o.featurize.parse;
  e.predictor.atom_order = o.featurize.atom_order;
  e.reader = o.reader;
  e.split = o.split;
  auto report = jobs::runEvaluate(e);
  if (!report.isOk()) {
    out.trust = QString::fromStdString("scoring failed: " + report.status().toString());
    return;
  }
  for (const auto& m : report->methods) out.methods.push_back({methodName(m.method), m.valid_mae, m.test_mae});
  for (const auto& p : report->test_points)
    if (!p.truth.empty() && std::isfinite(p.truth[0]) && std::isfinite(p.predicted[0]))
      out.parity.push_back(
          {QString::fromStdString(p.smiles), QString::fromStdString(p.id), p.heavy_atoms, p.truth[0], p.predicted[0]});
  for (const auto& bin : report->by_size) {
    auto it = bin.test_mae.find("model");
    if (it == bin.test_mae.end() || bin.count == 0) continue;
    const QString label =
        bin.hi > 0 ? QStringLiteral("%1-%2").arg(bin.lo).arg(bin.hi) : QStringLiteral(">%1").arg(bin.lo - 1);
    out.error_by_size.emplace_back(label, it->second);
  }
  if (report->trust.empty()) {
    out.trust =
        QObject::tr("No trust data (calibration fraction 0): predictions of this model come without intervals.");
    return;
  }
  QStringList lines;
  for (const auto& t : report->trust)
    lines << QObject::tr(
                 "%1: 90 % intervals cover %2 % of %3 test molecules (mean half-width %4; a constant-width "
                 "interval: %5 %, ±%6); 80 %: %7 %; in domain %8, borderline %9, out %10")
                 .arg(QString::fromStdString(t.target))
                 .arg(t.model90.coverage * 100, 0, 'f', 1)
                 .arg(t.molecules)
                 .arg(t.model90.half_width, 0, 'g', 3)
                 .arg(t.constant90.coverage * 100, 0, 'f', 1)
                 .arg(t.constant90.half_width, 0, 'g', 3)
                 .arg(t.model80.coverage * 100, 0, 'f', 1)
                 .arg(t.in)
                 .arg(t.borderline)
                 .arg(t.out);
  out.trust = lines.join(QLatin1Char('\n'));
}

}  // namespace

Result<jobs::TrainJobOptions> toTrainJobOptions(const TrainRequest& r) {
  jobs::TrainJobOptions o;
  if (r.input.isEmpty()) return Status(StatusCode::InvalidArgument, "open a file with molecules and target values");
  if (r.targets.isEmpty()) return Status(StatusCode::InvalidArgument, "choose at least one target column");
  if (r.output_dir.isEmpty()) return Status(StatusCode::InvalidArgument, "no run directory");
  o.input = r.input.toStdString();
  o.targets = toStd(r.targets);
  if (std::any_of(r.units.begin(), r.units.end(), [](const QString& u) { return !u.isEmpty(); }))
    o.target_units = toStd(r.units);
  o.output_dir = r.output_dir.toStdString();
  o.reader.smiles_column = r.smiles_column.toStdString();
  o.reader.id_column = r.id_column.toStdString();
  if (Status s = applyModel(r, o); !s.isOk()) return s;
  auto kind = data::parseSplitKind(r.split.toStdString());
  if (!kind.isOk()) return kind.status();
  o.split.kind = kind.value();
  o.split.valid_fraction = r.valid_fraction;
  o.split.test_fraction = r.test_fraction;
  o.split.calib_fraction = r.calib_fraction;
  o.split.seed = static_cast<uint64_t>(std::max(0, r.seed));
  auto& t = o.train;
  auto precision = tensor::parsePrecision(r.precision.toStdString());
  if (!precision.isOk()) return precision.status();
  t.precision = precision.value();
  t.epochs = std::max(1, r.epochs);
  t.batch_size = std::max(1, r.batch_size);
  t.patience = std::max(0, r.patience);
  t.learning_rate = r.learning_rate;
  t.checkpoint_ratio = std::clamp(r.checkpoint_ratio, 0.0, 1.0);
  t.device = r.device.toStdString();
  t.threads = r.threads;
  t.seed = o.split.seed;  // one seed for split, initialisation and training, as graphormer-cli train
  o.init_seed = t.seed;
  t.resume = r.resume;
  o.snapshots = std::max(0, r.snapshots);
  o.memory_budget_mib = std::max<qint64>(0, r.memory_budget_mib);
  o.fit_precision = r.fit_precision;
  return o;
}

Status checkTrainRequest(const TrainRequest& request) {
  auto o = toTrainJobOptions(request);
  return o.isOk() ? Status::ok() : o.status();
}

QString trainCommandLine(const TrainRequest& request) {
  auto o = toTrainJobOptions(request);
  if (!o.isOk()) return QString();
  o->train.resume = false;
  return QString::fromStdString(jobs::shellCommand("graphormer-cli", jobs::trainCommandArguments(o.value())));
}

TrainWorker::TrainWorker(std::shared_ptr<tensor::TensorMemoryTracker> memory, QObject* parent)
    : QObject(parent), memory_(std::move(memory)) {}

void TrainWorker::inspect(const QString& path, const QString& smiles_column) {
  LabelledPreview p;
  p.path = path;
  data::ReaderOptions ro;
  ro.smiles_column = smiles_column.toStdString();
  auto reader = data::openReader(path.toStdString(), ro);
  if (!reader.isOk()) {
    p.error = QString::fromStdString(reader.status().message());
    Q_EMIT inspected(p);
    return;
  }
  std::vector<std::vector<std::string>> fields;
  data::RawRecord record;
  while (reader.value()->next(record)) {
    ++p.total;
    const auto mol =
        record.kind == data::RecordKind::MolBlock ? chem::parseMolBlock(record.text) : chem::parseSmiles(record.text);
    const bool readable = record.status.isOk() && mol.status.isOk();
    p.parsed += readable ? 1 : 0;
    if (record.fields.size() > p.numeric.size())
      p.numeric.resize(record.fields.size(), 0), p.usable.resize(record.fields.size(), 0);
    for (size_t c = 0; c < record.fields.size(); ++c) {
      const bool number = isNumber(record.fields[c]);
      p.numeric[c] += number ? 1 : 0;
      p.usable[c] += number && readable ? 1 : 0;
    }
    if (static_cast<int>(p.rows.size()) < kPreviewRows) {
      QStringList cells;
      for (const auto& f : record.fields) cells << QString::fromStdString(f);
      p.rows.push_back(cells);
    }
  }
  for (const auto& c : reader.value()->columns()) p.columns << QString::fromStdString(c);
  p.numeric.resize(static_cast<size_t>(p.columns.size()), 0);
  p.usable.resize(static_cast<size_t>(p.columns.size()), 0);
  p.smiles_column = smiles_column;
  Q_EMIT inspected(p);
}

void TrainWorker::train(const TrainRequest& request) {
  cancelled_.store(false);
  auto options = toTrainJobOptions(request);
  if (!options.isOk()) {
    Q_EMIT failed(QString::fromStdString(options.status().message()));
    return;
  }
  tensor::TensorMemoryScope scope(memory_);
  Q_EMIT started(trainCommandLine(request));
  QElapsedTimer clock;
  clock.start();
  qint64 first_step = -1;
  StepPoint point;
  engine::TrainCallbacks cb;
  cb.cancelled = [this] { return cancelled_.load(); };
  cb.note = [this](const std::string& text) { Q_EMIT note(QString::fromStdString(text)); };
  cb.before_forward = [&point](int micro, double ratio) { point.micro_batch = micro, point.checkpoint_ratio = ratio; };
  cb.step_done = [&](int64_t step, int64_t total, double loss) {
    if (first_step < 0 || step <= point.step) first_step = step, clock.restart();  // a run, or a snapshot cycle, begins
    if (step > first_step) {  // rates from the steps since then (the first step's start is not known)
      const double steps_per_s = double(step - first_step) / std::max(1e-3, clock.elapsed() / 1000.0);
      point.molecules_per_second = steps_per_s * options->train.batch_size;
      point.eta_seconds = double(total - step) / steps_per_s;
    }
    point.step = step, point.total = total, point.loss = loss;
    Q_EMIT stepDone(point);
  };
  cb.epoch_done = [this](const engine::EpochReport& r) {
    Q_EMIT epochDone(
        EpochPoint{r.epoch, r.snapshot, r.train_loss, r.valid_mae, r.seconds, r.improved, r.valid_mae_per_target});
  };
  auto summary = jobs::runTrain(options.value(), cb);
  if (!summary.isOk()) {
    Q_EMIT failed(QString::fromStdString(summary.status().toString()));
    return;
  }
  Q_EMIT finished(outcomeOf(request, options.value(), summary.value()));
}

void TrainWorker::save(const QString& run_dir, const QString& destination) {
  const Status s = jobs::exportModel(run_dir.toStdString(), destination.toStdString());
  Q_EMIT saved(destination, s.isOk() ? QString() : QString::fromStdString(s.message()));
}

TrainOutcome TrainWorker::outcomeOf(const TrainRequest& request, const jobs::TrainJobOptions& options,
                                    const jobs::TrainJobSummary& s) {
  TrainOutcome out;
  out.cancelled = s.training.cancelled;
  out.output_dir = request.output_dir;
  out.model_path = QString::fromStdString(s.model_path);
  auto used = options;
  used.train = s.train_used;
  used.train.resume = false;
  used.memory_budget_mib = 0;
  out.command_line = QString::fromStdString(jobs::shellCommand("graphormer-cli", jobs::trainCommandArguments(used)));
  if (s.memory_fit) out.memory_note = QString::fromStdString(s.memory_fit->summary());
  out.targets = request.targets;
  out.train = s.train, out.valid = s.valid, out.calibration = s.calibration, out.test = s.test;
  out.best_epoch = s.training.best_epoch;
  out.summary = tr("%1 training, %2 validation, %3 calibration and %4 test molecules; best epoch %5")
                    .arg(s.train)
                    .arg(s.valid)
                    .arg(s.calibration)
                    .arg(s.test)
                    .arg(s.training.best_epoch);
  if (s.training.memory_retries > 0)
    out.summary += tr("; %1 step(s) ran out of memory and were retried").arg(s.training.memory_retries);
  if (!out.cancelled) scoreModel(options, out);
  return out;
}

}  // namespace gs::ui
