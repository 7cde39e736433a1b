#pragma once
// The predict job on this computer: every row of the input through a predict::Predictor on the
// loaded model (the same pipeline as graphormer-cli predict), in chunks, so rows appear as they
// are done. Rows not reached when a cancel comes get the status "cancelled".
#include "rows_worker.h"

namespace gs::ui {

struct PredictRequest {
  RunInput input;
  RunSettings settings;  // a device other than kServerDevice
};

class PredictWorker final : public RowsWorker {
  Q_OBJECT
 public:
  using RowsWorker::RowsWorker;

 public Q_SLOTS:
  void start(const gs::ui::PredictRequest& request);
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::PredictRequest)
