#pragma once
// The main window: the input panel (paste, open .smi/.csv/.sdf, drag and drop, examples), the
// model card (ModelCardView) and run settings (SettingsPanel), the Results (ResultsTab) and
// Compare tabs, and the live memory chart. Owns the model thread (WorkerSet) and connects the parts; the UI
// thread never waits on the model.
#include <QMainWindow>

#include <memory>

#include "input_panel.h"
#include "save_guard.h"
#include "work_history.h"
#include "workers.h"

class QDockWidget;
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
  QPlainTextEdit* input() const;
  InputPanel* inputPanel() const { return input_panel_; }
  bool isRunning() const { return running_; }
  // The line under the progress bar: what the last run or explanation did.
  QString runMessage() const;
  bool hasModel() const { return has_model_; }
  // Writes all rows (or the selected ones) as the CLI does: CSV + run record.
  bool exportCsv(const QString& path, bool selection_only, QString* error = nullptr);
  void setInputFile(const QString& path);
  // Opens a file handed over from outside (file manager, command line) and offers to predict it.
  void offerToPredict(const QString& path);
  PredictOffer* predictOffer() const;
  // Undo of the last replacement or clear of the input (with the results it had).
  bool canUndo() const { return history_.canUndo(); }
  void undo();
  // True when a run finished since the last export: quitting asks first.
  bool hasUnsavedResults() const { return history_.unsaved(); }
  // The model the app runs ("" = the bundled default), kept when opening another one fails.
  QString modelPath() const { return model_path_; }
  // Shows the Train tab with a labelled file open and these target columns ticked.
  void openTraining(const QString& path, const QStringList& targets);

 public Q_SLOTS:
  // Opens a model ("" = the bundled one) on the worker; if it fails, the current model stays.
  void loadModel(const QString& path);
  void runPrediction();
  void cancelRun();
  void openModel();
  void openMolecules();
  void exportResults();
  void copySelection();
  void pasteInput();
  void runComparison(gs::ui::CompareRequest request);
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
  void addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area);
  QWidget* buildChartBox();
  void buildMenus();
  void connectWorker();
  void connectRows(RowsWorker* worker);
  void connectExplain();
  void connectComparison();
  void setRunning(bool running);
  RunInput currentInput() const;
  void onModelFailed(const QString& message);
  void updateBadge();
  void keepUndoStep(const QString& what);
  void onInputReplaced();
  // Asks before unsaved results are lost; false = the user keeps them.
  bool confirmDiscard();

  // The model thread and its jobs; destroyed before the child widgets (TrainTab's worker lives on it too).
  std::unique_ptr<WorkerSet> workers_;
  ResultsTab* results_tab_ = nullptr;
  ServerMonitor* monitor_ = nullptr;
  MemoryChart* chart_ = nullptr;
  CompareView* compare_ = nullptr;
  TrainTab* train_tab_ = nullptr;
  ModelCardView* model_card_ = nullptr;
  SettingsPanel* settings_ = nullptr;
  std::vector<int> explain_rows_;  // rows of the explanation in flight
  QTabWidget* tabs_ = nullptr;
  InputPanel* input_panel_ = nullptr;
  QAction* undo_action_ = nullptr;
  QLabel* badge_ = nullptr;
  std::vector<QDockWidget*> docks_;
  QPushButton *run_ = nullptr, *cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* rate_ = nullptr;
  QString model_path_, loading_path_;
  struct Work {
    InputPanel::Snapshot input;
    std::vector<predict::PredictedRow> rows;
    std::vector<bool> done;
    QStringList columns;
  };
  WorkHistory<Work> history_;
  int input_generation_ = 0, run_generation_ = 0;  // results of an older input are dropped
  bool fell_back_ = false;
  // Every molecule file opened and the model's files: exports never overwrite them.
  std::shared_ptr<SaveGuard> guard_ = std::make_shared<SaveGuard>();
  ModelCard card_;
  predict::RunRecord last_run_;
  bool running_ = false, has_model_ = false, training_ = false;
};

}  // namespace gs::ui
