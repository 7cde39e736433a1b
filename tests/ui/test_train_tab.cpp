// The Train tab end to end with the real worker thread, RDKit and LibTorch: a small TPSA file from
// RDKit's NCI set trains a tiny model; Cancel mid-epoch then Resume ends with the weights of an
// uninterrupted run; "Use this model" predicts with it; the command line the app shows, run by
// graphormer-cli, reproduces the run.
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QProcess>
#include <QTableWidget>

#include "model/checkpoint.h"
#include "results_model.h"
#include "train_form.h"
#include "train_tab.h"
#include "train_view.h"
#include "ui/ui_fixture.h"

namespace gs::ui {
namespace {

// "smiles,name,tpsa" for the first n rows of RDKit's NCI TPSA file, with one unreadable SMILES and
// two rows without a value.
std::string tpsaCsv(int n) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv");
  const auto path = (tempDir() / "tpsa.csv").string();
  std::ofstream out(path);
  out << "smiles,name,tpsa\n";
  std::string line;
  for (int i = 1; i <= n && std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto comma = line.rfind(',');
    std::string smiles = line.substr(0, comma), value = line.substr(comma + 1);
    if (i == 7) smiles = "C1CC(";
    if (i == 11 || i == 12) value.clear();
    out << smiles << ",nci" << i << "," << value << "\n";
    ++i;
  }
  return path;
}

TrainRequest tinyRequest(const QString& input) {
  TrainRequest r;
  r.input = input;
  r.targets = {QStringLiteral("tpsa")};
  r.units = {QStringLiteral("Å²")};
  r.start = QStringLiteral("fresh");
  r.layers = 2, r.dim = 16, r.heads = 2, r.ffn = 16;
  r.epochs = 3, r.batch_size = 16, r.patience = 0, r.snapshots = 1;
  r.learning_rate = 2e-3;
  r.seed = 5;
  return r;
}

std::map<std::string, torch::Tensor> weights(const QString& dir) {
  auto ck = model::readCheckpoint(dir.toStdString() + "/model.safetensors");
  EXPECT_TRUE(ck.isOk()) << ck.status().toString();
  return ck.isOk() ? std::map<std::string, torch::Tensor>(ck->tensors.begin(), ck->tensors.end())
                   : std::map<std::string, torch::Tensor>{};
}

double largestDifference(const std::map<std::string, torch::Tensor>& a, const std::map<std::string, torch::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = a.empty() ? 1e9 : 0;
  for (const auto& [name, t] : a)
    worst = std::max(worst, b.count(name) ? (t - b.at(name)).abs().max().item<double>() : 1e9);
  return worst;
}

double modelValidMae(const TrainView* view) {
  const auto* t = view->maeTable();
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0) && t->item(r, 0)->text() == QStringLiteral("this model"))
      return t->item(r, 1)->data(Qt::UserRole).toDouble();
  return -1;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct StallClock {
  QElapsedTimer clock;
  qint64 last = -1, worst = 0;
  QTimer tick;
  StallClock() {
    QObject::connect(&tick, &QTimer::timeout, [this] {
      const qint64 now = clock.elapsed();
      if (last >= 0) worst = std::max(worst, now - last);
      last = now;
    });
    clock.start();
    tick.start(5);
  }
};

TEST(TrainTab, TrainsCancelsResumesPredictsAndItsCommandLineReproducesTheRun) {
  const QString csv = QString::fromStdString(tpsaCsv(300));
  Window win;
  auto* tab = win.w.trainTab();
  tab->setRunsDirectory(QString::fromStdString((tempDir() / "runs").string()));
  tab->form()->setInputFile(csv);
  LabelledPreview preview;
  QObject::connect(tab->worker(), &TrainWorker::inspected, [&](const LabelledPreview& p) { preview = p; });
  ASSERT_TRUE(waitFor(tab->worker(), &TrainWorker::inspected));
  EXPECT_EQ(preview.total, 300);
  EXPECT_EQ(preview.parsed, 299);
  ASSERT_EQ(preview.columns, (QStringList{"smiles", "name", "tpsa"}));
  EXPECT_EQ(preview.numeric[2], 298);
  EXPECT_EQ(preview.usable[2], 297);  // row 7's SMILES does not read
  tab->form()->setRequest(tinyRequest(csv));
  ASSERT_EQ(tab->form()->request().targets, QStringList{"tpsa"});

  StallClock stall;
  tab->startTraining();
  ASSERT_TRUE(tab->isTraining());
  ASSERT_TRUE(waitFor(tab, &TrainTab::trainingEnded));
  const QString full = tab->runDirectory();
  EXPECT_GT(tab->view()->lossPoints(), 3 * 15);  // 3 epochs of 15 steps (+ the snapshot cycle's)
  EXPECT_EQ(tab->view()->maePoints(), 3);
  EXPECT_GT(modelValidMae(tab->view()), 0.0);
  EXPECT_EQ(tab->view()->maeTable()->rowCount(), 4);  // mean, ridge, knn, this model
  const QString command = tab->view()->commandLine();
  EXPECT_TRUE(command.startsWith(QStringLiteral("graphormer-cli train --input "))) << command.toStdString();

  // Cancel in the middle of the second epoch (from the worker thread, so it lands on that step).
  auto cancel_at = QObject::connect(
      tab->worker(), &TrainWorker::stepDone, tab->worker(),
      [tab](const StepPoint& p) {
        if (p.step == 22) tab->worker()->cancel();
      },
      Qt::DirectConnection);
  tab->startTraining();
  ASSERT_TRUE(waitFor(tab, &TrainTab::trainingEnded));
  QObject::disconnect(cancel_at);
  const QString interrupted = tab->runDirectory();
  EXPECT_NE(interrupted, full);
  EXPECT_TRUE(fs::exists(interrupted.toStdString() + "/state.json"));
  tab->resumeTraining();
  ASSERT_TRUE(tab->isTraining());
  ASSERT_TRUE(waitFor(tab, &TrainTab::trainingEnded));
  stall.tick.stop();
  std::printf("[ figure ] worst UI event-loop stall during three training runs: %lld ms\n",
              static_cast<long long>(stall.worst));
  EXPECT_LT(stall.worst, 1000) << "the UI thread blocked";  // generous bound; the figure is reported
  EXPECT_LT(largestDifference(weights(full), weights(interrupted)), 1e-6) << "cancel + resume changed the result";

  // Use this model: predictions come from it, under its target name.
  Q_EMIT tab->useModel(full);
  ASSERT_TRUE(waitFor(&win.w, &MainWindow::modelReady));
  ASSERT_TRUE(win.run(QStringLiteral("c1ccccc1O phenol\nCC(=O)Nc1ccc(O)cc1 paracetamol\n")));
  const auto* m = win.w.resultsModel();
  ASSERT_EQ(m->rowCount(), 2);
  EXPECT_TRUE(m->rowAt(0).status.isOk());
  EXPECT_EQ(m->headerData(ResultsModel::FixedColumnCount, Qt::Horizontal, Qt::DisplayRole)
                .toString()
                .section(QLatin1Char(' '), 0, 0),
            QStringLiteral("tpsa"));

  // The command line, run by graphormer-cli into another directory, gives the same split and model.
  const QString again = QString::fromStdString((tempDir() / "cli-run").string());
  QProcess cli;
  QString line = QString(command).replace(full, again);
  line.replace(0, QStringLiteral("graphormer-cli").size(), QStringLiteral(GS_CLI_PATH));
  cli.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), line});  // as pasted into a shell
  ASSERT_TRUE(cli.waitForFinished(600000));
  const QString log = QString::fromUtf8(cli.readAllStandardError());
  ASSERT_EQ(cli.exitCode(), 0) << log.toStdString();
  EXPECT_EQ(readFile(again.toStdString() + "/split.csv"), readFile(full.toStdString() + "/split.csv"));
  EXPECT_LT(largestDifference(weights(full), weights(again)), 1e-5);
  const QString mae = log.section(QStringLiteral("tpsa valid MAE "), 1).section(QLatin1Char(','), 0, 0);
  EXPECT_NEAR(mae.toDouble(), modelValidMae(tab->view()), 1e-3 * std::max(1.0, mae.toDouble())) << log.toStdString();

  tab->saveModel(QString::fromStdString((tempDir() / "saved").string()));
  QString save_error = QStringLiteral("not called");
  QObject::connect(tab, &TrainTab::modelSaved, [&](const QString&, const QString& e) { save_error = e; });
  ASSERT_TRUE(waitFor(tab, &TrainTab::modelSaved));
  EXPECT_TRUE(save_error.isEmpty()) << save_error.toStdString();
  EXPECT_TRUE(fs::exists(tempDir() / "saved" / "model.safetensors"));
  EXPECT_FALSE(fs::exists(tempDir() / "saved" / "optimizer.pt"));
}

}  // namespace
}  // namespace gs::ui
