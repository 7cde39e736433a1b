// Trust (predict/trust.h, bundle/trust_file.h, jobs/trust_builder.h): the applicability domain's
// bands and reasons on molecules with a known defect, σ's fit and interval coverage on synthetic
// data with known noise, the trust file's round trip and refusal of corrupt or foreign files, and
// training runs (fresh, fine-tuned, LoRA) that each get their own calibration.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "chem/featurize.h"
#include "common/sha256.h"
#include "jobs/train_job.h"
#include "predict/predictor.h"
#include "tiny_train.h"

namespace gs {
namespace fs = std::filesystem;
namespace {

chem::DomainFeatures features(const std::string& smiles) {
  auto parsed = chem::parseSmiles(smiles);
  EXPECT_TRUE(parsed.status.isOk()) << smiles;
  return chem::domainFeatures(*parsed.mol);
}

// Trust data whose domain is a few small alcohols and alkanes; thresholds and σ set by hand.
bundle::TrustData alcoholTrust() {
  bundle::TrustData t;
  t.outputs = 1;
  t.model_sha256 = "m";
  const char* training[] = {"CCO",  "CCCO", "CCCCO",  "CCCCCCO", "CC(C)O",
                            "OCCO", "CCCC", "CCCCCC", "CC(C)C",  "CCCCCCCC"};
  float label = 1;
  for (const char* s : training) predict::addReference(t, features(s), s, s, {label}, {label + 0.1f}), label += 1;
  predict::finishDomain(t.domain);
  t.sigma.ensemble_weight = {1};
  t.sigma.distance_weight = {1};
  t.sigma.beta = {0.01};
  t.calibration_scores = {{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5}};
  t.calibration_residuals = t.calibration_scores;
  t.calibration_rows = 19;
  return t;
}

bool hasReason(const predict::TrustRow& r, const std::string& text) {
  for (const auto& reason : r.reasons)
    if (reason.find(text) != std::string::npos) return true;
  return false;
}

TEST(TrustDomain, EachDefectGetsItsBandAndReason) {
  const predict::TrustAssessor a(alcoholTrust());
  auto assess = [&](const std::string& smiles) {
    predict::TrustRow r;
    a.assessDomain(features(smiles), r);
    return r;
  };
  const auto known = assess("CCCCO");
  EXPECT_EQ(known.band, predict::DomainBand::In);
  EXPECT_TRUE(known.reasons.empty());
  EXPECT_DOUBLE_EQ(known.nn_similarity, 1.0);
  ASSERT_EQ(known.neighbours.size(), 5u);
  EXPECT_EQ(known.neighbours[0].smiles, "CCCCO");
  EXPECT_FLOAT_EQ(known.neighbours[0].label[0], 3.0f);
  EXPECT_FLOAT_EQ(known.neighbours[0].prediction[0], 3.1f);

  const auto uranium = assess("[U]");
  EXPECT_EQ(uranium.band, predict::DomainBand::Out);
  EXPECT_TRUE(hasReason(uranium, "element never in training: U"));

  const auto salt = assess("CCC[O-].[Na+]");
  EXPECT_EQ(salt.band, predict::DomainBand::Out);
  EXPECT_TRUE(hasReason(salt, "2 fragments"));
  EXPECT_TRUE(hasReason(salt, "Na"));

  const auto big = assess("CCCCCCCCCCCCO");
  EXPECT_EQ(big.band, predict::DomainBand::Out);
  EXPECT_TRUE(hasReason(big, "13 heavy atoms, more than any training molecule (8)"));

  // Carbon and oxygen are known, but no atom of a carboxylic acid has a radius-1 environment from
  // training (the carbonyl changes its neighbours' environments too): two or more such atoms are out.
  const auto acid = assess("CC(=O)O");
  EXPECT_EQ(acid.band, predict::DomainBand::Out);
  EXPECT_TRUE(hasReason(acid, "radius-1 environment never in training at atom C1, C2, O3, O4"))
      << ::testing::PrintToString(acid.reasons);
  EXPECT_FALSE(hasReason(acid, "element"));
  // Butanol with some of its atoms given environments training never had.
  auto altered = [&](std::vector<std::pair<int, int>> changes) {
    auto f = features("CCCCO");
    for (auto [atom, radius] : changes) (radius == 1 ? f.env_r1 : f.env_r2)[static_cast<size_t>(atom)] = 12345u + atom;
    predict::TrustRow r;
    a.assessDomain(f, r);
    return r;
  };
  const auto one = altered({{2, 1}});  // one atom: borderline, that atom named (from 1) and listed (index from 0)
  EXPECT_EQ(one.band, predict::DomainBand::Borderline);
  EXPECT_TRUE(hasReason(one, "radius-1 environment never in training at atom C3"))
      << ::testing::PrintToString(one.reasons);
  EXPECT_EQ(one.unseen_atoms, std::vector<int>{2});
  const auto two = altered({{2, 1}, {4, 1}});
  EXPECT_EQ(two.band, predict::DomainBand::Out);
  EXPECT_TRUE(hasReason(two, "at atom C3, O5"));
  // A new radius-2 environment alone is listed but does not lower the band.
  const auto note = altered({{1, 2}});
  EXPECT_EQ(note.band, predict::DomainBand::In);
  EXPECT_TRUE(hasReason(note, "radius-2 environment never in training at atom C2"));
}

TEST(TrustDomain, SimilarityThresholdsSetTheBand) {
  auto t = alcoholTrust();
  t.domain.similarity_borderline = 0.99;
  t.domain.similarity_out = 0.2;
  const predict::TrustAssessor a(t);
  predict::TrustRow near, self;
  a.assessDomain(features("CCCCCO"), near);
  a.assessDomain(features("CCCCO"), self);
  EXPECT_LT(near.nn_similarity, 0.99);
  EXPECT_GE(near.band, predict::DomainBand::Borderline);
  EXPECT_TRUE(hasReason(near, "nearest training molecule similarity"));
  EXPECT_EQ(self.band, predict::DomainBand::In);
  // Below the "out" threshold: out with a new environment, borderline when every one is known.
  t.domain.similarity_out = 0.99;
  const predict::TrustAssessor strict(t);
  predict::TrustRow known, novel;
  strict.assessDomain(features("CCCCCO"), known);
  strict.assessDomain(features("CCCCOC"), novel);
  EXPECT_TRUE(known.unseen_atoms.empty());
  EXPECT_EQ(known.band, predict::DomainBand::Borderline);
  EXPECT_TRUE(hasReason(known, "every atom environment is known"));
  EXPECT_FALSE(novel.unseen_atoms.empty());
  EXPECT_EQ(novel.band, predict::DomainBand::Out);
}

TEST(TrustDomain, StripSaltsPredictsTheParentAndSaysSo) {
  data::RawRecord r;
  r.text = "CC(=O)[O-].[Na+]";
  chem::FeaturizeOptions o;
  o.domain = true;
  const auto kept = chem::featurizeRecord(r, o);
  EXPECT_EQ(kept.domain->fragments, 2);
  EXPECT_TRUE(kept.note.empty());
  o.strip_salts = true;
  const auto parent = chem::featurizeRecord(r, o);
  ASSERT_TRUE(parent.status.isOk());
  EXPECT_EQ(parent.canonical, "CC(=O)[O-]");
  EXPECT_EQ(parent.domain->fragments, 1);
  EXPECT_NE(parent.note.find("[Na+]"), std::string::npos) << parent.note;
  EXPECT_EQ(parent.num_atoms, 4);
}

TEST(TrustAssess, IntervalIsThePredictionPlusMinusQuantileTimesSigmaPlusBeta) {
  const predict::TrustAssessor a(alcoholTrust());
  const auto f = features("CCCCCO");
  const auto row = a.assess(f, {{2.0f}, {2.4f}, {1.6f}}, 0.9);
  ASSERT_EQ(row.sigma.size(), 1u);
  const double spread = 0.4, sigma = spread + a.distance(f);
  EXPECT_NEAR(row.spread[0], spread, 1e-6);
  EXPECT_NEAR(row.sigma[0], sigma, 1e-6);
  const double q = 9.0;  // k = ceil(20 * 0.9) = 18th of 19 scores
  EXPECT_NEAR(row.upper[0] - 2.0, q * (sigma + 0.01), 1e-5);
  EXPECT_NEAR(2.0 - row.lower[0], q * (sigma + 0.01), 1e-5);
  // Too few calibration molecules for 99 %: the interval is unbounded, not invented.
  EXPECT_TRUE(std::isinf(a.assess(f, {{2.0f}}, 0.99).upper[0]));
}

// Synthetic folds: the error's scale is known (0.1 + 2 d) and the ensemble spread is noise.
predict::TrustFold syntheticFold(int n, std::mt19937& rng) {
  predict::TrustFold f;
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  for (int i = 0; i < n; ++i) {
    const double d = u(rng), y = z(rng) * (0.1 + 2 * d);
    f.distance.push_back(d);
    f.nn_similarity.push_back(1 - d);
    f.labels.push_back({static_cast<float>(y)});
    f.values.push_back({{0.0f}, {static_cast<float>(0.05 * z(rng))}, {static_cast<float>(0.05 * z(rng))}});
  }
  return f;
}

TEST(TrustFit, SigmaFollowsTheNoiseAndIntervalsCoverFreshData) {
  std::mt19937 rng(11);
  bundle::TrustData t = alcoholTrust();
  const auto valid = syntheticFold(500, rng), calib = syntheticFold(500, rng), test = syntheticFold(4000, rng);
  ASSERT_TRUE(predict::fitTrust(t, valid, calib).isOk());
  EXPECT_GE(t.sigma.distance_share, 0.7);  // distance carries the noise, spread does not
  EXPECT_EQ(t.calibration_scores[0].size(), 500u);
  const predict::TrustAssessor a(t);
  for (double confidence : {0.8, 0.9}) {
    double covered = 0;
    for (size_t i = 0; i < test.labels.size(); ++i) {
      const double sigma = t.sigma.ensemble_weight[0] * predict::ensembleSpread(test.values[i], 0) +
                           t.sigma.distance_weight[0] * test.distance[i];
      const double half = a.halfWidth(0, sigma, confidence);
      covered += std::fabs(test.labels[i][0]) <= half;
    }
    EXPECT_NEAR(covered / double(test.labels.size()), confidence, 0.03) << confidence;
  }
  const double easy = a.halfWidth(0, t.sigma.distance_weight[0] * 0.05, 0.9);
  const double hard = a.halfWidth(0, t.sigma.distance_weight[0] * 0.95, 0.9);
  EXPECT_GT(hard, 5 * easy);
}

// r_j(x), the mean |error| of the model on the nearest training molecules: molecules near badly
// fitted training molecules get a larger σ and interval, and a fold whose noise follows r_j(x)
// gives r_j(x) the weight (and keeps the intervals' coverage on fresh data).
TEST(TrustFit, TheTrainingNeighboursErrorWidensSigmaWhereTheModelFitsBadly) {
  bundle::TrustData t = alcoholTrust();
  // The alcohols are fitted to within 0.1, the alkanes off by 3.
  for (size_t i = 0; i < t.reference.smiles.size(); ++i) {
    const bool alkane = t.reference.smiles[i].find('O') == std::string::npos;
    t.reference.predictions[i] = t.reference.labels[i] + (alkane ? 3.0f : 0.1f);
  }
  t.sigma.residual_neighbours = 2;
  t.sigma.residual_weight = {1};
  const predict::TrustAssessor a(t);
  std::vector<similarity::Neighbour> near_alkane, near_alcohol;
  a.distance(features("CCCCCCC"), &near_alkane);
  a.distance(features("CCCCCO"), &near_alcohol);
  EXPECT_NEAR(a.neighbourError(near_alkane)[0], 3.0, 1e-5);  // hexane and octane
  EXPECT_NEAR(a.neighbourError(near_alcohol)[0], 0.1, 1e-5);  // butanol and hexanol
  const auto alkane = a.assess(features("CCCCCCC"), {{5.0f}}, 0.9);
  const auto alcohol = a.assess(features("CCCCCO"), {{5.0f}}, 0.9);
  EXPECT_GT(alkane.sigma[0] - alcohol.sigma[0], 2.5);  // e = 1: σ differs by the neighbours' error gap
  EXPECT_GT(alkane.upper[0] - alkane.lower[0], alcohol.upper[0] - alcohol.lower[0]);

  // Fitting: the noise follows r(x), distance and spread carry none of it.
  std::mt19937 rng(5);
  auto fold = [&](int n) {
    predict::TrustFold f;
    std::uniform_real_distribution<double> u(0, 1);
    std::normal_distribution<double> z(0, 1);
    for (int i = 0; i < n; ++i) {
      const double r = u(rng), y = z(rng) * (0.1 + 2 * r);
      f.distance.push_back(u(rng));
      f.nn_similarity.push_back(0.5);
      f.neighbour_error.push_back({r});
      f.labels.push_back({static_cast<float>(y)});
      f.values.push_back({{0.0f}, {static_cast<float>(0.05 * z(rng))}});
    }
    return f;
  };
  const auto valid = fold(500), calib = fold(500), test = fold(4000);
  ASSERT_TRUE(predict::fitTrust(t, valid, calib).isOk());
  EXPECT_GT(t.sigma.residual_weight[0], 3 * t.sigma.distance_weight[0]);
  const predict::TrustAssessor fitted(t);
  double covered = 0;
  for (size_t i = 0; i < test.labels.size(); ++i)
    covered += std::fabs(test.labels[i][0]) <= fitted.halfWidth(0, predict::sigmaOfMolecule(t.sigma, 0, test.terms(i, 0)), 0.9);
  EXPECT_NEAR(covered / double(test.labels.size()), 0.9, 0.03);
}

// The uncertainty rule (trust files from version 3): the calibration fold sets the median σ per
// output and the 80th / 95th percentile of the mean σ ratio; a molecule above them is borderline or
// out with the reason, and new atom environments alone no longer make a molecule "out".
TEST(TrustDomain, TheModelsOwnUncertaintyDecidesOutAndEnvironmentsOnlyBorderline) {
  std::mt19937 rng(3);
  bundle::TrustData t = alcoholTrust();
  const auto valid = syntheticFold(400, rng), calib = syntheticFold(1000, rng);
  ASSERT_TRUE(predict::fitTrust(t, valid, calib).isOk());
  ASSERT_EQ(t.domain.sigma_median.size(), 1u);
  EXPECT_GT(t.domain.sigma_median[0], 0.0);
  EXPECT_GT(t.domain.uncertainty_out, t.domain.uncertainty_borderline);
  EXPECT_GT(t.domain.uncertainty_borderline, 1.0) << "the 80th percentile of σ / median σ";
  // Share of the calibration molecules above each threshold: 20 % and 5 % by construction.
  int above_border = 0, above_out = 0;
  for (size_t i = 0; i < calib.values.size(); ++i) {
    const double sigma = t.sigma.ensemble_weight[0] * predict::ensembleSpread(calib.values[i], 0) +
                         t.sigma.distance_weight[0] * calib.distance[i];
    const double score = predict::uncertaintyScore(t.domain, {sigma});
    above_border += score > t.domain.uncertainty_borderline;
    above_out += score > t.domain.uncertainty_out;
  }
  EXPECT_NEAR(above_border / 1000.0, 0.20, 0.01);
  EXPECT_NEAR(above_out / 1000.0, 0.05, 0.01);

  const predict::TrustAssessor a(t);
  const std::vector<std::vector<float>> agree{{1.0f}, {1.0f}};
  const auto calm = a.assess(features("CCCCO"), agree, 0.9);
  EXPECT_EQ(calm.band, predict::DomainBand::In);
  predict::TrustRow acid;  // new radius-1 environments (out under the old rules), before σ
  a.assessDomain(features("CCC(=O)O"), acid);
  EXPECT_TRUE(hasReason(acid, "radius-1 environment never in training"));
  EXPECT_EQ(acid.band, predict::DomainBand::Borderline);
  const std::vector<std::vector<float>> disagree{{1.0f}, {1.0f + 50 * static_cast<float>(t.sigma.distance_weight[0])}};
  const auto unsure = a.assess(features("CCCCO"), disagree, 0.9);
  EXPECT_EQ(unsure.band, predict::DomainBand::Out);
  EXPECT_TRUE(hasReason(unsure, "the model is unsure")) << (unsure.reasons.empty() ? "" : unsure.reasons[0]);
}

// Two outputs on different scales: output 0's error grows with the distance d, output 1's is 20
// times larger and does not depend on d, and output 1 is missing for every third molecule.
predict::TrustFold twoOutputFold(int n, std::mt19937& rng) {
  predict::TrustFold f;
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  const float missing = std::nanf("");
  for (int i = 0; i < n; ++i) {
    const double d = u(rng);
    const auto y0 = static_cast<float>(z(rng) * (0.1 + 2 * d)), y1 = static_cast<float>(z(rng) * 20);
    f.distance.push_back(d);
    f.nn_similarity.push_back(1 - d);
    f.labels.push_back({y0, i % 3 == 2 ? missing : y1});
    f.values.push_back({{0.0f, 0.0f}, {static_cast<float>(0.05 * z(rng)), static_cast<float>(z(rng))}});
  }
  return f;
}

TEST(TrustFit, EachOutputGetsItsOwnScaleCalibrationAndCoverage) {
  std::mt19937 rng(5);
  bundle::TrustData t;
  t.outputs = 2;
  t.model_sha256 = "m";
  for (const char* s : {"CCO", "CCCO", "CCCCO", "OCCO", "CCCC"})
    predict::addReference(t, features(s), s, s, {1.0f, 2.0f}, {1.1f, 2.1f});
  predict::finishDomain(t.domain);
  // 3,000 calibration molecules: one calibration set's coverage then scatters by under 0.01.
  const auto valid = twoOutputFold(600, rng), calib = twoOutputFold(3000, rng), test = twoOutputFold(6000, rng);
  ASSERT_TRUE(predict::fitTrust(t, valid, calib).isOk());
  ASSERT_EQ(t.calibration_scores.size(), 2u);
  EXPECT_EQ(t.calibration_scores[0].size(), 3000u);
  EXPECT_EQ(t.calibration_scores[1].size(), 2000u);  // only the molecules labelled for output 1
  const predict::TrustAssessor a(t);
  for (int j = 0; j < 2; ++j) {
    for (double confidence : {0.8, 0.9}) {
      double covered = 0, present = 0, width = 0;
      for (size_t i = 0; i < test.labels.size(); ++i) {
        if (std::isnan(test.labels[i][j])) continue;
        const double sigma = t.sigma.ensemble_weight[j] * predict::ensembleSpread(test.values[i], j) +
                             t.sigma.distance_weight[j] * test.distance[i];
        const double half = a.halfWidth(j, sigma, confidence);
        covered += std::fabs(test.labels[i][j]) <= half, present += 1, width += half;
      }
      EXPECT_NEAR(covered / present, confidence, 0.03) << "output " << j << " at " << confidence;
      if (j == 0) continue;
      double width0 = 0;  // output 0's mean half-width on the same molecules
      for (size_t i = 0; i < test.labels.size(); ++i)
        if (!std::isnan(test.labels[i][1]))
          width0 += a.halfWidth(0,
                                t.sigma.ensemble_weight[0] * predict::ensembleSpread(test.values[i], 0) +
                                    t.sigma.distance_weight[0] * test.distance[i],
                                confidence);
      EXPECT_GT(width / width0, 5.0) << confidence;  // each output in its own units and scale
    }
  }
}

TEST(TrustFile, SurvivesSaveAndLoad) {
  const auto dir = fs::temp_directory_path() / ("gs_trust_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto t = alcoholTrust();
  t.members = {"snapshots/1"};
  t.member_sha256 = {"abc"};
  t.split_json = R"({"split":"random"})";
  t.domain.sigma_median = {0.25};
  t.domain.uncertainty_borderline = 1.5;
  t.domain.uncertainty_out = 2.75;
  t.sigma.residual_weight = {0.625};
  t.sigma.residual_neighbours = 7;
  const std::string path = (dir / "trust.safetensors").string();
  ASSERT_TRUE(bundle::writeTrust(path, t).isOk());
  auto back = bundle::readTrust(path);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ(back->model_sha256, t.model_sha256);
  EXPECT_EQ(back->members, t.members);
  EXPECT_EQ(back->calibration_scores, t.calibration_scores);
  EXPECT_EQ(back->domain.env_r2, t.domain.env_r2);
  EXPECT_EQ(back->domain.elements, t.domain.elements);
  EXPECT_EQ(back->domain.max_heavy_atoms, 8);
  EXPECT_EQ(back->reference.smiles, t.reference.smiles);
  EXPECT_EQ(back->reference.labels, t.reference.labels);
  EXPECT_EQ(back->split_json, t.split_json);
  ASSERT_EQ(back->reference.size(), t.reference.size());
  EXPECT_EQ(back->reference.fingerprints[3].words, t.reference.fingerprints[3].words);
  EXPECT_EQ(back->reference.fingerprints[3].on_bits, t.reference.fingerprints[3].on_bits);
  for (size_t i = 0; i < t.reference.fingerprints.size(); ++i)
    EXPECT_EQ(back->reference.fingerprints[i].words, t.reference.fingerprints[i].words) << i;
  EXPECT_EQ(back->domain.sigma_median, t.domain.sigma_median);
  EXPECT_EQ(back->domain.uncertainty_borderline, 1.5);
  EXPECT_EQ(back->domain.uncertainty_out, 2.75);
  EXPECT_EQ(back->sigma.residual_weight, t.sigma.residual_weight);
  EXPECT_EQ(back->sigma.residual_neighbours, 7);

  // One flipped byte in the data, a truncated file, a file of another kind: refused by name.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto rewrite = [&](const std::string& content) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    return bundle::readTrust(path);
  };
  std::string flipped = bytes;
  flipped[flipped.size() - 3] ^= 0x5A;
  auto corrupt = rewrite(flipped);
  ASSERT_FALSE(corrupt.isOk());
  EXPECT_NE(corrupt.status().message().find(path), std::string::npos);
  EXPECT_NE(corrupt.status().message().find("SHA-256"), std::string::npos);
  auto truncated = rewrite(bytes.substr(0, bytes.size() / 2));
  ASSERT_FALSE(truncated.isOk());
  EXPECT_NE(truncated.status().message().find("trust file"), std::string::npos);
  auto empty = rewrite("");
  EXPECT_FALSE(empty.isOk());
  // Every byte of the header changed in turn (lengths, offsets, dtypes, metadata): an error or a
  // consistent read, never a crash or an out-of-range access (the sanitizer build checks).
  const size_t header = 8 + static_cast<size_t>(static_cast<unsigned char>(bytes[0])) +
                        (static_cast<size_t>(static_cast<unsigned char>(bytes[1])) << 8);
  int refused = 0;
  for (size_t at = 0; at < std::min(header, bytes.size()); at += 3) {
    std::string mutated = bytes;
    mutated[at] = static_cast<char>(mutated[at] ^ 0x24);
    auto r = rewrite(mutated);
    if (!r.isOk()) {
      ++refused;
      EXPECT_NE(r.status().message().find("trust file"), std::string::npos) << r.status().message();
    } else {
      EXPECT_EQ(r->reference.size(), static_cast<int64_t>(r->reference.smiles.size()));
    }
  }
  EXPECT_GT(refused, 0);
  fs::remove_all(dir);
}

using testing_tiny::slice;
using testing_tiny::tinyTrain;

TEST(TrustTrain, EveryTrainedModelGetsItsOwnCalibrationAndRefusesStaleTrust) {
  const auto dir = fs::temp_directory_path() / ("gs_trust_train_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto first = slice(dir, "a.csv", 0, 200), second = slice(dir, "b.csv", 200, 300);
  auto base = jobs::runTrain(tinyTrain(first, (dir / "base").string()));
  ASSERT_TRUE(base.isOk()) << base.status().toString();
  EXPECT_EQ(base->calibration, 20);
  ASSERT_FALSE(base->trust_path.empty());
  EXPECT_EQ(base->snapshots, 2);

  auto tune = tinyTrain(second, (dir / "tuned").string());
  tune.model = bundle::ModelSource{(dir / "base").string(), ""};
  auto tuned = jobs::runTrain(tune);
  ASSERT_TRUE(tuned.isOk()) << tuned.status().toString();
  auto lora_options = tinyTrain(second, (dir / "lora").string());
  lora_options.model = bundle::ModelSource{(dir / "base").string(), ""};
  lora_options.train.lora_rank = 2;
  auto lora = jobs::runTrain(lora_options);
  ASSERT_TRUE(lora.isOk()) << lora.status().toString();

  auto base_trust = bundle::readTrust(base->trust_path), tuned_trust = bundle::readTrust(tuned->trust_path),
       lora_trust = bundle::readTrust(lora->trust_path);
  ASSERT_TRUE(base_trust.isOk() && tuned_trust.isOk() && lora_trust.isOk());
  EXPECT_EQ(tuned_trust->model_sha256, sha256File((dir / "tuned" / "model.safetensors").string()).value());
  EXPECT_NE(tuned_trust->model_sha256, base_trust->model_sha256);
  EXPECT_EQ(static_cast<int64_t>(tuned_trust->calibration_scores[0].size()), tuned->calibration);  // its own fold
  EXPECT_GT(tuned->calibration, base->calibration);
  EXPECT_EQ(tuned_trust->reference.size(), tuned->train);
  EXPECT_EQ(lora_trust->adapter_sha256, sha256File((dir / "lora" / "adapter.safetensors").string()).value());
  EXPECT_EQ(lora_trust->members.size(), 2u);

  for (const auto* model : {"base", "tuned", "lora"}) {
    predict::PredictorOptions po;
    po.model.path = (dir / model).string();
    auto p = predict::Predictor::open(po);
    ASSERT_TRUE(p.isOk()) << model << ": " << p.status().toString();
    ASSERT_NE(p.value()->trust(), nullptr) << model;
    EXPECT_EQ(p.value()->trust()->members(), 2);
    EXPECT_EQ(p.value()->trustNote(), "") << model;  // the run record must not say trust is off
    data::RawRecord r;
    r.text = "CCO";
    const auto rows = p.value()->predict(std::vector<data::RawRecord>{r});
    ASSERT_TRUE(rows[0].trust.has_value()) << model;
    EXPECT_LT(rows[0].trust->lower[0], rows[0].values[0]);
    EXPECT_GT(rows[0].trust->upper[0], rows[0].values[0]);
  }

  // The base model's trust file beside the fine-tuned weights: built for other weights.
  fs::copy_file(dir / "base" / "trust.safetensors", dir / "tuned" / "trust.safetensors",
                fs::copy_options::overwrite_existing);
  predict::PredictorOptions po;
  po.model.path = (dir / "tuned").string();
  auto stale = predict::Predictor::open(po);
  ASSERT_FALSE(stale.isOk());
  EXPECT_NE(stale.status().message().find("built for other weights"), std::string::npos) << stale.status().toString();
  po.trust = false;
  EXPECT_TRUE(predict::Predictor::open(po).isOk());
  // A missing member is named.
  fs::remove_all(dir / "base" / "snapshots" / "2");
  po.model.path = (dir / "base").string();
  po.trust = true;
  auto missing = predict::Predictor::open(po);
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.status().message().find("snapshots/2"), std::string::npos) << missing.status().toString();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
