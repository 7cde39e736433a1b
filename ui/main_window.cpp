#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <fstream>
#include <set>

#include "compare_view.h"
#include "examples.h"
#include "memory_chart.h"
#include "molecule_panel.h"
#include "molecule_view.h"
#include "results_model.h"

namespace gs::ui {
namespace {

QString formatCount(qint64 n) { return QLocale().toString(n); }

}  // namespace

MainWindow::MainWindow(const QString& model_path, QWidget* parent) : QMainWindow(parent) {
  qRegisterMetaType<ModelCard>();
  qRegisterMetaType<RunSettings>();
  qRegisterMetaType<RunInput>();
  qRegisterMetaType<predict::RunRecord>();
  qRegisterMetaType<std::vector<predict::PredictedRow>>();
  qRegisterMetaType<CompareRequest>();
  qRegisterMetaType<engine::ModeResult>();
  qRegisterMetaType<ExplainRequest>();
  qRegisterMetaType<std::vector<data::RawRecord>>();
  qRegisterMetaType<std::vector<jobs::ExplainedMolecule>>();
  setWindowTitle(tr("Graphormer Studio"));
  setAcceptDrops(true);

  worker_ = new InferenceWorker;
  thread_.reset(new QThread);
  worker_->moveToThread(thread_.get());
  connect(thread_.get(), &QThread::finished, worker_, &QObject::deleteLater);
  thread_->start();

  results_ = new ResultsModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(results_);
  proxy_->setSortRole(ResultsModel::SortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);

  table_ = new QTableView;
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(ResultsModel::RowColumn, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setAlternatingRowColors(true);
  table_->setIconSize(ResultsModel::kThumbnail);
  table_->verticalHeader()->setDefaultSectionSize(ResultsModel::kThumbnail.height() + 4);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Filter rows (name, SMILES, status...)"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

  molecule_ = new MoleculePanel;
  molecule_->setSaveGuard(guard_);
  connect(molecule_, &MoleculePanel::explainRequested, this, &MainWindow::explainSelected);
  connect(molecule_, &MoleculePanel::exportAttributionsRequested, this, [this](const QString& path) {
    QString error;
    if (!exportAttributions(path, &error)) QMessageBox::warning(this, tr("Export attributions"), error);
  });
  chart_ = new MemoryChart(worker_->memoryTracker());
  auto* save_chart = new QPushButton(tr("Save chart as PNG..."));
  connect(save_chart, &QPushButton::clicked, this, [this] {
    const QString path = guard_->askSavePath(this, tr("Save chart"), QStringLiteral("memory.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty() && !chart_->savePng(path)) QMessageBox::warning(this, tr("Save chart"), tr("Could not write %1").arg(path));
  });

  auto* table_box = new QWidget;
  auto* tl = new QVBoxLayout(table_box);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(filter_);
  tl->addWidget(table_);
  auto* right = new QSplitter(Qt::Horizontal);
  right->addWidget(table_box);
  right->addWidget(molecule_);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 1);
  right->setSizes({700, 300});
  auto* chart_box = new QGroupBox(tr("Memory and throughput"));
  auto* cl = new QVBoxLayout(chart_box);
  cl->addWidget(chart_);
  cl->addWidget(save_chart, 0, Qt::AlignRight);
  compare_ = new CompareView;
  compare_->setSaveGuard(guard_);
  tabs_ = new QTabWidget;
  tabs_->addTab(right, tr("Results"));
  tabs_->addTab(compare_, tr("Compare modes"));
  auto* vertical = new QSplitter(Qt::Vertical);
  vertical->addWidget(tabs_);
  vertical->addWidget(chart_box);
  vertical->setStretchFactor(0, 3);
  vertical->setStretchFactor(1, 1);

  auto* left = new QWidget;
  auto* ll = new QVBoxLayout(left);
  ll->addWidget(buildInputPanel(), 1);
  ll->addWidget(buildSettingsPanel());
  auto* main = new QSplitter(Qt::Horizontal);
  main->setObjectName(QStringLiteral("mainSplitter"));
  main->addWidget(left);
  main->addWidget(vertical);
  main->setStretchFactor(0, 0);
  main->setStretchFactor(1, 1);
  setCentralWidget(main);
  buildMenus();

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { showSelected(); });
  connect(worker_, &InferenceWorker::modelLoaded, this, [this](const ModelCard& card) {
    card_ = card;
    guard_->setModelFiles(card.files);
    has_model_ = true;
    results_->setOutputs(card.target_names, card.target_units);
    sizeColumns();
    QString targets;
    for (int j = 0; j < card.target_names.size(); ++j)
      targets += card.target_names[j] + (card.target_units.value(j).isEmpty() ? QString() : QStringLiteral(" (%1)").arg(card.target_units[j])) +
                 (j + 1 < card.target_names.size() ? QStringLiteral(", ") : QString());
    model_card_->setText(tr("<b>%1</b><br>%2<br>Predicts: %3<br>%4 layers × %5 dims, %6 heads; %7 parameters<br>Index convention: %8")
                             .arg(QFileInfo(card.path).dir().dirName() + QLatin1Char('/') + QFileInfo(card.path).fileName(),
                                  card.description.toHtmlEscaped(), targets.toHtmlEscaped())
                             .arg(card.layers).arg(card.embedding_dim).arg(card.heads)
                             .arg(formatCount(card.parameters), card.convention));
    model_card_->setToolTip(tr("%1\nSHA-256 %2").arg(card.path, card.sha256) +
                            (card.notes.isEmpty() ? QString() : QStringLiteral("\n") + card.notes.join(QLatin1Char('\n'))));
    run_->setEnabled(!running_);
    statusBar()->showMessage(tr("Model: %1 | Device: %2").arg(QFileInfo(card.path).fileName(), device_->currentText()));
    Q_EMIT modelReady(true);
  });
  connect(worker_, &InferenceWorker::modelFailed, this, [this](const QString& message) {
    has_model_ = false;
    model_card_->setText(tr("<b>No model loaded</b><br>%1").arg(message.toHtmlEscaped()));
    run_->setEnabled(false);
    Q_EMIT modelReady(false);
  });
  connect(worker_, &InferenceWorker::inputRead, this, [this](const std::vector<predict::PredictedRow>& rows) {
    results_->setInput(rows);
    explanations_.clear();
    sizeColumns();
    progress_->setRange(0, std::max<int>(1, static_cast<int>(rows.size())));
    progress_->setValue(0);
  });
  connect(worker_, &InferenceWorker::rowsDone, this, [this](int first, const std::vector<predict::PredictedRow>& rows) {
    results_->setResults(first, rows);
    if (first == 0 && !table_->selectionModel()->currentIndex().isValid()) table_->selectRow(0);
    else if (first <= proxy_->mapToSource(table_->selectionModel()->currentIndex()).row()) showSelected();
  });
  connect(worker_, &InferenceWorker::progress, this, [this](qint64 done, qint64 total, double rate) {
    progress_->setValue(static_cast<int>(done));
    chart_->setThroughput(rate);
    const double eta = rate > 0 ? double(total - done) / rate : 0;
    rate_->setText(tr("%1 / %2 molecules, %3 mol/s, ETA %4 s").arg(done).arg(total).arg(rate, 0, 'f', 0).arg(eta, 0, 'f', 0));
  });
  connect(worker_, &InferenceWorker::runFinished, this, [this](bool cancelled, double seconds, const predict::RunRecord& info) {
    last_run_ = info;
    setRunning(false);
    const auto counts = predict::statusCounts(results_->rows());
    QString summary;
    for (const auto& [name, n] : counts) summary += QStringLiteral(", %1 %2").arg(n).arg(QString::fromStdString(name));
    rate_->setText((cancelled ? tr("Cancelled after %1 s") : tr("Done in %1 s")).arg(seconds, 0, 'f', 1) + summary);
    Q_EMIT runCompleted(cancelled);
  });
  connect(worker_, &InferenceWorker::runFailed, this, [this](const QString& message) {
    setRunning(false);
    rate_->setText(tr("Run failed"));
    QMessageBox::warning(this, tr("Run failed"), message);
    Q_EMIT runCompleted(true);
  });

  connect(compare_, &CompareView::runRequested, this, &MainWindow::runComparison);
  connect(compare_, &CompareView::cancelRequested, this, &MainWindow::cancelRun);
  connect(worker_, &InferenceWorker::compareStarted, compare_, &CompareView::started);
  connect(worker_, &InferenceWorker::compareModeStarted, compare_, &CompareView::modeStarted);
  connect(worker_, &InferenceWorker::compareModeDone, compare_, &CompareView::modeDone);
  connect(worker_, &InferenceWorker::compareFinished, this, [this](const QString& message) {
    setRunning(false);
    rate_->setText(message);
    compare_->finished(message);
    Q_EMIT comparisonCompleted();
  });

  connect(worker_, &InferenceWorker::explanationsReady, this,
          [this](const std::vector<jobs::ExplainedMolecule>& molecules, const QString& summary) {
            setRunning(false);
            for (size_t i = 0; i < molecules.size() && i < explain_rows_.size(); ++i) explanations_[explain_rows_[i]] = molecules[i];
            rate_->setText(summary);
            showSelected();
            Q_EMIT explanationCompleted(true);
          });
  connect(worker_, &InferenceWorker::explainFailed, this, [this](const QString& message) {
    setRunning(false);
    rate_->setText(tr("Explanation failed: %1").arg(message));
    Q_EMIT explanationCompleted(false);
  });

  restoreSettings();
  QString path = model_path;
  if (path.isEmpty()) path = QSettings().value(QStringLiteral("model/path")).toString();
  if (!path.isEmpty() && !QFileInfo::exists(path)) path.clear();
  loadModel(path);  // "" = the bundled default model (the worker resolves it, or says it is missing)
  statusBar()->showMessage(tr("Device: %1").arg(device_->currentText()));
}

MainWindow::~MainWindow() { worker_->cancel(); }

MoleculeView* MainWindow::moleculeView() const { return molecule_->view(); }
QTableWidget* MainWindow::atomTable() const { return molecule_->atomTable(); }

void MainWindow::explainSelected() {
  if (running_ || !has_model_) return;
  std::set<int> rows;
  for (const auto& index : table_->selectionModel()->selectedRows()) rows.insert(proxy_->mapToSource(index).row());
  if (rows.empty() && table_->selectionModel()->currentIndex().isValid())
    rows.insert(proxy_->mapToSource(table_->selectionModel()->currentIndex()).row());
  std::vector<data::RawRecord> records;
  explain_rows_.clear();
  for (int r : rows) {
    const auto& row = results_->rowAt(r);
    if (!results_->isDone(r) || !row.status.isOk()) continue;
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
  ExplainRequest request;
  request.method = molecule_->method();
  request.steps = molecule_->steps();
  request.baseline = molecule_->baseline();
  request.checkpoint_ratio = checkpoint_->value() / 100.0;
  setRunning(true);
  rate_->setText(tr("Explaining %1 molecule(s)...").arg(records.size()));
  QMetaObject::invokeMethod(worker_, "explain", Qt::QueuedConnection, Q_ARG(std::vector<gs::data::RawRecord>, records),
                            Q_ARG(gs::ui::ExplainRequest, request), Q_ARG(gs::ui::RunSettings, currentSettings()));
}

bool MainWindow::exportAttributions(const QString& path, QString* error) const {
  if (const QString why = guard_->problem(path, {QStringLiteral(".molecules.csv")}); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  std::vector<jobs::ExplainedMolecule> all;
  for (const auto& [row, e] : explanations_) all.push_back(e);
  const Status s = jobs::writeExplanations(path.toStdString(), all);
  if (!s.isOk() && error) *error = QString::fromStdString(s.toString());
  return s.isOk();
}

QWidget* MainWindow::buildInputPanel() {
  auto* box = new QGroupBox(tr("Molecules"));
  auto* l = new QVBoxLayout(box);
  input_ = new QPlainTextEdit;
  input_->setPlaceholderText(tr("Paste SMILES here, one per line, optionally followed by a name:\n"
                                "CC(=O)Oc1ccccc1C(=O)O aspirin\n\nor open / drop a .smi, .csv or .sdf file."));
  input_->setMinimumWidth(300);
  input_->setLineWrapMode(QPlainTextEdit::NoWrap);
  connect(input_, &QPlainTextEdit::textChanged, this, [this] {
    if (!input_->toPlainText().isEmpty() && !file_path_.isEmpty()) setInputFile({});
  });
  input_file_ = new QLabel;
  input_file_->setWordWrap(true);
  input_file_->hide();
  auto* open = new QPushButton(tr("Open file..."));
  connect(open, &QPushButton::clicked, this, &MainWindow::openMolecules);
  auto* examples = new QComboBox;
  examples->addItem(tr("Examples..."));
  for (const auto& e : kExamples) examples->addItem(tr(e.name));
  connect(examples, &QComboBox::activated, this, [this, examples](int i) {
    if (i <= 0) return;
    setInputFile({});
    input_->setPlainText(QString::fromUtf8(kExamples[i - 1].text));
    examples->setCurrentIndex(0);
  });
  auto* clear = new QPushButton(tr("Clear"));
  connect(clear, &QPushButton::clicked, this, [this] {
    setInputFile({});
    input_->clear();
  });
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(examples, 1);
  buttons->addWidget(clear);
  l->addWidget(input_, 1);
  l->addWidget(input_file_);
  l->addLayout(buttons);
  return box;
}

QWidget* MainWindow::buildSettingsPanel() {
  auto* panel = new QWidget;
  auto* pl = new QVBoxLayout(panel);
  pl->setContentsMargins(0, 0, 0, 0);
  auto* model_box = new QGroupBox(tr("Model"));
  auto* ml = new QVBoxLayout(model_box);
  model_card_ = new QLabel(tr("Loading model..."));
  model_card_->setWordWrap(true);
  model_card_->setTextFormat(Qt::RichText);
  auto* open_model = new QPushButton(tr("Open model..."));
  connect(open_model, &QPushButton::clicked, this, &MainWindow::openModel);
  auto* default_model = new QPushButton(tr("Default model"));
  connect(default_model, &QPushButton::clicked, this, [this] { loadModel({}); });
  auto* mb = new QHBoxLayout;
  mb->addWidget(open_model);
  mb->addWidget(default_model);
  ml->addWidget(model_card_);
  ml->addLayout(mb);

  auto* run_box = new QGroupBox(tr("Run settings"));
  auto* form = new QFormLayout(run_box);
  device_ = new QComboBox;
  device_->addItems(InferenceWorker::devices());
  precision_ = new QComboBox;
  connect(device_, &QComboBox::currentIndexChanged, this, [this] { refreshPrecisions(); });
  refreshPrecisions();
  batch_ = new QSpinBox;
  batch_->setRange(1, 4096);
  batch_->setValue(32);
  budget_ = new QSpinBox;
  budget_->setRange(0, 1 << 20);
  budget_->setSuffix(tr(" MiB"));
  budget_->setSpecialValueText(tr("off (use batch size)"));
  budget_->setToolTip(tr("Size batches automatically so that each batch's peak tensor memory stays under this budget "
                         "(a memory model fitted on a few measured probe batches; a molecule that alone exceeds it is reported)"));
  threads_ = new QSpinBox;
  threads_->setRange(0, QThread::idealThreadCount() * 2);
  threads_->setSpecialValueText(tr("automatic"));
  checkpoint_ = new QSlider(Qt::Horizontal);
  checkpoint_->setRange(0, 100);
  checkpoint_note_ = new QLabel(tr("Applies to explanations (and fine-tuning), where gradients are computed: "
                                   "less memory, more time. Plain prediction stores no activations, so it changes nothing there."));
  checkpoint_note_->setWordWrap(true);
  checkpoint_note_->setStyleSheet(QStringLiteral("color: #666; font-size: 9pt"));
  form->addRow(tr("Device"), device_);
  form->addRow(tr("Precision"), precision_);
  form->addRow(tr("Batch size"), batch_);
  form->addRow(tr("Memory budget"), budget_);
  form->addRow(tr("Threads"), threads_);
  auto* ck = new QLabel(tr("0.00"));
  connect(checkpoint_, &QSlider::valueChanged, ck, [ck](int v) { ck->setText(QString::number(v / 100.0, 'f', 2)); });
  auto* ckl = new QHBoxLayout;
  ckl->addWidget(checkpoint_, 1);
  ckl->addWidget(ck);
  form->addRow(tr("Checkpoint ratio"), ckl);
  form->addRow(checkpoint_note_);

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
  auto* rb = new QHBoxLayout;
  rb->addWidget(run_, 2);
  rb->addWidget(cancel_, 1);
  pl->addWidget(model_box);
  pl->addWidget(run_box);
  pl->addLayout(rb);
  pl->addWidget(progress_);
  pl->addWidget(rate_);
  return panel;
}

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Open &molecules..."), QKeySequence::Open, this, &MainWindow::openMolecules);
  file->addAction(tr("Open mo&del..."), this, &MainWindow::openModel);
  file->addSeparator();
  file->addAction(tr("&Export results as CSV..."), QKeySequence::Save, this, &MainWindow::exportResults);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  auto* edit = menuBar()->addMenu(tr("&Edit"));
  auto* paste = edit->addAction(tr("&Paste molecules"), QKeySequence::Paste, this, &MainWindow::pasteInput);
  paste->setShortcutContext(Qt::WindowShortcut);
  edit->addAction(tr("&Copy selected rows (TSV)"), QKeySequence::Copy, this, &MainWindow::copySelection);
  auto* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(tr("&Predict"), QKeySequence(Qt::CTRL | Qt::Key_Return), this, &MainWindow::runPrediction);
  run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelRun);
  run->addAction(tr("&Explain selected"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::explainSelected);
}

void MainWindow::sizeColumns() {
  auto* h = table_->horizontalHeader();
  const int widths[ResultsModel::FixedColumnCount] = {50, 120, ResultsModel::kThumbnail.width() + 8, 170, 170, 110, 55};
  for (int c = 0; c < ResultsModel::FixedColumnCount; ++c) h->resizeSection(c, widths[c]);
  for (int c = ResultsModel::FixedColumnCount; c < results_->columnCount(); ++c) h->resizeSection(c, 120);
  // Shown in the order a chemist reads them: what it is, the predictions, then the strings.
  std::vector<int> order{ResultsModel::RowColumn, ResultsModel::NameColumn, ResultsModel::StructureColumn};
  for (int c = ResultsModel::FixedColumnCount; c < results_->columnCount(); ++c) order.push_back(c);
  for (int c : {ResultsModel::StatusColumn, ResultsModel::AtomsColumn, ResultsModel::SmilesColumn, ResultsModel::CanonicalColumn})
    order.push_back(c);
  for (int visual = 0; visual < static_cast<int>(order.size()); ++visual) h->moveSection(h->visualIndex(order[visual]), visual);
}

void MainWindow::refreshPrecisions() {
  const QString current = precision_->currentText();
  precision_->clear();
  auto* model = new QStandardItemModel(precision_);
  for (const auto& [name, reason] : InferenceWorker::precisionOptions(device_->currentText())) {
    auto* item = new QStandardItem(name.toUpper());
    item->setData(name, Qt::UserRole);
    if (!reason.isEmpty()) {
      item->setEnabled(false);
      item->setToolTip(reason);
      item->setText(tr("%1 (unavailable)").arg(name.toUpper()));
    }
    model->appendRow(item);
  }
  precision_->setModel(model);
  const int at = precision_->findText(current);
  precision_->setCurrentIndex(at >= 0 ? at : 0);
}

void MainWindow::loadModel(const QString& path) {
  model_path_ = path;
  has_model_ = false;
  run_->setEnabled(false);
  model_card_->setText(path.isEmpty() ? tr("Loading the default model ...") : tr("Loading %1 ...").arg(path.toHtmlEscaped()));
  QMetaObject::invokeMethod(worker_, "loadModel", Qt::QueuedConnection, Q_ARG(QString, path));
}

RunSettings MainWindow::currentSettings() const {
  RunSettings s;
  s.device = device_->currentText();
  s.precision = precision_->currentData(Qt::UserRole).toString();
  s.batch_size = batch_->value();
  s.threads = threads_->value();
  s.memory_budget_mib = budget_->value();
  return s;
}

void MainWindow::runPrediction() {
  if (running_ || !has_model_) return;
  const RunInput in = currentInput();
  if (in.path.isEmpty() && in.text.trimmed().isEmpty()) {
    rate_->setText(tr("Nothing to predict: paste SMILES or open a file."));
    return;
  }
  setRunning(true);
  chart_->setCudaDevice(currentSettings().device.startsWith(QLatin1String("cuda")) ? currentSettings().device.section(QLatin1Char(':'), 1).toInt() : -1);
  QMetaObject::invokeMethod(worker_, "run", Qt::QueuedConnection, Q_ARG(gs::ui::RunInput, in),
                            Q_ARG(gs::ui::RunSettings, currentSettings()));
}

RunInput MainWindow::currentInput() const {
  RunInput in;
  in.path = file_path_;
  in.smiles_column = smiles_column_;
  in.id_column = id_column_;
  if (in.path.isEmpty()) in.text = input_->toPlainText();
  return in;
}

void MainWindow::runComparison(const CompareRequest& request) {
  if (running_ || !has_model_) return;
  const RunInput in = currentInput();
  if (in.path.isEmpty() && in.text.trimmed().isEmpty()) {
    compare_->finished(tr("Nothing to compare on: paste SMILES or open a file on the left."));
    return;
  }
  setRunning(true);
  rate_->setText(tr("Comparing modes..."));
  QMetaObject::invokeMethod(worker_, "compare", Qt::QueuedConnection, Q_ARG(gs::ui::RunInput, in),
                            Q_ARG(gs::ui::CompareRequest, request), Q_ARG(gs::ui::RunSettings, currentSettings()));
}

void MainWindow::cancelRun() {
  if (!running_) return;
  worker_->cancel();
  rate_->setText(tr("Cancelling after the current batch..."));
}

void MainWindow::setRunning(bool running) {
  running_ = running;
  run_->setEnabled(!running && has_model_);
  cancel_->setEnabled(running);
  chart_->setRunning(running);
  if (running) rate_->setText(tr("Reading input..."));
}

void MainWindow::setInputFile(const QString& path) {
  file_path_ = path;
  guard_->addInput(path);
  smiles_column_.clear();
  id_column_.clear();
  if (path.isEmpty()) {
    input_file_->hide();
    input_->setPlaceholderText(tr("Paste SMILES here, one per line, optionally followed by a name."));
    return;
  }
  if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive) || path.endsWith(QLatin1String(".tsv"), Qt::CaseInsensitive)) {
    std::ifstream in(path.toStdString());
    std::string header;
    std::getline(in, header);
    const QStringList columns = QString::fromStdString(header).trimmed().split(path.endsWith(QLatin1String(".tsv")) ? QLatin1Char('\t') : QLatin1Char(','));
    if (columns.size() > 1 && isVisible()) {
      bool ok = false;
      int guess = 0;
      for (int i = 0; i < columns.size(); ++i)
        if (columns[i].contains(QLatin1String("smi"), Qt::CaseInsensitive)) guess = i;
      const QString smiles = QInputDialog::getItem(this, tr("SMILES column"), tr("Column with the SMILES:"), columns, guess, false, &ok);
      if (ok) smiles_column_ = smiles;
      QStringList ids = columns;
      ids.prepend(tr("(row number)"));
      const QString id = QInputDialog::getItem(this, tr("Name column"), tr("Column with the molecule names:"), ids, 0, false, &ok);
      if (ok && id != ids.front()) id_column_ = id;
    }
  }
  input_->blockSignals(true);
  input_->clear();
  input_->blockSignals(false);
  input_->setPlaceholderText(tr("Predicting from the file below; paste or type here to use text instead."));
  input_file_->setText(tr("File: <b>%1</b>%2").arg(QFileInfo(path).fileName().toHtmlEscaped(),
                                                   smiles_column_.isEmpty() ? QString() : tr(" (SMILES column %1)").arg(smiles_column_)));
  input_file_->show();
}

void MainWindow::openMolecules() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open molecules"), QSettings().value(QStringLiteral("input/dir")).toString(),
                                                    tr("Molecules (*.smi *.csv *.tsv *.sdf);;All files (*)"));
  if (path.isEmpty()) return;
  QSettings().setValue(QStringLiteral("input/dir"), QFileInfo(path).absolutePath());
  setInputFile(path);
}

void MainWindow::openModel() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), QString(),
                                                    tr("Models (*.safetensors *.bin *.pt *.pth);;All files (*)"));
  if (!path.isEmpty()) loadModel(path);
}

bool MainWindow::exportCsv(const QString& path, bool selection_only, QString* error) {
  if (const QString why = guard_->problem(path, {QStringLiteral(".json")}); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  std::vector<predict::PredictedRow> rows;
  if (selection_only) {
    std::set<int> source_rows;
    for (const auto& index : table_->selectionModel()->selectedRows()) source_rows.insert(proxy_->mapToSource(index).row());
    for (int r : source_rows) rows.push_back(results_->rowAt(r));
  } else {
    // In the table's current order (sorted / filtered as shown).
    for (int r = 0; r < proxy_->rowCount(); ++r) rows.push_back(results_->rowAt(proxy_->mapToSource(proxy_->index(r, 0)).row()));
  }
  bundle::ModelMetadata md;
  for (const auto& n : card_.target_names) md.target_names.push_back(n.toStdString());
  const Status s = predict::writePredictions(path.toStdString(), md, results_->numOutputs(), rows, last_run_);
  if (!s.isOk() && error) *error = QString::fromStdString(s.toString());
  return s.isOk();
}

void MainWindow::exportResults() {
  if (results_->rowCount() == 0) return;
  const bool selection = table_->selectionModel()->selectedRows().size() > 1 &&
                         QMessageBox::question(this, tr("Export"), tr("Export only the selected rows?")) == QMessageBox::Yes;
  const QString path = guard_->askSavePath(this, tr("Export results"), QStringLiteral("predictions.csv"), tr("CSV files (*.csv)"),
                                           {QStringLiteral(".json")});
  if (path.isEmpty()) return;
  QString error;
  if (!exportCsv(path, selection, &error)) QMessageBox::warning(this, tr("Export failed"), error);
  else statusBar()->showMessage(tr("Wrote %1 and %1.json").arg(path), 5000);
}

void MainWindow::copySelection() {
  if (input_->hasFocus()) {
    input_->copy();
    return;
  }
  std::set<int> view_rows;
  for (const auto& index : table_->selectionModel()->selectedRows()) view_rows.insert(index.row());
  std::vector<int> rows;  // in the table's order
  for (int r : view_rows) rows.push_back(proxy_->mapToSource(proxy_->index(r, 0)).row());
  QApplication::clipboard()->setText(results_->toTsv(rows));
}

void MainWindow::pasteInput() {
  if (!file_path_.isEmpty()) setInputFile({});
  input_->setFocus();
  input_->paste();
}

void MainWindow::showSelected() {
  const QModelIndex current = table_->selectionModel()->currentIndex();
  if (!current.isValid()) return;
  const int row = proxy_->mapToSource(current).row();
  const auto& r = results_->rowAt(row);
  QString caption = QStringLiteral("%1  ").arg(QString::fromStdString(r.id));
  if (results_->isDone(row) && r.status.isOk()) {
    for (int j = 0; j < results_->numOutputs() && j < static_cast<int>(r.values.size()); ++j)
      caption += QStringLiteral("%1 = %2  ").arg(results_->headerData(ResultsModel::FixedColumnCount + j, Qt::Horizontal, Qt::DisplayRole).toString())
                     .arg(r.values[static_cast<size_t>(j)], 0, 'f', 3);
  } else if (results_->isDone(row)) {
    caption += QString::fromStdString(r.status.message());
  }
  auto e = explanations_.find(row);
  if (e == explanations_.end() || !e->second.status.isOk()) {
    molecule_->showMolecule(QString::fromStdString(r.canonical.empty() ? r.input : r.canonical), caption);
    return;
  }
  const auto& ex = e->second;
  caption += tr("| attributions sum %1 (baseline %2)").arg(ex.summary.sum, 0, 'f', 3).arg(ex.summary.baseline_prediction, 0, 'f', 3);
  molecule_->showExplanation(ex, caption, card_.target_units.value(0));
}

void MainWindow::restoreSettings() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  const int device = device_->findText(s.value(QStringLiteral("run/device"), QStringLiteral("cpu")).toString());
  if (device >= 0) device_->setCurrentIndex(device);
  const int precision = precision_->findData(s.value(QStringLiteral("run/precision"), QStringLiteral("fp32")), Qt::UserRole);
  if (precision >= 0) precision_->setCurrentIndex(precision);
  batch_->setValue(s.value(QStringLiteral("run/batch"), 32).toInt());
  budget_->setValue(s.value(QStringLiteral("run/budget_mib"), 0).toInt());
  threads_->setValue(s.value(QStringLiteral("run/threads"), 0).toInt());
  checkpoint_->setValue(s.value(QStringLiteral("run/checkpoint_percent"), 0).toInt());
}

void MainWindow::saveSettings() const {
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("model/path"), model_path_);
  s.setValue(QStringLiteral("run/device"), device_->currentText());
  s.setValue(QStringLiteral("run/precision"), precision_->currentData(Qt::UserRole));
  s.setValue(QStringLiteral("run/batch"), batch_->value());
  s.setValue(QStringLiteral("run/budget_mib"), budget_->value());
  s.setValue(QStringLiteral("run/threads"), threads_->value());
  s.setValue(QStringLiteral("run/checkpoint_percent"), checkpoint_->value());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  worker_->cancel();
  saveSettings();
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) setInputFile(urls.front().toLocalFile());
}

}  // namespace gs::ui
