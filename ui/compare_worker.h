#pragma once
// The Compare tab's job: the current molecules run under each optimisation mode (precision x
// checkpoint ratio x batch size) for a workload, measured by jobs::compareModes on the loaded model.
#include <QObject>
#include <QString>

#include <memory>
#include <utility>
#include <vector>

#include "engine/compare.h"
#include "model_session.h"

namespace gs::ui {

struct CompareRequest {
  // A mode's batch size 0 = the run settings' batch size.
  std::vector<engine::CompareMode> modes;
  engine::Workload workload = engine::Workload::Inference;
  int repeats = 3;
  int max_molecules = 256;  // the first readable molecules of the input
  RunInput input;
  RunSettings settings;  // the model's device, threads and default batch size
};

class CompareWorker final : public QObject {
  Q_OBJECT
 public:
  explicit CompareWorker(std::shared_ptr<ModelSession> session, QObject* parent = nullptr)
      : QObject(parent), session_(std::move(session)) {}

 public Q_SLOTS:
  void start(const gs::ui::CompareRequest& request);

 Q_SIGNALS:
  void compareStarted(int modes);
  void compareModeStarted(int index, int modes, const QString& label);
  void compareModeDone(const gs::engine::ModeResult& result);
  void compareFinished(const QString& message);

 private:
  std::shared_ptr<ModelSession> session_;
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::CompareRequest)
Q_DECLARE_METATYPE(gs::engine::ModeResult)
