// The latent term of σ (predict/trust.h): l(x), the mean Euclidean distance of a molecule's
// embedding to its k nearest training embeddings over the calibration median, its place in the
// trust file, and a σ fit that uses it when the errors follow it (and not when they do not).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "chem/featurize.h"
#include "predict/trust.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

bundle::TrustData smallTrust() {
  bundle::TrustData t;
  t.outputs = 1;
  t.model_sha256 = "m";
  for (const char* s : {"CCO", "CCCO", "CCCCO", "OCCO", "CCCC"}) {
    auto parsed = chem::parseSmiles(s);
    predict::addReference(t, chem::domainFeatures(*parsed.mol), s, s, {1.0f}, {1.1f});
  }
  predict::finishDomain(t.domain);
  return t;
}

TEST(TrustLatent, DistanceIsTheMeanOfTheNearestEmbeddingsAndSurvivesTheFile) {
  auto t = smallTrust();
  t.sigma.neighbours = 2;
  t.sigma.ensemble_weight = {0};
  t.sigma.distance_weight = {0};
  t.sigma.latent_weight = {2.0};
  t.sigma.beta = {0.01};
  t.calibration_scores = {{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5}};
  t.calibration_residuals = t.calibration_scores;
  t.latent.dim = 3;
  t.latent.embeddings = {0, 0, 0, 1, 0, 0, 0, 2, 0, 5, 5, 5};
  t.latent.scale = 2;
  const predict::TrustAssessor a(t);
  ASSERT_TRUE(a.usesEmbeddings());
  EXPECT_DOUBLE_EQ(a.rawLatentDistance({0, 0, 0}), 0.5);  // (0 + 1) / 2
  EXPECT_DOUBLE_EQ(a.rawLatentDistance({0, 3, 0}), 2.0);  // (1 + 3) / 2: (0,2,0) and the origin
  EXPECT_TRUE(std::isnan(a.rawLatentDistance({0, 0})));   // another model's embedding
  auto parsed = chem::parseSmiles("CCCO");
  const auto f = chem::domainFeatures(*parsed.mol);
  const auto near = a.assess(f, {{1.0f}}, 0.9, {0, 0, 0}), far = a.assess(f, {{1.0f}}, 0.9, {0, 40, 0});
  EXPECT_DOUBLE_EQ(near.latent, 0.25);
  EXPECT_GT(far.latent, 10.0);
  EXPECT_NEAR(near.sigma[0], 2.0 * 0.25, 1e-12);
  EXPECT_GT(far.upper[0] - far.lower[0], 20 * (near.upper[0] - near.lower[0]));
  EXPECT_DOUBLE_EQ(a.assess(f, {{1.0f}}, 0.9).latent, 1.0) << "no embedding: the calibration median";

  const auto path = (fs::temp_directory_path() / ("gs_trust_latent_" + std::to_string(::getpid()))).string();
  ASSERT_TRUE(bundle::writeTrust(path, t).isOk());
  auto back = bundle::readTrust(path);
  fs::remove(path);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ(back->latent.dim, 3);
  EXPECT_EQ(back->latent.embeddings, t.latent.embeddings);
  EXPECT_EQ(back->latent.scale, 2.0);
  EXPECT_EQ(back->sigma.latent_weight, t.sigma.latent_weight);
}

// A fold whose errors grow with the latent distance l and not with d or the spread (the case of
// molecules that look like training molecules by fingerprint but not to the model), or with d.
predict::TrustFold fold(int n, bool latent_matters, std::mt19937& rng) {
  predict::TrustFold f;
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  for (int i = 0; i < n; ++i) {
    const double d = u(rng), l = 0.2 + 1.6 * u(rng);
    const double scale = latent_matters ? 0.05 + l * l : 0.05 + 2 * d;
    f.distance.push_back(d);
    f.latent.push_back(l);
    f.nn_similarity.push_back(1 - d);
    f.labels.push_back({static_cast<float>(z(rng) * scale)});
    f.values.push_back({{0.0f}, {static_cast<float>(0.05 * z(rng))}});
  }
  return f;
}

TEST(TrustLatent, SigmaUsesTheLatentDistanceWhenTheErrorsFollowIt) {
  std::mt19937 rng(3);
  for (bool latent_matters : {true, false}) {
    auto t = smallTrust();
    ASSERT_TRUE(predict::fitTrust(t, fold(800, latent_matters, rng), fold(2000, latent_matters, rng)).isOk());
    const double c = t.sigma.latent_weight[0], b = t.sigma.distance_weight[0];
    if (latent_matters) {
      EXPECT_GT(c, 0.0);
      EXPECT_GT(c, 2 * b) << "the latent term carries σ";
    } else {
      EXPECT_GT(b, 2 * c) << "the fingerprint distance carries σ";
    }
    // Coverage on fresh molecules of the same kind, σ with all three terms.
    const predict::TrustAssessor a(t);
    const auto test = fold(4000, latent_matters, rng);
    double covered = 0;
    for (size_t i = 0; i < test.labels.size(); ++i) {
      const double sigma = t.sigma.ensemble_weight[0] * predict::ensembleSpread(test.values[i], 0) +
                           b * test.distance[i] + c * test.latent[i];
      covered += std::fabs(test.labels[i][0]) <= a.halfWidth(0, sigma, 0.9);
    }
    EXPECT_NEAR(covered / double(test.labels.size()), 0.9, 0.025) << latent_matters;
  }
}

}  // namespace
}  // namespace gs
