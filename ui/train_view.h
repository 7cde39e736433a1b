#pragma once
// What the Train tab shows of a run, on two pages. Training: live curves (training loss per step; validation MAE per
// epoch per target with the best epoch marked), progress (epoch, step, molecules/s, ETA, the
// memory settings in effect) and a log of notes. Results (shown when a run ends): validation and test MAE next to
// the baselines, a parity plot of the test molecules (hovering shows the molecule), the test error
// by molecule size, the trust calibration on the test split, and the command line that reproduces
// the run. Replots are throttled to 10 per second so that long runs never stall the UI thread.
#include <QTimer>
#include <QWidget>

#include "train_worker.h"

class QCustomPlot;
class QCPGraph;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QTableWidget;
class QTabWidget;

namespace gs::ui {

class TrainView final : public QWidget {
  Q_OBJECT
 public:
  explicit TrainView(QWidget* parent = nullptr);

  void start(const QStringList& targets, const QString& command_line, bool resumed);
  void addStep(const StepPoint& point);
  void addEpoch(const EpochPoint& point);
  void addNote(const QString& text);
  void showOutcome(const TrainOutcome& outcome);
  // For tests: points received by the curves.
  int lossPoints() const;
  int maePoints() const;
  QString commandLine() const { return command_line_; }
  QTableWidget* maeTable() const { return table_; }

 private:
  QWidget* buildLive();
  QWidget* buildResults();
  void hoverParity(QMouseEvent* event);
  void replot();

  QCustomPlot *loss_plot_ = nullptr, *mae_plot_ = nullptr, *parity_plot_ = nullptr, *size_plot_ = nullptr;
  QCPGraph *loss_ = nullptr, *best_ = nullptr;
  std::vector<QCPGraph*> mae_;
  QLabel *progress_label_ = nullptr, *summary_ = nullptr, *trust_ = nullptr, *hover_picture_ = nullptr,
         *hover_text_ = nullptr;
  QProgressBar* bar_ = nullptr;
  QPlainTextEdit *log_ = nullptr, *command_ = nullptr;
  QTableWidget* table_ = nullptr;
  QTabWidget* pages_ = nullptr;  // Training (live) and Results
  QTimer replot_timer_;
  bool dirty_ = false;
  qint64 steps_seen_ = 0;
  QString command_line_;
  std::vector<ParityPoint> parity_;
};

}  // namespace gs::ui
