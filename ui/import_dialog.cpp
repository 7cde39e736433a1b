#include "import_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "chem/column_guess.h"
#include "data/record_reader.h"
#include "input_reader.h"

namespace gs::ui {
namespace {

constexpr int kPreviewRows = 20;
constexpr double kSmilesShareWarning = 0.5;

data::FileFormat formatOf(const QString& path) {
  auto f = data::formatFromPath(path.toStdString());
  return f.isOk() ? f.value() : data::FileFormat::Smi;
}

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

bool needsImportDialog(const QString& path) { return data::formatInfo(formatOf(path)).import_dialog; }

ImportDialog::ImportDialog(const QString& path, QWidget* parent)
    : QDialog(parent), path_(path), sdf_(data::formatInfo(formatOf(path)).fields == data::FieldLayout::DataItems) {
  setObjectName(QStringLiteral("importDialog"));
  setWindowTitle(tr("Import %1").arg(QFileInfo(path).fileName()));
  auto* form = new QFormLayout;
  delimiter_ = new QComboBox;
  delimiter_->addItem(tr("Detect"), QString());
  delimiter_->addItem(tr("Comma ,"), QStringLiteral(","));
  delimiter_->addItem(tr("Semicolon ;"), QStringLiteral(";"));
  delimiter_->addItem(tr("Tab"), QStringLiteral("\t"));
  delimiter_->setToolTip(
      tr("How the values of a row are separated. Spreadsheets in many European locales save with semicolons."));
  header_ = new QCheckBox(tr("First row names the columns"));
  smiles_ = new QComboBox;
  smiles_->setToolTip(tr(
      "The column that holds the structures as SMILES. Chosen by content: the column most of whose cells read as molecules."));
  name_ = new QComboBox;
  name_->setToolTip(sdf_
                        ? tr("Where each molecule's name comes from: the record's title line or one of its data items.")
                        : tr("The column that names each molecule; row numbers when there is none."));
  if (!sdf_) {
    form->addRow(tr("Separator"), delimiter_);
    form->addRow(QString(), header_);
    form->addRow(tr("SMILES column"), smiles_);
  } else {
    delimiter_->hide();
    header_->hide();
    smiles_->hide();
  }
  form->addRow(tr("Names from"), name_);
  warning_ = new QLabel;
  warning_->setWordWrap(true);
  warning_->setStyleSheet(QStringLiteral("color: #B02020"));
  preview_ = new QTableWidget;
  preview_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  preview_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  auto* kept = new QLabel(tr("Every other column is kept: shown beside the predictions and written to the export."));
  kept->setWordWrap(true);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(warning_);
  layout->addWidget(preview_, 1);
  layout->addWidget(kept);
  layout->addWidget(buttons);
  resize(820, 520);
  reload();
  fillColumns(true);
  connect(delimiter_, &QComboBox::currentIndexChanged, this, [this] {
    reload();
    fillColumns(true);
  });
  connect(header_, &QCheckBox::toggled, this, [this] { fillColumns(false); });
  connect(smiles_, &QComboBox::currentIndexChanged, this, &ImportDialog::checkSmilesColumn);
}

char ImportDialog::currentDelimiter() const {
  const QString d = delimiter_->currentData().toString();
  return d.isEmpty() ? '\0' : d.at(0).toLatin1();
}

void ImportDialog::reload() {
  sample_.clear();
  names_.clear();
  QString error;
  sample_ = sampleRows(path_, currentDelimiter(), kPreviewRows + 1, sdf_ ? &names_ : nullptr, &error);
  if (!error.isEmpty()) warning_->setText(error);
}

void ImportDialog::fillColumns(bool detect) {
  const auto guess = chem::guessSmilesColumn(sample_);
  if (detect && !sdf_) header_->setChecked(sample_.size() > 1 && guess.first_row_is_header);
  const bool header = !sdf_ && header_->isChecked() && !sample_.empty();
  size_t width = sdf_ ? names_.size() : 0;
  for (const auto& row : sample_) width = std::max(width, row.size());
  if (!sdf_) {
    names_.clear();
    for (size_t c = 0; c < width; ++c)
      names_.push_back(header && c < sample_[0].size() && !sample_[0][c].empty() ? sample_[0][c]
                                                                                 : "column " + std::to_string(c + 1));
  }
  const QSignalBlocker block(smiles_);
  smiles_->clear();
  name_->clear();
  name_->addItem(sdf_ ? tr("(title line)") : tr("(row number)"), QString());
  for (size_t c = 0; c < names_.size(); ++c) {
    smiles_->addItem(fromStd(names_[c]), QStringLiteral("#%1").arg(c));
    name_->addItem(fromStd(names_[c]), sdf_ ? fromStd(names_[c]) : QStringLiteral("#%1").arg(c));
  }
  if (guess.column >= 0) smiles_->setCurrentIndex(guess.column);
  name_->setCurrentIndex(sdf_ ? 0 : guessNameColumn(names_, header, guess.column) + 1);
  preview_->clear();
  const size_t first = header ? 1 : 0;
  const size_t rows = sample_.size() > first ? std::min<size_t>(sample_.size() - first, kPreviewRows) : 0;
  preview_->setColumnCount(static_cast<int>(names_.size()));
  preview_->setRowCount(static_cast<int>(rows));
  QStringList labels;
  for (const auto& n : names_) labels << fromStd(n);
  preview_->setHorizontalHeaderLabels(labels);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < sample_[first + r].size(); ++c)
      preview_->setItem(static_cast<int>(r), static_cast<int>(c),
                        new QTableWidgetItem(fromStd(sample_[first + r][c]).section(QLatin1Char('\n'), 0, 0)));
  preview_->resizeColumnsToContents();
  for (int c = 0; c < preview_->columnCount(); ++c)
    preview_->setColumnWidth(c, std::min(preview_->columnWidth(c), 260));
  checkSmilesColumn();
}

void ImportDialog::checkSmilesColumn() {
  if (sdf_) {
    warning_->clear();
    return;
  }
  const int c = smiles_->currentIndex();
  const double share = chem::smilesShare(sample_, c, header_->isChecked() ? 1 : 0);
  if (c >= 0 && share < kSmilesShareWarning)
    warning_->setText(tr("Column “%1” does not look like SMILES: %2 % of its first cells read as molecules. "
                         "Pick the column that holds the structures.")
                          .arg(smiles_->currentText())
                          .arg(share * 100, 0, 'f', 0));
  else
    warning_->clear();
}

QString ImportDialog::warning() const { return warning_->text(); }

ImportChoice ImportDialog::choice() const {
  ImportChoice c;
  if (sdf_) {
    c.sdf_id_property = name_->currentData().toString();
    return c;
  }
  c.delimiter = delimiter_->currentData().toString();  // "" = detected again by the run, from the same first line
  c.header = header_->isChecked();
  c.smiles_column = smiles_->currentData().toString();
  c.smiles_label = smiles_->currentText();
  c.id_column = name_->currentData().toString();
  return c;
}

bool askImport(QWidget* parent, const QString& path, ImportChoice* choice) {
  ImportDialog dialog(path, parent);
  if (dialog.exec() != QDialog::Accepted) return false;
  *choice = dialog.choice();
  return true;
}

}  // namespace gs::ui
