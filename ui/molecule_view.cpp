#include "molecule_view.h"

#include <QFile>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgRenderer>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "chem/depict.h"

namespace gs::ui {
namespace {

constexpr int kCaption = 48;  // caption height at least (more for a long one: several properties)
constexpr int kCaptionFlags = Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap;
constexpr int kLegend = 34;  // colour scale height (heatmap only)

}  // namespace

MoleculeView::MoleculeView(QWidget* parent) : QWidget(parent), renderer_(new QSvgRenderer(this)) {
  setMinimumSize(260, 220);
  setAutoFillBackground(true);
  setMouseTracking(true);
  QPalette p = palette();
  p.setColor(QPalette::Window, Qt::white);
  setPalette(p);
}

MoleculeView::~MoleculeView() = default;

void MoleculeView::setMolecule(const QString& smiles, const QString& caption) {
  smiles_ = smiles;
  caption_ = caption;
  values_.clear();
  selected_atom_ = -1;
  redraw();
}

void MoleculeView::setAttributions(const std::vector<double>& values, const QString& unit) {
  values_ = values;
  unit_ = unit;
  redraw();
}

QRect MoleculeView::drawingRect() const {
  return QRect(0, 0, width(), height() - captionHeight() - (values_.empty() ? 0 : kLegend));
}

void MoleculeView::resizeEvent(QResizeEvent*) { redraw(); }

void MoleculeView::redraw() {
  chem::DepictOptions o;
  const QRect r = drawingRect();
  o.width = std::max(50, r.width());
  o.height = std::max(50, r.height());
  o.max_bond_length = 45;
  o.atom_numbers = atom_numbers_;
  atom_xy_.clear();
  scale_ = 0;
  std::string svg;
  if (!smiles_.isEmpty() && !values_.empty()) {
    auto heat = chem::depictHeatmapSvg(smiles_.toStdString(), values_, o);
    svg = heat.svg;
    atom_xy_ = heat.atom_xy;
    scale_ = heat.scale;
    if (svg.empty()) values_.clear();  // the values do not fit this molecule: plain drawing
  }
  if (svg.empty() && !smiles_.isEmpty()) svg = chem::depictSvg(smiles_.toStdString(), o);
  svg_ = QByteArray::fromStdString(svg);
  renderer_->load(svg_);
  update();
}

void MoleculeView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QRect drawing = drawingRect();
  if (renderer_->isValid()) {
    renderer_->render(&painter, drawing);
  } else {
    painter.setPen(QColor(0x88, 0x88, 0x88));
    painter.drawText(drawing, Qt::AlignCenter,
                     smiles_.isEmpty() ? tr("Select a row to see its structure")
                                       : tr("No structure: the molecule could not be read"));
  }
  if (!values_.empty()) {
    // Colour scale: -scale (blue) .. 0 (white) .. +scale (red), the same mapping as the depiction.
    const QRect bar(16, drawing.bottom() + 6, width() - 32, 12);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    g.setColorAt(0.0, QColor::fromRgbF(0.25, 0.5, 1.0));
    g.setColorAt(0.5, Qt::white);
    g.setColorAt(1.0, QColor::fromRgbF(1.0, 0.25, 0.25));
    painter.fillRect(bar, g);
    painter.setPen(QColor(0x60, 0x60, 0x60));
    painter.drawRect(bar);
    const QString u = unit_.isEmpty() ? QString() : QLatin1Char(' ') + unit_;
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    painter.setFont(f);
    const QRect labels(bar.left(), bar.bottom() + 1, bar.width(), 14);
    painter.drawText(labels, Qt::AlignLeft, QString::number(-scale_, 'g', 3) + u);
    painter.drawText(labels, Qt::AlignHCenter, tr("0  (blue lowers, red raises the prediction)"));
    painter.drawText(labels, Qt::AlignRight, QLatin1Char('+') + QString::number(scale_, 'g', 3) + u);
    painter.setFont(font());
  }
  if (selected_atom_ >= 0 && selected_atom_ < static_cast<int>(atom_xy_.size())) {  // the atom table's row
    painter.setPen(QPen(QColor(0x20, 0x20, 0x20), 2.5));
    painter.setBrush(Qt::NoBrush);
    const auto& [x, y] = atom_xy_[static_cast<size_t>(selected_atom_)];
    painter.drawEllipse(QPointF(x, y), 14, 14);
  }
  painter.setPen(palette().color(QPalette::WindowText));
  const int caption = captionHeight();
  painter.drawText(QRect(8, height() - caption + 2, width() - 16, caption - 4), kCaptionFlags, caption_);
}

// The caption's height wrapped to the width, between kCaption and half the view.
int MoleculeView::captionHeight() const {
  const QRect needed =
      fontMetrics().boundingRect(QRect(0, 0, std::max(1, width() - 16), 10000), kCaptionFlags, caption_);
  return std::clamp(needed.height() + 8, kCaption, std::max(kCaption, height() / 2));
}

int MoleculeView::atomAt(const QPointF& p) const {
  if (values_.empty() || atom_xy_.size() != values_.size()) return -1;
  // The SVG is rendered into drawingRect() at its own size, so its coordinates are widget pixels.
  int best = -1;
  double best_d = 18.0 * 18.0;
  for (size_t i = 0; i < atom_xy_.size(); ++i) {
    const double dx = atom_xy_[i].first - p.x(), dy = atom_xy_[i].second - p.y();
    if (dx * dx + dy * dy < best_d) best_d = dx * dx + dy * dy, best = static_cast<int>(i);
  }
  return best;
}

void MoleculeView::mouseMoveEvent(QMouseEvent* event) {
  const int best = atomAt(event->position());
  if (best >= 0)
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("atom %1: %2%3")
                           .arg(best + 1)
                           .arg(values_[static_cast<size_t>(best)], 0, 'g', 4)
                           .arg(unit_.isEmpty() ? QString() : QLatin1Char(' ') + unit_),
                       this);
  else
    QToolTip::hideText();
}

void MoleculeView::mousePressEvent(QMouseEvent* event) {
  const int atom = atomAt(event->position());
  if (atom < 0) return;
  setSelectedAtom(atom);
  Q_EMIT atomClicked(atom);
}

void MoleculeView::setAtomNumbers(bool on) {
  atom_numbers_ = on;
  redraw();
}

void MoleculeView::setSelectedAtom(int atom) {
  selected_atom_ = atom >= 0 && atom < static_cast<int>(atom_xy_.size()) ? atom : -1;
  update();
}

bool MoleculeView::savePicture(const QString& path) const {
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
    QFile f(path);
    return !svg_.isEmpty() && f.open(QIODevice::WriteOnly) && f.write(svg_) == svg_.size();
  }
  return const_cast<MoleculeView*>(this)->grab().save(path);
}

}  // namespace gs::ui
