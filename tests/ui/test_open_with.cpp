// A file handed to the app from outside (a file manager's "Open with", `graphormer-studio FILE`):
// it is opened, the app offers to predict it and runs nothing until the user accepts.
#include <QPushButton>

#include "predict_offer.h"
#include "results_model.h"
#include "ui_fixture.h"

namespace gs::ui {
namespace {

QString writeSmi(const std::string& name, const QString& lines) {
  const auto path = tempDir() / name;
  std::ofstream(path) << lines.toStdString();
  return QString::fromStdString(path.string());
}

TEST(OpenWith, AFileFromOutsideIsOfferedAndPredictedOnlyWhenAccepted) {
  MainWindow w(tinyModel());  // the model loads on the worker thread; nothing has arrived yet
  const QString path = writeSmi("open_with.smi", nciLines(12));
  w.offerToPredict(path);
  PredictOffer* offer = w.predictOffer();
  EXPECT_FALSE(offer->isHidden());
  EXPECT_FALSE(offer->predictButton()->isEnabled()) << "Predict must wait for the model";
  if (!w.hasModel()) ASSERT_TRUE(waitFor(&w, &MainWindow::modelReady));
  EXPECT_TRUE(offer->predictButton()->isEnabled());
  EXPECT_EQ(w.resultsModel()->rowCount(), 0) << "nothing runs before the user accepts";
  QTimer::singleShot(0, offer->predictButton(), &QPushButton::click);
  ASSERT_TRUE(waitFor(&w, &MainWindow::runCompleted));
  EXPECT_TRUE(offer->isHidden());
  ASSERT_EQ(w.resultsModel()->rowCount(), 12);
  EXPECT_EQ(w.resultsModel()->rowAt(11).id, "mol12");
}

TEST(OpenWith, TheOfferGoesAwayWhenTheUserTurnsToOtherMolecules) {
  Window win;
  win.w.offerToPredict(writeSmi("open_with_2.smi", nciLines(3)));
  ASSERT_FALSE(win.w.predictOffer()->isHidden());
  win.w.input()->setPlainText(QStringLiteral("CCO ethanol\n"));  // typing replaces the file
  EXPECT_TRUE(win.w.predictOffer()->isHidden());
  win.w.offerToPredict(writeSmi("open_with_3.smi", nciLines(3)));
  win.w.setInputFile(QString::fromStdString((tempDir() / "open_with_2.smi").string()));  // another file
  EXPECT_TRUE(win.w.predictOffer()->isHidden());
}

}  // namespace
}  // namespace gs::ui
