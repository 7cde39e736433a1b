#include "model_card_view.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace gs::ui {

ModelCardView::ModelCardView(QWidget* parent) : QGroupBox(tr("Model"), parent) {
  auto* layout = new QVBoxLayout(this);
  label_ = new QLabel(tr("Loading model..."));
  label_->setWordWrap(true);
  label_->setTextFormat(Qt::RichText);
  auto* open = new QPushButton(tr("Open model..."));
  connect(open, &QPushButton::clicked, this, &ModelCardView::openRequested);
  auto* bundled = new QPushButton(tr("Default model"));
  connect(bundled, &QPushButton::clicked, this, &ModelCardView::defaultRequested);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(bundled);
  layout->addWidget(label_);
  layout->addLayout(buttons);
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
                       ? tr("<br>Trust: intervals calibrated on %1 held-out molecules").arg(card.calibration_molecules)
                       : QStringLiteral("<br><i>%1</i>").arg(card.trust_note.toHtmlEscaped())));
  label_->setToolTip(tr("%1\nSHA-256 %2\nGraph index convention the model was trained with: %3")
                         .arg(card.path, card.sha256, card.convention) +
                     (card.notes.isEmpty() ? QString() : QStringLiteral("\n") + card.notes.join(QLatin1Char('\n'))));
}

void ModelCardView::showError(const QString& message) {
  label_->setText(tr("<b>No model loaded</b><br>%1").arg(message.toHtmlEscaped()));
}

}  // namespace gs::ui
