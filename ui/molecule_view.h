#pragma once
// The selected molecule's RDKit depiction, painted from SVG with QSvgRenderer at the widget's
// size (sharp at any size), with its name and predictions underneath. With attributions it
// shows a diverging heatmap over the atoms (blue lowers, red raises the prediction), a colour
// scale with its values, and each atom's value when the mouse is over it.
#include <QWidget>

#include <utility>
#include <vector>

class QSvgRenderer;

namespace gs::ui {

class MoleculeView final : public QWidget {
  Q_OBJECT
 public:
  explicit MoleculeView(QWidget* parent = nullptr);
  ~MoleculeView() override;
  void setMolecule(const QString& smiles, const QString& caption);
  // Per-atom values in the SMILES' atom order (empty = plain depiction); `unit` labels the scale.
  void setAttributions(const std::vector<double>& values, const QString& unit);
  bool hasHeatmap() const { return !values_.empty(); }
  QByteArray svg() const { return svg_; }
  bool savePicture(const QString& path) const;  // .svg as drawn, else PNG (or by extension)

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  void redraw();
  QRect drawingRect() const;
  QString smiles_, caption_, unit_;
  std::vector<double> values_;
  std::vector<std::pair<double, double>> atom_xy_;
  double scale_ = 0;
  QByteArray svg_;
  QSvgRenderer* renderer_ = nullptr;
};

}  // namespace gs::ui
