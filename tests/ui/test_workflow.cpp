// The app as an everyday tool: imports that keep every column (semicolon CSV, SD data items, a
// block pasted from a spreadsheet) and round-trip to the export; a failed model load keeps the
// working model; replacing and clearing can be undone; quitting asks before unsaved results are
// lost; the layout restores and works at 1024x700; the Help menu.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStandardItemModel>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>

#include <algorithm>
#include <set>

#include "help.h"
#include "import_dialog.h"
#include "input_panel.h"
#include "memory_chart.h"
#include "molecule_view.h"
#include "results_model.h"
#include "settings_panel.h"
#include "structure_menu.h"
#include "tensor/precision.h"
#include "ui_fixture.h"

namespace gs::ui {
namespace {

QString writeFile(const std::string& name, const std::string& text) {
  const auto path = tempDir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return QString::fromStdString(path.string());
}

std::vector<std::vector<std::string>> readCsv(const QString& path) {
  std::ifstream in(path.toStdString());
  auto reader = data::makeReader(data::FileFormat::Csv, in, {});
  std::vector<std::vector<std::string>> rows{reader->columns()};
  data::RawRecord r;
  while (reader->next(r)) rows.push_back(r.fields);
  return rows;
}

int column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

// Answers the next modal dialog with `button` once it shows.
void answerNextDialog(QMessageBox::StandardButton button) {
  QTimer::singleShot(0, [button] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (box)
      box->button(button)->click();
    else
      answerNextDialog(button);
  });
}

// Settings of this test only (other test processes may run at the same time).
struct IsolatedSettings {
  IsolatedSettings() : name(QCoreApplication::applicationName()) {
    QCoreApplication::setApplicationName(name + QStringLiteral(" %1").arg(::getpid()));
    QSettings().clear();
  }
  ~IsolatedSettings() {
    QSettings().clear();
    QCoreApplication::setApplicationName(name);
  }
  QString name;
};

const std::string kSemicolonCsv =
    "Name;Structure;pIC50;Supplier\n"
    "aspirin;CC(=O)Oc1ccccc1C(=O)O;\"5,2\";Acme\n"
    "broken;C1CC;;Acme\n"
    "ethanol;CCO;4;\"Chem; Co\"\n";

TEST(ImportDialog, FindsTheSeparatorHeaderAndSmilesColumnAndWarnsAboutAWrongColumn) {
  ImportDialog dialog(writeFile("import.csv", kSemicolonCsv));
  EXPECT_TRUE(dialog.headerBox()->isChecked());
  EXPECT_EQ(dialog.smilesBox()->currentText(), "Structure") << "found by content, not by name";
  EXPECT_EQ(dialog.nameBox()->currentText(), "Name");
  ASSERT_EQ(dialog.preview()->columnCount(), 4);
  EXPECT_EQ(dialog.preview()->rowCount(), 3);
  EXPECT_EQ(dialog.preview()->horizontalHeaderItem(3)->text(), "Supplier");
  EXPECT_EQ(dialog.preview()->item(2, 3)->text(), "Chem; Co");
  EXPECT_TRUE(dialog.warning().isEmpty()) << dialog.warning().toStdString();
  dialog.smilesBox()->setCurrentIndex(3);  // Supplier
  EXPECT_TRUE(dialog.warning().contains(QLatin1String("does not look like SMILES"))) << dialog.warning().toStdString();
  dialog.smilesBox()->setCurrentIndex(1);
  const ImportChoice c = dialog.choice();
  EXPECT_EQ(c.smiles_column, "#1");
  EXPECT_EQ(c.id_column, "#0");
  EXPECT_TRUE(c.header);
  // A file without a header row: detected, and the columns are numbered.
  ImportDialog plain(writeFile("import_plain.csv", "CCO,ethanol\nc1ccccc1,benzene\n"));
  EXPECT_FALSE(plain.headerBox()->isChecked());
  EXPECT_EQ(plain.smilesBox()->currentIndex(), 0);
  EXPECT_EQ(plain.nameBox()->currentText(), "column 2");
}

TEST(Workflow, SemicolonCsvKeepsEveryColumnInTheTableAndTheExport) {
  Window win;
  win.w.setInputFile(writeFile("keep.csv", kSemicolonCsv));
  win.w.runPrediction();
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::runCompleted));
  const auto* m = win.w.resultsModel();
  ASSERT_EQ(m->rowCount(), 3);
  EXPECT_EQ(m->inputColumns(), (QStringList{"pIC50", "Supplier"}));
  EXPECT_EQ(m->rowAt(0).id, "aspirin");
  EXPECT_EQ(m->text(0, m->inputColumn(0)), "5,2");
  EXPECT_EQ(m->text(2, m->inputColumn(1)), "Chem; Co");
  EXPECT_EQ(m->headerData(m->inputColumn(1), Qt::Horizontal, Qt::DisplayRole).toString(), "Supplier");
  const QString out = QString::fromStdString((tempDir() / "keep_out.csv").string());
  QString error;
  ASSERT_TRUE(win.w.exportCsv(out, false, &error)) << error.toStdString();
  const auto rows = readCsv(out);
  ASSERT_EQ(rows.size(), 4u);
  const int pic50 = column(rows[0], "pIC50"), supplier = column(rows[0], "Supplier"),
            status = column(rows[0], "status");
  ASSERT_GT(pic50, status);
  EXPECT_EQ(supplier, pic50 + 1);
  EXPECT_EQ(rows[1][pic50], "5,2");
  EXPECT_EQ(rows[2][status], "syntax_error");
  EXPECT_EQ(rows[3][supplier], "Chem; Co");
  EXPECT_FALSE(win.w.hasUnsavedResults()) << "exported";
}

TEST(Workflow, SdDataItemsAreColumnsAndNamesCanComeFromAnItem) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_200.props.sdf");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t end = 0;
  for (int i = 0; i < 3; ++i) end = all.find("$$$$\n", end) + 5;
  const QString path = writeFile("keep.sdf", all.substr(0, end));
  ImportDialog dialog(path);
  ASSERT_TRUE(dialog.isSdf());
  ASSERT_GT(dialog.nameBox()->findText(QStringLiteral("ISM")), 0) << "the SD items are offered as names";
  Window win;
  win.w.setInputFile(path);
  win.w.runPrediction();
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::runCompleted));
  const auto* m = win.w.resultsModel();
  ASSERT_EQ(m->rowCount(), 3);
  const int k = static_cast<int>(m->inputColumns().indexOf(QStringLiteral("AMW")));
  ASSERT_GE(k, 0) << m->inputColumns().join(QLatin1Char(',')).toStdString();
  EXPECT_FALSE(m->text(0, m->inputColumn(k)).isEmpty());
  const QString out = QString::fromStdString((tempDir() / "keep_sdf_out.csv").string());
  ASSERT_TRUE(win.w.exportCsv(out, false));
  const auto rows = readCsv(out);
  EXPECT_EQ(rows[1][column(rows[0], "AMW")], m->text(0, m->inputColumn(k)).toStdString());
}

TEST(Workflow, ASpreadsheetBlockWithAHeaderIsReadByItsColumns) {
  Window win;
  ASSERT_TRUE(win.run(
      QStringLiteral("Compound\tpIC50\tSMILES\naspirin\t5.2\tCC(=O)Oc1ccccc1C(=O)O\nphenol\t4.1\tc1ccccc1O\n")));
  const auto* m = win.w.resultsModel();
  ASSERT_EQ(m->rowCount(), 2) << "the header is not a molecule";
  EXPECT_TRUE(m->rowAt(0).status.isOk()) << m->rowAt(0).status.toString();
  EXPECT_EQ(m->rowAt(1).input, "c1ccccc1O");
  EXPECT_EQ(m->inputColumns(), (QStringList{"Compound", "pIC50"}));
  EXPECT_EQ(m->text(1, m->inputColumn(1)), "4.1");
}

TEST(Workflow, AFailedModelLoadKeepsTheWorkingModel) {
  Window win;
  const QString good = win.w.modelPath();
  const QString broken = writeFile("broken.safetensors", "not a model");
  win.w.loadModel(broken);
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::modelReady));
  EXPECT_TRUE(win.w.hasModel());
  EXPECT_EQ(win.w.modelPath(), good) << "the broken path is not remembered";
  auto* message = win.w.findChild<QMessageBox*>(QStringLiteral("modelFailedMessage"));
  ASSERT_NE(message, nullptr);
  EXPECT_TRUE(message->text().contains(QLatin1String("Still using"))) << message->text().toStdString();
  message->close();
  ASSERT_TRUE(win.run(QStringLiteral("CCO ethanol\n")));
  EXPECT_TRUE(win.w.resultsModel()->rowAt(0).status.isOk());
}

TEST(Workflow, ClearAndReplaceCanBeUndoneWithTheirResults) {
  Window win;
  ASSERT_TRUE(win.run(nciLines(6)));
  const auto before = win.w.resultsModel()->rows();
  auto expectBack = [&] {
    EXPECT_EQ(win.w.input()->toPlainText(), nciLines(6));
    ASSERT_EQ(win.w.resultsModel()->rowCount(), 6);
    for (int r = 0; r < 6; ++r) {
      EXPECT_TRUE(win.w.resultsModel()->isDone(r));
      EXPECT_EQ(win.w.resultsModel()->rowAt(r).values, before[static_cast<size_t>(r)].values);
    }
  };
  // Opening a file replaces the pasted molecules and their results ...
  win.w.setInputFile(writeFile("replace.csv", kSemicolonCsv));
  EXPECT_EQ(win.w.resultsModel()->rowCount(), 0) << "the table belongs to the input it shows";
  EXPECT_TRUE(win.w.input()->toPlainText().isEmpty());
  ASSERT_TRUE(win.w.canUndo());
  win.w.undo();
  expectBack();
  EXPECT_TRUE(win.w.inputPanel()->filePath().isEmpty());
  // ... and so does Clear.
  win.w.inputPanel()->clearInput();
  EXPECT_EQ(win.w.resultsModel()->rowCount(), 0);
  EXPECT_TRUE(win.w.input()->toPlainText().isEmpty());
  win.w.undo();
  expectBack();
  EXPECT_FALSE(win.w.canUndo());
}

TEST(Workflow, QuittingWithUnsavedResultsAsksFirst) {
  IsolatedSettings isolated;
  Window win;
  win.w.show();
  ASSERT_TRUE(win.run(nciLines(3)));
  ASSERT_TRUE(win.w.hasUnsavedResults());
  answerNextDialog(QMessageBox::Cancel);
  EXPECT_FALSE(win.w.close()) << "Cancel keeps the window and its results";
  EXPECT_TRUE(win.w.isVisible());
  answerNextDialog(QMessageBox::Discard);
  EXPECT_TRUE(win.w.close());
}

TEST(Workflow, TheWindowIsUsableAt1024x700AndRestoresItsGeometry) {
  IsolatedSettings isolated;
  {
    Window win;
    win.w.show();
    win.w.resize(1024, 700);
    QApplication::processEvents();
    auto describe = [&win] {
      std::ostringstream out;
      for (QWidget* w : win.w.findChildren<QWidget*>())
        if (w->isVisible() && (w->minimumSizeHint().width() > 250 || w->minimumSizeHint().height() > 250))
          out << w->metaObject()->className() << " '" << w->objectName().toStdString() << "' min "
              << w->minimumSizeHint().width() << "x" << w->minimumSizeHint().height() << " size " << w->width() << "x"
              << w->height() << "\n";
      return out.str();
    };
    EXPECT_GE(win.w.table()->width(), win.w.width() / 2) << "the results get the space first\n" << describe();
    EXPECT_LE(win.w.width(), 1024) << describe();
    EXPECT_LE(win.w.height(), 700) << describe();
    EXPECT_GE(win.w.table()->height(), 250);
    // At 1440x900 the molecule panel beside the table fits its width: no sideways scrolling to
    // reach the explain controls or the end of the caption.
    win.w.resize(1440, 900);
    QApplication::processEvents();
    QScrollArea* side = nullptr;
    for (auto* area : win.w.findChildren<QScrollArea*>())
      if (area->isVisible() && area->widget() && area->widget()->findChild<QWidget*>(QStringLiteral("explainOutput")))
        side = area;
    ASSERT_NE(side, nullptr);
    EXPECT_LE(side->widget()->minimumSizeHint().width(), side->viewport()->width()) << describe();
    win.w.resize(1111, 777);
    win.w.table()->sortByColumn(win.w.resultsModel()->valueColumn(0), Qt::DescendingOrder);
    QApplication::processEvents();
    EXPECT_TRUE(win.w.close());
  }
  Window again;
  again.w.show();
  QApplication::processEvents();
  EXPECT_EQ(again.w.size(), QSize(1111, 777));
  const auto* header = again.w.table()->horizontalHeader();
  EXPECT_EQ(header->sortIndicatorSection(), again.w.resultsModel()->valueColumn(0))
      << "sorted by the prediction, as left";
  EXPECT_EQ(header->sortIndicatorOrder(), Qt::DescendingOrder);
}

TEST(Help, GuideModelCardAndAboutSayWhatTheyShould) {
  Window win;
  QAction* guide = nullptr;
  for (QAction* menu : win.w.menuBar()->actions())
    if (menu->text() == QLatin1String("&Help"))
      for (QAction* a : menu->menu()->actions())
        if (a->shortcut() == QKeySequence(QKeySequence::HelpContents)) guide = a;
  ASSERT_NE(guide, nullptr) << "F1 opens the guide";
  guide->trigger();
  auto* window = win.w.findChild<QWidget*>(QStringLiteral("guideWindow"));
  ASSERT_NE(window, nullptr);
  EXPECT_TRUE(window->findChild<QTextBrowser*>()->toPlainText().contains(QLatin1String("Domain")));
  ModelCard card;
  card.path = QString::fromStdString(std::string(GS_SOURCE_DIR) + "/resources/models/accurate/model.safetensors");
  EXPECT_TRUE(modelCardMarkdown(card).contains(QLatin1String("HOMO"))) << "the bundled MODEL.md";
  EXPECT_TRUE(aboutText(card).contains(QLatin1String("RDKit 20")));
}

}  // namespace
}  // namespace gs::ui

namespace gs::ui {
namespace {

TEST(Workflow, ANonDefaultPrecisionShowsABadgeAndTheRunSaysWhatProducedIt) {
  Window win;
  auto* badge = win.w.findChild<QLabel*>(QStringLiteral("settingsBadge"));
  ASSERT_NE(badge, nullptr);
  EXPECT_TRUE(badge->text().startsWith(QLatin1String("FP32"))) << badge->text().toStdString();
  EXPECT_FALSE(badge->styleSheet().contains(QLatin1String("background")));
  QComboBox* precision = nullptr;
  int bf16 = -1;
  for (QComboBox* box : win.w.settingsPanel()->findChildren<QComboBox*>())
    if (box->findData(QStringLiteral("bf16")) >= 0) precision = box, bf16 = box->findData(QStringLiteral("bf16"));
  ASSERT_NE(precision, nullptr);
  // The test model is narrow: INT8, slower than FP32 there, is not offered, and the item says why.
  auto* items = qobject_cast<QStandardItemModel*>(precision->model());
  ASSERT_NE(items, nullptr);
  const QStandardItem* int8 = items->item(precision->findData(QStringLiteral("int8")));
  ASSERT_NE(int8, nullptr);
  EXPECT_FALSE(int8->isEnabled());
  if (tensor::precisionAvailable(tensor::Precision::INT8, "cpu").isOk())
    EXPECT_TRUE(int8->toolTip().contains(QLatin1String("slower than fp32"))) << int8->toolTip().toStdString();
  precision->setCurrentIndex(bf16);
  EXPECT_TRUE(badge->text().startsWith(QLatin1String("BF16"))) << badge->text().toStdString();
  EXPECT_TRUE(badge->styleSheet().contains(QLatin1String("background"))) << "a non-default precision stands out";
  ASSERT_TRUE(win.run(QStringLiteral("CCO ethanol\n")));
  const auto* m = win.w.resultsModel();
  const QString tip = m->headerData(m->valueColumn(0), Qt::Horizontal, Qt::ToolTipRole).toString();
  EXPECT_TRUE(tip.contains(QLatin1String("BF16")) && tip.contains(QLatin1String("tiny.safetensors")))
      << tip.toStdString();
}

TEST(StructureMenu, CopiesPngSvgAndSmilesAndNamesFilesAfterTheMolecule) {
  std::unique_ptr<QMimeData> data(structureMimeData(QStringLiteral("c1ccccc1O"), 300, 200));
  EXPECT_TRUE(data->hasImage());
  EXPECT_TRUE(data->data(QStringLiteral("image/svg+xml")).startsWith("<?xml"));
  EXPECT_EQ(data->text(), "c1ccccc1O");
  EXPECT_EQ(qvariant_cast<QImage>(data->imageData()).size(), QSize(300, 200));
  EXPECT_EQ(pictureFileName(QStringLiteral("aspirin (form 2)"), QStringLiteral("svg")), "aspirin__form_2_.svg");
  EXPECT_EQ(pictureFileName(QString(), QStringLiteral("png")), "molecule.png");
}

TEST(Workflow, ACancelledExplanationKeepsWhatFinishedAndSaysHowMany) {
  Window win;
  ASSERT_TRUE(win.run(nciLines(40)));
  win.w.table()->selectRow(0);
  win.w.explainSelected();
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::explanationCompleted));
  ASSERT_EQ(win.w.explainedRows(), 1);
  EXPECT_TRUE(win.w.runMessage().startsWith(QLatin1String("Explained 1 of 1"))) << win.w.runMessage().toStdString();
  win.w.table()->selectAll();
  win.w.explainSelected();
  win.w.cancelRun();  // Escape at once: at most the molecules already started finish
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::explanationCompleted));
  const QString message = win.w.runMessage();
  EXPECT_TRUE(message.startsWith(QLatin1String("Cancelled: explained "))) << message.toStdString();
  EXPECT_TRUE(message.contains(QLatin1String(" of 40 "))) << message.toStdString();
  EXPECT_GE(win.w.explainedRows(), 1) << "the earlier explanation of row 1 is kept";
  EXPECT_LT(win.w.explainedRows(), 40);
}

TEST(Workflow, StatusAndValueFiltersAndTheSelectionSurvivesARerun) {
  Window win;
  ASSERT_TRUE(win.run(nciLines(20, {{3, "C1CC"}, {7, "not_smiles"}})));
  auto* view = win.w.table();
  auto* status = win.w.findChild<QComboBox*>(QStringLiteral("statusFilter"));
  ASSERT_NE(status, nullptr);
  status->setCurrentIndex(2);  // not predicted
  EXPECT_EQ(view->model()->rowCount(), 2);
  status->setCurrentIndex(1);  // predicted
  EXPECT_EQ(view->model()->rowCount(), 18);
  status->setCurrentIndex(0);
  // A row hidden by a filter is selected again when the filter shows it.
  view->selectRow(2);          // mol3, unreadable
  status->setCurrentIndex(1);  // predicted: mol3 hidden
  EXPECT_TRUE(view->selectionModel()->selectedRows().isEmpty());
  status->setCurrentIndex(0);
  ASSERT_EQ(view->selectionModel()->selectedRows().size(), 1);
  EXPECT_EQ(view->selectionModel()->selectedRows().front().row(), 2);
  view->clearSelection();
  // A value range: only rows whose prediction lies in it.
  const auto* m = win.w.resultsModel();
  std::vector<float> values;
  for (const auto& r : m->rows())
    if (r.status.isOk()) values.push_back(r.values[0]);
  std::sort(values.begin(), values.end());
  ASSERT_LT(values[5] + 1e-5, values[12]) << "the model must spread these molecules for this test";
  const double low = values[5], high = values[12];
  win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueFrom"))->setValue(low);
  win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueTo"))->setValue(high);
  int expected = 0;
  for (float v : values)
    expected += v >= win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueFrom"))->value() &&
                v <= win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueTo"))->value();
  EXPECT_EQ(view->model()->rowCount(), expected);
  EXPECT_GE(expected, 7);
  EXPECT_LT(expected, 18) << "the range hides rows";
  win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueFrom"))->setValue(-1e9);  // "any"
  win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueTo"))->setValue(-1e9);
  EXPECT_EQ(view->model()->rowCount(), 20);
  // Select two rows, run the same molecules again: still selected.
  view->selectRow(4);
  view->selectionModel()->select(view->model()->index(9, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
  win.w.runPrediction();
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::runCompleted));
  std::set<int> rows;
  for (const auto& index : view->selectionModel()->selectedRows()) rows.insert(index.row());
  EXPECT_EQ(rows, (std::set<int>{4, 9}));
}

TEST(Workflow, TheMemoryChartKeepsTheLastRunWholeOnItsOwnClock) {
  Window win;
  ASSERT_TRUE(win.run(nciLines(10)));
  MemoryChart* chart = win.w.chart();
  ASSERT_TRUE(chart->wholeRun()) << "the default view";
  EXPECT_LE(chart->shownSeconds(), 30.0) << "a short run fills the chart, not a two-minute window";
  chart->setWholeRun(false);
  EXPECT_GE(chart->shownSeconds(), 10.0);
  chart->setWholeRun(true);
  const QString png = QString::fromStdString((tempDir() / "chart.png").string());
  ASSERT_TRUE(chart->savePng(png));
  EXPECT_GT(QImage(png).height(), 100);
}

TEST(Workflow, AtomNumbersAndTheAttributionTableAndTheDrawingAreLinked) {
  Window win;
  ASSERT_TRUE(win.run(QStringLiteral("OCC ethanol\n")));
  win.w.table()->selectRow(0);
  win.w.explainSelected();
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::explanationCompleted));
  QTableWidget* atoms = win.w.atomTable();
  ASSERT_EQ(atoms->rowCount(), 3);
  MoleculeView* view = win.w.moleculeView();
  atoms->setCurrentCell(2, 0);
  const int atom = atoms->item(2, 0)->data(Qt::UserRole).toInt();
  EXPECT_EQ(view->selectedAtom(), atom) << "the table row rings its atom";
  EXPECT_EQ(atoms->item(2, 0)->text().toInt(), atom + 1) << "numbered from 1, as drawn";
  const QByteArray plain = view->svg();
  auto* numbers = win.w.findChild<QCheckBox*>(QStringLiteral("atomNumbers"));
  ASSERT_NE(numbers, nullptr);
  numbers->setChecked(true);
  EXPECT_NE(view->svg(), plain) << "atom numbers drawn";
}

}  // namespace
}  // namespace gs::ui
