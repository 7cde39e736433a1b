#pragma once
// The Results tab: the filterable, sortable results table beside the selected molecule: its
// depiction (with its atom attributions once explained) and, on the Trust tab, how far to trust
// its prediction. Holds the explanations by row.
#include <QSplitter>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "jobs/explain_job.h"
#include "predict/prediction_table.h"

class QComboBox;
class QLineEdit;
class QTabWidget;
class QDoubleSpinBox;
class QHBoxLayout;
class QTableView;

namespace gs::ui {

class MoleculePanel;
class ResultsFilter;
class ResultsModel;
class SaveGuard;
class TrustPanel;

class ResultsTab final : public QSplitter {
  Q_OBJECT
 public:
  explicit ResultsTab(std::shared_ptr<SaveGuard> guard, QWidget* parent = nullptr);

  ResultsModel* model() const { return results_; }
  QTableView* table() const { return table_; }
  MoleculePanel* moleculePanel() const { return molecule_; }
  TrustPanel* trustPanel() const { return trust_; }
  QTabWidget* sideTabs() const { return side_; }

  void setOutputs(const QStringList& names, const QStringList& units);
  // The model's training label range per output and why it has no trust data ("" = it has).
  void setTrust(const std::vector<std::pair<double, double>>& label_range, const QString& note);
  void setConfidence(double confidence);
  // Every input row, pending (clears the explanations), then results as they come.
  void setInput(const std::vector<predict::PredictedRow>& rows, const QStringList& columns = {});
  void setResults(int first, const std::vector<predict::PredictedRow>& rows);

  // Model rows: the selection (or the current row when nothing is selected), in row order.
  std::vector<int> selectedRows() const;
  // Model rows in the table's order (sorted and filtered as shown); only selected ones if asked.
  std::vector<int> shownRows(bool selected_only) const;

  void setExplanations(const std::vector<int>& rows, const std::vector<jobs::ExplainedMolecule>& molecules);
  int explainedRows() const { return static_cast<int>(explanations_.size()); }
  std::vector<jobs::ExplainedMolecule> explanations() const;
  // Writes the explanations (jobs::writeExplanations) unless the path or its side file is an input.
  bool exportAttributions(const QString& path, QString* error) const;
  void showSelected();

  // The sort column (by its name) and order, and the table/side-panel split, across restarts.
  void saveLayout() const;
  void restoreLayout();
  // Small structures and single-line rows, to see many rows at once (remembered).
  void setCompactRows(bool compact);
  bool compactRows() const { return compact_; }

 Q_SIGNALS:
  void explainRequested();
  void exportAttributionsRequested(const QString& path);

 private:
  void sizeColumns();
  void applyColumnChoices();  // hidden columns (by name) and row mode, as the user left them
  void applySort();
  void showColumnMenu(const QPoint& at);
  void showRowMenu(const QPoint& at);  // copy SMILES / molfile / picture, save the picture
  QHBoxLayout* buildFilterRow();       // text, status and value-range filters
  void applyRange();
  // Applies a filter change; the rows the user selected stay selected wherever the filter shows them.
  void refilter(const std::function<void()>& change);

  ResultsModel* results_ = nullptr;
  ResultsFilter* proxy_ = nullptr;
  QDoubleSpinBox *low_ = nullptr, *high_ = nullptr;
  QComboBox* value_output_ = nullptr;  // which output the range filters
  QTableView* table_ = nullptr;
  QLineEdit* filter_ = nullptr;
  MoleculePanel* molecule_ = nullptr;
  TrustPanel* trust_ = nullptr;
  QTabWidget* side_ = nullptr;
  QStringList names_, units_;
  std::map<int, jobs::ExplainedMolecule> explanations_;  // by model row
  std::shared_ptr<SaveGuard> guard_;
  bool compact_ = false;
  bool filtering_ = false;
  std::set<int> chosen_;  // source rows the user selected (kept while a filter hides them)
  QString sort_name_;     // restored sort column, applied once a column of that name exists
  Qt::SortOrder sort_order_ = Qt::AscendingOrder;
};

}  // namespace gs::ui
