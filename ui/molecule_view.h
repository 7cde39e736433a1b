#pragma once
// The selected molecule's RDKit depiction, painted from SVG with QSvgRenderer at the widget's
// size (sharp at any size), with its name and predictions underneath.
#include <QWidget>

class QSvgRenderer;

namespace gs::ui {

class MoleculeView final : public QWidget {
  Q_OBJECT
 public:
  explicit MoleculeView(QWidget* parent = nullptr);
  ~MoleculeView() override;
  void setMolecule(const QString& smiles, const QString& caption);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void redraw();
  QString smiles_, caption_;
  QSvgRenderer* renderer_ = nullptr;
};

}  // namespace gs::ui
