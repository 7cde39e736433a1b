#pragma once
// What the app's GUI tests share: a temporary directory, a tiny saved model, NCI molecules, waiting
// for a signal, and a main window with its model loaded.
#include <gtest/gtest.h>

#include <QEventLoop>
#include <QPlainTextEdit>
#include <QTimer>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "main_window.h"
#include "model/checkpoint.h"

namespace gs::ui {
namespace {
namespace fs = std::filesystem;

inline const fs::path& tempDir() {
  static const fs::path dir = [] {
    auto d = fs::temp_directory_path() / ("gs_ui_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// A small random-weight model (2 layers x 16) with these named outputs, saved like a trained one.
inline std::string savedModel(const std::string& file, const bundle::ModelMetadata& md, uint64_t seed) {
  bundle::GraphormerConfig c;
  c.num_hidden_layers = 2;
  c.embedding_dim = 16;
  c.ffn_embedding_dim = 16;
  c.num_attention_heads = 2;
  c.num_classes = static_cast<int>(md.target_names.size());
  model::Graphormer m(c);
  m->initializeWeights(seed);
  const auto p = (tempDir() / file).string();
  EXPECT_TRUE(model::saveModel(p, *m, md).isOk());
  return p;
}

// One output, the HOMO-LUMO gap.
inline QString tinyModel() {
  static const std::string path = [] {
    bundle::ModelMetadata md;
    md.target_names = {"gap_ev"};
    md.target_units = {"eV"};
    md.target_mean = {4.0};
    md.target_std = {1.0};
    return savedModel("tiny.safetensors", md, 1);
  }();
  return QString::fromStdString(path);
}

// Three outputs on different scales and units.
inline QString threeOutputModel() {
  static const std::string path = [] {
    bundle::ModelMetadata md;
    md.target_names = {"gap_ev", "dipole_debye", "logp_xtb"};
    md.target_units = {"eV", "D", ""};
    md.target_mean = {4.0, 40.0, -20.0};
    md.target_std = {1.0, 5.0, 2.0};
    return savedModel("three.safetensors", md, 2);
  }();
  return QString::fromStdString(path);
}

// The first n SMILES of RDKit's NCI set, one per line with a name; `bad` rows replaced by
// molecules that cannot be read.
inline QString nciLines(int n, const std::map<int, std::string>& bad = {}) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_5K.smi");
  std::string line;
  std::ostringstream out;
  for (int i = 1; i <= n;) {
    if (!std::getline(in, line)) {  // the file has 4,999 molecules: start again for more
      in.clear();
      in.seekg(0);
      continue;
    }
    std::istringstream fields(line);
    std::string smiles;
    fields >> smiles;
    auto it = bad.find(i);
    out << (it != bad.end() ? it->second : smiles) << " mol" << i << "\n";
    ++i;
  }
  return QString::fromStdString(out.str());
}

// Runs the event loop until `signal` fires (a safety timeout fails the test instead of hanging).
template <typename Sender, typename Signal>
bool waitFor(Sender* sender, Signal signal, int timeout_ms = 300000) {
  QEventLoop loop;
  QObject::connect(sender, signal, &loop, [&loop] { loop.quit(); });
  QTimer timeout;
  timeout.setSingleShot(true);
  bool timed_out = false;
  QObject::connect(&timeout, &QTimer::timeout, &loop, [&] {
    timed_out = true;
    loop.quit();
  });
  timeout.start(timeout_ms);
  loop.exec();
  return !timed_out;
}

struct Window {
  explicit Window(const QString& model = tinyModel()) : w(model) {
    if (!w.hasModel()) {
      EXPECT_TRUE(waitFor(&w, &MainWindow::modelReady));
    }
    EXPECT_TRUE(w.hasModel());
  }
  bool run(const QString& text) {
    w.input()->setPlainText(text);
    w.runPrediction();
    return waitFor(&w, &MainWindow::runCompleted);
  }
  MainWindow w;
};

}  // namespace
}  // namespace gs::ui
