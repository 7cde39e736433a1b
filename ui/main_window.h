#pragma once
// The main window: the input panel (paste, open .smi/.csv/.sdf, drag and drop, examples), the
// model card (ModelCardView) and run settings (SettingsPanel), the Results (ResultsTab) and
// Compare tabs, and the live memory chart. Owns the worker thread and connects the parts; the UI
// thread never waits on the model.
#include <QMainWindow>
#include <QThread>

#include <memory>

#include "inference_worker.h"
#include "save_guard.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTabWidget;
class QTableWidget;

namespace gs::ui {

class ServerMonitor;
class PredictOffer;

class CompareView;
class MemoryChart;
class ModelCardView;
class MoleculeView;
class ResultsModel;
class ResultsTab;
class SettingsPanel;
class TrainTab;

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
  ResultsModel* resultsModel() const;
  QTableView* table() const;
  MemoryChart* chart() const { return chart_; }
  SettingsPanel* settingsPanel() const { return settings_; }
  CompareView* compareView() const { return compare_; }
  TrainTab* trainTab() const { return train_tab_; }
  MoleculeView* moleculeView() const;
  QTableWidget* atomTable() const;
  int explainedRows() const;
  QTabWidget* tabs() const { return tabs_; }
  QPlainTextEdit* input() const { return input_; }
  bool isRunning() const { return running_; }
  bool hasModel() const { return has_model_; }
  // Writes all rows (or the selected ones) as the CLI does: CSV + run record.
  bool exportCsv(const QString& path, bool selection_only, QString* error = nullptr);
  void setInputFile(const QString& path);
  // Opens a file handed over from outside (file manager, command line) and offers to predict it.
  void offerToPredict(const QString& path);
  PredictOffer* predictOffer() const { return offer_; }
  // Shows the Train tab with a labelled file open and these target columns ticked.
  void openTraining(const QString& path, const QStringList& targets);

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
  QWidget* buildRunPanel();
  QWidget* buildChartBox();
  void buildMenus();
  void connectWorker();
  void connectComparison();
  void loadModel(const QString& path);
  void setRunning(bool running);
  RunInput currentInput() const;
  // Asks for the SMILES and name columns of a CSV/TSV file (when the window is shown).
  void chooseColumns(const QString& path);

  InferenceWorker* worker_ = nullptr;
  std::unique_ptr<QThread, ThreadStopper> thread_;
  ResultsTab* results_tab_ = nullptr;
  ServerMonitor* monitor_ = nullptr;
  MemoryChart* chart_ = nullptr;
  CompareView* compare_ = nullptr;
  TrainTab* train_tab_ = nullptr;
  ModelCardView* model_card_ = nullptr;
  SettingsPanel* settings_ = nullptr;
  std::vector<int> explain_rows_;  // rows of the explanation in flight
  QTabWidget* tabs_ = nullptr;
  QPlainTextEdit* input_ = nullptr;
  QLabel* input_file_ = nullptr;
  PredictOffer* offer_ = nullptr;
  QPushButton *run_ = nullptr, *cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* rate_ = nullptr;
  QString file_path_, smiles_column_, id_column_, model_path_;
  // Every molecule file opened and the model's files: exports never overwrite them.
  std::shared_ptr<SaveGuard> guard_ = std::make_shared<SaveGuard>();
  ModelCard card_;
  predict::RunRecord last_run_;
  bool running_ = false, has_model_ = false, training_ = false;
};

}  // namespace gs::ui
