#include "predict_offer.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace gs::ui {

PredictOffer::PredictOffer(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("predictOffer"));
  setFrameShape(QFrame::StyledPanel);
  setStyleSheet(QStringLiteral("#predictOffer { background: palette(alternate-base); }"));
  text_ = new QLabel;
  text_->setWordWrap(true);
  predict_ = new QPushButton(tr("Predict"));
  auto* later = new QPushButton(tr("Not now"));
  later->setToolTip(tr("Keep the file open without predicting; Predict (Ctrl+Enter) runs it later."));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->addWidget(text_, 1);
  layout->addWidget(predict_);
  layout->addWidget(later);
  connect(predict_, &QPushButton::clicked, this, [this] {
    hide();
    Q_EMIT accepted();
  });
  connect(later, &QPushButton::clicked, this, &PredictOffer::dismiss);
  setReady(false);
  hide();
}

void PredictOffer::offer(const QString& file_name) {
  text_->setText(tr("Predict the molecules in <b>%1</b>?").arg(file_name.toHtmlEscaped()));
  setReady(ready_);
  show();
}

void PredictOffer::setReady(bool ready) {
  ready_ = ready;
  predict_->setEnabled(ready);
  predict_->setToolTip(ready ? tr("Run the loaded model on every molecule of the file, with the run settings below.")
                             : tr("Waiting for the model to load."));
}

}  // namespace gs::ui
