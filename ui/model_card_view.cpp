#include "model_card_view.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include "common/resources.h"

namespace gs::ui {
namespace {

QString trustLine(const ModelCard& card) {
  if (!card.calibration_series.isEmpty())
    return ModelCardView::tr("<br>Trust: intervals calibrated on your series %1 (calibrate --series)")
        .arg(card.calibration_series.toHtmlEscaped());
  return ModelCardView::tr("<br>Trust: intervals calibrated on %1 held-out molecules").arg(card.calibration_molecules);
}

}  // namespace

ModelCardView::ModelCardView(QWidget* parent) : QGroupBox(tr("Model"), parent) {
  auto* layout = new QVBoxLayout(this);
  label_ = new QLabel(tr("Loading model..."));
  label_->setWordWrap(true);
  label_->setTextFormat(Qt::RichText);
  bundled_ = new QComboBox;
  bundled_->setObjectName(QStringLiteral("bundledModels"));
  bundled_->setToolTip(tr("The models that ship with the app: choose by what matters more, accuracy or speed"));
  for (const auto& m : bundledModels())
    bundled_->addItem(QString::fromStdString(m.name),
                      QStringList{QString::fromStdString(m.path), QString::fromStdString(m.summary)});
  bundled_->setCurrentIndex(-1);
  bundled_->setPlaceholderText(tr("Bundled model..."));
  tradeoff_ = new QLabel;
  tradeoff_->setObjectName(QStringLiteral("modelTradeoff"));
  tradeoff_->setWordWrap(true);
  connect(bundled_, qOverload<int>(&QComboBox::activated), this,
          [this](int index) { Q_EMIT bundledRequested(bundled_->itemText(index)); });
  auto* open = new QPushButton(tr("Open model..."));
  connect(open, &QPushButton::clicked, this, &ModelCardView::openRequested);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(bundled_, 1);
  buttons->addWidget(open);
  layout->addWidget(label_);
  layout->addLayout(buttons);
  layout->addWidget(tradeoff_);
}

QStringList ModelCardView::bundledNames() const {
  QStringList names;
  for (int i = 0; i < bundled_->count(); ++i) names << bundled_->itemText(i);
  return names;
}

void ModelCardView::selectBundled(const QString& model_path) {
  const QString dir = QFileInfo(model_path).absolutePath();
  for (int i = 0; i < bundled_->count(); ++i) {
    const QStringList data = bundled_->itemData(i).toStringList();
    if (QFileInfo(data.value(0)).absoluteFilePath() != dir) continue;
    bundled_->setCurrentIndex(i);
    tradeoff_->setText(QStringLiteral("<b>%1</b>: %2").arg(bundled_->itemText(i), data.value(1).toHtmlEscaped()));
    return;
  }
  bundled_->setCurrentIndex(-1);
  tradeoff_->setText(tr("Not a bundled model: the trade-off of its speed and accuracy is not known here (Compare tab)."));
}

void ModelCardView::showLoading(const QString& path) {
  label_->setText(path.isEmpty() ? tr("Loading the default model ...")
                                 : tr("Loading %1 ...").arg(path.toHtmlEscaped()));
  label_->setToolTip({});
}

void ModelCardView::showCard(const ModelCard& card) {
  QStringList targets;
  for (int j = 0; j < card.target_names.size(); ++j)
    targets << card.target_names[j] + (card.target_units.value(j).isEmpty()
                                           ? QString()
                                           : QStringLiteral(" (%1)").arg(card.target_units[j]));
  const QFileInfo file(card.path);
  label_->setText(tr("<b>%1</b><br>%2<br>Predicts: %3<br>%4 layers × %5 dims, %6 heads; %7 parameters")
                      .arg(file.dir().dirName() + QLatin1Char('/') + file.fileName(), card.description.toHtmlEscaped(),
                           targets.join(QStringLiteral(", ")).toHtmlEscaped())
                      .arg(card.layers)
                      .arg(card.embedding_dim)
                      .arg(card.heads)
                      .arg(QLocale().toString(card.parameters)) +
                  (card.trust_note.isEmpty()
                       ? trustLine(card)
                       : QStringLiteral("<br><i>%1</i>").arg(card.trust_note.toHtmlEscaped())));
  selectBundled(card.path);
  label_->setToolTip(tr("%1\nSHA-256 %2\nGraph index convention the model was trained with: %3")
                         .arg(card.path, card.sha256, card.convention) +
                     (card.notes.isEmpty() ? QString() : QStringLiteral("\n") + card.notes.join(QLatin1Char('\n'))));
}

void ModelCardView::showError(const QString& message) {
  label_->setText(tr("<b>No model loaded</b><br>%1").arg(message.toHtmlEscaped()));
}

}  // namespace gs::ui
