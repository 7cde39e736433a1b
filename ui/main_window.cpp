#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "compare_view.h"
#include "data/record_reader.h"
#include "examples.h"
#include "help.h"
#include "input_reader.h"
#include "memory_chart.h"
#include "model_card_view.h"
#include "molecule_panel.h"
#include "predict_offer.h"
#include "remote_client.h"
#include "results_model.h"
#include "results_tab.h"
#include "settings_panel.h"
#include "train_form.h"
#include "train_tab.h"

namespace gs::ui {
namespace {

// A page that scrolls when the window is smaller than it needs, instead of making the window bigger.
QScrollArea* scrolling(QWidget* page) {
  auto* scroll = new QScrollArea;
  scroll->setWidget(page);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  return scroll;
}

}  // namespace

MainWindow::MainWindow(const QString& model_path, QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Graphormer Studio"));
  setAcceptDrops(true);

  workers_ = std::make_unique<WorkerSet>();

  results_tab_ = new ResultsTab(guard_);
  connect(results_tab_, &ResultsTab::explainRequested, this, &MainWindow::explainSelected);
  connect(results_tab_, &ResultsTab::exportAttributionsRequested, this, [this](const QString& path) {
    QString error;
    if (!exportAttributions(path, &error)) QMessageBox::warning(this, tr("Export attributions"), error);
  });
  compare_ = new CompareView;
  compare_->setSaveGuard(guard_);
  tabs_ = new QTabWidget;
  tabs_->addTab(results_tab_, tr("Results"));
  tabs_->addTab(scrolling(compare_), tr("Compare modes"));
  train_tab_ = new TrainTab(workers_->thread(), workers_->memoryTracker());
  tabs_->addTab(scrolling(train_tab_), tr("Train"));
  setCentralWidget(tabs_);
  // The results get the space first: the input and run settings, and the memory chart, are docks
  // the user can narrow, close (View menu) or float; their state is restored with the window's.
  auto* left = new QWidget;
  auto* ll = new QVBoxLayout(left);
  ll->setContentsMargins(4, 4, 4, 4);
  input_panel_ = new InputPanel(guard_);
  connect(input_panel_->offer(), &PredictOffer::accepted, this, &MainWindow::runPrediction);
  connect(input_panel_, &InputPanel::openRequested, this, &MainWindow::openMolecules);
  connect(input_panel_, &InputPanel::aboutToReplace, this, &MainWindow::keepUndoStep);
  connect(input_panel_, &InputPanel::replaced, this, &MainWindow::onInputReplaced);
  input_panel_->setMinimumHeight(160);
  ll->addWidget(input_panel_, 1);
  ll->addWidget(buildRunPanel());
  QScrollArea* scroll = scrolling(left);
  scroll->setMinimumWidth(250);
  addDock(tr("Molecules and settings"), QStringLiteral("inputDock"), scroll, Qt::LeftDockWidgetArea);
  addDock(tr("Memory and throughput"), QStringLiteral("memoryDock"), buildChartBox(), Qt::BottomDockWidgetArea);
  buildMenus();
  connectWorker();
  connectComparison();

  QSettings settings;
  resize(1400, 900);  // the first start; a saved geometry replaces it
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("inputDock"))}, {340}, Qt::Horizontal);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("memoryDock"))}, {220}, Qt::Vertical);
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  settings_->restore();
  results_tab_->restoreLayout();
  badge_ = new QLabel;
  badge_->setObjectName(QStringLiteral("settingsBadge"));
  badge_->setToolTip(
      tr("The settings the next run uses; highlighted when they differ from the defaults (FP32, no memory budget)"));
  statusBar()->addPermanentWidget(badge_);
  connect(settings_, &SettingsPanel::changed, this, &MainWindow::updateBadge);
  updateBadge();
  QString path = model_path;
  if (path.isEmpty()) path = settings.value(QStringLiteral("model/path")).toString();
  loadModel(path);  // "" = the bundled model; a saved one that no longer opens falls back to it (onModelFailed)
  statusBar()->showMessage(tr("Device: %1").arg(settings_->device()));
}

MainWindow::~MainWindow() {
  workers_->cancel();
  train_tab_->cancelTraining();
}

ResultsModel* MainWindow::resultsModel() const { return results_tab_->model(); }
QTableView* MainWindow::table() const { return results_tab_->table(); }
int MainWindow::explainedRows() const { return results_tab_->explainedRows(); }
MoleculeView* MainWindow::moleculeView() const { return results_tab_->moleculePanel()->view(); }
QTableWidget* MainWindow::atomTable() const { return results_tab_->moleculePanel()->atomTable(); }

void MainWindow::addDock(const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);  // saveState/restoreState find docks by name
  dock->setWidget(widget);
  addDockWidget(area, dock);
  docks_.push_back(dock);
}

QWidget* MainWindow::buildChartBox() {
  chart_ = new MemoryChart(workers_->memoryTracker());
  monitor_ = new ServerMonitor(this);
  connect(monitor_, &ServerMonitor::sampled, chart_,
          [this](const ServerStatus& s, double rate) { chart_->addRemoteSample(s.memory, rate); });
  auto* save_chart = new QPushButton(tr("Save chart as PNG..."));
  connect(save_chart, &QPushButton::clicked, this, [this] {
    const QString path =
        guard_->askSavePath(this, tr("Save chart"), QStringLiteral("memory.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty() && !chart_->savePng(path))
      QMessageBox::warning(this, tr("Save chart"), tr("Could not write %1").arg(path));
  });
  chart_->addControl(save_chart);
  return chart_;
}

void MainWindow::connectWorker() {
  connect(train_tab_, &TrainTab::useModel, this, &MainWindow::loadModel);
  connect(train_tab_, &TrainTab::trainingChanged, this, [this](bool training) {
    training_ = training;
    run_->setEnabled(!training && !running_ && has_model_);
    chart_->setRunning(training);
  });
  connect(train_tab_->worker(), &TrainWorker::stepDone, this,
          [this](const StepPoint& p) { chart_->setThroughput(p.molecules_per_second); });
  connect(workers_->model(), &ModelWorker::modelLoaded, this, [this](const ModelCard& card) {
    model_path_ = loading_path_;
    card_ = card;
    guard_->setModelFiles(card.files);
    has_model_ = true;
    results_tab_->setOutputs(card.target_names, card.target_units);
    compare_->setOutputs(card.target_names, card.target_units);
    results_tab_->setTrust(card.label_range, card.trust_note);
    model_card_->showCard(card);
    settings_->setModelWidth(card.embedding_dim);
    run_->setEnabled(!running_ && !training_);
    input_panel_->offer()->setReady(true);
    statusBar()->showMessage(tr("Model: %1 | Device: %2").arg(QFileInfo(card.path).fileName(), settings_->device()));
    Q_EMIT modelReady(true);
  });
  connect(workers_->model(), &ModelWorker::modelFailed, this, &MainWindow::onModelFailed);
  connectRows(workers_->predict());
  connectRows(workers_->remote());
  connectExplain();
}

// The two prediction jobs (here and on a server) report the same way.
void MainWindow::connectRows(RowsWorker* worker) {
  connect(worker, &RowsWorker::remoteNote, this, [this](const QString& note) {
    if (!note.isEmpty()) rate_->setText(note);
  });
  connect(worker, &RowsWorker::inputRead, this,
          [this](const std::vector<predict::PredictedRow>& rows, const QStringList& columns) {
            if (run_generation_ != input_generation_) return;  // the input was replaced while it was read
            results_tab_->setInput(rows, columns);
            progress_->setRange(0, std::max<int>(1, static_cast<int>(rows.size())));
            progress_->setValue(0);
          });
  connect(worker, &RowsWorker::rowsDone, this, [this](int first, const std::vector<predict::PredictedRow>& rows) {
    if (run_generation_ == input_generation_) results_tab_->setResults(first, rows);
  });
  connect(worker, &RowsWorker::progress, this, [this](qint64 done, qint64 total, double rate) {
    progress_->setValue(static_cast<int>(done));
    chart_->setThroughput(rate);
    const double eta = rate > 0 ? double(total - done) / rate : 0;
    rate_->setText(
        tr("%1 / %2 molecules, %3 mol/s, ETA %4 s").arg(done).arg(total).arg(rate, 0, 'f', 0).arg(eta, 0, 'f', 0));
  });
  connect(
      worker, &RowsWorker::runFinished, this, [this](bool cancelled, double seconds, const predict::RunRecord& info) {
        last_run_ = info;
        setRunning(false);
        resultsModel()->setRunDescription(tr("Predicted by %1 (SHA-256 %2…), %3, batch %4, %5")
                                              .arg(QString::fromStdString(info.model_path),
                                                   QString::fromStdString(info.model_sha256.substr(0, 12)),
                                                   QString::fromStdString(info.precision).toUpper())
                                              .arg(info.batch_size)
                                              .arg(QString::fromStdString(info.device)));
        history_.resultsChanged(resultsModel()->rowCount() > 0);
        QString summary;
        for (const auto& [name, n] : predict::statusCounts(resultsModel()->rows()))
          summary += QStringLiteral(", %1 %2").arg(n).arg(QString::fromStdString(name));
        rate_->setText((cancelled ? tr("Cancelled after %1 s") : tr("Done in %1 s")).arg(seconds, 0, 'f', 1) + summary +
                       tr(" — %1, %2, batch %3")
                           .arg(QFileInfo(QString::fromStdString(info.model_path)).fileName(),
                                QString::fromStdString(info.precision).toUpper())
                           .arg(info.batch_size));
        Q_EMIT runCompleted(cancelled);
      });
  connect(worker, &RowsWorker::runFailed, this, [this](const QString& message) {
    setRunning(false);
    rate_->setText(tr("Run failed"));
    QMessageBox::warning(this, tr("Run failed"), message);
    Q_EMIT runCompleted(true);
  });
}

void MainWindow::connectExplain() {
  connect(workers_->explain(), &ExplainWorker::explanationsReady, this,
          [this](const std::vector<jobs::ExplainedMolecule>& molecules, const QString& summary) {
            setRunning(false);
            results_tab_->setExplanations(explain_rows_, molecules);
            rate_->setText(summary);
            Q_EMIT explanationCompleted(true);
          });
  connect(workers_->explain(), &ExplainWorker::explainFailed, this, [this](const QString& message) {
    setRunning(false);
    rate_->setText(tr("Explanation failed: %1").arg(message));
    Q_EMIT explanationCompleted(false);
  });
}

void MainWindow::connectComparison() {
  connect(compare_, &CompareView::runRequested, this, &MainWindow::runComparison);
  connect(compare_, &CompareView::cancelRequested, this, &MainWindow::cancelRun);
  connect(workers_->compare(), &CompareWorker::compareStarted, compare_, &CompareView::started);
  connect(workers_->compare(), &CompareWorker::compareModeStarted, compare_, &CompareView::modeStarted);
  connect(workers_->compare(), &CompareWorker::compareModeDone, compare_, &CompareView::modeDone);
  connect(workers_->compare(), &CompareWorker::compareFinished, this, [this](const QString& message) {
    setRunning(false);
    rate_->setText(message);
    compare_->finished(message);
    Q_EMIT comparisonCompleted();
  });
}

void MainWindow::explainSelected() {
  if (running_ || !has_model_) return;
  std::vector<data::RawRecord> records;
  explain_rows_.clear();
  for (int r : results_tab_->selectedRows()) {
    const auto& row = resultsModel()->rowAt(r);
    if (!resultsModel()->isDone(r) || !row.status.isOk()) continue;
    data::RawRecord rec;
    rec.row = row.row;
    rec.id = row.id;
    rec.text = row.input.empty() ? row.canonical : row.input;
    records.push_back(rec);
    explain_rows_.push_back(r);
  }
  if (records.empty()) {
    rate_->setText(tr("Select predicted rows to explain."));
    return;
  }
  const auto* panel = results_tab_->moleculePanel();
  ExplainRequest request;
  request.method = panel->method();
  request.steps = panel->steps();
  request.baseline = panel->baseline();
  request.output = panel->output();
  request.checkpoint_ratio = settings_->checkpointRatio();
  request.settings = settings_->settings();
  setRunning(true);
  rate_->setText(tr("Explaining %1 molecule(s)...").arg(records.size()));
  request.records = std::move(records);
  workers_->start(workers_->explain(), std::move(request));
}

bool MainWindow::exportAttributions(const QString& path, QString* error) const {
  return results_tab_->exportAttributions(path, error);
}

QWidget* MainWindow::buildRunPanel() {
  auto* panel = new QWidget;
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(0, 0, 0, 0);
  model_card_ = new ModelCardView;
  connect(model_card_, &ModelCardView::openRequested, this, &MainWindow::openModel);
  connect(model_card_, &ModelCardView::bundledRequested, this, &MainWindow::loadModel);
  settings_ = new SettingsPanel;
  run_ = new QPushButton(tr("Predict  (Ctrl+Enter)"));
  run_->setDefault(true);
  run_->setStyleSheet(QStringLiteral("font-weight: bold; padding: 6px"));
  cancel_ = new QPushButton(tr("Cancel  (Esc)"));
  cancel_->setEnabled(false);
  connect(run_, &QPushButton::clicked, this, &MainWindow::runPrediction);
  connect(cancel_, &QPushButton::clicked, this, &MainWindow::cancelRun);
  progress_ = new QProgressBar;
  progress_->setValue(0);
  rate_ = new QLabel(tr("Ready"));
  rate_->setWordWrap(true);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_, 2);
  buttons->addWidget(cancel_, 1);
  layout->addWidget(model_card_);
  layout->addWidget(settings_);
  layout->addLayout(buttons);
  layout->addWidget(progress_);
  layout->addWidget(rate_);
  return panel;
}

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Open &molecules..."), QKeySequence::Open, this, &MainWindow::openMolecules);
  file->addAction(tr("Open mo&del..."), this, &MainWindow::openModel);
  file->addSeparator();
  file->addAction(tr("&Export results (CSV or SD file)..."), QKeySequence::Save, this, &MainWindow::exportResults);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  auto* edit = menuBar()->addMenu(tr("&Edit"));
  undo_action_ = edit->addAction(tr("&Undo"), QKeySequence::Undo, this, &MainWindow::undo);
  undo_action_->setEnabled(false);
  edit->addSeparator();
  auto* paste = edit->addAction(tr("&Paste molecules"), QKeySequence::Paste, this, &MainWindow::pasteInput);
  paste->setShortcutContext(Qt::WindowShortcut);
  edit->addAction(tr("&Copy selected rows (TSV)"), QKeySequence::Copy, this, &MainWindow::copySelection);
  auto* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(tr("&Predict"), QKeySequence(Qt::CTRL | Qt::Key_Return), this, &MainWindow::runPrediction);
  run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelRun);
  run->addAction(tr("&Explain selected"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::explainSelected);
  auto* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : docks_) view->addAction(dock->toggleViewAction());
  addHelpMenu(this, [this] { return card_; });
}

void MainWindow::loadModel(const QString& path) {
  loading_path_ = path;
  has_model_ = false;
  run_->setEnabled(false);
  input_panel_->offer()->setReady(false);  // Predict waits for the new model
  model_card_->showLoading(path);
  workers_->load(path);
}

void MainWindow::runPrediction() {
  if (running_ || !has_model_) return;
  const RunInput in = currentInput();
  if (in.path.isEmpty() && in.text.trimmed().isEmpty()) {
    rate_->setText(tr("Nothing to predict: paste SMILES or open a file."));
    return;
  }
  setRunning(true);
  run_generation_ = input_generation_;
  const RunSettings settings = settings_->settings();
  results_tab_->setConfidence(settings.confidence);
  const bool remote = settings.device == kServerDevice;
  chart_->setRemote(remote);  // a server run plots the server's memory (its /v1/status)
  if (remote) {
    monitor_->start(settings.server);
  } else {
    monitor_->stop();
    chart_->setCudaDevice(
        settings.device.startsWith(QLatin1String("cuda")) ? settings.device.section(QLatin1Char(':'), 1).toInt() : -1);
  }
  if (remote)
    workers_->start(workers_->remote(), RemoteRequest{in, settings.server});
  else
    workers_->start(workers_->predict(), PredictRequest{in, settings});
}

RunInput MainWindow::currentInput() const { return input_panel_->currentInput(); }

void MainWindow::runComparison(CompareRequest request) {
  if (running_ || !has_model_) return;
  const RunInput in = currentInput();
  if (in.path.isEmpty() && in.text.trimmed().isEmpty()) {
    compare_->finished(tr("Nothing to compare on: paste SMILES or open a file on the left."));
    return;
  }
  setRunning(true);
  rate_->setText(tr("Comparing modes..."));
  request.input = in;
  request.settings = settings_->settings();
  workers_->start(workers_->compare(), std::move(request));
}

void MainWindow::cancelRun() {
  if (!running_) return;
  workers_->cancel();
  rate_->setText(tr("Cancelling after the current batch..."));
}

void MainWindow::setRunning(bool running) {
  running_ = running;
  if (running) input_panel_->offer()->dismiss();
  run_->setEnabled(!running && !training_ && has_model_);
  cancel_->setEnabled(running);
  chart_->setRunning(running);
  if (running) rate_->setText(tr("Reading input..."));
}

void MainWindow::openTraining(const QString& path, const QStringList& targets) {
  tabs_->setCurrentWidget(train_tab_);
  train_tab_->form()->setInputFile(path, targets);
}

void MainWindow::offerToPredict(const QString& path) {
  if (input_panel_->setFile(path, false)) input_panel_->offer()->offer(QFileInfo(path).fileName());
}

void MainWindow::setInputFile(const QString& path) {
  if (path.isEmpty())
    input_panel_->clearInput();
  else
    input_panel_->setFile(path);
}

void MainWindow::openMolecules() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open molecules"), QSettings().value(QStringLiteral("input/dir")).toString(), moleculeFileFilter());
  if (path.isEmpty()) return;
  QSettings().setValue(QStringLiteral("input/dir"), QFileInfo(path).absolutePath());
  setInputFile(path);
}

void MainWindow::openModel() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), QString(),
                                                    tr("Models (*.safetensors *.bin *.pt *.pth);;All files (*)"));
  if (!path.isEmpty()) loadModel(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!confirmDiscard()) {
    event->ignore();
    return;
  }
  workers_->cancel();
  train_tab_->cancelTraining();
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("model/path"), model_path_);
  settings_->save();
  results_tab_->saveLayout();
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) setInputFile(urls.front().toLocalFile());
}

QPlainTextEdit* MainWindow::input() const { return input_panel_->editor(); }
PredictOffer* MainWindow::predictOffer() const { return input_panel_->offer(); }

}  // namespace gs::ui
