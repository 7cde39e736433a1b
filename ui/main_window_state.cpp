// MainWindow: what keeps the user's work — export and copy of the results, undo of replacing or
// clearing the input (with its results), the question before unsaved results are lost, and
// keeping the working model when another one fails to open.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTableView>

#include "main_window.h"
#include "model_card_view.h"
#include "predict_offer.h"
#include "results_model.h"
#include "results_tab.h"
#include "settings_panel.h"

namespace gs::ui {
namespace {}

QString MainWindow::runMessage() const { return rate_->text(); }

void MainWindow::updateBadge() {
  bool non_default = false;
  badge_->setText(settings_->summary(&non_default));
  badge_->setStyleSheet(
      non_default
          ? QStringLiteral("background: #F5C542; color: black; padding: 1px 6px; border-radius: 3px; font-weight: bold")
          : QStringLiteral("color: #555; padding: 1px 6px"));
}

void MainWindow::keepUndoStep(const QString& what) {
  if (input_panel_->isEmpty() && resultsModel()->rowCount() == 0) return;
  history_.keep(what, {input_panel_->snapshot(), resultsModel()->rows(), resultsModel()->doneFlags(),
                       resultsModel()->inputColumns()});
  undo_action_->setEnabled(true);
  undo_action_->setText(tr("&Undo %1").arg(what));
}

void MainWindow::onInputReplaced() {
  // The table always belongs to the input it shows: a run on the old input stops and its
  // remaining results are dropped.
  ++input_generation_;
  if (running_) cancelRun();
  results_tab_->setInput({});
  history_.saved();  // nothing of the new input is unsaved; what was there is one Undo away
}

void MainWindow::undo() {
  auto step = history_.undo();  // results brought back are as unsaved as they were
  if (!step) return;
  ++input_generation_;
  if (running_) cancelRun();
  input_panel_->restore(step->snapshot.input);
  resultsModel()->restore(std::move(step->snapshot.rows), std::move(step->snapshot.done), step->snapshot.columns);
  undo_action_->setEnabled(history_.canUndo());
  undo_action_->setText(history_.canUndo() ? tr("&Undo %1").arg(history_.nextUndo()) : tr("&Undo"));
  statusBar()->showMessage(tr("Undid %1").arg(step->what), 4000);
}

bool MainWindow::confirmDiscard() {
  if (!history_.unsaved() || resultsModel()->rowCount() == 0) return true;
  QMessageBox box(QMessageBox::Question, tr("Unsaved predictions"),
                  tr("%n predicted row(s) have not been exported. Export them before quitting?", nullptr,
                     resultsModel()->rowCount()),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("discardQuestion"));
  box.setDefaultButton(QMessageBox::Save);
  const int answer = box.exec();
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) {
    exportResults();
    return !history_.unsaved();
  }
  return true;
}

void MainWindow::onModelFailed(const QString& message) {
  const QString failed = loading_path_.isEmpty() ? tr("the bundled model") : loading_path_;
  if (!card_.path.isEmpty()) {  // keep the model that works
    has_model_ = true;
    model_card_->showCard(card_);
    run_->setEnabled(!running_ && !training_);
    input_panel_->offer()->setReady(true);
    loading_path_ = model_path_;
    const QString text =
        tr("Could not open %1: %2\nStill using %3.").arg(failed, message, QFileInfo(card_.path).fileName());
    statusBar()->showMessage(text.section(QLatin1Char('\n'), 0, 0), 10000);
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Model not opened"), text, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("modelFailedMessage"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    Q_EMIT modelReady(false);
    return;
  }
  if (!loading_path_.isEmpty() && !fell_back_) {  // a remembered model that no longer opens: the bundled one
    fell_back_ = true;
    statusBar()->showMessage(tr("Could not open %1 (%2); opening the bundled model instead.").arg(failed, message),
                             10000);
    loadModel({});
    return;
  }
  has_model_ = false;
  input_panel_->offer()->setReady(false);
  model_card_->showError(message);
  run_->setEnabled(false);
  Q_EMIT modelReady(false);
}

bool MainWindow::exportCsv(const QString& path, bool selection_only, QString* error) {
  if (const QString why = guard_->problem(path, {QStringLiteral(".json")}); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  // In the table's current order (sorted / filtered as shown).
  std::vector<predict::PredictedRow> rows;
  for (int r : results_tab_->shownRows(selection_only)) rows.push_back(resultsModel()->rowAt(r));
  bundle::ModelMetadata md;
  for (const auto& n : card_.target_names) md.target_names.push_back(n.toStdString());
  std::vector<std::string> columns;
  for (const auto& c : resultsModel()->inputColumns()) columns.push_back(c.toStdString());
  const Status s =
      predict::writePredictions(path.toStdString(), md, resultsModel()->numOutputs(), rows, last_run_, columns);
  if (!s.isOk() && error) *error = QString::fromStdString(s.toString());
  if (s.isOk() && !selection_only) history_.saved();
  return s.isOk();
}

void MainWindow::exportResults() {
  if (resultsModel()->rowCount() == 0) return;
  const bool selection =
      table()->selectionModel()->selectedRows().size() > 1 &&
      QMessageBox::question(this, tr("Export"), tr("Export only the selected rows?")) == QMessageBox::Yes;
  const QString path =
      guard_->askSavePath(this, tr("Export results"), QStringLiteral("predictions.csv"),
                          tr("CSV files (*.csv);;SD files: structures with every column as a data item (*.sdf)"),
                          {QStringLiteral(".json")});
  if (path.isEmpty()) return;
  QString error;
  if (!exportCsv(path, selection, &error))
    QMessageBox::warning(this, tr("Export failed"), error);
  else
    statusBar()->showMessage(tr("Wrote %1 and %1.json").arg(path), 5000);
}

void MainWindow::copySelection() {
  if (input()->hasFocus()) {
    input()->copy();
    return;
  }
  QApplication::clipboard()->setText(resultsModel()->toTsv(results_tab_->shownRows(true)));
}

void MainWindow::pasteInput() {
  if (!input_panel_->filePath().isEmpty()) input_panel_->setText({});
  input()->setFocus();
  input()->paste();
}

}  // namespace gs::ui
