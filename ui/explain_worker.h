#pragma once
// The Explain action's job: atom attributions for some rows (jobs::explainRecords) on the loaded
// model, with the run settings' device and threads; the precision is the run's when it trains
// (has gradients), else FP32.
#include <QObject>
#include <QString>

#include <memory>
#include <utility>
#include <vector>

#include "data/record.h"
#include "engine/attribution.h"
#include "jobs/explain_job.h"
#include "model_session.h"

namespace gs::ui {

struct ExplainRequest {
  std::vector<data::RawRecord> records;
  engine::AttributionMethod method = engine::AttributionMethod::IntegratedGradients;
  int steps = 64;  // integrated gradients, at least 3
  engine::AttributionBaseline baseline = engine::AttributionBaseline::MeanAtom;
  int output = 0;  // which model output to explain
  double checkpoint_ratio = 0.0;
  RunSettings settings;
};

class ExplainWorker final : public QObject {
  Q_OBJECT
 public:
  explicit ExplainWorker(std::shared_ptr<ModelSession> session, QObject* parent = nullptr)
      : QObject(parent), session_(std::move(session)) {}

 public Q_SLOTS:
  void start(const gs::ui::ExplainRequest& request);

 Q_SIGNALS:
  void explanationsReady(const std::vector<gs::jobs::ExplainedMolecule>& molecules, const QString& summary);
  void explainFailed(const QString& message);

 private:
  std::shared_ptr<ModelSession> session_;
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::ExplainRequest)
