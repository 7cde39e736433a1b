// Fine-tuning the bundled eight-property model on a chemist's own single property: the encoder is
// kept, the head is new (one output per target), and nothing of the old outputs' description
// (units, normalisation, mirror invariance) stays attached to the new one.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "jobs/train_job.h"
#include "model/checkpoint.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

// The first `n` molecules of RDKit's TPSA data as "smiles,tpsa".
std::string tpsaCsv(const fs::path& dir, int n) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv");
  std::ofstream out(dir / "tpsa.csv");
  out << "smiles,tpsa\n";
  std::string line;
  for (int rows = 0; rows < n && std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out << line << "\n", ++rows;
  return (dir / "tpsa.csv").string();
}

TEST(FineTune, TheDefaultModelTakesANewTargetOnItsOwnEncoder) {
  if (!fs::exists("/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv")) GTEST_SKIP() << "RDKit's NCI TPSA data is missing";
  const auto dir = fs::temp_directory_path() / ("gs_fine_tune_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string base_dir = std::string(GS_SOURCE_DIR) + "/resources/models/accurate";
  auto base = model::loadModel(base_dir);
  ASSERT_TRUE(base.isOk()) << base.status().toString();
  ASSERT_GT(base->config.num_classes, 1) << "the bundled model predicts several properties";

  jobs::TrainJobOptions o;
  o.input = tpsaCsv(dir, 160);
  o.output_dir = (dir / "tuned").string();
  o.targets = {"tpsa"};
  o.model = bundle::ModelSource{base_dir, ""};
  o.train.epochs = 1;
  o.train.learning_rate = 1e-9;  // so small that the encoder stays where it was
  o.train.threads = 1;
  o.snapshots = 0;
  o.split.calib_fraction = 0;
  std::string notes;
  engine::TrainCallbacks callbacks;
  callbacks.note = [&](const std::string& text) { notes += text + "\n"; };
  auto run = jobs::runTrain(o, callbacks);
  ASSERT_TRUE(run.isOk()) << run.status().toString();
  EXPECT_NE(notes.find("the head is new"), std::string::npos) << notes;

  auto tuned = model::loadModel(o.output_dir);
  ASSERT_TRUE(tuned.isOk()) << tuned.status().toString();
  EXPECT_EQ(tuned->config.num_classes, 1);
  EXPECT_EQ(tuned->metadata.target_names, std::vector<std::string>{"tpsa"});
  EXPECT_TRUE(tuned->metadata.target_units.empty()) << "the old outputs' units went with the old head";
  EXPECT_FALSE(tuned->metadata.mirror_invariant.has_value());
  ASSERT_EQ(tuned->metadata.target_mean.size(), 1u);
  EXPECT_GT(tuned->metadata.target_mean[0], 10.0) << "normalised by the new target (TPSA in Å²)";
  const auto before = base->model->named_parameters();
  int compared = 0;
  for (const auto& p : tuned->model->named_parameters()) {
    if (p.key().rfind("classifier", 0) == 0) {
      EXPECT_EQ(p.value().size(0), 1) << p.key();
      continue;
    }
    const auto* old = before.find(p.key());
    ASSERT_NE(old, nullptr) << p.key();
    EXPECT_LT((p.value() - *old).abs().max().item<double>(), 1e-5) << p.key();
    ++compared;
  }
  EXPECT_GT(compared, 20);

  // A LoRA adapter trains on top of the model's own head: other targets are refused by name.
  o.output_dir = (dir / "lora").string();
  o.train.lora_rank = 2;
  auto lora = jobs::runTrain(o);
  ASSERT_FALSE(lora.isOk());
  EXPECT_NE(lora.status().message().find("a LoRA adapter keeps the model's head"), std::string::npos)
      << lora.status().toString();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
