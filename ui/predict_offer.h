#pragma once
// The bar that offers to predict a file opened from outside the app (a file manager's "Open
// with", or `graphormer-studio FILE`): "Predict the molecules in FILE? [Predict] [Not now]".
// Nothing runs until the user says so; the Predict button waits for the model to be loaded.
#include <QFrame>

class QLabel;
class QPushButton;

namespace gs::ui {

class PredictOffer final : public QFrame {
  Q_OBJECT
 public:
  explicit PredictOffer(QWidget* parent = nullptr);
  void offer(const QString& file_name);
  void dismiss() { hide(); }
  // Whether a model is loaded, so that Predict can run.
  void setReady(bool ready);
  QPushButton* predictButton() const { return predict_; }

 Q_SIGNALS:
  void accepted();

 private:
  QLabel* text_ = nullptr;
  QPushButton* predict_ = nullptr;
  bool ready_ = false;
};

}  // namespace gs::ui
