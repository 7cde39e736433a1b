#include "train_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "input_reader.h"
#include "run_settings.h"
#include "settings_panel.h"

namespace gs::ui {
namespace {

QSpinBox* spin(int lo, int hi, int value, const QString& tip = {}) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setValue(value);
  s->setToolTip(tip);
  return s;
}

QDoubleSpinBox* fraction(double value) {
  auto* s = new QDoubleSpinBox;
  s->setRange(0.0, 0.9);
  s->setSingleStep(0.05);
  s->setDecimals(2);
  s->setValue(value);
  return s;
}

QGroupBox* group(const QString& title, QFormLayout* form) {
  auto* box = new QGroupBox(title);
  box->setLayout(form);
  return box;
}

}  // namespace

TrainForm::TrainForm(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  for (QWidget* box : {buildDataBox(), buildModelBox(), buildSplitBox(), buildOptimisationBox(), buildMemoryBox()})
    layout->addWidget(box);
  layout->addStretch(1);
  refreshModelControls();
}

QWidget* TrainForm::buildDataBox() {
  auto* form = new QFormLayout;
  auto* open = new QPushButton(tr("Open labelled file…"));
  open->setToolTip(
      tr("A CSV/TSV with a SMILES column and numeric target columns, or an SD file with numeric data items"));
  connect(open, &QPushButton::clicked, this, &TrainForm::openFile);
  file_label_ = new QLabel(tr("No file"));
  file_label_->setWordWrap(true);
  form->addRow(open, file_label_);
  smiles_column_ = new QComboBox;
  connect(smiles_column_, &QComboBox::activated, this, [this] {
    if (!input_path_.isEmpty()) Q_EMIT inspectRequested(input_path_, smilesColumn());
  });
  form->addRow(tr("SMILES column"), smiles_column_);
  targets_ = new QListWidget;
  targets_->setMaximumHeight(110);
  targets_->setToolTip(
      tr("Tick one or more numeric columns to learn; empty cells are missing values, left out of the loss"));
  form->addRow(tr("Targets"), targets_);
  units_ = new QLineEdit;
  units_->setPlaceholderText(tr("units, comma-separated in target order (e.g. Å², nM)"));
  form->addRow(tr("Units"), units_);
  counts_ = new QLabel;
  counts_->setWordWrap(true);
  form->addRow(counts_);
  preview_ = new QTableWidget;
  preview_->setMaximumHeight(150);
  preview_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  preview_->verticalHeader()->setVisible(false);
  form->addRow(preview_);
  return group(tr("Data"), form);
}

QWidget* TrainForm::buildModelBox() {
  auto* form = new QFormLayout;
  start_ = new QComboBox;
  start_->addItem(tr("Bundled model"), QStringLiteral("bundled"));
  start_->addItem(tr("Opened model"), QStringLiteral("opened"));
  start_->addItem(tr("Fresh model"), QStringLiteral("fresh"));
  connect(start_, &QComboBox::currentIndexChanged, this, [this] { refreshModelControls(); });
  form->addRow(tr("Start from"), start_);
  open_model_ = new QPushButton(tr("Open model…"));
  model_label_ = new QLabel;
  connect(open_model_, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Model directory to fine-tune"));
    if (!dir.isEmpty()) setOpenedModel(dir);
  });
  form->addRow(open_model_, model_label_);
  preset_ = new QComboBox;
  preset_->addItems({QStringLiteral("slim"), QStringLiteral("base")});
  layers_ = spin(0, 48, 0, tr("0 = the preset's"));
  dim_ = spin(0, 4096, 0, tr("0 = the preset's"));
  heads_ = spin(0, 128, 0, tr("0 = the preset's"));
  ffn_ = spin(0, 16384, 0, tr("0 = the preset's"));
  auto* sizes = new QHBoxLayout;
  for (auto* w : {static_cast<QWidget*>(preset_), static_cast<QWidget*>(layers_), static_cast<QWidget*>(dim_),
                  static_cast<QWidget*>(heads_), static_cast<QWidget*>(ffn_)})
    sizes->addWidget(w);
  form->addRow(tr("Preset, layers, dim, heads, ffn"), sizes);
  mode_ = new QComboBox;
  mode_->addItem(tr("Full fine-tuning"), QStringLiteral("full"));
  mode_->addItem(tr("Freeze the first k layers"), QStringLiteral("freeze"));
  mode_->addItem(tr("Re-initialised head"), QStringLiteral("head"));
  mode_->addItem(tr("LoRA adapters"), QStringLiteral("lora"));
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] { refreshModelControls(); });
  freeze_ = spin(1, 48, 2, tr("Layers kept fixed (with the embeddings)"));
  rank_ = spin(1, 256, 8, tr("LoRA rank: only the adapters and the head train; saving writes the small adapter"));
  auto* mode = new QHBoxLayout;
  mode->addWidget(mode_, 1);
  mode->addWidget(new QLabel(tr("k")));
  mode->addWidget(freeze_);
  mode->addWidget(new QLabel(tr("rank")));
  mode->addWidget(rank_);
  form->addRow(tr("Fine-tune"), mode);
  return group(tr("Model"), form);
}

QWidget* TrainForm::buildSplitBox() {
  auto* form = new QFormLayout;
  split_ = new QComboBox;
  split_->addItem(tr("Random"), QStringLiteral("random"));
  split_->addItem(tr("Scaffold (Bemis–Murcko)"), QStringLiteral("scaffold"));
  valid_ = fraction(0.1);
  test_ = fraction(0.1);
  calib_ = fraction(0.1);
  calib_->setToolTip(tr("Held out for the prediction intervals (trust); 0 = a model without trust data"));
  seed_ = spin(0, 1 << 30, 0, tr("One seed for the split, the initial weights and the batch order"));
  form->addRow(tr("Split"), split_);
  auto* fractions = new QHBoxLayout;
  for (auto* w : {valid_, test_, calib_}) fractions->addWidget(w);
  form->addRow(tr("Valid, test, calibration"), fractions);
  form->addRow(tr("Seed"), seed_);
  return group(tr("Split"), form);
}

QWidget* TrainForm::buildOptimisationBox() {
  auto* form = new QFormLayout;
  epochs_ = spin(1, 100000, 30);
  lr_ = new QLineEdit(QStringLiteral("0.0002"));
  batch_ = spin(1, 65536, 32);
  patience_ = spin(0, 100000, 10, tr("Epochs without a better validation MAE before stopping; 0 = never"));
  snapshots_ = spin(0, 100, 5, tr("Snapshot ensemble members for the intervals' spread term (2 epochs each)"));
  device_ = new QComboBox;
  device_->addItems(availableDevices());
  precision_ = new QComboBox;
  connect(device_, &QComboBox::currentIndexChanged, this,
          [this] { fillPrecisions(precision_, device_->currentText(), true); });
  fillPrecisions(precision_, device_->currentText(), true);
  ratio_ = new QDoubleSpinBox;
  ratio_->setRange(0, 1);
  ratio_->setSingleStep(0.25);
  ratio_->setToolTip(
      tr("Share of encoder layers whose activations are recomputed in the backward pass: less memory, more time"));
  form->addRow(tr("Epochs"), epochs_);
  form->addRow(tr("Learning rate"), lr_);
  form->addRow(tr("Batch size"), batch_);
  form->addRow(tr("Early-stopping patience"), patience_);
  form->addRow(tr("Snapshots"), snapshots_);
  form->addRow(tr("Device"), device_);
  form->addRow(tr("Precision"), precision_);
  form->addRow(tr("Checkpoint ratio"), ratio_);
  return group(tr("Optimisation"), form);
}

QWidget* TrainForm::buildMemoryBox() {
  auto* form = new QFormLayout;
  fit_ = new QCheckBox(tr("Fit to a memory budget"));
  fit_->setToolTip(
      tr("Probe a few steps first, then choose the passes per batch and the checkpoint ratio that fit the "
         "budget in the least time (the batch the optimizer sees stays as set)"));
  budget_ = spin(16, 1 << 20, 1024);
  budget_->setSuffix(QStringLiteral(" MiB"));
  fit_precision_ = new QCheckBox(tr("may change the precision"));
  auto* row = new QHBoxLayout;
  row->addWidget(fit_);
  row->addWidget(budget_);
  row->addWidget(fit_precision_);
  form->addRow(row);
  return group(tr("Memory"), form);
}

void TrainForm::refreshModelControls() {
  const QString start = start_->currentData().toString();
  const bool fresh = start == QLatin1String("fresh");
  for (QWidget* w : {static_cast<QWidget*>(preset_), static_cast<QWidget*>(layers_), static_cast<QWidget*>(dim_),
                     static_cast<QWidget*>(heads_), static_cast<QWidget*>(ffn_)})
    w->setEnabled(fresh);
  open_model_->setEnabled(start == QLatin1String("opened"));
  mode_->setEnabled(!fresh);
  if (fresh) mode_->setCurrentIndex(0);
  freeze_->setEnabled(!fresh && mode_->currentData().toString() == QLatin1String("freeze"));
  rank_->setEnabled(!fresh && mode_->currentData().toString() == QLatin1String("lora"));
  model_label_->setText(start == QLatin1String("opened") ? (model_path_.isEmpty() ? tr("no model opened") : model_path_)
                                                         : QString());
}

void TrainForm::openFile() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Labelled molecules"), {}, labelledFileFilter());
  if (!path.isEmpty()) setInputFile(path);
}

void TrainForm::setInputFile(const QString& path, const QStringList& targets) {
  input_path_ = path;
  pending_targets_ = targets;
  file_label_->setText(tr("%1 (reading…)").arg(QFileInfo(path).fileName()));
  Q_EMIT inspectRequested(path, QString());
}

void TrainForm::setOpenedModel(const QString& path) {
  model_path_ = path;
  start_->setCurrentIndex(start_->findData(QStringLiteral("opened")));
  refreshModelControls();
}

void TrainForm::showPreview(const LabelledPreview& p) {
  if (!p.error.isEmpty()) {
    file_label_->setText(tr("%1: %2").arg(QFileInfo(p.path).fileName(), p.error));
    return;
  }
  file_label_->setText(QFileInfo(p.path).fileName());
  const QStringList checked = pending_targets_.isEmpty() ? request().targets : pending_targets_;
  pending_targets_.clear();
  smiles_column_->clear();
  smiles_column_->addItem(tr("(detected)"));
  smiles_column_->addItems(p.columns);
  smiles_column_->setCurrentIndex(std::max(0, smiles_column_->findText(p.smiles_column)));
  targets_->clear();
  for (int c = 0; c < p.columns.size(); ++c) {
    if (p.numeric[c] == 0) continue;
    auto* item = new QListWidgetItem(
        tr("%1 (%2 usable rows of %3 values)").arg(p.columns[c]).arg(p.usable[c]).arg(p.numeric[c]), targets_);
    item->setData(Qt::UserRole, p.columns[c]);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(checked.contains(p.columns[c]) ? Qt::Checked : Qt::Unchecked);
  }
  counts_->setText(
      tr("%1 rows; RDKit reads %2 of the molecules. A row is used when its molecule reads and at least one "
         "ticked target has a number.")
          .arg(p.total)
          .arg(p.parsed));
  preview_->clear();
  preview_->setColumnCount(p.columns.size());
  preview_->setHorizontalHeaderLabels(p.columns);
  preview_->setRowCount(static_cast<int>(p.rows.size()));
  for (int r = 0; r < static_cast<int>(p.rows.size()); ++r)
    for (int c = 0; c < p.rows[r].size() && c < p.columns.size(); ++c)
      preview_->setItem(r, c, new QTableWidgetItem(p.rows[r][c]));
}

QString TrainForm::smilesColumn() const {
  return smiles_column_->currentIndex() > 0 ? smiles_column_->currentText() : QString();
}

void TrainForm::setTargets(const QStringList& targets) {
  for (int i = 0; i < targets_->count(); ++i) {
    auto* item = targets_->item(i);
    item->setCheckState(targets.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
  }
}

TrainRequest TrainForm::request() const {
  TrainRequest r;
  r.input = input_path_;
  r.smiles_column = smilesColumn();
  for (int i = 0; i < targets_->count(); ++i)
    if (targets_->item(i)->checkState() == Qt::Checked) r.targets << targets_->item(i)->data(Qt::UserRole).toString();
  const QStringList units = units_->text().split(QLatin1Char(','));
  if (!units_->text().trimmed().isEmpty())
    for (int j = 0; j < r.targets.size(); ++j) r.units << (j < units.size() ? units[j].trimmed() : QString());
  r.start = start_->currentData().toString();
  r.model_path = model_path_;
  r.preset = preset_->currentText();
  r.layers = layers_->value(), r.dim = dim_->value(), r.heads = heads_->value(), r.ffn = ffn_->value();
  r.mode = mode_->currentData().toString();
  r.freeze_layers = freeze_->value();
  r.lora_rank = rank_->value();
  r.split = split_->currentData().toString();
  r.valid_fraction = valid_->value(), r.test_fraction = test_->value(), r.calib_fraction = calib_->value();
  r.seed = seed_->value();
  r.epochs = epochs_->value(), r.batch_size = batch_->value(), r.patience = patience_->value();
  r.snapshots = snapshots_->value();
  r.learning_rate = lr_->text().toDouble();
  r.device = device_->currentText();
  r.precision = precision_->currentData(Qt::UserRole).toString();
  r.checkpoint_ratio = ratio_->value();
  r.memory_budget_mib = fit_->isChecked() ? budget_->value() : 0;
  r.fit_precision = fit_->isChecked() && fit_precision_->isChecked();
  return r;
}

}  // namespace gs::ui

namespace gs::ui {

void TrainForm::setRequest(const TrainRequest& r) {
  if (!r.input.isEmpty() && r.input == input_path_) setTargets(r.targets);
  units_->setText(r.units.join(QLatin1Char(',')));
  if (!r.model_path.isEmpty()) model_path_ = r.model_path;
  start_->setCurrentIndex(std::max(0, start_->findData(r.start)));
  preset_->setCurrentIndex(std::max(0, preset_->findText(r.preset)));
  layers_->setValue(r.layers), dim_->setValue(r.dim), heads_->setValue(r.heads), ffn_->setValue(r.ffn);
  mode_->setCurrentIndex(std::max(0, mode_->findData(r.mode)));
  freeze_->setValue(r.freeze_layers);
  rank_->setValue(r.lora_rank);
  split_->setCurrentIndex(std::max(0, split_->findData(r.split)));
  valid_->setValue(r.valid_fraction), test_->setValue(r.test_fraction), calib_->setValue(r.calib_fraction);
  seed_->setValue(r.seed);
  epochs_->setValue(r.epochs), batch_->setValue(r.batch_size), patience_->setValue(r.patience);
  snapshots_->setValue(r.snapshots);
  lr_->setText(QString::number(r.learning_rate, 'g', 10));
  device_->setCurrentIndex(std::max(0, device_->findText(r.device)));
  precision_->setCurrentIndex(std::max(0, precision_->findData(r.precision, Qt::UserRole)));
  ratio_->setValue(r.checkpoint_ratio);
  fit_->setChecked(r.memory_budget_mib > 0);
  if (r.memory_budget_mib > 0) budget_->setValue(static_cast<int>(r.memory_budget_mib));
  fit_precision_->setChecked(r.fit_precision);
  refreshModelControls();
}

}  // namespace gs::ui
