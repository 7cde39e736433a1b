#pragma once
// The Trust panel of the Results tab: how far to trust the selected prediction. The interval
// drawn on a small axis against the range of the training labels; the molecule with the atoms in
// environments the model never saw highlighted; the domain band and every reason; and the five
// most similar training molecules as depictions with their similarity, label, the model's
// prediction for them and its error there.
#include <QWidget>

#include <utility>
#include <vector>

#include "predict/prediction_table.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace gs::ui {

// The interval on an axis spanning the training labels (grey band) and the interval itself.
class IntervalAxis final : public QWidget {
  Q_OBJECT
 public:
  explicit IntervalAxis(QWidget* parent = nullptr);
  // value, lower, upper in target units; range = the training labels' min and max.
  void setInterval(double value, double lower, double upper, std::pair<double, double> range, const QString& unit);
  void clear();
  QSize sizeHint() const override { return {320, 64}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  bool set_ = false;
  double value_ = 0, lower_ = 0, upper_ = 0;
  std::pair<double, double> range_{0, 1};
  QString unit_;
};

class TrustPanel final : public QWidget {
  Q_OBJECT
 public:
  explicit TrustPanel(QWidget* parent = nullptr);
  // What the model's outputs are called and its training label ranges (ModelCard).
  void setModel(const QStringList& names, const QStringList& units,
                const std::vector<std::pair<double, double>>& label_range, const QString& trust_note);
  void setConfidence(double confidence) { confidence_ = confidence; }
  // The properties to choose from (one label per output); the panel shows the chosen one's
  // interval and the neighbours' labels and predictions of it.
  void setOutputs(const QStringList& labels);
  void showRow(const predict::PredictedRow& row);
  void clear(const QString& message);
  QTableWidget* neighbourTable() const { return neighbours_; }
  QLabel* reasonsLabel() const { return reasons_; }

 private:
  QStringList names_, units_;
  std::vector<std::pair<double, double>> range_;
  QString trust_note_;
  double confidence_ = 0.9;
  QLabel *title_ = nullptr, *structure_ = nullptr, *reasons_ = nullptr;
  IntervalAxis* axis_ = nullptr;
  QTableWidget* neighbours_ = nullptr;
  QComboBox* output_ = nullptr;
  predict::PredictedRow shown_;  // redrawn when another output is chosen
  void showNeighbours(const predict::TrustRow& t, size_t j);
};

}  // namespace gs::ui
