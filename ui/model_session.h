#pragma once
// The state the app's jobs share on its model thread (ui/workers.h): the loaded model, the
// predictor for the last settings (kept while they compare equal, PredictorOptions ==), the cancel
// flag and the memory tracker. Jobs run one at a time on that thread and use the session from it;
// cancel(), arm() and tracker() are thread-safe. Cancelling takes effect within one batch.
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "data/record.h"
#include "run_settings.h"
#include "tensor/memory_probe.h"

namespace gs::predict {
class Predictor;
}

namespace gs::ui {

// What the model card and the help show of the loaded model.
struct ModelCard {
  QString path;
  QStringList files;  // every file the model was loaded from (weights, config.json, adapter)
  QString sha256;
  QString description;
  QStringList target_names, target_units;
  int layers = 0, embedding_dim = 0, heads = 0;
  qint64 parameters = 0;
  QString convention;
  QStringList notes;
  // Trust: "" when the model has trust data, else why not; the training labels' range per output.
  QString trust_note;
  int calibration_molecules = 0;
  QString calibration_series;  // after calibrate --series: the series file
  std::vector<std::pair<double, double>> label_range;
};

class ModelSession {
 public:
  ModelSession();
  ~ModelSession();
  ModelSession(const ModelSession&) = delete;
  ModelSession& operator=(const ModelSession&) = delete;

  // Opens the model at `path` ("" = the bundled one) and keeps it; the last one stays on failure.
  Result<ModelCard> load(const QString& path);
  bool hasModel() const;
  // The predictor for these settings: the kept one when its options compare equal.
  Result<predict::Predictor*> predictorFor(const RunSettings& settings);
  // Every record of the input and its kept columns (renamed where they clash with the loaded
  // model's prediction columns); the error when it cannot be read.
  Status readInput(const RunInput& input, std::vector<data::RawRecord>& records, QStringList* columns = nullptr) const;

  void cancel() { cancelled_.store(true); }
  // Called by the UI thread as it queues a job: a cancel that comes before the job starts then
  // still stops it.
  void arm() { cancelled_.store(false); }
  bool cancelled() const { return cancelled_.load(); }
  std::function<bool()> cancelFlag() const {
    return [this] { return cancelled_.load(); };
  }
  std::shared_ptr<tensor::TensorMemoryTracker> tracker() const { return tracker_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> cancelled_{false};
  std::shared_ptr<tensor::TensorMemoryTracker> tracker_;
};

// The load job: opens a model on the model thread and says what it is.
class ModelWorker final : public QObject {
  Q_OBJECT
 public:
  explicit ModelWorker(std::shared_ptr<ModelSession> session, QObject* parent = nullptr)
      : QObject(parent), session_(std::move(session)) {}

 public Q_SLOTS:
  void load(const QString& path);

 Q_SIGNALS:
  void modelLoaded(const gs::ui::ModelCard& card);
  void modelFailed(const QString& message);

 private:
  std::shared_ptr<ModelSession> session_;
};

QStringList toQt(const std::vector<std::string>& v);
QString toQt(const Status& s);

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::ModelCard)
