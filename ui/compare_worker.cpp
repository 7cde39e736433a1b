#include "compare_worker.h"

#include <QElapsedTimer>

#include "jobs/bench_job.h"
#include "predict/predictor.h"

namespace gs::ui {

void CompareWorker::start(const CompareRequest& request) {
  auto predictor = session_->predictorFor(request.settings);
  std::vector<data::RawRecord> records;
  Status read = session_->readInput(request.input, records);
  Status modes = request.modes.empty() ? Status(StatusCode::InvalidArgument, "no modes to compare") : Status::ok();
  for (const Status& s : {predictor.status(), modes, read})
    if (!s.isOk()) return Q_EMIT compareFinished(QString::fromStdString(s.message()));
  predict::VectorReader source(records);
  const auto rows = predict::featurizeUsable(*predictor.value(), source, request.max_molecules, nullptr);
  if (rows.empty()) return Q_EMIT compareFinished(tr("No readable molecules to compare on."));
  engine::CompareOptions o;
  o.modes = request.modes;
  for (auto& m : o.modes)
    if (m.batch_size <= 0) m.batch_size = std::max(1, request.settings.batch_size);
  o.workload = request.workload;
  o.repeats = std::max(1, request.repeats);
  Q_EMIT compareStarted(static_cast<int>(o.modes.size()));
  engine::CompareCallbacks cb;
  cb.memory = session_->tracker();
  cb.cancelled = session_->cancelFlag();
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

}  // namespace gs::ui
