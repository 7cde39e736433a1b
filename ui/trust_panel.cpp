#include "trust_panel.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "depiction.h"

namespace gs::ui {
namespace {

QPixmap depiction(const std::string& smiles, QSize size, const std::vector<int>& highlight = {}) {
  return depictionPixmap(smiles, size, 22, highlight);
}

const char* bandColour(predict::DomainBand band) {
  return band == predict::DomainBand::In ? "#2e9e44" : band == predict::DomainBand::Borderline ? "#e8a202" : "#c62828";
}

QTableWidgetItem* number(double v, int digits = 3) {
  auto* item = new QTableWidgetItem(std::isnan(v) ? QString() : QString::number(v, 'f', digits));
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

IntervalAxis::IntervalAxis(QWidget* parent) : QWidget(parent) { setMinimumHeight(64); }

void IntervalAxis::setInterval(double value, double lower, double upper, std::pair<double, double> range,
                               const QString& unit) {
  set_ = true;
  value_ = value;
  lower_ = lower;
  upper_ = upper;
  range_ = range;
  unit_ = unit;
  update();
}

void IntervalAxis::clear() {
  set_ = false;
  update();
}

void IntervalAxis::paintEvent(QPaintEvent*) {
  if (!set_) return;
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const bool bounded = std::isfinite(lower_) && std::isfinite(upper_);
  double lo = std::min(range_.first, bounded ? lower_ : value_),
         hi = std::max(range_.second, bounded ? upper_ : value_);
  const double pad = 0.05 * std::max(hi - lo, 1e-9);
  lo -= pad;
  hi += pad;
  const int left = 10, right = width() - 10, y = 26;
  auto x = [&](double v) { return left + (right - left) * (v - lo) / (hi - lo); };
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0xDD, 0xDD, 0xDD));
  p.drawRect(QRectF(x(range_.first), y - 10, x(range_.second) - x(range_.first), 20));
  p.setBrush(QColor(0x1E, 0x6F, 0xC8, 0xA0));
  if (bounded) p.drawRect(QRectF(x(lower_), y - 5, x(upper_) - x(lower_), 10));
  p.setBrush(QColor(0x10, 0x30, 0x70));
  p.drawEllipse(QPointF(x(value_), y), 5, 5);
  p.setPen(QColor(0x55, 0x55, 0x55));
  p.drawLine(left, y + 14, right, y + 14);
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 0.85);
  p.setFont(f);
  for (double v : {range_.first, range_.second, value_}) {
    p.drawLine(QPointF(x(v), y + 11), QPointF(x(v), y + 17));
    const QString label = QString::number(v, 'f', 2);
    p.drawText(QRectF(x(v) - 40, y + 18, 80, 16), Qt::AlignCenter, label);
  }
  p.drawText(QRectF(left, 0, right - left, 14), Qt::AlignLeft,
             tr("training labels (grey), interval (blue) %1").arg(unit_));
}

TrustPanel::TrustPanel(QWidget* parent) : QWidget(parent) {
  auto* l = new QVBoxLayout(this);
  title_ = new QLabel;
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::RichText);
  axis_ = new IntervalAxis;
  structure_ = new QLabel;
  structure_->setAlignment(Qt::AlignCenter);
  structure_->setMinimumHeight(150);
  structure_->setToolTip(tr("Highlighted: atoms in a radius-1 or radius-2 environment that no training molecule has"));
  reasons_ = new QLabel;
  reasons_->setWordWrap(true);
  reasons_->setTextFormat(Qt::RichText);
  neighbours_ = new QTableWidget(0, 6);
  neighbours_->setObjectName(QStringLiteral("trustNeighbours"));
  neighbours_->setHorizontalHeaderLabels(
      {tr("Neighbour"), tr("Name"), tr("Tanimoto"), tr("Label"), tr("Model"), tr("Error")});
  neighbours_->horizontalHeader()->setStretchLastSection(true);
  neighbours_->verticalHeader()->hide();
  neighbours_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  neighbours_->setIconSize(QSize(120, 70));
  neighbours_->verticalHeader()->setDefaultSectionSize(74);
  for (int c = 0; c < 6; ++c) neighbours_->setColumnWidth(c, c == 0 ? 128 : c == 1 ? 64 : 62);
  neighbours_->setToolTip(
      tr("The most similar training molecules (Tanimoto on Morgan fingerprints), their labels, the "
         "model's prediction for them and its error there"));
  output_ = new QComboBox;
  output_->setObjectName(QStringLiteral("trustOutput"));
  output_->setToolTip(tr("The predicted property whose interval and neighbour values are shown"));
  connect(output_, &QComboBox::currentIndexChanged, this, [this] {
    if (shown_.status.isOk() && shown_.trust) showRow(shown_);
  });
  l->addWidget(output_);
  l->addWidget(title_);
  l->addWidget(axis_);
  l->addWidget(structure_, 2);
  l->addWidget(reasons_);
  l->addWidget(neighbours_, 3);
  clear(tr("Select a predicted molecule."));
}

void TrustPanel::setModel(const QStringList& names, const QStringList& units,
                          const std::vector<std::pair<double, double>>& range, const QString& trust_note) {
  names_ = names;
  units_ = units;
  range_ = range;
  trust_note_ = trust_note;
}

void TrustPanel::clear(const QString& message) {
  title_->setText(message.toHtmlEscaped());
  axis_->clear();
  structure_->clear();
  reasons_->clear();
  neighbours_->setRowCount(0);
}

void TrustPanel::setOutputs(const QStringList& labels) {
  const QSignalBlocker quiet(output_);
  output_->clear();
  output_->addItems(labels);
  output_->setVisible(labels.size() > 1);
  shown_ = {};
}

void TrustPanel::showRow(const predict::PredictedRow& row) {
  shown_ = row;
  if (!row.status.isOk()) return clear(tr("No prediction: %1").arg(QString::fromStdString(row.status.message())));
  if (!row.trust) return clear(trust_note_.isEmpty() ? tr("This prediction carries no trust data.") : trust_note_);
  const auto& t = *row.trust;
  const int j = std::clamp(output_->currentIndex(), 0, static_cast<int>(row.values.size()) - 1);
  const auto k = static_cast<size_t>(j);
  const QString unit = units_.value(j);
  const double half = (t.upper[k] - t.lower[k]) / 2;
  title_->setText(tr("<b>%1</b>: %2 = %3 ± %4 %5 (%6 % interval) &nbsp; <span style='color:%7'>&#9679; %8</span>")
                      .arg(QString::fromStdString(row.id).toHtmlEscaped(), names_.value(j))
                      .arg(row.values[k], 0, 'f', 3)
                      .arg(half, 0, 'f', 3)
                      .arg(unit)
                      .arg(confidence_ * 100, 0, 'f', 0)
                      .arg(QLatin1String(bandColour(t.outputBand(j))),
                           QString::fromUtf8(predict::domainBandName(t.outputBand(j)))));
  axis_->setInterval(row.values[k], t.lower[k], t.upper[k], k < range_.size() ? range_[k] : std::make_pair(0.0, 1.0),
                     unit);
  structure_->setPixmap(depiction(row.canonical, QSize(300, 150), t.unseen_atoms));
  QStringList reasons;
  if (t.outputBand(j) != t.band)
    reasons << tr("%1 alone is %2 (its own σ against the calibration molecules'); the molecule as a whole is %3")
                   .arg(names_.value(j), QString::fromUtf8(predict::domainBandName(t.outputBand(j))),
                        QString::fromUtf8(predict::domainBandName(t.band)))
                   .toHtmlEscaped();
  for (const auto& r : t.reasons) reasons << QString::fromStdString(r).toHtmlEscaped();
  reasons_->setText(reasons.isEmpty() ? tr("In the applicability domain: no reason for caution.")
                                      : QStringLiteral("&bull; ") + reasons.join(QStringLiteral("<br>&bull; ")));
  showNeighbours(t, k);
}

void TrustPanel::showNeighbours(const predict::TrustRow& t, size_t j) {
  neighbours_->setRowCount(static_cast<int>(t.neighbours.size()));
  for (size_t i = 0; i < t.neighbours.size(); ++i) {
    const auto& n = t.neighbours[i];
    const int r = static_cast<int>(i);
    auto* picture = new QTableWidgetItem;
    picture->setData(Qt::DecorationRole, depiction(n.smiles, QSize(120, 70)));
    picture->setToolTip(QString::fromStdString(n.smiles));
    neighbours_->setItem(r, 0, picture);
    neighbours_->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(n.id)));
    neighbours_->setItem(r, 2, number(n.similarity, 2));
    const double label = j < n.label.size() ? n.label[j] : std::nan(""),
                 pred = j < n.prediction.size() ? n.prediction[j] : std::nan("");
    neighbours_->setItem(r, 3, number(label));
    neighbours_->setItem(r, 4, number(pred));
    neighbours_->setItem(r, 5, number(pred - label));
  }
}

}  // namespace gs::ui
