#pragma once
// Runs the model off the UI thread. Lives in its own QThread (see MainWindow): loadModel(), run(),
// compare() and explain() are queued slots executed there. The model is loaded once and kept;
// every run goes through a predict::Predictor on it (the same pipeline as graphormer-cli predict),
// kept while the settings compare equal (PredictorOptions ==). Results, progress and errors come
// back as signals. cancel() and memoryTracker() are thread-safe; cancel takes effect within one
// batch, and rows not yet predicted get the status "cancelled".
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <vector>

#include "data/record.h"
#include "engine/compare.h"
#include "input_reader.h"
#include "jobs/explain_job.h"
#include "predict/prediction_table.h"
#include "predict/predictor_options.h"
#include "remote_client.h"
#include "tensor/memory_probe.h"

namespace gs::predict {
class Predictor;
}

namespace gs::ui {

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
  std::vector<std::pair<double, double>> label_range;
};

struct RunSettings {
  QString device = QStringLiteral("cpu");
  QString precision = QStringLiteral("fp32");
  int batch_size = 32;
  int threads = 0;  // 0 = LibTorch's default
  // > 0: batches sized so that their peak tensor memory stays under this; the batch size then
  // caps them (the same rule as graphormer-cli's --memory-budget-mib with --batch-size).
  qint64 memory_budget_mib = 0;
  double confidence = 0.9;   // of the prediction intervals
  bool strip_salts = false;  // predict the parent of a salt or mixture
  ServerSettings server;     // used when device is kServerDevice
};

// The device of runs that go to a prediction server (remote_client.h).
inline const QString kServerDevice = QStringLiteral("server");

// The predictor options of a run on `model` (path, adapter) with these settings: the one place the
// app's settings become engine settings. Errors name the setting.
Result<predict::PredictorOptions> toPredictorOptions(const RunSettings& settings, const bundle::ModelSource& model);

// What the run reads: pasted text (SMILES [name] per line) or a file with reader settings.
struct RunInput {
  QString text;
  QString path;
  ImportChoice import;  // how a CSV/TSV or SD file is read (import dialog or guessImport)
};

// A comparison of optimisation modes on the current molecules (the Compare tab).
struct CompareRequest {
  QString modes;  // "fp32,bf16+ckpt=0.5,int8+bs=64" (graphormer-cli bench --modes syntax)
  QString workload = QStringLiteral("inference");
  int repeats = 3;
  int max_molecules = 256;
};

// Atom attributions for some rows (the Explain action); precision and checkpoint ratio come from
// the run settings.
struct ExplainRequest {
  QString method = QStringLiteral("ig");
  int steps = 64;
  QString baseline = QStringLiteral("mean");  // integrated gradients: mean, carbon or zero
  double checkpoint_ratio = 0.0;
};

class InferenceWorker final : public QObject {
  Q_OBJECT
 public:
  explicit InferenceWorker(QObject* parent = nullptr);
  ~InferenceWorker() override;

  void cancel() { cancelled_.store(true); }
  // Called by the UI thread as it queues a job (run, compare, explain): a cancel that comes before
  // the job starts then still stops it.
  void arm() { cancelled_.store(false); }
  std::shared_ptr<tensor::TensorMemoryTracker> memoryTracker() const { return tracker_; }
  // Precisions ("fp32", ...) with "" when offered, else why not: unavailable on the device (for
  // training: engine::trainingPrecisionAvailable), or, for prediction with the loaded model's
  // width (0 = unknown), slower than FP32 for this model (tensor::precisionPays).
  static std::vector<std::pair<QString, QString>> precisionOptions(const QString& device, bool training = false,
                                                                   int model_width = 0);
  static QStringList devices();

 public Q_SLOTS:
  void loadModel(const QString& path);
  void run(const gs::ui::RunInput& input, const gs::ui::RunSettings& settings);
  void compare(const gs::ui::RunInput& input, const gs::ui::CompareRequest& request,
               const gs::ui::RunSettings& settings);
  void explain(const std::vector<gs::data::RawRecord>& records, const gs::ui::ExplainRequest& request,
               const gs::ui::RunSettings& settings);

 Q_SIGNALS:
  void modelLoaded(const gs::ui::ModelCard& card);
  void modelFailed(const QString& message);
  // Every input row, pending, in input order (before any prediction); `columns` name the user's
  // other input columns, whose values every row's `fields` hold.
  void inputRead(const std::vector<gs::predict::PredictedRow>& rows, const QStringList& columns);
  void rowsDone(int first, const std::vector<gs::predict::PredictedRow>& rows);
  void progress(qint64 done, qint64 total, double molecules_per_second);
  // What a run through a server is waiting for ("" when it is moving again).
  void remoteNote(const QString& message);
  void runFinished(bool cancelled, double seconds, const gs::predict::RunRecord& info);
  void runFailed(const QString& message);
  void compareStarted(int modes);
  void compareModeStarted(int index, int modes, const QString& label);
  void compareModeDone(const gs::engine::ModeResult& result);
  void compareFinished(const QString& message);
  void explanationsReady(const std::vector<gs::jobs::ExplainedMolecule>& molecules, const QString& summary);
  void explainFailed(const QString& message);

 private:
  // Every record of the input (pasted text or file) and the kept columns; the error when it cannot be read.
  Status readInput(const RunInput& input, std::vector<data::RawRecord>& records, QStringList* columns = nullptr);
  // run() on a prediction server: the same signals, rows from POST /v1/predict in chunks.
  void runOnServer(const RunInput& input, const RunSettings& settings);
  // The predictor for these settings: the cached one when its options compare equal.
  Result<predict::Predictor*> predictorFor(const RunSettings& settings);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> cancelled_{false};
  std::shared_ptr<tensor::TensorMemoryTracker> tracker_;
};

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::ModelCard)
Q_DECLARE_METATYPE(gs::ui::RunSettings)
Q_DECLARE_METATYPE(gs::ui::RunInput)
Q_DECLARE_METATYPE(gs::predict::RunRecord)
Q_DECLARE_METATYPE(gs::ui::CompareRequest)
Q_DECLARE_METATYPE(gs::engine::ModeResult)
Q_DECLARE_METATYPE(gs::ui::ExplainRequest)
