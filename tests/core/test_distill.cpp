// Distillation (jobs/distill_job.h): a small student trained on a bundled teacher's predictions
// reproduces the teacher on molecules it never saw better than the best constant does, a
// cancelled and resumed run ends with the weights of an uninterrupted one, and the held-out rule
// keeps molecules like the test molecules out of the student's training set.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/resources.h"
#include "data/record_reader.h"
#include "jobs/distill_job.h"
#include "model/checkpoint.h"
#include "predict/predictor.h"
#include "temp_files.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

const std::string kLabels = std::string(GS_SOURCE_DIR) + "/data/xtb_props_brics55k.csv.gz";
const std::string kMolecules = std::string(GS_SOURCE_DIR) + "/data/brics_nci_55k.smi.gz";

// Records [begin, end) of the BRICS set as a SMILES file (molecules the labelled rows are not).
std::string smilesSlice(const fs::path& dir, int begin, int end) {
  auto reader = data::openReader(kMolecules);
  EXPECT_TRUE(reader.isOk());
  const auto path = dir / "unlabelled.smi";
  std::ofstream out(path);
  data::RawRecord r;
  for (int i = 0; i < end && reader.value()->next(r); ++i)
    if (i >= begin) out << r.text << " " << r.id << "\n";
  return path.string();
}

// The first `n` labelled rows as a CSV file.
std::string labelledHead(const fs::path& dir, int n) {
  return testing_files::csvSlice(kLabels, dir, "labels.csv", 0, static_cast<size_t>(n));
}

using testing_files::TempDir;

jobs::DistillJobOptions tinyDistill(const fs::path& dir, int labelled, int unlabelled, int epochs) {
  jobs::DistillJobOptions d;
  d.teacher = bundle::ModelSource{bundledModelPath("fast"), ""};
  d.unlabelled = {smilesSlice(dir, 20000, 20000 + unlabelled)};
  d.label_weight = 0.5;
  auto& o = d.student;
  o.input = labelledHead(dir, labelled);
  o.output_dir = (dir / "student").string();
  o.config.num_hidden_layers = 2;
  o.config.embedding_dim = 32;
  o.config.ffn_embedding_dim = 32;
  o.config.num_attention_heads = 4;
  o.split.kind = data::SplitKind::Random;
  o.split.seed = 1;
  o.train.epochs = epochs;
  o.train.learning_rate = 1e-3;
  o.train.batch_size = 32;
  o.train.threads = 1;
  o.train.seed = 1;
  o.train.patience = 0;
  o.snapshots = 0;
  return d;
}

// Mean |a - b| per output over the molecules both predicted.
std::vector<double> meanAbsDiff(const std::vector<predict::PredictedRow>& a, const std::vector<std::vector<float>>& b) {
  std::vector<double> sum;
  int n = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].status.isOk() || b[i].empty()) continue;
    sum.resize(b[i].size());
    for (size_t j = 0; j < b[i].size(); ++j) sum[j] += std::fabs(a[i].values[j] - b[i][j]);
    ++n;
  }
  for (double& s : sum) s /= std::max(n, 1);
  return sum;
}

std::vector<predict::PredictedRow> predictFile(const std::string& model, const std::string& input) {
  predict::PredictorOptions po;
  po.model = bundle::ModelSource{model, ""};
  po.trust = false;
  po.session.threads = 1;
  auto p = predict::Predictor::open(po);
  EXPECT_TRUE(p.isOk()) << p.status().toString();
  auto reader = data::openReader(input);
  std::vector<data::RawRecord> records;
  data::RawRecord r;
  while (reader.value()->next(r)) records.push_back(r);
  return p.value()->predict(records);
}

TEST(Distill, AStudentReproducesItsTeacherOnUnseenMoleculesBetterThanAConstant) {
  if (bundledModelPath("fast").empty()) GTEST_SKIP() << "the bundled fast model is not installed";
  TempDir dir("gs_distill_");
  auto d = tinyDistill(dir.path, 300, 1200, 6);
  d.student.train.learning_rate = 2e-3;
  auto run = jobs::runDistill(d);
  ASSERT_TRUE(run.isOk()) << run.status().toString();
  EXPECT_EQ(run->student.test, 30);
  EXPECT_GT(run->added, 1000) << "the unlabelled molecules are trained on (1,200 given)";
  EXPECT_EQ(run->teacher_predicted, run->student.train + run->student.test)
      << "the teacher labelled every training and test molecule once";

  // Molecules neither of them trained on: the next slice of the BRICS set.
  const fs::path unseen_dir = dir.path / "unseen";
  fs::create_directories(unseen_dir);
  const std::string unseen = smilesSlice(unseen_dir, 40000, 40400);
  const auto teacher = predictFile(d.teacher.path, unseen);
  const auto student = predictFile(d.student.output_dir, unseen);
  ASSERT_EQ(teacher.size(), student.size());
  std::vector<std::vector<float>> teacher_values;
  std::vector<double> mean;
  for (const auto& t : teacher) {
    teacher_values.push_back(t.status.isOk() ? t.values : std::vector<float>{});
    mean.resize(t.values.size());
    for (size_t j = 0; j < t.values.size(); ++j) mean[j] += t.values[j] / double(teacher.size());
  }
  std::vector<predict::PredictedRow> constant = teacher;  // the best constant for the MAE is near the mean
  for (auto& c : constant)
    for (size_t j = 0; j < c.values.size(); ++j) c.values[j] = static_cast<float>(mean[j]);
  const auto student_gap = meanAbsDiff(student, teacher_values);
  const auto constant_gap = meanAbsDiff(constant, teacher_values);
  ASSERT_EQ(student_gap.size(), 8u);
  double ratio_sum = 0;
  for (size_t j = 0; j < student_gap.size(); ++j) {
    const double ratio = student_gap[j] / constant_gap[j];
    std::printf("output %zu: |student - teacher| %.4g, |constant - teacher| %.4g, ratio %.3f\n", j, student_gap[j],
                constant_gap[j], ratio);
    EXPECT_LT(ratio, 0.95) << "output " << j << ": student " << student_gap[j] << " vs constant " << constant_gap[j];
    ratio_sum += ratio;
  }
  EXPECT_LT(ratio_sum / 8, 0.7) << "mean |student - teacher| / |constant - teacher| over the eight outputs";
}

// Cancelled during training and resumed: the same weights as a run that was never interrupted,
// and the resumed run takes the teacher's targets from its cache instead of asking the teacher.
TEST(Distill, ResumingAfterCancelGivesTheWeightsOfAnUninterruptedRun) {
  if (bundledModelPath("fast").empty()) GTEST_SKIP() << "the bundled fast model is not installed";
  TempDir dir("gs_distill_resume_");
  auto full = tinyDistill(dir.path, 120, 200, 2);
  full.student.output_dir = (dir.path / "full").string();
  auto a = jobs::runDistill(full);
  ASSERT_TRUE(a.isOk()) << a.status().toString();

  auto split = full;
  split.student.output_dir = (dir.path / "split").string();
  int steps = 0;
  engine::TrainCallbacks cb;
  cb.step_done = [&](int64_t, int64_t, double) { ++steps; };
  cb.cancelled = [&] { return steps >= 5; };  // in the first epoch, before any validation
  auto cancelled = jobs::runDistill(split, cb);
  ASSERT_TRUE(cancelled.isOk()) << cancelled.status().toString();
  ASSERT_TRUE(cancelled->student.training.cancelled);
  split.student.train.resume = true;
  auto resumed = jobs::runDistill(split);
  ASSERT_TRUE(resumed.isOk()) << resumed.status().toString();
  EXPECT_EQ(resumed->teacher_predicted, 0) << "the targets come from teacher.csv";
  EXPECT_GT(resumed->teacher_cached, 0);

  auto wa = model::readCheckpoint(full.student.output_dir + "/model.safetensors");
  auto wb = model::readCheckpoint(split.student.output_dir + "/model.safetensors");
  ASSERT_TRUE(wa.isOk() && wb.isOk());
  std::map<std::string, torch::Tensor> ta(wa->tensors.begin(), wa->tensors.end());
  double worst = 0;
  for (const auto& [name, t] : wb->tensors) worst = std::max(worst, (t - ta.at(name)).abs().max().item<double>());
  EXPECT_EQ(worst, 0.0) << "resumed weights differ by up to " << worst;
}

// Unlabelled molecules identical or too similar to a held-out molecule are not trained on.
TEST(Distill, MoleculesLikeTheHeldOutOnesStayOutOfTraining) {
  if (bundledModelPath("fast").empty()) GTEST_SKIP() << "the bundled fast model is not installed";
  TempDir dir("gs_distill_holdout_");
  auto d = tinyDistill(dir.path, 200, 0, 1);
  fs::copy_file(d.student.input, dir.path / "again.csv");  // the labelled molecules again, as unlabelled ones
  d.unlabelled = {(dir.path / "again.csv").string()};
  d.student.output_dir = (dir.path / "a").string();
  auto same = jobs::runDistill(d);
  ASSERT_TRUE(same.isOk()) << same.status().toString();
  EXPECT_EQ(same->added, 0);
  EXPECT_EQ(same->duplicates, same->unlabelled_usable) << "every one is a labelled molecule";

  d.unlabelled = {smilesSlice(dir.path, 0, 2000)};  // overlaps the labelled rows, then their BRICS relatives
  d.student.output_dir = (dir.path / "b").string();
  d.holdout_similarity = 0.5;
  auto near = jobs::runDistill(d);
  ASSERT_TRUE(near.isOk()) << near.status().toString();
  EXPECT_GT(near->near_holdout, 0);
  EXPECT_EQ(near->added + near->near_holdout + near->duplicates, near->unlabelled_usable);
}

// A weight per output must name one of the teacher's outputs and lie in [0, 1].
TEST(Distill, AnOutputsOwnLabelWeightMustNameATeacherOutput) {
  if (bundledModelPath("fast").empty()) GTEST_SKIP() << "the bundled fast model is not installed";
  TempDir dir("gs_distill_weights_");
  auto d = tinyDistill(dir.path, 50, 0, 1);
  d.label_weight_of = {{"logp_xtb", 1.0}, {"boiling_point", 1.0}};
  auto unknown = jobs::runDistill(d);
  ASSERT_FALSE(unknown.isOk());
  EXPECT_NE(unknown.status().message().find("'boiling_point': the teacher has no such output"), std::string::npos)
      << unknown.status().message();
  d.label_weight_of = {{"logp_xtb", 1.5}};
  auto out_of_range = jobs::runDistill(d);
  ASSERT_FALSE(out_of_range.isOk());
  EXPECT_NE(out_of_range.status().message().find("logp_xtb"), std::string::npos) << out_of_range.status().message();
  EXPECT_FALSE(fs::exists(d.student.output_dir + "/model.safetensors"));
}

}  // namespace
}  // namespace gs
