#include "input_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "examples.h"
#include "input_reader.h"
#include "predict_offer.h"
#include "save_guard.h"

namespace gs::ui {

InputPanel::InputPanel(std::shared_ptr<SaveGuard> guard, QWidget* parent)
    : QGroupBox(tr("Molecules"), parent), guard_(std::move(guard)) {
  auto* l = new QVBoxLayout(this);
  text_ = new QPlainTextEdit;
  text_->setPlaceholderText(
      tr("Paste SMILES here, one per line, optionally followed by a name:\n"
         "CC(=O)Oc1ccccc1C(=O)O aspirin\n\nor a block copied from a spreadsheet, or open / drop "
         "a .smi, .csv or .sdf file."));
  text_->setToolTip(
      tr("One molecule per line: SMILES, then optionally a name. A block copied from a spreadsheet "
         "(with its header row) works too: the SMILES column is found by its content."));
  text_->setMinimumWidth(220);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  connect(text_, &QPlainTextEdit::textChanged, this, [this] {
    if (!text_->toPlainText().isEmpty() && !path_.isEmpty()) {  // typing replaces the open file
      path_.clear();
      offer_->dismiss();
      showFile();
    }
  });
  file_label_ = new QLabel;
  file_label_->setWordWrap(true);
  file_label_->hide();
  offer_ = new PredictOffer;
  auto* open = new QPushButton(tr("Open file..."));
  open->setToolTip(tr("Open a molecule file: %1.").arg(moleculeFileTypes()));
  connect(open, &QPushButton::clicked, this, &InputPanel::openRequested);
  auto* examples = new QComboBox;
  examples->setToolTip(tr("Replace the input by a ready-made set of molecules (Edit > Undo brings yours back)."));
  examples->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  examples->setMinimumContentsLength(9);
  examples->addItem(tr("Examples..."));
  for (const auto& e : kExamples) examples->addItem(tr(e.name));
  connect(examples, &QComboBox::activated, this, [this, examples](int i) {
    if (i <= 0) return;
    setText(QString::fromUtf8(kExamples[i - 1].text));
    examples->setCurrentIndex(0);
  });
  auto* clear = new QPushButton(tr("Clear"));
  clear->setToolTip(tr("Empty the input and the results (Edit > Undo brings them back)."));
  connect(clear, &QPushButton::clicked, this, &InputPanel::clearInput);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(examples, 1);
  buttons->addWidget(clear);
  l->addWidget(text_, 1);
  l->addWidget(file_label_);
  l->addWidget(offer_);
  l->addLayout(buttons);
}

RunInput InputPanel::currentInput() const {
  RunInput in;
  in.path = path_;
  in.import = choice_;
  if (in.path.isEmpty()) in.text = text_->toPlainText();
  return in;
}

InputPanel::Snapshot InputPanel::snapshot() const { return {text_->toPlainText(), path_, choice_}; }

void InputPanel::restore(const Snapshot& s) {
  path_.clear();
  setEditorText(s.text);
  path_ = s.path;
  choice_ = s.choice;
  showFile();
}

bool InputPanel::setFile(const QString& path, bool ask) {
  ImportChoice choice = guessImport(path);
  if (ask && window()->isVisible() && needsImportDialog(path) && !askImport(window(), path, &choice)) return false;
  Q_EMIT aboutToReplace(tr("open file"));
  offer_->dismiss();
  guard_->addInput(path);
  setEditorText({});
  path_ = path;
  choice_ = choice;
  showFile();
  Q_EMIT replaced();
  return true;
}

void InputPanel::setText(const QString& text) {
  Q_EMIT aboutToReplace(tr("replace input"));
  path_.clear();
  choice_ = {};
  setEditorText(text);
  showFile();
  Q_EMIT replaced();
}

void InputPanel::clearInput() {
  if (isEmpty()) return;
  Q_EMIT aboutToReplace(tr("clear"));
  path_.clear();
  choice_ = {};
  setEditorText({});
  showFile();
  Q_EMIT replaced();
}

bool InputPanel::isEmpty() const { return path_.isEmpty() && text_->toPlainText().trimmed().isEmpty(); }

void InputPanel::setEditorText(const QString& text) {
  const QSignalBlocker block(text_);
  text_->setPlainText(text);
}

void InputPanel::showFile() {
  if (path_.isEmpty()) {
    file_label_->hide();
    text_->setPlaceholderText(tr("Paste SMILES here, one per line, optionally followed by a name."));
    return;
  }
  text_->setPlaceholderText(tr("Predicting from the file below; paste or type here to use text instead."));
  QString detail;
  if (!choice_.smiles_label.isEmpty()) detail = tr(" (SMILES from “%1”)").arg(choice_.smiles_label.toHtmlEscaped());
  file_label_->setText(tr("File: <b>%1</b>%2").arg(QFileInfo(path_).fileName().toHtmlEscaped(), detail));
  file_label_->show();
}

}  // namespace gs::ui
