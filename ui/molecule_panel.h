#pragma once
// The right-hand panel of the Results tab: the selected molecule (MoleculeView), the Explain
// controls, the atom table of an explanation (atoms by the size of their contribution) and the
// picture / attribution export buttons. It shows what MainWindow gives it; the explanations
// themselves run in the worker.
#include <QWidget>

#include <memory>

#include "jobs/explain_job.h"
#include "save_guard.h"

class QComboBox;
class QSpinBox;
class QTableWidget;

namespace gs::ui {

class MoleculeView;

class MoleculePanel final : public QWidget {
  Q_OBJECT
 public:
  explicit MoleculePanel(QWidget* parent = nullptr);

  void showMolecule(const QString& smiles, const QString& caption);
  // The molecule's name: the default file name of a saved picture.
  void setName(const QString& name) { caption_name_ = name; }
  // The molecule as its input SMILES (the attributions' atom order) with the heatmap.
  void showExplanation(const jobs::ExplainedMolecule& explanation, const QString& caption, const QString& unit);

  engine::AttributionMethod method() const;
  int steps() const;
  engine::AttributionBaseline baseline() const;
  // The model output to explain (index), chosen among the model's properties (setOutputs).
  int output() const;
  void setOutputs(const QStringList& labels);
  MoleculeView* view() const { return view_; }
  QTableWidget* atomTable() const { return atoms_; }
  void setSaveGuard(std::shared_ptr<const SaveGuard> guard) { guard_ = std::move(guard); }

 Q_SIGNALS:
  void explainRequested();
  void exportAttributionsRequested(const QString& path);

 private:
  void buildAtomTable();  // the attribution table, linked both ways with the drawing
  MoleculeView* view_ = nullptr;
  QComboBox* method_ = nullptr;
  QSpinBox* steps_ = nullptr;
  QComboBox* baseline_ = nullptr;
  QComboBox* output_ = nullptr;
  QTableWidget* atoms_ = nullptr;
  std::shared_ptr<const SaveGuard> guard_ = std::make_shared<SaveGuard>();
  QString caption_name_;
};

}  // namespace gs::ui
