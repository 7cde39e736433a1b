#include "train_tab.h"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStandardPaths>
#include <QThread>
#include <QVBoxLayout>

#include "train_form.h"
#include "train_view.h"

namespace gs::ui {

TrainTab::TrainTab(QThread* worker_thread, std::shared_ptr<tensor::TensorMemoryTracker> memory, QWidget* parent)
    : QWidget(parent) {
  qRegisterMetaType<LabelledPreview>();
  qRegisterMetaType<TrainRequest>();
  qRegisterMetaType<StepPoint>();
  qRegisterMetaType<EpochPoint>();
  qRegisterMetaType<TrainOutcome>();
  form_ = new TrainForm;
  view_ = new TrainView;
  worker_ = new TrainWorker(std::move(memory));
  worker_->moveToThread(worker_thread);
  connect(worker_thread, &QThread::finished, worker_, &QObject::deleteLater);
  runs_dir_ = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/training");

  auto* scroll = new QScrollArea;
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(380);
  scroll->setMaximumWidth(470);
  start_ = new QPushButton(tr("Train"));
  cancel_ = new QPushButton(tr("Cancel"));
  resume_ = new QPushButton(tr("Resume"));
  use_ = new QPushButton(tr("Use this model"));
  save_ = new QPushButton(tr("Save model…"));
  auto* buttons = new QHBoxLayout;
  for (auto* b : {start_, cancel_, resume_, use_, save_}) buttons->addWidget(b);
  auto* left = new QWidget;
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  left_layout->addWidget(scroll, 1);
  left_layout->addLayout(buttons);
  auto* split = new QSplitter;
  split->addWidget(left);
  split->addWidget(view_);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  connect(start_, &QPushButton::clicked, this, &TrainTab::startTraining);
  connect(cancel_, &QPushButton::clicked, this, &TrainTab::cancelTraining);
  connect(resume_, &QPushButton::clicked, this, &TrainTab::resumeTraining);
  connect(use_, &QPushButton::clicked, this, [this] { Q_EMIT useModel(run_dir_); });
  connect(save_, &QPushButton::clicked, this, [this] { saveModel(); });
  connect(form_, &TrainForm::inspectRequested, worker_, &TrainWorker::inspect);
  connect(worker_, &TrainWorker::inspected, form_, &TrainForm::showPreview);
  connect(worker_, &TrainWorker::stepDone, view_, &TrainView::addStep);
  connect(worker_, &TrainWorker::epochDone, view_, &TrainView::addEpoch);
  connect(worker_, &TrainWorker::note, view_, &TrainView::addNote);
  connect(worker_, &TrainWorker::finished, this, &TrainTab::finish);
  connect(worker_, &TrainWorker::failed, this, [this](const QString& message) {
    view_->addNote(tr("failed: %1").arg(message));
    setTraining(false);
    if (isVisible()) QMessageBox::warning(this, tr("Training failed"), message);
    Q_EMIT trainingEnded(false);
  });
  connect(worker_, &TrainWorker::saved, this, &TrainTab::modelSaved);
  connect(worker_, &TrainWorker::saved, this, [this](const QString& to, const QString& error) {
    view_->addNote(error.isEmpty() ? tr("saved to %1").arg(to) : tr("not saved: %1").arg(error));
  });
  setTraining(false);
}

TrainTab::~TrainTab() { worker_->cancel(); }

void TrainTab::startTraining() {
  TrainRequest r = form_->request();
  r.output_dir = runs_dir_ + QStringLiteral("/run-") +
                 QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss-zzz"));
  const Status checked = checkTrainRequest(r);
  if (!checked.isOk()) {
    view_->addNote(tr("cannot start: %1").arg(QString::fromStdString(checked.message())));
    if (isVisible()) QMessageBox::information(this, tr("Train"), QString::fromStdString(checked.message()));
    return;
  }
  run_dir_ = r.output_dir;
  has_model_ = false;
  view_->start(r.targets, trainCommandLine(r), false);
  launch(r);
}

void TrainTab::resumeTraining() {
  if (!resumable_) return;
  TrainRequest r = last_;
  r.resume = true;
  view_->start(r.targets, trainCommandLine(r), true);
  launch(r);
}

void TrainTab::launch(TrainRequest request) {
  last_ = request;
  setTraining(true);
  QMetaObject::invokeMethod(
      worker_, [w = worker_, request] { w->train(request); }, Qt::QueuedConnection);
}

void TrainTab::cancelTraining() {
  if (training_) worker_->cancel();
}

void TrainTab::finish(const TrainOutcome& outcome) {
  view_->showOutcome(outcome);
  resumable_ = outcome.cancelled;
  has_model_ = !outcome.cancelled && !outcome.model_path.isEmpty();
  setTraining(false);
  Q_EMIT trainingEnded(true);
}

void TrainTab::saveModel(const QString& destination) {
  QString to = destination;
  if (to.isEmpty() && isVisible())
    to = QFileDialog::getExistingDirectory(this, tr("Save the model into a new or empty directory"));
  if (to.isEmpty() || !has_model_) return;
  QMetaObject::invokeMethod(
      worker_, [w = worker_, from = run_dir_, to] { w->save(from, to); }, Qt::QueuedConnection);
}

void TrainTab::setTraining(bool training) {
  training_ = training;
  start_->setEnabled(!training);
  cancel_->setEnabled(training);
  resume_->setEnabled(!training && resumable_);
  use_->setEnabled(!training && has_model_);
  save_->setEnabled(!training && has_model_);
  Q_EMIT trainingChanged(training);
}

}  // namespace gs::ui
