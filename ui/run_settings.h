#pragma once
// What a job on the app's model thread reads: the input (pasted text or a file) and the run
// settings of the Run panel. Plain data; the workers (ui/workers.h) turn them into engine settings.
#include <QMetaType>
#include <QString>

#include "common/status.h"
#include "input_reader.h"
#include "predict/predictor_options.h"
#include "remote_client.h"

namespace gs::ui {

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

// Devices this build can run on ("cpu", "cuda:0", ...), and the precisions ("fp32", ...) with ""
// when offered, else why not: unavailable on the device (for training:
// engine::trainingPrecisionAvailable), or, for prediction with the loaded model's width
// (0 = unknown), slower than FP32 for this model (tensor::precisionPays).
QStringList availableDevices();
std::vector<std::pair<QString, QString>> precisionOptions(const QString& device, bool training = false,
                                                          int model_width = 0);

}  // namespace gs::ui

Q_DECLARE_METATYPE(gs::ui::RunSettings)
Q_DECLARE_METATYPE(gs::ui::RunInput)
