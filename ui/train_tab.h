#pragma once
// The Train tab: the settings (TrainForm) beside the run (TrainView), with Start, Cancel, Resume,
// "Use this model" and "Save model…". Training runs in the TrainWorker on the app's worker thread;
// each run writes into its own directory under the runs directory (the app's data directory, or
// the one set for tests), which holds the resume state after a Cancel.
#include <QWidget>

#include "train_worker.h"

class QPushButton;
class QThread;

namespace gs::ui {

class TrainForm;
class TrainView;

class TrainTab final : public QWidget {
  Q_OBJECT
 public:
  TrainTab(QThread* worker_thread, std::shared_ptr<tensor::TensorMemoryTracker> memory, QWidget* parent = nullptr);
  ~TrainTab() override;

  TrainForm* form() const { return form_; }
  TrainView* view() const { return view_; }
  TrainWorker* worker() const { return worker_; }
  bool isTraining() const { return training_; }
  QString runDirectory() const { return run_dir_; }
  void setRunsDirectory(const QString& dir) { runs_dir_ = dir; }

 public Q_SLOTS:
  void startTraining();
  void cancelTraining();
  void resumeTraining();
  void saveModel(const QString& destination = {});

 Q_SIGNALS:
  void trainingChanged(bool running);
  void trainingEnded(bool completed);  // after the results (or a cancel); false on failure
  void useModel(const QString& path);  // "Use this model": make the run's model the current one
  void modelSaved(const QString& destination, const QString& error);

 private:
  void launch(TrainRequest request);
  void setTraining(bool training);
  void finish(const TrainOutcome& outcome);

  TrainForm* form_ = nullptr;
  TrainView* view_ = nullptr;
  TrainWorker* worker_ = nullptr;
  QPushButton *start_ = nullptr, *cancel_ = nullptr, *resume_ = nullptr, *use_ = nullptr, *save_ = nullptr;
  QString runs_dir_, run_dir_;
  TrainRequest last_;
  bool training_ = false, has_model_ = false, resumable_ = false;
};

}  // namespace gs::ui
