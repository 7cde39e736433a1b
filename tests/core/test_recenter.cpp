// Re-centring (jobs/train_job.h, `calibrate --recenter`): a trained model's median error on its
// validation fold becomes its output offset, so that fold's median error through the predictor is
// then zero; a run without it has exactly that median error; each snapshot gets its own offset;
// `calibrate --recenter` turns the plain model into the re-centred one and rebuilds its trust; a
// LoRA adapter does not inherit its base's offset.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "common/stats.h"
#include "jobs/labelled_data.h"
#include "jobs/trust_builder.h"
#include "model/loader.h"
#include "predict/predictor.h"
#include "tiny_train.h"

namespace gs {
namespace fs = std::filesystem;
namespace {

struct Fold {
  std::vector<data::RawRecord> records;
  std::vector<std::vector<float>> labels;
};

// The validation molecules of a run (its split.csv) from the labelled CSV (smiles,gap_ev,status).
Fold validationFold(const std::string& csv, const std::string& run_dir) {
  Fold fold;
  const auto split = jobs::readSplitFile(run_dir + "/split.csv");
  EXPECT_TRUE(split.isOk()) << split.status().toString();
  if (!split.isOk()) return fold;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  for (int64_t row = 1; std::getline(in, line); ++row) {
    const auto it = split->find(row);
    if (it == split->end() || it->second.second != data::Subset::Valid) continue;
    std::stringstream fields(line);
    std::string smiles, gap;
    std::getline(fields, smiles, ',');
    std::getline(fields, gap, ',');
    data::RawRecord r;
    r.text = smiles;
    fold.records.push_back(r);
    fold.labels.push_back({std::stof(gap)});
  }
  return fold;
}

// The median of label - prediction of the model in `dir` (FP32, no trust) on `fold`.
double medianError(const std::string& dir, const Fold& fold) {
  predict::PredictorOptions po;
  po.model.path = dir;
  po.trust = false;
  auto p = predict::Predictor::open(po);
  EXPECT_TRUE(p.isOk()) << dir << ": " << p.status().toString();
  if (!p.isOk()) return std::nan("");
  std::vector<std::vector<float>> values, labels;
  const auto rows = p.value()->predict(fold.records);
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].status.isOk() && !rows[i].values.empty()) values.push_back(rows[i].values), labels.push_back(fold.labels[i]);
  EXPECT_GE(values.size(), 50u);
  return stats::medianResiduals(values, labels, 1, 1)[0];
}

TEST(Recenter, TheValidationFoldsMedianErrorBecomesTheOutputOffset) {
  const auto dir = fs::temp_directory_path() / ("gs_recenter_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto csv = testing_tiny::slice(dir, "gap.csv", 0, 700);
  auto options = testing_tiny::tinyTrain(csv, (dir / "plain").string());
  options.snapshots = 1;
  options.recenter = false;
  auto plain = jobs::runTrain(options);
  ASSERT_TRUE(plain.isOk()) << plain.status().toString();
  options.output_dir = (dir / "centred").string();
  options.recenter = true;
  auto centred = jobs::runTrain(options);
  ASSERT_TRUE(centred.isOk()) << centred.status().toString();
  ASSERT_GE(centred->valid, jobs::kRecenterMinimum);
  EXPECT_TRUE(plain->output_offset.empty());
  ASSERT_EQ(centred->output_offset.size(), 1u);

  const Fold valid = validationFold(csv, (dir / "plain").string());
  const double before = medianError((dir / "plain").string(), valid);
  // Same seed, same weights: the offset is exactly the plain run's median error on the fold.
  EXPECT_NEAR(centred->output_offset[0], before, 1e-3);
  EXPECT_GT(std::fabs(before), 1e-3) << "two epochs of a tiny model leave some bias to remove";
  EXPECT_NEAR(medianError((dir / "centred").string(), valid), 0.0, 1e-3);
  EXPECT_NEAR(medianError((dir / "centred" / "snapshots" / "1").string(), valid), 0.0, 1e-3);
  EXPECT_LE(centred->valid_mae[0], plain->valid_mae[0] + 1e-6);

  // calibrate --recenter makes the plain run the re-centred one and rebuilds its trust for the
  // rewritten weights; a second pass leaves the offset where it is.
  jobs::CalibrateJobOptions c;
  c.model_dir = (dir / "plain").string();
  c.input = csv;
  c.split = options.split;
  c.recenter = true;
  for (int pass = 0; pass < 2; ++pass) {
    auto calibrated = jobs::runCalibrate(c);
    ASSERT_TRUE(calibrated.isOk()) << calibrated.status().toString();
    ASSERT_EQ(calibrated->output_offset.size(), 1u);
    EXPECT_NEAR(calibrated->output_offset[0], centred->output_offset[0], 1e-3) << "pass " << pass;
  }
  EXPECT_NEAR(medianError((dir / "plain").string(), valid), 0.0, 1e-3);
  EXPECT_NEAR(medianError((dir / "plain" / "snapshots" / "1").string(), valid), 0.0, 1e-3);
  predict::PredictorOptions po;
  po.model.path = (dir / "plain").string();
  auto with_trust = predict::Predictor::open(po);
  ASSERT_TRUE(with_trust.isOk()) << with_trust.status().toString();
  EXPECT_NE(with_trust.value()->trust(), nullptr);

  // A LoRA adapter brings its own normalisation: on a fold too small to re-centre, the adapted
  // model carries no offset (not the base model's, which belonged to the base's statistics).
  auto lora = testing_tiny::tinyTrain(testing_tiny::slice(dir, "small.csv", 700, 200), (dir / "lora").string());
  lora.model = bundle::ModelSource{(dir / "centred").string(), ""};
  lora.train.lora_rank = 2;
  lora.snapshots = 0;
  auto adapted = jobs::runTrain(lora);
  ASSERT_TRUE(adapted.isOk()) << adapted.status().toString();
  EXPECT_LT(adapted->valid, jobs::kRecenterMinimum);
  auto loaded = model::openModel(bundle::ModelSource{(dir / "lora").string(), ""});
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  EXPECT_TRUE(loaded->metadata.output_offset.empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
