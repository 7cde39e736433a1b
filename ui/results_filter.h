#pragma once
// Which result rows the table shows: text in any column (name, SMILES, a kept input column), the
// status (all / predicted / not predicted) and a range of one predicted property, e.g. "gap between
// 2 and 3 eV" or "log P at most 5". Sorts numerically through ResultsModel::SortRole.
#include <QSortFilterProxyModel>

#include <limits>

namespace gs::ui {

class ResultsFilter final : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  enum class StatusFilter { All, Predicted, NotPredicted };

  explicit ResultsFilter(QObject* parent = nullptr);
  void setStatusFilter(StatusFilter filter);
  // Rows whose prediction of output `output` lies in [low, high]; ±inf = open. Rows without that
  // value are hidden while a bound is set.
  void setValueRange(int output, double low, double high);

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  StatusFilter status_ = StatusFilter::All;
  int output_ = 0;
  double low_ = -std::numeric_limits<double>::infinity(), high_ = std::numeric_limits<double>::infinity();
};

}  // namespace gs::ui
