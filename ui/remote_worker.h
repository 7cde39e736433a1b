#pragma once
// The predict job on a prediction server (docs/SERVING.md): the rows go to POST /v1/predict in
// chunks through RemoteClient, with the same signals as a run here; a refused or failed chunk
// ends the run with the server's reason.
#include "rows_worker.h"

namespace gs::ui {

struct RemoteRequest {
  RunInput input;
  ServerSettings server;
};

class RemoteWorker final : public RowsWorker {
  Q_OBJECT
 public:
  using RowsWorker::RowsWorker;

 public Q_SLOTS:
  void start(const gs::ui::RemoteRequest& request);
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::RemoteRequest)
