#include "settings_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>

namespace gs::ui {

SettingsPanel::SettingsPanel(QWidget* parent) : QGroupBox(tr("Run settings"), parent) {
  auto* form = new QFormLayout(this);
  device_ = new QComboBox;
  device_->setObjectName(QStringLiteral("device"));
  for (const QString& d : availableDevices()) device_->addItem(d, d);
  device_->addItem(tr("Server…"), kServerDevice);
  device_->setToolTip(
      tr("Where the model runs: this computer's CPU or GPU, or a prediction server (graphormer-cli serve) "
         "on the lab's GPU box"));
  precision_ = new QComboBox;
  server_button_ = new QPushButton;
  server_button_->setObjectName(QStringLiteral("server"));
  server_button_->setVisible(false);
  connect(server_button_, &QPushButton::clicked, this, [this] { editServer(); });
  connect(device_, &QComboBox::activated, this, [this] {
    if (device() == kServerDevice && !editServer())
      device_->setCurrentIndex(std::max(0, device_->findData(last_local_device_)));
  });
  connect(device_, &QComboBox::currentIndexChanged, this, [this] { deviceChanged(); });
  deviceChanged();
  connect(precision_, &QComboBox::currentIndexChanged, this, &SettingsPanel::changed);
  connect(device_, &QComboBox::currentIndexChanged, this, &SettingsPanel::changed);
  batch_ = new QSpinBox;
  batch_->setRange(1, 4096);
  batch_->setValue(32);
  budget_ = new QSpinBox;
  budget_->setRange(0, 1 << 20);
  budget_->setSuffix(tr(" MiB"));
  budget_->setSpecialValueText(tr("off (use batch size)"));
  budget_->setToolTip(
      tr("Size batches automatically so that each batch's peak tensor memory stays under this budget "
         "(a memory model fitted on a few measured probe batches; a molecule that alone exceeds it is "
         "reported). The batch size still caps the batches."));
  connect(batch_, &QSpinBox::valueChanged, this, &SettingsPanel::changed);
  connect(budget_, &QSpinBox::valueChanged, this, &SettingsPanel::changed);
  threads_ = new QSpinBox;
  threads_->setRange(0, QThread::idealThreadCount() * 2);
  threads_->setSpecialValueText(tr("automatic"));
  checkpoint_ = new QSlider(Qt::Horizontal);
  checkpoint_->setRange(0, 100);
  auto* note =
      new QLabel(tr("Applies to explanations (and fine-tuning), where gradients are computed: "
                    "less memory, more time. Plain prediction stores no activations, so it changes nothing there."));
  note->setWordWrap(true);
  note->setStyleSheet(QStringLiteral("color: #666; font-size: 9pt"));
  setModeToolTips();
  form->addRow(tr("Device"), device_);
  form->addRow(QString(), server_button_);
  form->addRow(tr("Precision"), precision_);
  form->addRow(tr("Batch size"), batch_);
  form->addRow(tr("Memory budget"), budget_);
  form->addRow(tr("Threads"), threads_);
  auto* value = new QLabel(tr("0.00"));
  connect(checkpoint_, &QSlider::valueChanged, value,
          [value](int v) { value->setText(QString::number(v / 100.0, 'f', 2)); });
  auto* row = new QHBoxLayout;
  row->addWidget(checkpoint_, 1);
  row->addWidget(value);
  form->addRow(tr("Checkpoint ratio"), row);
  form->addRow(note);
  addTrustRows(form);
}

void SettingsPanel::setModeToolTips() {
  precision_->setToolTip(
      tr("FP32: the reference numbers. BF16/FP16: the model's matrix products in half-size numbers, "
         "faster on processors made for them (BF16 on recent CPUs, FP16 on NVIDIA GPUs); BF16 also "
         "keeps its working values in half-size numbers (about half FP32's memory); last digits "
         "differ. INT8: the products in 8-bit integers, fastest for large models, slower than FP32 for "
         "small ones (then not offered). The Compare tab measures speed, memory and accuracy of each on "
         "your molecules."));
  batch_->setToolTip(
      tr("At most this many molecules run together; batches of large molecules are cut smaller so "
         "that a batch's work stays within a budget of atoms (large settings no longer pad big "
         "batches). Results do not depend on it beyond the last digits."));
  threads_->setToolTip(
      tr("CPU cores the model uses. Automatic uses all; fewer leaves the computer responsive for other work."));
  checkpoint_->setToolTip(
      tr("Share of layers whose activations are recomputed instead of stored during explanations and "
         "fine-tuning: less memory, more time. No effect on plain prediction."));
}

void SettingsPanel::addTrustRows(QFormLayout* form) {
  confidence_ = new QSpinBox;
  confidence_->setObjectName(QStringLiteral("confidence"));
  confidence_->setRange(50, 99);
  confidence_->setValue(90);
  confidence_->setSuffix(tr(" %"));
  confidence_->setToolTip(
      tr("Confidence of the prediction intervals: that share of molecules like the model's calibration "
         "molecules falls inside its interval (split-conformal; less where the domain mark is amber or red)"));
  strip_salts_ = new QCheckBox(tr("Predict the parent of salts and mixtures"));
  strip_salts_->setToolTip(
      tr("Keep the largest organic fragment and say what was removed. Off: the molecule is predicted as "
         "given and its domain mark says that the model never saw a multi-fragment input."));
  form->addRow(tr("Interval confidence"), confidence_);
  form->addRow(strip_salts_);
}

RunSettings SettingsPanel::settings() const {
  RunSettings s;
  s.device = device();
  s.server = server_;
  s.precision = precision_->currentData(Qt::UserRole).toString();
  s.batch_size = batch_->value();
  s.threads = threads_->value();
  s.memory_budget_mib = budget_->value();
  s.confidence = confidence_->value() / 100.0;
  s.strip_salts = strip_salts_->isChecked();
  return s;
}

double SettingsPanel::checkpointRatio() const { return checkpoint_->value() / 100.0; }
QString SettingsPanel::device() const { return device_->currentData().toString(); }

void SettingsPanel::deviceChanged() {
  const bool remote = device() == kServerDevice;
  if (!remote) last_local_device_ = device();
  server_button_->setVisible(remote);
  server_button_->setText(server_.url.isEmpty() ? tr("Set server…") : server_.url);
  server_button_->setToolTip(tr("Change the server's URL or API key"));
  refreshPrecisions();
  precision_->setEnabled(!remote);
  precision_->setToolTip(remote ? tr("The server's precision is set when it starts (graphormer-cli serve --precision)")
                                : QString());
  for (QWidget* w : std::initializer_list<QWidget*>{batch_, budget_, threads_})
    if (w) w->setEnabled(!remote);
}

bool SettingsPanel::editServer() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Prediction server"));
  auto* form = new QFormLayout(&dialog);
  auto* url = new QLineEdit(server_.url.isEmpty() ? QStringLiteral("http://127.0.0.1:8080") : server_.url);
  url->setObjectName(QStringLiteral("server_url"));
  auto* key = new QLineEdit(server_.api_key);
  key->setObjectName(QStringLiteral("server_key"));
  key->setEchoMode(QLineEdit::Password);
  key->setPlaceholderText(tr("none"));
  auto* note =
      new QLabel(tr("A server started with graphormer-cli serve (see SERVING.md). Use https:// through a TLS reverse "
                    "proxy when the server is not on this computer. The key is stored in this user's settings."));
  note->setWordWrap(true);
  form->addRow(tr("URL"), url);
  form->addRow(tr("API key"), key);
  form->addRow(note);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted || url->text().trimmed().isEmpty())
    return !server_.url.isEmpty() && device() == kServerDevice;
  server_ = {url->text().trimmed(), key->text().trimmed()};
  deviceChanged();
  return true;
}

bool SettingsPanel::setDevice(const QString& device) {
  const int at = device_->findData(device);
  if (at < 0) return false;
  device_->setCurrentIndex(at);
  return true;
}

void SettingsPanel::setServer(const ServerSettings& server) {
  server_ = server;
  deviceChanged();
}

void fillPrecisions(QComboBox* box, const QString& device, bool training, int model_width) {
  const QString current = box->currentData(Qt::UserRole).toString();
  auto* model = new QStandardItemModel(box);
  for (const auto& [name, reason] : precisionOptions(device, training, model_width)) {
    auto* item = new QStandardItem(name.toUpper());
    item->setData(name, Qt::UserRole);
    if (!reason.isEmpty()) {
      item->setEnabled(false);
      item->setToolTip(reason);
      item->setText(reason.contains(QStringLiteral("slower"))
                        ? QObject::tr("%1 (slower for this model)").arg(name.toUpper())
                        : QObject::tr("%1 (unavailable)").arg(name.toUpper()));
    }
    model->appendRow(item);
  }
  box->setModel(model);
  const int at = box->findData(current, Qt::UserRole);
  box->setCurrentIndex(at >= 0 && model->item(at)->isEnabled() ? at : 0);
}

void SettingsPanel::refreshPrecisions() {
  fillPrecisions(precision_, device() == kServerDevice ? QStringLiteral("cpu") : device(), false, model_width_);
}

void SettingsPanel::setModelWidth(int embedding_dim) {
  model_width_ = embedding_dim;
  refreshPrecisions();
}

void SettingsPanel::restore() {
  QSettings s;
  server_ = {s.value(QStringLiteral("run/server_url")).toString(),
             s.value(QStringLiteral("run/server_key")).toString()};
  const int device = device_->findData(s.value(QStringLiteral("run/device"), QStringLiteral("cpu")).toString());
  if (device >= 0 && (device_->itemData(device) != kServerDevice || !server_.url.isEmpty()))
    device_->setCurrentIndex(device);
  deviceChanged();
  const int precision =
      precision_->findData(s.value(QStringLiteral("run/precision"), QStringLiteral("fp32")), Qt::UserRole);
  if (precision >= 0) precision_->setCurrentIndex(precision);
  batch_->setValue(s.value(QStringLiteral("run/batch"), 32).toInt());
  budget_->setValue(s.value(QStringLiteral("run/budget_mib"), 0).toInt());
  threads_->setValue(s.value(QStringLiteral("run/threads"), 0).toInt());
  checkpoint_->setValue(s.value(QStringLiteral("run/checkpoint_percent"), 0).toInt());
  confidence_->setValue(s.value(QStringLiteral("run/confidence_percent"), 90).toInt());
  strip_salts_->setChecked(s.value(QStringLiteral("run/strip_salts"), false).toBool());
}

void SettingsPanel::save() const {
  QSettings s;
  s.setValue(QStringLiteral("run/device"), device());
  s.setValue(QStringLiteral("run/server_url"), server_.url);
  s.setValue(QStringLiteral("run/server_key"), server_.api_key);
  s.setValue(QStringLiteral("run/precision"), precision_->currentData(Qt::UserRole));
  s.setValue(QStringLiteral("run/batch"), batch_->value());
  s.setValue(QStringLiteral("run/budget_mib"), budget_->value());
  s.setValue(QStringLiteral("run/threads"), threads_->value());
  s.setValue(QStringLiteral("run/checkpoint_percent"), checkpoint_->value());
  s.setValue(QStringLiteral("run/confidence_percent"), confidence_->value());
  s.setValue(QStringLiteral("run/strip_salts"), strip_salts_->isChecked());
}

QString SettingsPanel::summary(bool* non_default) const {
  const RunSettings s = settings();
  if (non_default) *non_default = s.precision != QLatin1String("fp32") || s.memory_budget_mib > 0;
  QString text = QStringLiteral("%1 · %2 · batch %3")
                     .arg(s.precision.toUpper(), s.device == kServerDevice ? tr("server") : s.device)
                     .arg(s.batch_size);
  if (s.memory_budget_mib > 0) text += tr(" · budget %1 MiB").arg(s.memory_budget_mib);
  return text;
}

}  // namespace gs::ui
