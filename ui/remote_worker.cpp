#include "remote_worker.h"

#include <QElapsedTimer>

namespace gs::ui {
namespace {

// Chunks of the server client's size, so rows and progress arrive as they come.
constexpr size_t kRemoteChunkRows = 256;

predict::RunRecord remoteRecord(const RemoteRequest& request, const RemoteModel& model, double seconds) {
  predict::RunRecord info;
  info.tool = "graphormer-studio (server " + request.server.url.toStdString() + ")";
  info.input = request.input.path.isEmpty() ? "(pasted)" : request.input.path.toStdString();
  info.model_path = request.server.url.toStdString();
  info.model_sha256 = model.sha256.toStdString();
  info.device = "server: " + model.device.toStdString();
  info.precision = model.precision.toStdString();
  info.outputs = static_cast<int>(model.outputs.size());
  info.seconds = seconds;
  return info;
}

}  // namespace

void RemoteWorker::start(const RemoteRequest& request) {
  std::vector<data::RawRecord> records;
  if (!readAll(request.input, records)) return;
  QElapsedTimer clock;
  clock.start();
  RemoteClient client(request.server);
  RemoteModel model;
  const auto total = static_cast<qint64>(records.size());
  qint64 done = 0;
  const auto note = [this](const QString& message) { Q_EMIT remoteNote(message); };
  for (size_t first = 0; first < records.size(); first += kRemoteChunkRows) {
    const std::vector<data::RawRecord> chunk(
        records.begin() + static_cast<std::ptrdiff_t>(first),
        records.begin() + static_cast<std::ptrdiff_t>(std::min(records.size(), first + kRemoteChunkRows)));
    auto rows = predictOnServer(client, chunk, session().cancelFlag(), note, &model);
    if (!rows.isOk()) return Q_EMIT runFailed(toQt(rows.status()));
    Q_EMIT rowsDone(static_cast<int>(done), rows.value());
    done += static_cast<qint64>(rows->size());
    Q_EMIT progress(done, total, double(done) / std::max(1e-9, clock.nsecsElapsed() / 1e9));
  }
  const double seconds = clock.nsecsElapsed() / 1e9;
  Q_EMIT runFinished(session().cancelled(), seconds, remoteRecord(request, model, seconds));
}

}  // namespace gs::ui
