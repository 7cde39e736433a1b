#include "molecule_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "molecule_view.h"
#include "structure_menu.h"

namespace gs::ui {

MoleculePanel::MoleculePanel(QWidget* parent) : QWidget(parent) {
  view_ = new MoleculeView;
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(view_, 3);
  auto* controls = new QHBoxLayout;
  auto* explain = new QPushButton(tr("Explain selected"));
  explain->setToolTip(
      tr("Atom attributions for the selected rows (Ctrl+E); precision and checkpoint ratio from Run settings"));
  connect(explain, &QPushButton::clicked, this, &MoleculePanel::explainRequested);
  method_ = new QComboBox;
  method_->addItem(tr("Integrated gradients"), QStringLiteral("ig"));
  method_->addItem(tr("Gradient × input"), QStringLiteral("gradxinput"));
  method_->addItem(tr("Attention rollout"), QStringLiteral("rollout"));
  baseline_ = new QComboBox;
  baseline_->setObjectName(QStringLiteral("explainBaseline"));
  baseline_->addItem(tr("vs average atom"), QStringLiteral("mean"));
  baseline_->addItem(tr("vs carbon"), QStringLiteral("carbon"));
  baseline_->addItem(tr("vs zero"), QStringLiteral("zero"));
  baseline_->setToolTip(
      tr("Integrated-gradients baseline: each atom replaced by the molecule's average atom; each "
         "heteroatom made a carbon in its place (carbons then get 0); or all-zero atoms"));
  connect(method_, &QComboBox::currentIndexChanged, this, [this] {
    const bool ig = method() == engine::AttributionMethod::IntegratedGradients;
    baseline_->setEnabled(ig);
    steps_->setEnabled(ig);
  });
  steps_ = new QSpinBox;
  steps_->setRange(3, 1024);
  steps_->setToolTip(
      tr("Integrated gradients: gradient evaluations per molecule on average, placed where the path is "
         "steep; a molecule stops once its attributions add up to within 0.1 % and leaves the rest to "
         "harder ones"));
  steps_->setValue(64);
  steps_->setPrefix(tr("steps "));
  output_ = new QComboBox;
  output_->setObjectName(QStringLiteral("explainOutput"));
  output_->setToolTip(tr("The predicted property whose atom contributions are computed"));
  output_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  output_->setMinimumContentsLength(10);
  // Three short rows, so that the panel stays narrow enough to show the molecule beside the table.
  controls->addWidget(explain);
  controls->addWidget(output_, 1);
  auto* how = new QHBoxLayout;
  how->addWidget(method_, 1);
  how->addWidget(baseline_, 1);
  auto* numbers = new QCheckBox(tr("Atom numbers"));
  numbers->setObjectName(QStringLiteral("atomNumbers"));
  numbers->setToolTip(tr("Number the atoms in the drawing (1-based, as in the attribution table)"));
  connect(numbers, &QCheckBox::toggled, view_, &MoleculeView::setAtomNumbers);
  auto* more = new QHBoxLayout;
  more->addWidget(steps_);
  more->addWidget(numbers);
  more->addStretch(1);
  l->addLayout(controls);
  l->addLayout(how);
  l->addLayout(more);
  buildAtomTable();
  l->addWidget(atoms_, 2);
  auto* files = new QHBoxLayout;
  auto* picture = new QPushButton(tr("Save picture..."));
  connect(picture, &QPushButton::clicked, this, [this] {
    const QString path =
        guard_->askSavePath(this, tr("Save picture"), pictureFileName(caption_name_, QStringLiteral("svg")),
                            tr("SVG (*.svg);;PNG (*.png)"));
    if (!path.isEmpty() && !view_->savePicture(path))
      QMessageBox::warning(this, tr("Save picture"), tr("Could not write %1").arg(path));
  });
  auto* csv = new QPushButton(tr("Export attributions..."));
  connect(csv, &QPushButton::clicked, this, [this] {
    const QString path = guard_->askSavePath(this, tr("Export attributions"), QStringLiteral("atoms.csv"),
                                             tr("CSV (*.csv)"), {QStringLiteral(".molecules.csv")});
    if (!path.isEmpty()) Q_EMIT exportAttributionsRequested(path);
  });
  files->addWidget(picture);
  files->addWidget(csv);
  l->addLayout(files);
}

void MoleculePanel::buildAtomTable() {
  atoms_ = new QTableWidget(0, 3);
  atoms_->setHorizontalHeaderLabels({tr("Atom"), tr("Element"), tr("Attribution")});
  atoms_->horizontalHeader()->setStretchLastSection(true);
  atoms_->verticalHeader()->hide();
  atoms_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  atoms_->setToolTip(
      tr("Atoms of the selected molecule by the size of their contribution; select a row to ring the atom "
         "in the drawing, click an atom to find its row"));
  atoms_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(atoms_, &QTableWidget::currentCellChanged, this, [this](int row) {
    const QTableWidgetItem* item = row >= 0 ? atoms_->item(row, 0) : nullptr;
    view_->setSelectedAtom(item ? item->data(Qt::UserRole).toInt() : -1);
  });
  connect(view_, &MoleculeView::atomClicked, this, [this](int atom) {
    for (int r = 0; r < atoms_->rowCount(); ++r)
      if (atoms_->item(r, 0) && atoms_->item(r, 0)->data(Qt::UserRole).toInt() == atom) atoms_->selectRow(r);
  });
}

// The combo boxes hold the engine's names ("ig", "carbon"), so these parse what they offer.
engine::AttributionMethod MoleculePanel::method() const {
  auto m = engine::parseAttributionMethod(method_->currentData().toString().toStdString());
  return m.isOk() ? m.value() : engine::AttributionMethod::IntegratedGradients;
}
int MoleculePanel::steps() const { return steps_->value(); }
engine::AttributionBaseline MoleculePanel::baseline() const {
  auto b = engine::parseBaseline(baseline_->currentData().toString().toStdString());
  return b.isOk() ? b.value() : engine::AttributionBaseline::MeanAtom;
}

int MoleculePanel::output() const { return std::max(0, output_->currentIndex()); }

void MoleculePanel::setOutputs(const QStringList& labels) {
  output_->clear();
  output_->addItems(labels);
  output_->setVisible(labels.size() > 1);  // one property: nothing to choose
}

void MoleculePanel::showMolecule(const QString& smiles, const QString& caption) {
  atoms_->setRowCount(0);
  view_->setMolecule(smiles, caption);
}

void MoleculePanel::showExplanation(const jobs::ExplainedMolecule& ex, const QString& caption, const QString& unit) {
  view_->setMolecule(QString::fromStdString(ex.input), caption);
  view_->setAttributions(ex.attributions, unit);
  std::vector<size_t> order(ex.attributions.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return std::abs(ex.attributions[a]) > std::abs(ex.attributions[b]); });
  atoms_->setRowCount(static_cast<int>(order.size()));
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    auto* value = new QTableWidgetItem(QString::number(ex.attributions[i], 'f', 4));
    value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    value->setForeground(ex.attributions[i] >= 0 ? QColor(0xB0, 0x20, 0x20) : QColor(0x20, 0x40, 0xB0));
    auto* atom = new QTableWidgetItem(QString::number(i + 1));  // 1-based, as drawn
    atom->setData(Qt::UserRole, static_cast<int>(i));
    atoms_->setItem(static_cast<int>(k), 0, atom);
    atoms_->setItem(static_cast<int>(k), 1, new QTableWidgetItem(QString::fromStdString(ex.elements[i])));
    atoms_->setItem(static_cast<int>(k), 2, value);
  }
}

}  // namespace gs::ui
