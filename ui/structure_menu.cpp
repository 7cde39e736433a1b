#include "structure_menu.h"

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QFile>
#include <QImage>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QSvgRenderer>

#include "chem/depict.h"
#include "save_guard.h"

namespace gs::ui {
namespace {

QByteArray svgFor(const QString& smiles, int width, int height) {
  chem::DepictOptions o;
  o.width = width;
  o.height = height;
  o.transparent_background = false;
  return QByteArray::fromStdString(chem::depictSvg(smiles.toStdString(), o));
}

QImage imageFor(const QByteArray& svg, int width, int height) {
  QImage image(width, height, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QSvgRenderer renderer(svg);
  QPainter painter(&image);
  renderer.render(&painter);
  return image;
}

void savePicture(QWidget* parent, const QString& name, const QString& smiles, SaveGuard* guard) {
  bool ok = false;
  const int width =
      QInputDialog::getInt(parent, QObject::tr("Picture size"), QObject::tr("Width in pixels (height is two thirds):"),
                           1200, 100, 8000, 100, &ok);
  if (!ok) return;
  const QString path =
      guard->askSavePath(parent, QObject::tr("Save picture"), pictureFileName(name, QStringLiteral("png")),
                         QObject::tr("PNG (*.png);;SVG (*.svg)"));
  if (path.isEmpty()) return;
  const int height = width * 2 / 3;
  const QByteArray svg = svgFor(smiles, width, height);
  QFile file(path);
  const bool written = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)
                           ? file.open(QIODevice::WriteOnly) && file.write(svg) == svg.size()
                           : imageFor(svg, width, height).save(path);
  if (!written) QMessageBox::warning(parent, QObject::tr("Save picture"), QObject::tr("Could not write %1").arg(path));
}

}  // namespace

QMimeData* structureMimeData(const QString& smiles, int width, int height) {
  auto* data = new QMimeData;
  const QByteArray svg = svgFor(smiles, width, height);
  data->setData(QStringLiteral("image/svg+xml"), svg);
  data->setImageData(imageFor(svg, width, height));
  data->setText(smiles);
  return data;
}

QString pictureFileName(const QString& name, const QString& suffix) {
  QString base = name.trimmed();
  for (QChar& c : base)
    if (!c.isLetterOrNumber() && c != QLatin1Char('-') && c != QLatin1Char('.')) c = QLatin1Char('_');
  if (base.isEmpty()) base = QStringLiteral("molecule");
  return base + QLatin1Char('.') + suffix;
}

void addStructureActions(QMenu* menu, QWidget* parent, const QString& name, const QString& smiles,
                         const QString& canonical, SaveGuard* guard) {
  const bool drawable = !canonical.isEmpty();
  menu->addAction(QObject::tr("Copy SMILES"), [smiles] { QApplication::clipboard()->setText(smiles); });
  menu->addAction(QObject::tr("Copy canonical SMILES"), [canonical] { QApplication::clipboard()->setText(canonical); })
      ->setEnabled(drawable);
  menu->addAction(QObject::tr("Copy molfile"),
                  [canonical, name] {
                    QApplication::clipboard()->setText(
                        QString::fromStdString(chem::molBlock2D(canonical.toStdString(), name.toStdString())));
                  })
      ->setEnabled(drawable);
  menu->addAction(QObject::tr("Copy picture (PNG and SVG)"),
                  [canonical] { QApplication::clipboard()->setMimeData(structureMimeData(canonical, 600, 400)); })
      ->setEnabled(drawable);
  menu->addAction(QObject::tr("Save picture…"),
                  [parent, name, canonical, guard] { savePicture(parent, name, canonical, guard); })
      ->setEnabled(drawable);
}

}  // namespace gs::ui
