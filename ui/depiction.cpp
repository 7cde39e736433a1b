#include "depiction.h"

#include <QPainter>
#include <QSvgRenderer>

#include "chem/depict.h"

namespace gs::ui {

QPixmap depictionPixmap(const std::string& smiles, QSize size, double max_bond_length,
                        const std::vector<int>& highlight) {
  QPixmap pixmap(size);
  pixmap.fill(Qt::transparent);
  chem::DepictOptions o;
  o.width = size.width();
  o.height = size.height();
  o.max_bond_length = max_bond_length;
  o.highlight_atoms = highlight;
  const std::string svg = chem::depictSvg(smiles, o);
  if (!svg.empty()) {
    QSvgRenderer renderer(QByteArray::fromStdString(svg));
    QPainter painter(&pixmap);
    renderer.render(&painter);
  }
  return pixmap;
}

}  // namespace gs::ui
