#include "molecule_view.h"

#include <QPainter>
#include <QSvgRenderer>

#include "chem/depict.h"

namespace gs::ui {

MoleculeView::MoleculeView(QWidget* parent) : QWidget(parent), renderer_(new QSvgRenderer(this)) {
  setMinimumSize(260, 220);
  setAutoFillBackground(true);
  QPalette p = palette();
  p.setColor(QPalette::Window, Qt::white);
  setPalette(p);
}

MoleculeView::~MoleculeView() = default;

void MoleculeView::setMolecule(const QString& smiles, const QString& caption) {
  smiles_ = smiles;
  caption_ = caption;
  redraw();
}

void MoleculeView::resizeEvent(QResizeEvent*) { redraw(); }

void MoleculeView::redraw() {
  chem::DepictOptions o;
  o.width = std::max(50, width());
  o.height = std::max(50, height() - 48);
  o.max_bond_length = 45;
  const std::string svg = smiles_.isEmpty() ? std::string() : chem::depictSvg(smiles_.toStdString(), o);
  renderer_->load(QByteArray::fromStdString(svg));
  update();
}

void MoleculeView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QRect drawing(0, 0, width(), height() - 48);
  if (renderer_->isValid()) {
    renderer_->render(&painter, drawing);
  } else {
    painter.setPen(QColor(0x88, 0x88, 0x88));
    painter.drawText(drawing, Qt::AlignCenter, smiles_.isEmpty() ? tr("Select a row to see its structure") : tr("No structure: the molecule could not be read"));
  }
  painter.setPen(palette().color(QPalette::WindowText));
  painter.drawText(QRect(8, height() - 46, width() - 16, 44), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, caption_);
}

}  // namespace gs::ui
