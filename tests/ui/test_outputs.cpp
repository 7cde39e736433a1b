// A model with several outputs in the app: a column with its unit per property, the value filter,
// the CSV export and the explanations each for the property chosen.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QTableView>

#include <algorithm>
#include <cmath>

#include "data/record_reader.h"
#include "results_model.h"
#include "ui_fixture.h"

namespace gs::ui {
namespace {

// The first value of `column` per data row of a CSV file, by row number.
std::map<int, double> csvColumn(const std::string& path, const std::string& column) {
  std::ifstream file(path);
  auto reader = data::makeReader(data::FileFormat::Csv, file);
  const auto columns = reader->columns();
  const auto at = std::find(columns.begin(), columns.end(), column) - columns.begin();
  const auto row_at = std::find(columns.begin(), columns.end(), "row") - columns.begin();
  std::map<int, double> out;
  data::RawRecord r;
  while (reader->next(r))
    if (static_cast<size_t>(at) < r.fields.size() && !r.fields[at].empty())
      out[std::stoi(r.fields[row_at])] = std::stod(r.fields[at]);
  return out;
}

TEST(SeveralOutputs, EachPropertyHasItsColumnFilterExportAndExplanation) {
  Window win(threeOutputModel());
  ASSERT_TRUE(win.run(nciLines(24, {{5, "C1CC"}})));
  const auto* m = win.w.resultsModel();
  ASSERT_EQ(m->numOutputs(), 3);
  const QStringList headers{"gap_ev (eV)", "dipole_debye (D)", "logp_xtb"};
  for (int j = 0; j < 3; ++j)
    EXPECT_EQ(m->headerData(ResultsModel::FixedColumnCount + j, Qt::Horizontal, Qt::DisplayRole).toString(),
              headers[j]);
  std::vector<std::vector<float>> by_output(3);
  for (const auto& r : m->rows())
    if (r.status.isOk()) {
      ASSERT_EQ(r.values.size(), 3u);
      for (int j = 0; j < 3; ++j) by_output[j].push_back(r.values[j]);
    }
  ASSERT_EQ(by_output[1].size(), 23u);

  // The range filter on the second property: rows by its values, not by the first property's.
  auto* which = win.w.findChild<QComboBox*>(QStringLiteral("valueOutput"));
  ASSERT_NE(which, nullptr);
  ASSERT_EQ(which->count(), 3);
  EXPECT_EQ(which->itemText(1), "dipole_debye (D)");
  which->setCurrentIndex(1);
  auto sorted = by_output[1];
  std::sort(sorted.begin(), sorted.end());
  ASSERT_LT(sorted[5] + 1e-4, sorted[16]) << "the model must spread these molecules for this test";
  auto* from = win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueFrom"));
  auto* to = win.w.findChild<QDoubleSpinBox*>(QStringLiteral("valueTo"));
  from->setValue(sorted[5]);
  to->setValue(sorted[16]);
  auto inRange = [&](int j) {
    return std::count_if(by_output[j].begin(), by_output[j].end(),
                         [&](float v) { return v >= from->value() && v <= to->value(); });
  };
  ASSERT_NE(inRange(1), inRange(0));  // the test tells the outputs apart
  EXPECT_EQ(win.w.table()->model()->rowCount(), inRange(1));
  which->setCurrentIndex(0);
  EXPECT_EQ(win.w.table()->model()->rowCount(), inRange(0));
  from->setValue(-1e9);  // "any"
  to->setValue(-1e9);
  EXPECT_EQ(win.w.table()->model()->rowCount(), 24);

  // The export: every property's column, each row's own values, the unreadable row kept.
  const auto path = (tempDir() / "three.csv").string();
  QString error;
  ASSERT_TRUE(win.w.exportCsv(QString::fromStdString(path), false, &error)) << error.toStdString();
  const QStringList names{"gap_ev", "dipole_debye", "logp_xtb"};
  for (int j = 0; j < 3; ++j) {
    const auto exported = csvColumn(path, names[j].toStdString());
    ASSERT_EQ(exported.size(), 23u) << j;
    EXPECT_EQ(exported.count(5), 0u) << "the unreadable row has no value";
    for (const auto& r : m->rows())
      if (r.status.isOk()) EXPECT_NEAR(exported.at(static_cast<int>(r.row)), r.values[j], 1e-3) << r.row;
  }

  // The same export as an SD file: a record per row, each property a data item where predicted.
  const auto sdf = (tempDir() / "three.sdf").string();
  ASSERT_TRUE(win.w.exportCsv(QString::fromStdString(sdf), false, &error)) << error.toStdString();
  std::ifstream sd(sdf);
  int records = 0, items = 0;
  for (std::string line; std::getline(sd, line);) {
    records += line == "$$$$";
    for (const auto& name : names) items += line == "> <" + name.toStdString() + ">";
  }
  EXPECT_EQ(records, 24);
  EXPECT_EQ(items, 3 * 23);

  // Explaining the third property: the explanation's prediction is that property's value.
  auto* output = win.w.findChild<QComboBox*>(QStringLiteral("explainOutput"));
  ASSERT_NE(output, nullptr);
  ASSERT_EQ(output->count(), 3);
  output->setCurrentIndex(2);
  win.w.table()->selectRow(0);
  win.w.explainSelected();
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::explanationCompleted));
  const auto atoms = (tempDir() / "three_atoms.csv").string();
  ASSERT_TRUE(win.w.exportAttributions(QString::fromStdString(atoms), &error)) << error.toStdString();
  const auto explained = csvColumn(atoms + ".molecules.csv", "prediction");
  ASSERT_EQ(explained.size(), 1u);
  EXPECT_NEAR(explained.begin()->second, m->rowAt(0).values[2], 1e-3);
  EXPECT_GT(std::fabs(explained.begin()->second - m->rowAt(0).values[0]), 1.0);
}

}  // namespace
}  // namespace gs::ui
