#pragma once
// Training in the app: the Train tab's request, and the worker that runs it off the UI thread
// (moved to the same QThread as the prediction jobs (ui/workers.h), so training and prediction never compete for
// the cores). inspect() reads a labelled file for the form; train() runs jobs::runTrain (the same
// job as graphormer-cli train) with live signals, then scores the new model against the baselines
// as `evaluate` does (jobs::runEvaluate on the same split). cancel() is thread-safe and takes effect
// within one step; the run directory then holds a state that a request with resume continues.
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <vector>

#include "common/status.h"
#include "tensor/memory_probe.h"

namespace gs::jobs {
struct TrainJobOptions;
struct TrainJobSummary;
}  // namespace gs::jobs

namespace gs::ui {

// A labelled file as the Train tab shows it before training.
struct LabelledPreview {
  QString path, error;
  QStringList columns;            // CSV header or SDF data items
  QString smiles_column;          // the reader's choice ("" for SDF)
  std::vector<QStringList> rows;  // the first rows, one cell per column
  std::vector<qint64> numeric;    // per column: rows with a finite number
  std::vector<qint64> usable;     // per column: of those, rows whose molecule RDKit reads
  qint64 total = 0, parsed = 0;   // rows, and rows whose molecule RDKit reads
};

struct TrainRequest {
  QString input, smiles_column, id_column;
  QStringList targets, units;
  QString start = QStringLiteral("bundled");  // "bundled", "opened" (model_path) or "fresh"
  QString model_path;
  QString preset = QStringLiteral("slim");
  int layers = 0, dim = 0, heads = 0, ffn = 0;  // fresh: 0 = the preset's
  QString mode = QStringLiteral("full");        // "full", "freeze", "head", "lora"
  int freeze_layers = 2, lora_rank = 8;
  QString split = QStringLiteral("random");  // "random" or "scaffold"
  double valid_fraction = 0.1, test_fraction = 0.1, calib_fraction = 0.1;
  int seed = 0;
  int epochs = 30, batch_size = 32, patience = 10, snapshots = 5;
  double learning_rate = 2e-4;
  QString device = QStringLiteral("cpu"), precision = QStringLiteral("fp32");
  double checkpoint_ratio = 0;
  qint64 memory_budget_mib = 0;  // > 0: fit to this budget
  bool fit_precision = false;
  int threads = 0;
  QString output_dir;
  bool resume = false;
};

// The job options of a request: the one place the Train tab's settings become engine settings.
Result<jobs::TrainJobOptions> toTrainJobOptions(const TrainRequest& request);
// Why a request cannot start (ok when it can): toTrainJobOptions' error.
Status checkTrainRequest(const TrainRequest& request);
// The graphormer-cli command line that reproduces the request.
QString trainCommandLine(const TrainRequest& request);

struct EpochPoint {
  int epoch = 0, snapshot = 0;
  double train_loss = 0, valid_mae = 0, seconds = 0;
  bool improved = false;
  std::vector<double> valid_mae_per_target;
};

struct StepPoint {
  qint64 step = 0, total = 0;
  double loss = 0, molecules_per_second = 0, eta_seconds = 0;
  int micro_batch = 0;
  double checkpoint_ratio = 0;
};

struct MethodMae {
  QString method;                   // mean, ridge, knn, model
  std::vector<double> valid, test;  // per target
};

struct ParityPoint {
  QString smiles, id;
  int heavy_atoms = 0;
  double truth = 0, predicted = 0;  // first target with a value
};

struct TrainOutcome {
  bool cancelled = false;
  QString output_dir, model_path, command_line, memory_note, summary;
  QStringList targets;
  qint64 train = 0, valid = 0, calibration = 0, test = 0;
  int best_epoch = 0;
  std::vector<MethodMae> methods;
  std::vector<ParityPoint> parity;                        // test molecules, first target
  std::vector<std::pair<QString, double>> error_by_size;  // "11-15" -> model test MAE
  QString trust;                                          // coverage of the test molecules' intervals, or why none
};

class TrainWorker final : public QObject {
  Q_OBJECT
 public:
  explicit TrainWorker(std::shared_ptr<tensor::TensorMemoryTracker> memory, QObject* parent = nullptr);
  void cancel() { cancelled_.store(true); }

 public Q_SLOTS:
  void inspect(const QString& path, const QString& smiles_column);
  void train(const gs::ui::TrainRequest& request);
  // Copies the run's model files to a new or empty directory (jobs::exportModel).
  void save(const QString& run_dir, const QString& destination);

 Q_SIGNALS:
  void inspected(const gs::ui::LabelledPreview& preview);
  void started(const QString& command_line);
  void note(const QString& text);
  void stepDone(const gs::ui::StepPoint& point);
  void epochDone(const gs::ui::EpochPoint& point);
  void finished(const gs::ui::TrainOutcome& outcome);
  void failed(const QString& message);
  void saved(const QString& destination, const QString& error);  // error "" = saved

 private:
  TrainOutcome outcomeOf(const TrainRequest& request, const jobs::TrainJobOptions& options,
                         const jobs::TrainJobSummary& summary);
  std::shared_ptr<tensor::TensorMemoryTracker> memory_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::LabelledPreview)
Q_DECLARE_METATYPE(gs::ui::TrainRequest)
Q_DECLARE_METATYPE(gs::ui::StepPoint)
Q_DECLARE_METATYPE(gs::ui::EpochPoint)
Q_DECLARE_METATYPE(gs::ui::TrainOutcome)
