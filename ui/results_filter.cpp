#include "results_filter.h"

#include <cmath>

#include "results_model.h"

namespace gs::ui {

ResultsFilter::ResultsFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(ResultsModel::SortRole);
  setFilterKeyColumn(-1);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void ResultsFilter::setStatusFilter(StatusFilter filter) {
  status_ = filter;
  invalidateFilter();
}

void ResultsFilter::setValueRange(int output, double low, double high) {
  output_ = std::max(0, output);
  low_ = low;
  high_ = high;
  invalidateFilter();
}

bool ResultsFilter::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  const auto* model = qobject_cast<const ResultsModel*>(sourceModel());
  if (model && status_ != StatusFilter::All) {
    const bool predicted = model->isDone(source_row) && model->rowAt(source_row).status.isOk();
    if (predicted != (status_ == StatusFilter::Predicted)) return false;
  }
  if (model && (std::isfinite(low_) || std::isfinite(high_))) {
    const auto& r = model->rowAt(source_row);
    const auto j = static_cast<size_t>(output_);
    if (!r.status.isOk() || j >= r.values.size() || !std::isfinite(r.values[j])) return false;
    if (r.values[j] < low_ || r.values[j] > high_) return false;
  }
  return QSortFilterProxyModel::filterAcceptsRow(source_row, source_parent);
}

}  // namespace gs::ui
