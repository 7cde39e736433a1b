// The bundled models by name in the app: the model panel lists "accurate" and "fast" with the
// trade-off of the one loaded, choosing one loads it (and predictions use it), and the Compare
// tab's "Models" preset runs both on the current molecules with their difference in each unit.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "common/resources.h"
#include "compare_view.h"
#include "model_card_view.h"
#include "results_model.h"
#include "ui_fixture.h"

namespace gs::ui {
namespace {

TEST(BundledModels, ThePanelLoadsEachByNameAndCompareRunsBoth) {
  if (bundledModelPath("fast").empty() || bundledModelPath("accurate").empty())
    GTEST_SKIP() << "the bundled models are not installed";
  Window win(QString::fromStdString(defaultModelPath()));
  auto* combo = win.w.findChild<QComboBox*>(QStringLiteral("bundledModels"));
  auto* tradeoff = win.w.findChild<QLabel*>(QStringLiteral("modelTradeoff"));
  ASSERT_TRUE(combo && tradeoff);
  ASSERT_EQ(combo->findText(QStringLiteral("accurate")), 0) << "the default comes first";
  const int fast = combo->findText(QStringLiteral("fast"));
  ASSERT_GT(fast, 0);
  EXPECT_EQ(combo->currentText(), QStringLiteral("accurate")) << "the loaded bundled model is selected";
  EXPECT_TRUE(tradeoff->text().contains(QStringLiteral("accurate")));

  Q_EMIT combo->activated(fast);
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::modelReady));
  EXPECT_EQ(win.w.modelPath(), QStringLiteral("fast"));
  EXPECT_EQ(combo->currentText(), QStringLiteral("fast"));
  EXPECT_TRUE(tradeoff->text().contains(QStringLiteral("molecules/s"))) << tradeoff->text().toStdString();
  ASSERT_TRUE(win.run(nciLines(12)));
  EXPECT_TRUE(win.w.resultsModel()->rowAt(0).status.isOk());

  auto* preset = win.w.findChild<QPushButton*>(QStringLiteral("modelsPreset"));
  ASSERT_NE(preset, nullptr);
  preset->click();
  const QString modes = win.w.compareView()->findChild<QLineEdit*>()->text();
  EXPECT_EQ(modes, QStringLiteral("fp32@accurate,bf16@accurate,fp32@fast,bf16@fast"));
  CompareRequest request;
  request.modes = engine::parseModes(modes.toStdString(), 0).value();
  request.repeats = 1;
  win.w.runComparison(request);
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::comparisonCompleted));
  const auto& results = win.w.compareView()->results();
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) EXPECT_TRUE(r.status.isOk()) << r.status.toString();
  EXPECT_GT(results[0].mean_abs_delta, 0.0) << "accurate differs from the loaded fast model";
  EXPECT_LT(results[2].mean_abs_delta, 1e-6) << "fast in FP32 is the loaded model itself";
  EXPECT_EQ(results[0].output_mean_abs_delta.size(), 8u) << "a difference per property, each in its unit";
}

}  // namespace
}  // namespace gs::ui
