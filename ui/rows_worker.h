#pragma once
// What the two prediction jobs (on this computer, ui/predict_worker.h, and on a server,
// ui/remote_worker.h) report: every input row pending first, then rows as they are predicted, in
// input order, with progress, and how the run ended. The main window connects one of these.
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

#include "model_session.h"
#include "predict/prediction_table.h"

namespace gs::ui {

class RowsWorker : public QObject {
  Q_OBJECT
 public:
  explicit RowsWorker(std::shared_ptr<ModelSession> session, QObject* parent = nullptr)
      : QObject(parent), session_(std::move(session)) {}

 Q_SIGNALS:
  // Every input row, pending, in input order (before any prediction); `columns` name the user's
  // other input columns, whose values every row's `fields` hold.
  void inputRead(const std::vector<gs::predict::PredictedRow>& rows, const QStringList& columns);
  void rowsDone(int first, const std::vector<gs::predict::PredictedRow>& rows);
  void progress(qint64 done, qint64 total, double molecules_per_second);
  // What a run through a server is waiting for ("" when it is moving again).
  void remoteNote(const QString& message);
  void runFinished(bool cancelled, double seconds, const gs::predict::RunRecord& info);
  void runFailed(const QString& message);

 protected:
  // Reads the input and says so (inputRead with every row pending); false after runFailed.
  bool readAll(const RunInput& input, std::vector<data::RawRecord>& records);
  ModelSession& session() { return *session_; }

 private:
  std::shared_ptr<ModelSession> session_;
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::predict::RunRecord)
