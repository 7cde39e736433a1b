#pragma once
// Which result rows the table shows: text in any column (name, SMILES, a kept input column), the
// status (all / predicted / not predicted) and a range of the first prediction, e.g. "gap between
// 2 and 3 eV". Sorts numerically through ResultsModel::SortRole.
#include <QSortFilterProxyModel>

#include <limits>

namespace gs::ui {

class ResultsFilter final : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  enum class StatusFilter { All, Predicted, NotPredicted };

  explicit ResultsFilter(QObject* parent = nullptr);
  void setStatusFilter(StatusFilter filter);
  // Rows whose first prediction lies in [low, high]; ±inf = open. Rows without a value are hidden
  // while a bound is set.
  void setValueRange(double low, double high);

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  StatusFilter status_ = StatusFilter::All;
  double low_ = -std::numeric_limits<double>::infinity(), high_ = std::numeric_limits<double>::infinity();
};

}  // namespace gs::ui
