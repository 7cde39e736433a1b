#pragma once
// The run settings: device (a local one, or "Server…": a graphormer-cli serve URL and API key),
// precision (unavailable ones greyed out with the reason), batch size,
// memory budget, threads, the checkpoint ratio of explanations, the confidence of the prediction
// intervals and salt stripping. Owns their QSettings keys.
#include <QGroupBox>

#include "run_settings.h"

class QFormLayout;
class QCheckBox;
class QComboBox;
class QPushButton;
class QLabel;
class QSlider;
class QSpinBox;

namespace gs::ui {

// Fills a precision box for `device` (unavailable precisions greyed out with the reason as tooltip),
// keeping the current choice when it is still there.
void fillPrecisions(QComboBox* box, const QString& device, bool training, int model_width = 0);

class SettingsPanel final : public QGroupBox {
  Q_OBJECT
 public:
  explicit SettingsPanel(QWidget* parent = nullptr);

  RunSettings settings() const;
  double checkpointRatio() const;  // 0..1, for explanations
  QString device() const;          // "cpu", "cuda:0", ... or kServerDevice
  // Asks for the server's URL and API key (remembered in QSettings); false when cancelled.
  bool editServer();
  void setServer(const ServerSettings& server);  // without asking (tests, saved settings)
  // The loaded model's width: precisions slower than FP32 for it are not offered (with the reason).
  void setModelWidth(int embedding_dim);
  bool setDevice(const QString& device);  // false when there is no such device
  // QSettings "run/..." keys.
  void restore();
  void save() const;
  // "FP32 · cpu · batch 32"; `non_default` says whether anything differs from the defaults a
  // result would be compared against (precision other than FP32, a memory budget): the app shows
  // it as a badge so a choice made once is never silently in force.
  QString summary(bool* non_default = nullptr) const;

 Q_SIGNALS:
  void changed();

 private:
  void refreshPrecisions();
  void deviceChanged();
  void setModeToolTips();                // precision, batch, threads, checkpoint ratio
  void addTrustRows(QFormLayout* form);  // interval confidence, salts

  QComboBox *device_ = nullptr, *precision_ = nullptr;
  QSpinBox *batch_ = nullptr, *threads_ = nullptr, *budget_ = nullptr;
  QSlider* checkpoint_ = nullptr;
  QSpinBox* confidence_ = nullptr;
  QCheckBox* strip_salts_ = nullptr;
  QPushButton* server_button_ = nullptr;
  ServerSettings server_;
  int model_width_ = 0;
  QString last_local_device_ = QStringLiteral("cpu");
};

}  // namespace gs::ui
