// Trust under shift (predict/trust.h, trust files from version 5): calibration by similarity bin
// (molecules far from the training set get the quantile of calibration molecules as far away, not
// the pooled one), each output's own domain band from its σ, and both surviving the trust file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <filesystem>
#include <random>

#include "chem/featurize.h"
#include "predict/trust.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

chem::DomainFeatures features(const std::string& smiles) {
  auto parsed = chem::parseSmiles(smiles);
  EXPECT_TRUE(parsed.status.isOk()) << smiles;
  return chem::domainFeatures(*parsed.mol);
}

bundle::TrustData smallTrust(int outputs) {
  bundle::TrustData t;
  t.outputs = outputs;
  t.model_sha256 = "m";
  for (const char* s : {"CCO", "CCCO", "CCCCO", "OCCO", "CCCC", "CCCCCC"}) {
    const std::vector<float> label(static_cast<size_t>(outputs), 1.0f), pred(static_cast<size_t>(outputs), 1.1f);
    predict::addReference(t, features(s), s, s, label, pred);
  }
  predict::finishDomain(t.domain);
  return t;
}

// One output whose noise is five times larger for the least similar tenth of the molecules
// (similarity below 0.1), which neither the ensemble spread nor d(x) sees.
predict::TrustFold shiftedFold(int n, std::mt19937& rng) {
  predict::TrustFold f;
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  for (int i = 0; i < n; ++i) {
    const double nn = u(rng), y = z(rng) * (nn < 0.1 ? 1.0 : 0.2);
    f.nn_similarity.push_back(nn);
    f.distance.push_back(u(rng));
    f.labels.push_back({static_cast<float>(y)});
    f.values.push_back({{0.0f}, {static_cast<float>(0.05 * z(rng))}});
  }
  return f;
}

// Share of `test` inside the 90 % interval, among molecules with similarity in [lo, hi).
double coverage(const predict::TrustAssessor& a, const bundle::TrustData& t, const predict::TrustFold& test, double lo,
                double hi, bool binned) {
  double inside = 0, n = 0;
  for (size_t i = 0; i < test.labels.size(); ++i) {
    const double nn = test.nn_similarity[i];
    if (nn < lo || nn >= hi) continue;
    const double sigma = predict::sigmaOfMolecule(t.sigma, 0, test.terms(i, 0));
    inside += std::fabs(test.labels[i][0]) <= a.halfWidth(0, sigma, 0.9, binned ? nn : predict::TrustAssessor::kPooled);
    ++n;
  }
  return inside / n;
}

TEST(TrustShift, IntervalsOfDissimilarMoleculesAreCalibratedOnDissimilarOnes) {
  std::mt19937 rng(17);
  auto t = smallTrust(1);
  const auto valid = shiftedFold(1000, rng), calib = shiftedFold(2000, rng), test = shiftedFold(6000, rng);
  ASSERT_TRUE(predict::fitTrust(t, valid, calib).isOk());
  ASSERT_EQ(t.score_bin_edges.size(), 3u);
  EXPECT_NEAR(t.score_bin_edges[0], 0.10, 0.03);  // the calibration fold's 10th percentile
  ASSERT_EQ(t.binned_scores.size(), 1u);
  ASSERT_EQ(t.binned_scores[0].size(), 4u);
  size_t binned = 0;
  for (const auto& b : t.binned_scores[0]) binned += b.size();
  EXPECT_EQ(binned, t.calibration_scores[0].size());
  const predict::TrustAssessor a(t);
  EXPECT_EQ(a.scoreBin(0.05), 0);
  EXPECT_EQ(a.scoreBin(0.99), 3);
  EXPECT_EQ(a.scoreBin(std::nan("")), -1);
  // Pooled scores under-cover the far tenth and over-cover the rest; the bins cover each.
  EXPECT_LT(coverage(a, t, test, 0, 0.1, false), 0.7);
  EXPECT_NEAR(coverage(a, t, test, 0, 0.1, true), 0.9, 0.04);
  EXPECT_NEAR(coverage(a, t, test, 0.1, 1, true), 0.9, 0.02);
  EXPECT_NEAR(coverage(a, t, test, 0, 1, true), 0.9, 0.02);
  // assess() uses the molecule's nearest-neighbour similarity: a molecule whose neighbours are
  // the training set itself sits in the most similar bin.
  const auto row = a.assess(features("CCCO"), {{0.0f}, {0.0f}}, 0.9);
  EXPECT_NEAR(row.upper[0], a.halfWidth(0, row.sigma[0], 0.9, row.nn_similarity), 1e-9);
  EXPECT_EQ(a.scoreBin(row.nn_similarity), 3);

  // A small calibration fold (fewer than 100 molecules in a bin) keeps the pooled scores.
  auto small = smallTrust(1);
  ASSERT_TRUE(predict::fitTrust(small, shiftedFold(300, rng), shiftedFold(500, rng)).isOk());
  EXPECT_TRUE(small.score_bin_edges.empty());
  EXPECT_TRUE(small.binned_scores.empty());
}

// Two outputs: output 0's σ follows the ensemble spread, output 1's does not vary. A molecule the
// ensemble disagrees on for output 0 only is out for output 0 and in for output 1, and a
// structural reason (a new atom environment) lowers every output's band.
TEST(TrustShift, EachOutputHasItsOwnBand) {
  std::mt19937 rng(23);
  auto t = smallTrust(2);
  auto fold = [&](int n) {
    predict::TrustFold f;
    std::uniform_real_distribution<double> u(0, 1);
    std::normal_distribution<double> z(0, 1);
    for (int i = 0; i < n; ++i) {
      const double s = u(rng);
      f.nn_similarity.push_back(0.5);
      f.distance.push_back(2 * u(rng));  // far above any real d(x): output 1 stays in
      f.labels.push_back({static_cast<float>(z(rng) * (0.05 + s)), static_cast<float>(z(rng))});
      f.values.push_back({{0.0f, 0.0f}, {static_cast<float>(s), 0.0f}});
    }
    return f;
  };
  ASSERT_TRUE(predict::fitTrust(t, fold(600), fold(1000)).isOk());
  ASSERT_EQ(t.domain.output_sigma_out.size(), 2u);
  EXPECT_GT(t.domain.output_sigma_out[0], t.domain.output_sigma_borderline[0]);
  const predict::TrustAssessor a(t);
  const double spread_out = 2 * (t.domain.output_sigma_out[0] / t.sigma.ensemble_weight[0]);
  const auto unsure = a.assess(features("CCCO"), {{0.0f, 0.0f}, {static_cast<float>(spread_out), 0.0f}}, 0.9);
  ASSERT_EQ(unsure.output_band.size(), 2u);
  EXPECT_EQ(unsure.outputBand(0), predict::DomainBand::Out);
  EXPECT_EQ(unsure.outputBand(1), predict::DomainBand::In);
  const auto calm = a.assess(features("CCCO"), {{0.0f, 0.0f}, {0.0f, 0.0f}}, 0.9);
  EXPECT_EQ(calm.outputBand(0), predict::DomainBand::In);
  const auto acid = a.assess(features("CCC(=O)O"), {{0.0f, 0.0f}, {0.0f, 0.0f}}, 0.9);
  EXPECT_EQ(acid.outputBand(0), predict::DomainBand::Borderline);
  EXPECT_EQ(acid.outputBand(1), predict::DomainBand::Borderline);

  // Before version 5 (no per-output thresholds) every output takes the molecule's band.
  auto old = t;
  old.domain.output_sigma_borderline.clear();
  old.domain.output_sigma_out.clear();
  const auto row = predict::TrustAssessor(old).assess(features("CCCO"),
                                                      {{0.0f, 0.0f}, {static_cast<float>(spread_out), 0.0f}}, 0.9);
  EXPECT_EQ(row.outputBand(0), row.band);
  EXPECT_EQ(row.outputBand(1), row.band);
}

TEST(TrustShift, BinsAndOutputThresholdsSurviveTheFile) {
  std::mt19937 rng(29);
  auto t = smallTrust(1);
  ASSERT_TRUE(predict::fitTrust(t, shiftedFold(1000, rng), shiftedFold(2000, rng)).isOk());
  ASSERT_FALSE(t.binned_scores.empty());
  t.sigma.residual_prior = {0.3125};
  t.sigma.residual_fade_similarity = 0.4375;
  const auto path = (fs::temp_directory_path() / ("gs_trust_shift_" + std::to_string(::getpid()))).string();
  ASSERT_TRUE(bundle::writeTrust(path, t).isOk());
  auto back = bundle::readTrust(path);
  fs::remove(path);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ(back->score_bin_edges, t.score_bin_edges);
  EXPECT_EQ(back->binned_scores, t.binned_scores);
  EXPECT_EQ(back->domain.output_sigma_borderline, t.domain.output_sigma_borderline);
  EXPECT_EQ(back->domain.output_sigma_out, t.domain.output_sigma_out);
  EXPECT_EQ(back->sigma.residual_prior, t.sigma.residual_prior);
  EXPECT_DOUBLE_EQ(back->sigma.residual_fade_similarity, t.sigma.residual_fade_similarity);
  // Bins that do not match their edges are refused.
  auto broken = t;
  broken.binned_scores[0].pop_back();
  EXPECT_FALSE(bundle::writeTrust(path, broken).isOk());
  auto no_prior = t;
  no_prior.sigma.residual_prior = {0.1, 0.2};
  EXPECT_FALSE(bundle::writeTrust(path, no_prior).isOk()) << "one prior per output";
}

// A series of the user's own chemistry whose errors are three times those of the training run's
// calibration fold at every similarity (what drug-like molecules did to the bundled models): the
// training run's intervals miss it; recalibrated on 200 labelled members they cover fresh ones.
TEST(TrustShift, ASeriesRecalibrationCoversMoleculesOfThatSeries) {
  std::mt19937 rng(31);
  auto t = smallTrust(2);
  auto fold = [&](int n, double noise, bool second_labelled) {
    predict::TrustFold f;
    std::uniform_real_distribution<double> u(0, 1);
    std::normal_distribution<double> z(0, 1);
    for (int i = 0; i < n; ++i) {
      f.nn_similarity.push_back(u(rng));
      f.distance.push_back(u(rng));
      const float y = static_cast<float>(z(rng) * noise);
      f.labels.push_back({y, second_labelled ? y : std::nanf("")});
      f.values.push_back({{0.0f, 0.0f}, {static_cast<float>(0.05 * z(rng)), static_cast<float>(0.05 * z(rng))}});
    }
    return f;
  };
  ASSERT_TRUE(predict::fitTrust(t, fold(1000, 0.2, true), fold(2000, 0.2, true)).isOk());
  ASSERT_FALSE(t.binned_scores.empty());
  const auto fresh = fold(4000, 0.6, true);
  auto covered = [&](const bundle::TrustData& data, int j) {
    const predict::TrustAssessor a(data);
    double inside = 0;
    for (size_t i = 0; i < fresh.labels.size(); ++i) {
      const double sigma = predict::sigmaOfMolecule(data.sigma, j, fresh.terms(i, j));
      inside += std::fabs(fresh.labels[i][static_cast<size_t>(j)]) <= a.halfWidth(j, sigma, 0.9, fresh.nn_similarity[i]);
    }
    return inside / double(fresh.labels.size());
  };
  EXPECT_LT(covered(t, 0), 0.6) << "the training run's calibration does not stand for this series";
  auto series = t;
  const auto labelled = predict::recalibrateOnSeries(series, fold(200, 0.6, false));
  EXPECT_EQ(labelled, (std::vector<int>{200, 0}));
  EXPECT_NEAR(covered(series, 0), 0.9, 0.04);
  EXPECT_TRUE(series.binned_scores[0].empty()) << "the series is one population: pooled scores";
  EXPECT_EQ(series.calibration_scores[0].size(), 200u);
  EXPECT_EQ(series.calibration_scores[1], t.calibration_scores[1]) << "an output the series does not label keeps its scores";
  EXPECT_EQ(series.binned_scores[1], t.binned_scores[1]);
  EXPECT_EQ(series.sigma.distance_weight, t.sigma.distance_weight) << "σ is the model's";
  auto few = t;
  EXPECT_EQ(predict::recalibrateOnSeries(few, fold(predict::kSeriesMinimum - 1, 0.6, true)),
            (std::vector<int>{predict::kSeriesMinimum - 1, predict::kSeriesMinimum - 1}));
  EXPECT_EQ(few.calibration_scores, t.calibration_scores) << "too few labels: nothing changes";
}

// r(x) averages the training neighbours' fitted errors: the farther they are, the more it gives way
// to the held-out error of the validation fold.
TEST(TrustShift, TheNeighboursErrorFadesToTheHeldOutErrorFarFromTraining) {
  bundle::SigmaModel s;
  std::vector<double> r{0.2, 1.0};
  predict::fadeNeighbourError(s, 0.9, r);
  EXPECT_EQ(r, (std::vector<double>{0.2, 1.0})) << "no fade in the trust data: unchanged";
  s.residual_fade_similarity = 0.4;
  s.residual_prior = {0.6, 3.0};
  auto at = [&](double distance) {
    auto v = std::vector<double>{0.2, 1.0};
    predict::fadeNeighbourError(s, distance, v);
    return v;
  };
  EXPECT_EQ(at(0.5), (std::vector<double>{0.2, 1.0})) << "neighbours as similar as the validation median's";
  const auto half = at(0.8);  // mean similarity 0.2: half-way
  EXPECT_NEAR(half[0], 0.4, 1e-12);
  EXPECT_NEAR(half[1], 2.0, 1e-12);
  EXPECT_EQ(at(1.0), s.residual_prior);

  // Fitted: the validation fold's median similarity and mean |error| per output.
  std::mt19937 rng(37);
  auto t = smallTrust(1);
  auto fold = shiftedFold(1000, rng);
  fold.neighbour_error.assign(fold.labels.size(), {0.1});
  ASSERT_TRUE(predict::fitTrust(t, fold, shiftedFold(1000, rng)).isOk());
  std::vector<double> similarity, error;
  for (size_t i = 0; i < fold.labels.size(); ++i)
    similarity.push_back(1 - fold.distance[i]), error.push_back(std::fabs(fold.labels[i][0] - fold.values[i][0][0]));
  std::sort(similarity.begin(), similarity.end());
  EXPECT_NEAR(t.sigma.residual_fade_similarity, (similarity[499] + similarity[500]) / 2, 1e-12);
  ASSERT_EQ(t.sigma.residual_prior.size(), 1u);
  EXPECT_NEAR(t.sigma.residual_prior[0], std::accumulate(error.begin(), error.end(), 0.0) / 1000, 1e-9);
}

// σ's mix: nearly as narrow is as good; then the mix that ranks the errors best wins.
TEST(TrustShift, AmongNearlyAsNarrowMixesTheOneThatRanksErrorsBestWins) {
  const std::vector<predict::MixScore> mixes = {
      {1.000, 0.20},  // the narrowest
      {1.008, 0.27},  // 0.8 % wider, ranks better: taken
      {1.030, 0.40},  // ranks best but 3 % wider: not a near tie
      {std::nan(""), 0.90},
      {1.005, std::nan("")},
  };
  EXPECT_EQ(predict::pickMix(mixes), 1);
  EXPECT_EQ(predict::pickMix(mixes, 0.05), 2) << "a wider tolerance admits the third";
  EXPECT_EQ(predict::pickMix(mixes, 0.0), 0) << "no tolerance: the narrowest, as before";
  EXPECT_EQ(predict::pickMix({{2.0, std::nan("")}, {2.01, std::nan("")}}), 0) << "no ranking: the first";
  EXPECT_EQ(predict::pickMix({{std::nan(""), 0.5}}), -1);
  EXPECT_EQ(predict::pickMix({}), -1);
}

}  // namespace
}  // namespace gs
