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
  // Atom numbers (1-based) drawn beside the atoms.
  void setAtomNumbers(bool on);
  // An atom of the heatmap ringed (0-based; -1 = none): the atom table's selected row.
  void setSelectedAtom(int atom);
  int selectedAtom() const { return selected_atom_; }
  QByteArray svg() const { return svg_; }
  bool savePicture(const QString& path) const;  // .svg as drawn, else PNG (or by extension)

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 Q_SIGNALS:
  void atomClicked(int atom);  // 0-based, on the heatmap

 private:
  int captionHeight() const;
  void redraw();
  QRect drawingRect() const;
  int atomAt(const QPointF& p) const;  // nearest heatmap atom within 18 px, else -1
  bool atom_numbers_ = false;
  int selected_atom_ = -1;
  QString smiles_, caption_, unit_;
  std::vector<double> values_;
  std::vector<std::pair<double, double>> atom_xy_;
  double scale_ = 0;
  QByteArray svg_;
  QSvgRenderer* renderer_ = nullptr;
};

}  // namespace gs::ui
