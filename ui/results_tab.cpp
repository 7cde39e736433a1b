#include "results_tab.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <limits>
#include <set>

#include "molecule_panel.h"
#include "results_filter.h"
#include "results_model.h"
#include "save_guard.h"
#include "structure_menu.h"
#include "trust_panel.h"

namespace gs::ui {

ResultsTab::ResultsTab(std::shared_ptr<SaveGuard> guard, QWidget* parent) : QSplitter(Qt::Horizontal, parent) {
  results_ = new ResultsModel(this);
  proxy_ = new ResultsFilter(this);
  proxy_->setSourceModel(results_);
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
  table_->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
  table_->horizontalHeader()->setToolTip(tr("Right-click to show or hide columns and switch to compact rows"));
  connect(table_->horizontalHeader(), &QWidget::customContextMenuRequested, this, &ResultsTab::showColumnMenu);
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QWidget::customContextMenuRequested, this, &ResultsTab::showRowMenu);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Filter rows (name, SMILES, status...)"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, this,
          [this](const QString& text) { refilter([&] { proxy_->setFilterFixedString(text); }); });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    if (filtering_) return;  // rows a filter hides stay chosen
    chosen_.clear();
    for (const auto& index : table_->selectionModel()->selectedRows()) chosen_.insert(proxy_->mapToSource(index).row());
  });
  molecule_ = new MoleculePanel;
  guard_ = guard;
  molecule_->setSaveGuard(std::move(guard));
  connect(molecule_, &MoleculePanel::explainRequested, this, &ResultsTab::explainRequested);
  connect(molecule_, &MoleculePanel::exportAttributionsRequested, this, &ResultsTab::exportAttributionsRequested);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { showSelected(); });

  auto* box = new QWidget;
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(buildFilterRow());
  layout->addWidget(table_);
  trust_ = new TrustPanel;
  side_ = new QTabWidget;
  side_->addTab(molecule_, tr("Molecule"));
  side_->addTab(trust_, tr("Trust"));
  side_->setTabToolTip(1, tr("How far to trust the selected prediction: its interval, applicability domain and the "
                             "nearest training molecules"));
  auto* side = new QScrollArea;  // the side panel scrolls rather than taking the table's width
  side->setWidget(side_);
  side->setWidgetResizable(true);
  side->setFrameShape(QFrame::NoFrame);
  addWidget(box);
  addWidget(side);
  setStretchFactor(0, 4);
  setStretchFactor(1, 1);
  setSizes({900, 440});  // the side panel wide enough for its explain controls and a drawing
}

void ResultsTab::setOutputs(const QStringList& names, const QStringList& units) {
  results_->setOutputs(names, units);
  names_ = names;
  units_ = units;
  QStringList labels;
  for (int j = 0; j < names.size(); ++j)
    labels << (units.value(j).isEmpty() ? names[j] : QStringLiteral("%1 (%2)").arg(names[j], units[j]));
  const QSignalBlocker quiet(value_output_);  // the range applies to the new model's outputs below
  value_output_->clear();
  value_output_->addItems(labels);
  molecule_->setOutputs(labels);
  trust_->setOutputs(labels);
  applyRange();
  sizeColumns();
}

void ResultsTab::setTrust(const std::vector<std::pair<double, double>>& label_range, const QString& note) {
  trust_->setModel(names_, units_, label_range, note);
}

void ResultsTab::setConfidence(double confidence) {
  results_->setConfidence(confidence);
  trust_->setConfidence(confidence);
}

void ResultsTab::setInput(const std::vector<predict::PredictedRow>& rows, const QStringList& columns) {
  // A re-run of the same molecules keeps the selection (and the row the panels show).
  bool same = !rows.empty() && rows.size() == results_->rows().size();
  for (size_t i = 0; same && i < rows.size(); ++i) same = rows[i].input == results_->rows()[i].input;
  std::set<int> selected;
  if (same)
    for (const auto& index : table_->selectionModel()->selectedRows())
      selected.insert(proxy_->mapToSource(index).row());
  const int current = same && table_->selectionModel()->currentIndex().isValid()
                          ? proxy_->mapToSource(table_->selectionModel()->currentIndex()).row()
                          : -1;
  results_->setInput(rows, columns);
  explanations_.clear();
  sizeColumns();
  for (int r : selected) {
    const QModelIndex index = proxy_->mapFromSource(results_->index(r, 0));
    if (index.isValid())
      table_->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
  }
  if (current >= 0)
    table_->selectionModel()->setCurrentIndex(proxy_->mapFromSource(results_->index(current, 0)),
                                              QItemSelectionModel::NoUpdate);
}

void ResultsTab::setResults(int first, const std::vector<predict::PredictedRow>& rows) {
  results_->setResults(first, rows);
  const QModelIndex current = table_->selectionModel()->currentIndex();
  if (first == 0 && !current.isValid())
    table_->selectRow(0);
  else if (current.isValid() && first <= proxy_->mapToSource(current).row())
    showSelected();
}

std::vector<int> ResultsTab::selectedRows() const {
  std::set<int> rows;
  for (const auto& index : table_->selectionModel()->selectedRows()) rows.insert(proxy_->mapToSource(index).row());
  if (rows.empty() && table_->selectionModel()->currentIndex().isValid())
    rows.insert(proxy_->mapToSource(table_->selectionModel()->currentIndex()).row());
  return {rows.begin(), rows.end()};
}

std::vector<int> ResultsTab::shownRows(bool selected_only) const {
  std::set<int> view_rows;
  if (selected_only) {
    for (const auto& index : table_->selectionModel()->selectedRows()) view_rows.insert(index.row());
  } else {
    for (int r = 0; r < proxy_->rowCount(); ++r) view_rows.insert(r);
  }
  std::vector<int> rows;
  for (int r : view_rows) rows.push_back(proxy_->mapToSource(proxy_->index(r, 0)).row());
  return rows;
}

void ResultsTab::setExplanations(const std::vector<int>& rows, const std::vector<jobs::ExplainedMolecule>& molecules) {
  // A molecule the user cancelled keeps the explanation it had (if any).
  for (size_t i = 0; i < molecules.size() && i < rows.size(); ++i)
    if (molecules[i].status.code() != StatusCode::Cancelled) explanations_[rows[i]] = molecules[i];
  showSelected();
}

std::vector<jobs::ExplainedMolecule> ResultsTab::explanations() const {
  std::vector<jobs::ExplainedMolecule> all;
  for (const auto& [row, e] : explanations_) all.push_back(e);
  return all;
}

void ResultsTab::showSelected() {
  const QModelIndex current = table_->selectionModel()->currentIndex();
  if (!current.isValid()) return;
  const int row = proxy_->mapToSource(current).row();
  const auto& r = results_->rowAt(row);
  molecule_->setName(QString::fromStdString(r.id));
  QString caption = QStringLiteral("%1  ").arg(QString::fromStdString(r.id));
  if (results_->isDone(row) && r.status.isOk()) {
    QStringList values;  // every property, name (unit) = value
    for (int j = 0; j < results_->numOutputs() && j < static_cast<int>(r.values.size()); ++j)
      values << QStringLiteral("%1 = %2")
                    .arg(results_->headerData(ResultsModel::FixedColumnCount + j, Qt::Horizontal, Qt::DisplayRole)
                             .toString())
                    .arg(r.values[static_cast<size_t>(j)], 0, 'f', 3);
    caption += values.join(QStringLiteral(" · "));
  } else if (results_->isDone(row)) {
    caption += QString::fromStdString(r.status.message());
  }
  if (results_->isDone(row))
    trust_->showRow(r);
  else
    trust_->clear(tr("Waiting for its batch."));
  auto e = explanations_.find(row);
  if (e == explanations_.end() || !e->second.status.isOk()) {
    molecule_->showMolecule(QString::fromStdString(r.canonical.empty() ? r.input : r.canonical), caption);
    return;
  }
  const auto& ex = e->second;
  caption += tr("| %1 attributions sum %2 (baseline %3)")
                 .arg(names_.value(ex.output))
                 .arg(ex.summary.sum, 0, 'f', 3)
                 .arg(ex.summary.baseline_prediction, 0, 'f', 3);
  molecule_->showExplanation(ex, caption, units_.value(ex.output));
}

void ResultsTab::sizeColumns() {
  auto* h = table_->horizontalHeader();
  const int widths[ResultsModel::FixedColumnCount] = {50, 120, ResultsModel::kThumbnail.width() + 8, 170, 170, 150, 55};
  for (int c = 0; c < ResultsModel::FixedColumnCount; ++c) h->resizeSection(c, widths[c]);
  for (int c = ResultsModel::FixedColumnCount; c < results_->columnCount(); ++c) h->resizeSection(c, 120);
  for (int j = 0; j < results_->numOutputs(); ++j) h->resizeSection(results_->intervalColumn(j), 170);
  if (results_->numOutputs() > 0) h->resizeSection(results_->domainColumn(), 95);
  // Shown in the order a chemist reads them: what it is, how far to trust it, the predictions, then the strings.
  std::vector<int> order{ResultsModel::RowColumn, ResultsModel::NameColumn, ResultsModel::StructureColumn};
  if (results_->numOutputs() > 0) order.push_back(results_->domainColumn());  // the mark beside the structure
  for (int c = ResultsModel::FixedColumnCount; c < results_->inputColumn(0); ++c)
    if (results_->numOutputs() == 0 || c != results_->domainColumn()) order.push_back(c);
  for (int c : {ResultsModel::StatusColumn, ResultsModel::AtomsColumn, ResultsModel::SmilesColumn,
                ResultsModel::CanonicalColumn})
    order.push_back(c);
  for (int c = results_->inputColumn(0); c < results_->columnCount(); ++c)
    order.push_back(c);  // the user's own columns last
  for (int visual = 0; visual < static_cast<int>(order.size()); ++visual)
    h->moveSection(h->visualIndex(order[visual]), visual);
  applyColumnChoices();
  applySort();  // a column named as when the app was closed (outputs arrive with the model)
}

void ResultsTab::saveLayout() const {
  QSettings s;
  const auto* h = table_->horizontalHeader();
  s.setValue(QStringLiteral("results/sortColumn"),
             results_->headerData(h->sortIndicatorSection(), Qt::Horizontal, Qt::DisplayRole).toString());
  s.setValue(QStringLiteral("results/sortOrder"), static_cast<int>(h->sortIndicatorOrder()));
  s.setValue(QStringLiteral("results/splitter"), saveState());
}

void ResultsTab::restoreLayout() {
  const QSettings s;
  restoreState(s.value(QStringLiteral("results/splitter")).toByteArray());
  sort_name_ = s.value(QStringLiteral("results/sortColumn")).toString();
  sort_order_ = static_cast<Qt::SortOrder>(s.value(QStringLiteral("results/sortOrder"), 0).toInt());
  applySort();
}

void ResultsTab::applySort() {
  for (int c = 0; c < results_->columnCount() && !sort_name_.isEmpty(); ++c)
    if (results_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == sort_name_) {
      table_->sortByColumn(c, sort_order_);
      return;
    }
}

void ResultsTab::applyColumnChoices() {
  const QSettings settings;
  const QStringList hidden = settings.value(QStringLiteral("results/hiddenColumns")).toStringList();
  for (int c = 0; c < results_->columnCount(); ++c)
    table_->setColumnHidden(c, hidden.contains(results_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString()));
  setCompactRows(settings.value(QStringLiteral("results/compact"), false).toBool());
}

void ResultsTab::setCompactRows(bool compact) {
  compact_ = compact;
  QSettings().setValue(QStringLiteral("results/compact"), compact);
  const QSize icon = compact ? QSize(48, 30) : ResultsModel::kThumbnail;
  table_->setIconSize(icon);
  table_->verticalHeader()->setDefaultSectionSize(icon.height() + 4);
  table_->horizontalHeader()->resizeSection(ResultsModel::StructureColumn, icon.width() + 8);
}

QHBoxLayout* ResultsTab::buildFilterRow() {
  auto* status = new QComboBox;
  status->setObjectName(QStringLiteral("statusFilter"));
  status->addItems({tr("All rows"), tr("Predicted"), tr("Not predicted")});
  status->setToolTip(
      tr("Show all rows, only those with a prediction, or only those that could not be predicted (and why)"));
  connect(status, &QComboBox::currentIndexChanged, this,
          [this](int i) { refilter([&] { proxy_->setStatusFilter(static_cast<ResultsFilter::StatusFilter>(i)); }); });
  auto bound = [this](const QString& name, const QString& tip) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setRange(-1e9, 1e9);
    box->setDecimals(6);
    box->setSpecialValueText(tr("any"));
    box->setValue(box->minimum());
    box->setToolTip(tip);
    connect(box, &QDoubleSpinBox::valueChanged, this, [this] { applyRange(); });
    return box;
  };
  low_ = bound(QStringLiteral("valueFrom"),
               tr("Show rows whose chosen property is at least this (\"any\": no lower bound)"));
  high_ =
      bound(QStringLiteral("valueTo"), tr("Show rows whose chosen property is at most this (\"any\": no upper bound)"));
  value_output_ = new QComboBox;
  value_output_->setObjectName(QStringLiteral("valueOutput"));
  value_output_->setToolTip(tr("The predicted property whose range the two boxes set"));
  value_output_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  value_output_->setMinimumContentsLength(10);
  connect(value_output_, &QComboBox::currentIndexChanged, this, [this] { applyRange(); });
  auto* row = new QHBoxLayout;
  row->addWidget(filter_, 3);
  row->addWidget(status, 1);
  row->addWidget(value_output_);
  row->addWidget(new QLabel(tr("from")));
  row->addWidget(low_, 1);
  row->addWidget(new QLabel(tr("to")));
  row->addWidget(high_, 1);
  return row;
}

void ResultsTab::applyRange() {
  const double inf = std::numeric_limits<double>::infinity();
  refilter([&] {
    proxy_->setValueRange(std::max(0, value_output_->currentIndex()),
                          low_->value() == low_->minimum() ? -inf : low_->value(),
                          high_->value() == high_->minimum() ? inf : high_->value());
  });
}

void ResultsTab::refilter(const std::function<void()>& change) {
  filtering_ = true;
  change();
  for (int r : chosen_) {  // the rows the user chose, as far as the filter shows them
    const QModelIndex index = proxy_->mapFromSource(results_->index(r, 0));
    if (index.isValid())
      table_->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
  }
  filtering_ = false;
}

void ResultsTab::showRowMenu(const QPoint& at) {
  const QModelIndex index = table_->indexAt(at);
  if (!index.isValid()) return;
  const auto& r = results_->rowAt(proxy_->mapToSource(index).row());
  QMenu menu(this);
  menu.setObjectName(QStringLiteral("rowMenu"));
  addStructureActions(&menu, this, QString::fromStdString(r.id), QString::fromStdString(r.input),
                      QString::fromStdString(r.canonical), guard_.get());
  menu.exec(table_->viewport()->mapToGlobal(at));
}

void ResultsTab::showColumnMenu(const QPoint& at) {
  QMenu menu(this);
  QSettings settings;
  QStringList hidden = settings.value(QStringLiteral("results/hiddenColumns")).toStringList();
  for (int c = 0; c < results_->columnCount(); ++c) {
    const QString name = results_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    QAction* a = menu.addAction(name);
    a->setCheckable(true);
    a->setChecked(!table_->isColumnHidden(c));
    connect(a, &QAction::toggled, this, [this, c, name](bool shown) {
      QSettings s;
      QStringList h = s.value(QStringLiteral("results/hiddenColumns")).toStringList();
      h.removeAll(name);
      if (!shown) h << name;
      s.setValue(QStringLiteral("results/hiddenColumns"), h);
      table_->setColumnHidden(c, !shown);
    });
  }
  menu.addSeparator();
  QAction* compact = menu.addAction(tr("Compact rows (small structures)"));
  compact->setCheckable(true);
  compact->setChecked(compact_);
  connect(compact, &QAction::toggled, this, &ResultsTab::setCompactRows);
  menu.exec(table_->horizontalHeader()->mapToGlobal(at));
}

bool ResultsTab::exportAttributions(const QString& path, QString* error) const {
  if (const QString why = guard_->problem(path, {QStringLiteral(".molecules.csv")}); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  const Status s = jobs::writeExplanations(path.toStdString(), explanations());
  if (!s.isOk() && error) *error = QString::fromStdString(s.toString());
  return s.isOk();
}

}  // namespace gs::ui
