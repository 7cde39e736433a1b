#include "explain_worker.h"

#include <QElapsedTimer>

#include "predict/predictor.h"

namespace gs::ui {
namespace {

engine::AttributionOptions attributionOptions(const ExplainRequest& request) {
  engine::AttributionOptions a;
  a.method = request.method;
  a.baseline = request.baseline;
  a.output = std::max(0, request.output);
  a.steps = std::max(3, request.steps);
  a.checkpoint_ratio = request.checkpoint_ratio;
  a.batch_size = std::max(1, std::min(request.settings.batch_size, 64));
  auto precision = tensor::parsePrecision(request.settings.precision.toStdString());
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
    how += ExplainWorker::tr(" from the %1 baseline, %2 of %3 steps per molecule")
               .arg(QString::fromUtf8(engine::baselineName(a.baseline)))
               .arg(explained ? double(used) / double(explained) : 0.0, 0, 'f', 1)
               .arg(a.steps);
  }
  int64_t ok = 0, cancelled = 0;
  for (const auto& m : molecules) ok += m.status.isOk(), cancelled += m.status.code() == StatusCode::Cancelled;
  const QString what =
      cancelled ? ExplainWorker::tr("Cancelled: explained %1 of %2 molecule(s)").arg(ok).arg(molecules.size())
                : ExplainWorker::tr("Explained %1 of %2 molecule(s)").arg(ok).arg(molecules.size());
  return ExplainWorker::tr("%1 with %2 (%3, checkpoint ratio %4) in %5 s; peak tensor memory %6 MiB")
      .arg(what, how)
      .arg(QString::fromUtf8(tensor::precisionName(a.precision)))
      .arg(a.checkpoint_ratio, 0, 'f', 2)
      .arg(seconds, 0, 'f', 1)
      .arg(peak_bytes / 1048576.0, 0, 'f', 1);
}

}  // namespace

void ExplainWorker::start(const ExplainRequest& request) {
  RunSettings fp32 = request.settings;
  fp32.precision = QStringLiteral("fp32");  // the predictor only featurizes; explanations run on their own copy
  auto predictor = session_->predictorFor(fp32);
  if (!predictor.isOk()) return Q_EMIT explainFailed(toQt(predictor.status()));
  const engine::AttributionOptions a = attributionOptions(request);
  engine::AttributionCallbacks cb;
  cb.memory = session_->tracker();
  cb.cancelled = session_->cancelFlag();
  QElapsedTimer clock;
  clock.start();
  session_->tracker()->resetPeak();
  auto molecules = jobs::explainRecords(*predictor.value(), request.records, a, cb);
  if (!molecules.isOk()) return Q_EMIT explainFailed(toQt(molecules.status()));
  Q_EMIT explanationsReady(molecules.value(),
                           explainSummary(molecules.value(), a, clock.elapsed() / 1000.0, session_->tracker()->peak()));
}

}  // namespace gs::ui
