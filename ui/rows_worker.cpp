#include "rows_worker.h"

#include "predict/predictor.h"

namespace gs::ui {

bool RowsWorker::readAll(const RunInput& input, std::vector<data::RawRecord>& records) {
  QStringList columns;
  if (Status s = session_->readInput(input, records, &columns); !s.isOk()) {
    Q_EMIT runFailed(toQt(s));
    return false;
  }
  std::vector<predict::PredictedRow> pending;
  pending.reserve(records.size());
  for (const auto& r : records) pending.push_back(predict::pendingRow(r));
  Q_EMIT inputRead(pending, columns);
  return true;
}

}  // namespace gs::ui
