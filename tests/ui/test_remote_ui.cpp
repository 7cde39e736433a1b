// The app as a client of a prediction server: a real `graphormer-cli serve` on loopback, the
// device set to "Server…", a run through it, and the live chart fed by the server's /v1/status.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>

#include <cmath>
#include <functional>

#include <QPlainTextEdit>

#include "memory_chart.h"
#include "remote_client.h"
#include "results_model.h"
#include "settings_panel.h"
#include "ui/ui_fixture.h"

namespace gs::ui {
namespace {

// Runs the event loop until `done()` or the timeout; false on timeout.
bool waitUntil(const std::function<bool()>& done, int timeout_ms) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > timeout_ms) return false;
    QEventLoop loop;
    QTimer::singleShot(20, &loop, &QEventLoop::quit);
    loop.exec();
  }
  return true;
}

class TestServer {
 public:
  TestServer() {
    port_file_ = QString::fromStdString((tempDir() / "serve.port").string());
    QFile::remove(port_file_);
    process_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process_.start(QStringLiteral(GS_CLI_PATH),
                   {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                    QStringLiteral("--port-file"), port_file_, QStringLiteral("--model"), tinyModel(),
                    QStringLiteral("--no-trust"), QStringLiteral("--threads"), QStringLiteral("1")});
  }
  ~TestServer() {
    process_.terminate();  // SIGTERM: drain and exit 0
    process_.waitForFinished(60000);
  }
  // The server's URL once it answers ready, "" if it never does.
  QString waitReady() {
    if (!waitUntil([&] { return QFile::exists(port_file_) || process_.state() == QProcess::NotRunning; }, 120000))
      return {};
    QFile f(port_file_);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(QString::fromUtf8(f.readAll()).trimmed());
    RemoteClient client({url, {}});
    const bool ready =
        waitUntil([&] { return client.get(QStringLiteral("/v2/health/ready"), 2000).http_status == 200; }, 120000);
    return ready ? url : QString();
  }
  QProcess& process() { return process_; }

 private:
  QString port_file_;
  QProcess process_;
};

TEST(RemoteRun, PredictsThroughAServerAndChartsTheServersMemory) {
  Window win;
  TestServer server;
  const QString url = server.waitReady();
  ASSERT_FALSE(url.isEmpty()) << "the test server did not become ready";
  const QString molecules = nciLines(300, {{5, "not_a_smiles"}, {77, "C1CC"}});

  // The same molecules locally first, for the reference values.
  ASSERT_TRUE(win.run(molecules));
  std::vector<float> local;
  for (int i = 0; i < 300; ++i)
    local.push_back(win.w.resultsModel()->rowAt(i).values.empty() ? NAN : win.w.resultsModel()->rowAt(i).values[0]);

  SettingsPanel* settings = win.w.settingsPanel();
  settings->setServer({url, {}});
  ASSERT_TRUE(settings->setDevice(kServerDevice));
  const int samples_before = win.w.chart()->sampleCount();
  ASSERT_TRUE(win.run(molecules));
  const auto* m = win.w.resultsModel();
  ASSERT_EQ(m->rowCount(), 300);
  for (int i = 0; i < 300; ++i) {
    const auto& r = m->rowAt(i);
    EXPECT_EQ(r.id, "mol" + std::to_string(i + 1));
    if (i + 1 == 5)
      EXPECT_EQ(m->rowAt(i).status.code(), StatusCode::SyntaxError);
    else if (i + 1 == 77)
      EXPECT_FALSE(r.status.isOk());
    else {
      ASSERT_TRUE(r.status.isOk()) << i << ": " << r.status.toString();
      ASSERT_EQ(r.values.size(), 1u);
      EXPECT_NEAR(r.values[0], local[i], 1e-4) << "row " << i + 1;
    }
  }
  // The chart switched to the server and receives its memory samples (polled from /v1/status).
  EXPECT_TRUE(win.w.chart()->remote());
  EXPECT_TRUE(waitUntil([&] { return win.w.chart()->sampleCount() >= samples_before + 2; }, 30000));

  // SIGTERM: the server drains and exits 0.
  server.process().terminate();
  ASSERT_TRUE(server.process().waitForFinished(60000));
  EXPECT_EQ(server.process().exitCode(), 0);
}

}  // namespace
}  // namespace gs::ui
