// `calibrate --series` (jobs/trust_builder.h): a copy of a trained model whose intervals are
// calibrated on the user's own labelled series; the model directory itself is left alone.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/compression.h"
#include "common/sha256.h"
#include "jobs/model_summary.h"
#include "jobs/trust_builder.h"
#include "predict/predictor.h"
#include "tiny_train.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

// Rows [begin, begin + count) of the gap data with every label moved by `shift` eV: a series the
// model predicts badly.
std::string shiftedSeries(const fs::path& dir, size_t begin, size_t count, double shift) {
  const auto plain = testing_tiny::slice(dir, "plain.csv", begin, count);
  std::ifstream in(plain);
  std::ofstream out(dir / "series.csv");
  std::string line;
  std::getline(in, line);
  out << "smiles,gap_ev\n";
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string smiles, gap;
    std::getline(row, smiles, ',');
    std::getline(row, gap, ',');
    if (!gap.empty()) out << smiles << "," << std::stod(gap) + shift << "\n";
  }
  return (dir / "series.csv").string();
}

double halfWidth90(const std::string& model_dir, const std::string& smiles) {
  predict::PredictorOptions po;
  po.model.path = model_dir;
  auto p = predict::Predictor::open(po);
  EXPECT_TRUE(p.isOk()) << p.status().toString();
  if (!p.isOk() || !p.value()->trust()) return std::nan("");
  EXPECT_EQ(p.value()->trustNote(), "") << model_dir;
  data::RawRecord r;
  r.text = smiles;
  const auto rows = p.value()->predict(std::vector<data::RawRecord>{r});
  EXPECT_TRUE(rows[0].status.isOk() && rows[0].trust);
  return rows[0].trust ? (rows[0].trust->upper[0] - rows[0].trust->lower[0]) / 2 : std::nan("");
}

TEST(TrustTrain, CalibratingOnASeriesWritesACopyAndLeavesTheModelAlone) {
  testing_files::TempDir tmp("gs_trust_series_");
  const auto model = (tmp.path / "model").string();
  auto trained = jobs::runTrain(testing_tiny::tinyTrain(testing_tiny::slice(tmp.path, "train.csv", 0, 200), model));
  ASSERT_TRUE(trained.isOk()) << trained.status().toString();
  const auto trust_sha = sha256File(model + "/trust.safetensors").value();

  jobs::SeriesCalibrationOptions o;
  o.model_dir = model;
  o.input = shiftedSeries(tmp.path, 1000, 120, 2.0);
  o.output_dir = (tmp.path / "series-model").string();
  o.predictor.session.threads = 1;
  auto s = jobs::runSeriesCalibration(o);
  ASSERT_TRUE(s.isOk()) << s.status().toString();
  EXPECT_GE(s->rows, 100);
  EXPECT_EQ(s->labelled, (std::vector<int>{static_cast<int>(s->rows)}));
  EXPECT_GT(s->after[0], 2 * s->before[0]) << "errors of 2 eV need a larger multiplier";

  EXPECT_EQ(sha256File(model + "/trust.safetensors").value(), trust_sha) << "the model's own trust is unchanged";
  EXPECT_EQ(sha256File(o.output_dir + "/model.safetensors").value(), sha256File(model + "/model.safetensors").value());
  EXPECT_TRUE(fs::exists(o.output_dir + "/snapshots/1/model.safetensors")) << "the ensemble comes along";
  auto t = bundle::readTrust(s->path);
  ASSERT_TRUE(t.isOk()) << t.status().toString();
  EXPECT_NE(t->series.find("\"series.csv\""), std::string::npos) << t->series;
  EXPECT_EQ(static_cast<int64_t>(t->calibration_scores[0].size()), s->rows);
  EXPECT_GT(halfWidth90(o.output_dir, "c1ccccc1O"), 2 * halfWidth90(model, "c1ccccc1O"));
  predict::PredictorOptions po;
  po.model.path = o.output_dir;
  auto copy = predict::Predictor::open(po);
  ASSERT_TRUE(copy.isOk()) << copy.status().toString();
  EXPECT_EQ(copy.value()->runRecord().trust_series, t->series) << "the run record says what calibrated the intervals";
  po.model.path = model;
  EXPECT_EQ(predict::Predictor::open(po).value()->runRecord().trust_series, "");
  auto opened = jobs::openForPrediction(bundle::ModelSource{o.output_dir, ""});
  ASSERT_TRUE(opened.isOk()) << opened.status().toString();
  EXPECT_EQ(opened->summary.calibration_series, "series.csv") << "the app's model card names the series";

  EXPECT_FALSE(jobs::runSeriesCalibration(o).isOk()) << "an existing output directory is refused";
  auto wrong = o;
  wrong.output_dir += "-2";
  wrong.targets = {"logp"};
  auto refused = jobs::runSeriesCalibration(wrong);
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("'logp' is not an output"), std::string::npos) << refused.status().message();
  EXPECT_FALSE(fs::exists(wrong.output_dir));
  fs::remove(model + "/trust.safetensors");
  EXPECT_FALSE(jobs::runSeriesCalibration(wrong).isOk()) << "a model without trust data has nothing to recalibrate";
}

}  // namespace
}  // namespace gs
