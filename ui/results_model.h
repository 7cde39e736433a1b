#pragma once
// The results table: one row per input row, in input order, filled in as batches finish.
// Columns: row, name, depiction, SMILES, canonical SMILES, status (reason in the tooltip), atom
// count, one column per model output ("gap_ev (eV)"), one interval column per output ("value ±
// half-width" at the run's confidence), the applicability domain (green / amber / red mark,
// the reasons in the tooltip), then the user's other input columns (a measured value, a catalogue
// number) as read. Numeric columns sort numerically through Qt::UserRole. Values are shown with
// the digits their uncertainty supports (two significant digits of σ; 3 decimals without trust),
// the full value in the tooltip and the export.
#include <QAbstractTableModel>
#include <QHash>
#include <QPixmap>
#include <QStringList>

#include <vector>

#include "predict/prediction_table.h"

namespace gs::ui {

class ResultsModel final : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    RowColumn,
    NameColumn,
    StructureColumn,
    SmilesColumn,
    CanonicalColumn,
    StatusColumn,
    AtomsColumn,
    FixedColumnCount
  };
  static constexpr int SortRole = Qt::UserRole;
  static constexpr QSize kThumbnail{132, 84};

  explicit ResultsModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // Output columns: names and units from the model's metadata.
  void setOutputs(const QStringList& names, const QStringList& units);
  // The confidence the intervals were computed at (their header).
  void setConfidence(double confidence);
  int valueColumn(int j) const { return FixedColumnCount + j; }
  int intervalColumn(int j) const { return FixedColumnCount + numOutputs() + j; }
  int domainColumn() const { return FixedColumnCount + 2 * numOutputs(); }
  int inputColumn(int k) const { return FixedColumnCount + (numOutputs() > 0 ? 2 * numOutputs() + 1 : 0) + k; }
  // New input: rows are pending until setResults covers them; `columns` name the user's other
  // input columns whose values the rows' `fields` hold.
  void setInput(std::vector<predict::PredictedRow> rows, const QStringList& columns = {});
  const QStringList& inputColumns() const { return input_columns_; }
  // Which model and settings produced the values (the prediction columns' header tooltip).
  void setRunDescription(const QString& text) { run_description_ = text; }
  // Decimals shown for output j of a row (from its σ, else 3).
  static int decimalsFor(const predict::PredictedRow& r, int j);
  void setResults(int first, const std::vector<predict::PredictedRow>& rows);
  // Puts back a table as it was (Undo): rows, which of them were done, the input columns.
  void restore(std::vector<predict::PredictedRow> rows, std::vector<bool> done, const QStringList& columns);
  const std::vector<bool>& doneFlags() const { return done_; }
  void clear();

  int numOutputs() const { return static_cast<int>(output_names_.size()); }
  bool isDone(int row) const { return row >= 0 && row < static_cast<int>(done_.size()) && done_[row]; }
  const predict::PredictedRow& rowAt(int row) const { return rows_[static_cast<size_t>(row)]; }
  const std::vector<predict::PredictedRow>& rows() const { return rows_; }
  // Display text of a cell, as the table shows it (for TSV copy).
  QString text(int row, int column) const;
  // The header and `rows` (source rows, in the order given) as tab-separated text, depiction left out.
  QString toTsv(const std::vector<int>& rows) const;

 private:
  QPixmap thumbnail(int row) const;
  QString trustText(const predict::PredictedRow& r, int column) const;
  QVariant trustData(const predict::PredictedRow& r, int column, int role) const;

  std::vector<predict::PredictedRow> rows_;
  std::vector<bool> done_;
  QStringList output_names_, output_units_, input_columns_;
  QString run_description_;
  double confidence_ = 0.9;
  mutable QHash<int, QPixmap> thumbnails_;
};

}  // namespace gs::ui
