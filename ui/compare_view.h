#pragma once
// The Compare tab: runs the current molecules under a list of optimisation modes in the worker and
// shows what each really does: grouped bars of peak memory and ms per molecule, a table with the
// accuracy cost (|prediction - FP32|), and every mode's memory trace overlaid. Export as CSV/PNG.
#include <QWidget>

#include <memory>
#include <vector>

#include "compare_worker.h"
#include "engine/compare.h"
#include "save_guard.h"

class QComboBox;
class QLayout;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace gs::ui {

class CompareView final : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  const std::vector<engine::ModeResult>& results() const { return results_; }
  // Both refuse a file the app reads (the save guard's files).
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool savePng(const QString& path, QString* error = nullptr) const;
  void setSaveGuard(std::shared_ptr<const SaveGuard> guard) { guard_ = std::move(guard); }
  // The model's outputs and units: the accuracy columns (|Δ| vs FP32) give the first output in
  // its unit, and each cell's tooltip every output in its own.
  void setOutputs(const QStringList& names, const QStringList& units);

 public Q_SLOTS:
  void started(int modes);
  void modeStarted(int index, int modes, const QString& label);
  void modeDone(const gs::engine::ModeResult& result);
  void finished(const QString& message);

 Q_SIGNALS:
  void runRequested(const gs::ui::CompareRequest& request);
  void cancelRequested();

 private:
  QLayout* buildForm(const std::vector<QWidget*>& presets);
  // "fp32@accurate,bf16@accurate,fp32@fast,bf16@fast": every bundled model in FP32 and BF16.
  static QString modelsPreset();
  QWidget* buildCharts();
  void connectActions(QPushButton* export_csv, QPushButton* export_png);
  void fitTableToRows();
  void redraw();
  void drawBars();
  void fillTable();
  void drawTraces();
  QString outputDeltas(const std::vector<double>& deltas) const;  // "name: value unit" per output

  QLineEdit* modes_ = nullptr;
  QComboBox* workload_ = nullptr;
  QSpinBox *repeats_ = nullptr, *max_molecules_ = nullptr;
  QPushButton *run_ = nullptr, *cancel_ = nullptr;
  QLabel* status_ = nullptr;
  QCustomPlot *bars_ = nullptr, *traces_ = nullptr;
  QTableWidget* table_ = nullptr;
  std::vector<engine::ModeResult> results_;
  QStringList output_names_, output_units_;
  std::shared_ptr<const SaveGuard> guard_ = std::make_shared<SaveGuard>();
};

}  // namespace gs::ui
