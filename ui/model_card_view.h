#pragma once
// The model card: which model is loaded (name, description, targets and units, size, index
// convention; path, SHA-256 and loading notes in the tooltip) with "Open model..." and
// "Default model" buttons.
#include <QGroupBox>

#include "model_session.h"

class QLabel;

namespace gs::ui {

class ModelCardView final : public QGroupBox {
  Q_OBJECT
 public:
  explicit ModelCardView(QWidget* parent = nullptr);

  void showLoading(const QString& path);  // "" = the bundled default model
  void showCard(const ModelCard& card);
  void showError(const QString& message);

 Q_SIGNALS:
  void openRequested();
  void defaultRequested();

 private:
  QLabel* label_ = nullptr;
};

}  // namespace gs::ui
