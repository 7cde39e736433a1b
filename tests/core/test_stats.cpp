// common/stats.h: ranks, Spearman, AUROC, and split-conformal intervals on synthetic data with
// known noise (coverage holds at several confidence levels, and fails when the calibration set is
// reused for fitting).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "common/stats.h"

namespace gs {
namespace {

// Standard normal draws from a fully specified generator (Box-Muller on mt19937_64), so the data
// are the same on every machine.
class Normal {
 public:
  explicit Normal(uint64_t seed) : rng_(seed) {}
  double uniform() { return (double(rng_() >> 11) + 0.5) / 9007199254740992.0; }
  double next() { return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); }

 private:
  std::mt19937_64 rng_;
};

TEST(Stats, RanksSpearmanAndAuroc) {
  EXPECT_EQ(stats::ranks({10, 30, 20, 20}), (std::vector<double>{1, 4, 2.5, 2.5}));
  EXPECT_DOUBLE_EQ(stats::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(stats::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_TRUE(std::isnan(stats::spearman({1, 1, 1}, {1, 2, 3})));
  EXPECT_DOUBLE_EQ(stats::auroc({0.1, 0.2, 0.8, 0.9}, {false, false, true, true}), 1.0);
  EXPECT_DOUBLE_EQ(stats::auroc({0.9, 0.8, 0.2, 0.1}, {false, false, true, true}), 0.0);
  EXPECT_DOUBLE_EQ(stats::auroc({0.5, 0.5}, {false, true}), 0.5);
  EXPECT_TRUE(std::isnan(stats::auroc({0.1, 0.2}, {true, true})));
  EXPECT_DOUBLE_EQ(stats::median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(stats::median({4, 1, 3, 2}), 2.5);
}

TEST(Stats, MedianResidualsSkipMissingValuesAndSmallFolds) {
  const float nan = std::nanf("");
  // Output 0: residuals 1, 2, 10 (one missing label, one missing prediction) -> 2.
  // Output 1: only two labelled molecules -> below the minimum, no offset.
  const std::vector<std::vector<float>> predictions{{0, 5}, {1, nan}, {2, 1}, {nan, 0}, {0, 3}};
  const std::vector<std::vector<float>> labels{{1, nan}, {3, 4}, {12, 2}, {5, nan}, {nan, 3.5}};
  EXPECT_EQ(stats::medianResiduals(predictions, labels, 2, 3), (std::vector<double>{2.0, 0.0}));
  EXPECT_EQ(stats::medianResiduals(predictions, labels, 2, 2), (std::vector<double>{2.0, 0.75}));
  EXPECT_EQ(stats::medianResiduals({}, {}, 1, 1), (std::vector<double>{0.0}));
}

TEST(Stats, PercentileInterpolatesAndSkipsNonFiniteValues) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(stats::percentile({4, 1, 3, 2}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(stats::percentile({4, 1, 3, 2}, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(stats::percentile({4, 1, 3, 2}, 0.5), 2.5);   // between the 2nd and 3rd
  EXPECT_DOUBLE_EQ(stats::percentile({0, 10}, 0.25), 2.5);
  EXPECT_DOUBLE_EQ(stats::percentile({nan, 0, inf, 10}, 0.25), 2.5);  // NaN and inf left out
  EXPECT_TRUE(std::isnan(stats::percentile({}, 0.5)));
  EXPECT_TRUE(std::isnan(stats::percentile({nan}, 0.5)));
}

TEST(Conformal, QuantileIsTheFiniteSampleOrderStatistic) {
  auto s = stats::ConformalScores::fromScores({9, 1, 8, 2, 7, 3, 6, 4, 5});
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->sorted().front(), 1);
  EXPECT_DOUBLE_EQ(s->quantile(0.9), 9.0);     // k = ceil(10 * 0.9) = 9
  EXPECT_DOUBLE_EQ(s->quantile(0.8), 8.0);     // k = 8
  EXPECT_DOUBLE_EQ(s->quantile(0.5), 5.0);     // k = 5
  EXPECT_TRUE(std::isinf(s->quantile(0.95)));  // k = 10 > n: unbounded
  EXPECT_EQ(stats::ConformalScores::minimumSize(0.9), 9);
  EXPECT_EQ(stats::ConformalScores::minimumSize(0.95), 19);
  EXPECT_EQ(stats::ConformalScores::minimumSize(0.8), 4);
  EXPECT_DOUBLE_EQ(s->pValue(9.5), 0.1);  // no calibration score as large
  EXPECT_DOUBLE_EQ(s->pValue(0.0), 1.0);
  EXPECT_FALSE(stats::ConformalScores::fromScores({1, -1}).isOk());
  EXPECT_FALSE(stats::ConformalScores::fromScores({1, std::nan("")}).isOk());
}

// y = sin(3x) + σ(x) z with σ(x) = 0.1 + x, x uniform on [0, 1].
struct Sample {
  std::vector<double> x, y;
};
double truth(double x) { return std::sin(3 * x); }
double noise(double x) { return 0.1 + x; }
Sample draw(Normal& rng, int n) {
  Sample s;
  for (int i = 0; i < n; ++i) {
    const double x = rng.uniform();
    s.x.push_back(x);
    s.y.push_back(truth(x) + noise(x) * rng.next());
  }
  return s;
}

// Coverage of ŷ ± q (σ + β) on `test`, calibrated on `cal`; `predict` gives ŷ and σ.
template <typename Predict>
double coverage(const Sample& cal, const Sample& test, double confidence, Predict predict, bool normalized) {
  const double beta = 0.01;
  std::vector<double> scores;
  for (size_t i = 0; i < cal.x.size(); ++i) {
    const auto [yhat, sigma] = predict(cal.x[i]);
    scores.push_back(std::abs(cal.y[i] - yhat) / (normalized ? sigma + beta : 1.0));
  }
  const double q = stats::ConformalScores::fromScores(scores).value().quantile(confidence);
  int covered = 0;
  for (size_t i = 0; i < test.x.size(); ++i) {
    const auto [yhat, sigma] = predict(test.x[i]);
    covered += std::abs(test.y[i] - yhat) <= q * (normalized ? sigma + beta : 1.0) ? 1 : 0;
  }
  return double(covered) / double(test.x.size());
}

TEST(Conformal, NormalizedIntervalsCoverAtEveryLevelOnFreshData) {
  Normal rng(2026);
  auto exact = [](double x) { return std::pair<double, double>{truth(x), noise(x)}; };
  for (double confidence : {0.8, 0.9, 0.95}) {
    double sum = 0;
    const int trials = 40, n = 300;
    for (int t = 0; t < trials; ++t) sum += coverage(draw(rng, n), draw(rng, 1000), confidence, exact, true);
    const double mean = sum / trials;
    // Expected coverage lies in [1 - ε, 1 - ε + 1/(n + 1)); the mean of 40 trials scatters by < 0.005.
    EXPECT_GT(mean, confidence - 0.012) << confidence;
    EXPECT_LT(mean, confidence + 1.0 / (n + 1) + 0.012) << confidence;
  }
}

TEST(Conformal, NormalizationKeepsCoverageWhereTheNoiseIsLargest) {
  Normal rng(7);
  auto exact = [](double x) { return std::pair<double, double>{truth(x), noise(x)}; };
  const Sample cal = draw(rng, 2000);
  Sample noisy;  // x in [0.8, 1]: the noisiest fifth
  for (int i = 0; i < 4000; ++i) {
    const double x = 0.8 + 0.2 * rng.uniform();
    noisy.x.push_back(x);
    noisy.y.push_back(truth(x) + noise(x) * rng.next());
  }
  const double normalized = coverage(cal, noisy, 0.9, exact, true);
  const double constant = coverage(cal, noisy, 0.9, exact, false);
  EXPECT_NEAR(normalized, 0.9, 0.02);
  EXPECT_LT(constant, 0.8);  // a constant width under-covers the hard molecules
}

TEST(Conformal, ReusingTheCalibrationSetForFittingBreaksCoverage) {
  Normal rng(11);
  const Sample fit = draw(rng, 400), cal = draw(rng, 400), test = draw(rng, 4000);
  // 1-nearest-neighbour regression with a constant σ: it reproduces its own fitting labels.
  auto nearest = [](const Sample& data) {
    return [&data](double x) {
      size_t best = 0;
      for (size_t i = 1; i < data.x.size(); ++i)
        if (std::abs(data.x[i] - x) < std::abs(data.x[best] - x)) best = i;
      return std::pair<double, double>{data.y[best], 1.0};
    };
  };
  EXPECT_NEAR(coverage(cal, test, 0.9, nearest(fit), true), 0.9, 0.03);  // disjoint sets: holds
  EXPECT_LT(coverage(cal, test, 0.9, nearest(cal), true), 0.5);          // calibrated on its own fit: fails
}

}  // namespace
}  // namespace gs
