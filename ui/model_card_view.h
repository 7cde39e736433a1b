#pragma once
// The model card: which model is loaded (name, description, targets and units, size, index
// convention; path, SHA-256 and loading notes in the tooltip), the bundled models by name
// ("accurate", "fast") with the trade-off of the one chosen in words and numbers, and
// "Open model..." for any other file.
#include <QGroupBox>

#include "model_session.h"

class QComboBox;
class QLabel;

namespace gs::ui {

class ModelCardView final : public QGroupBox {
  Q_OBJECT
 public:
  explicit ModelCardView(QWidget* parent = nullptr);

  void showLoading(const QString& path);  // "" = the bundled default model
  void showCard(const ModelCard& card);
  void showError(const QString& message);
  // The bundled model names offered, in order (empty when none is installed).
  QStringList bundledNames() const;

 Q_SIGNALS:
  void openRequested();
  void bundledRequested(const QString& name);

 private:
  void selectBundled(const QString& model_path);  // the item of the bundled model at that path, or none
  QLabel* label_ = nullptr;
  QLabel* tradeoff_ = nullptr;
  QComboBox* bundled_ = nullptr;
};

}  // namespace gs::ui
