#include "predict_worker.h"

#include <QElapsedTimer>

#include "predict/predictor.h"

namespace gs::ui {
namespace {

// Rows the app predicts together: results appear in the table chunk by chunk, so it is smaller
// than graphormer-cli's predict::kChunkRows. The planner buckets within a chunk, so on a long file
// the app's batches (and the last float bits of some predictions) can differ from the CLI's.
constexpr int kInteractiveChunkRows = 256;

double rate(qint64 rows, const QElapsedTimer& clock) {
  return double(rows) / std::max(1e-9, clock.nsecsElapsed() / 1e9);
}

}  // namespace

void PredictWorker::start(const PredictRequest& request) {
  auto predictor = session().predictorFor(request.settings);
  if (!predictor.isOk()) return Q_EMIT runFailed(toQt(predictor.status()));
  // Read every record first (cheap), so the table shows all rows in order at once.
  std::vector<data::RawRecord> records;
  if (!readAll(request.input, records)) return;
  QElapsedTimer clock;
  clock.start();
  const auto total = static_cast<qint64>(records.size());
  qint64 first = 0;
  auto sink = [&](const std::vector<predict::PredictedRow>& rows) {
    Q_EMIT rowsDone(static_cast<int>(first), rows);
    first += static_cast<qint64>(rows.size());
    Q_EMIT progress(first, total, rate(first, clock));
    return Status::ok();
  };
  engine::RunCallbacks callbacks;
  callbacks.cancelled = session().cancelFlag();
  callbacks.memory = session().tracker();
  callbacks.progress = [&](int64_t done, int64_t) {  // per batch, inside the current chunk
    const qint64 rows = first + static_cast<qint64>(done);
    Q_EMIT progress(rows, total, rate(rows, clock));
  };
  predict::VectorReader source(records);
  auto streamed = predict::predictStream(*predictor.value(), source, sink, callbacks, kInteractiveChunkRows);
  if (!streamed.isOk()) return Q_EMIT runFailed(toQt(streamed.status()));
  auto info = predictor.value()->runRecord();
  info.tool = "graphormer-studio";
  info.input = request.input.path.isEmpty() ? "(pasted)" : request.input.path.toStdString();
  info.seconds = clock.nsecsElapsed() / 1e9;
  Q_EMIT runFinished(streamed->cancelled || session().cancelled(), info.seconds, info);
}

}  // namespace gs::ui
