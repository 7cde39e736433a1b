#pragma once
// The main window: input (paste, open .smi/.csv/.sdf, drag and drop, examples), model card, run
// settings, the results table with the selected molecule's depiction, and the live memory chart.
// Owns the worker thread; the UI thread never waits on the model.
#include <QMainWindow>
#include <QThread>

#include <map>
#include <memory>

#include "inference_worker.h"
#include "save_guard.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSlider;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTabWidget;
class QTableWidget;

namespace gs::ui {

class CompareView;
class MemoryChart;
class MoleculePanel;
class MoleculeView;
class ResultsModel;

struct ThreadStopper {
  void operator()(QThread* thread) const {
    thread->quit();
    thread->wait();
    delete thread;
  }
};

class MainWindow final : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const QString& model_path = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // For tests and scripts.
  ResultsModel* resultsModel() const { return results_; }
  QTableView* table() const { return table_; }
  MemoryChart* chart() const { return chart_; }
  CompareView* compareView() const { return compare_; }
  MoleculeView* moleculeView() const;
  QTableWidget* atomTable() const;
  int explainedRows() const { return static_cast<int>(explanations_.size()); }
  QTabWidget* tabs() const { return tabs_; }
  QPlainTextEdit* input() const { return input_; }
  bool isRunning() const { return running_; }
  bool hasModel() const { return has_model_; }
  // Writes all rows (or the selected ones) as the CLI does: CSV + run record.
  bool exportCsv(const QString& path, bool selection_only, QString* error = nullptr);
  void setInputFile(const QString& path);

 public Q_SLOTS:
  void runPrediction();
  void cancelRun();
  void openModel();
  void openMolecules();
  void exportResults();
  void copySelection();
  void pasteInput();
  void runComparison(const gs::ui::CompareRequest& request);
  void explainSelected();
  bool exportAttributions(const QString& path, QString* error = nullptr) const;

 Q_SIGNALS:
  void runCompleted(bool cancelled);
  void modelReady(bool ok);
  void comparisonCompleted();
  void explanationCompleted(bool ok);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  QWidget* buildInputPanel();
  QWidget* buildSettingsPanel();
  void buildMenus();
  void loadModel(const QString& path);
  void refreshPrecisions();
  void sizeColumns();
  void showSelected();
  void restoreSettings();
  void saveSettings() const;
  void setRunning(bool running);
  RunSettings currentSettings() const;
  RunInput currentInput() const;

  InferenceWorker* worker_ = nullptr;
  std::unique_ptr<QThread, ThreadStopper> thread_;
  ResultsModel* results_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  MoleculePanel* molecule_ = nullptr;
  MemoryChart* chart_ = nullptr;
  CompareView* compare_ = nullptr;
  std::map<int, jobs::ExplainedMolecule> explanations_;  // by results row
  std::vector<int> explain_rows_;                         // rows of the explanation in flight
  QTabWidget* tabs_ = nullptr;
  QPlainTextEdit* input_ = nullptr;
  QLabel* input_file_ = nullptr;
  QLabel* model_card_ = nullptr;
  QComboBox *device_ = nullptr, *precision_ = nullptr;
  QSpinBox *batch_ = nullptr, *threads_ = nullptr, *budget_ = nullptr;
  QSlider* checkpoint_ = nullptr;
  QLabel* checkpoint_note_ = nullptr;
  QPushButton *run_ = nullptr, *cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* rate_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QString file_path_, smiles_column_, id_column_, model_path_;
  // Every molecule file opened and the model's files: exports never overwrite them.
  std::shared_ptr<SaveGuard> guard_ = std::make_shared<SaveGuard>();
  ModelCard card_;
  predict::RunRecord last_run_;
  bool running_ = false, has_model_ = false;
};

}  // namespace gs::ui
