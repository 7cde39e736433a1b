// Atom attributions: integrated gradients are complete (sum = f(x) - f(baseline)) on the
// reference fixture's weights; gradient x input and rollout have the right shapes; the peak
// tensor memory of an explanation falls as the checkpoint ratio rises.
#include <gtest/gtest.h>

#include <map>

#include "common/stats.h"
#include "core/model_fixture.h"
#include "engine/attribution.h"
#include "model/checkpoint.h"

namespace gs {
namespace {

std::vector<const graph::Featurized*> pointers(const std::vector<graph::Featurized>& v) {
  std::vector<const graph::Featurized*> out;
  for (const auto& g : v) out.push_back(&g);
  return out;
}

// Completeness: sum of attributions = f(x) - f(baseline). The gap is the quadrature error of
// the path integral. The fixture's weights make a far steeper path than a trained model
// (|dF/dalpha| up to 49 over 2 % of the path); the adaptive panels put points there and move the
// budget from molecules that have converged to those that have not. The relative gap is
// undefined where f(x) ~ f(baseline) (e.g. molecules of identical atoms): those are held to an
// absolute bound instead.
TEST(Explain, IntegratedGradientsAreCompleteOnTheFixtureWeights) {
  for (const char* variant : {"postln", "preln"}) {
    auto model = model::loadModel(test::fixtureDir() + "/" + variant + "/model.safetensors");
    ASSERT_TRUE(model.isOk()) << model.status().toString();
    const auto graphs = test::fixtureGraphs(model->config.multi_hop_max_dist);
    const auto mols = pointers(graphs);
    const auto expected = test::loadExpected(variant);
    ASSERT_TRUE(expected.count("official_spm1024_0"));
    std::vector<double> median_gap, worst_gap;
    for (int steps : {16, 64}) {
      engine::AttributionOptions o;
      o.steps = steps;
      int64_t progress = 0;
      engine::AttributionCallbacks cb;
      cb.progress = [&](int64_t done, int64_t) { progress = done; };
      auto a = engine::attribute(model.value(), mols, o, cb);
      ASSERT_TRUE(a.isOk()) << a.status().toString();
      EXPECT_EQ(progress, 64);
      std::vector<double> gaps;
      int64_t evaluations = 0;
      int fewest = 1 << 30, most = 0;
      for (size_t i = 0; i < mols.size(); ++i) {
        const auto& r = a.value()[i];
        ASSERT_TRUE(r.status.isOk());
        ASSERT_EQ(static_cast<int>(r.atoms.size()), mols[i]->numNodes());
        EXPECT_NEAR(r.prediction, expected.at("official_spm1024_0")[i], 1e-4) << i;  // the model's own prediction
        EXPECT_NEAR(r.sum - r.completeness_gap, r.prediction - r.baseline_prediction, 1e-6);
        evaluations += r.steps;
        fewest = std::min(fewest, r.steps);
        most = std::max(most, r.steps);
        const double span = std::abs(r.prediction - r.baseline_prediction);
        if (span > 0.01) {
          gaps.push_back(std::abs(r.completeness_gap) / span);
        } else if (steps >= 64) {
          EXPECT_LT(std::abs(r.completeness_gap), 1e-3) << variant << " molecule " << i;
        }
      }
      std::sort(gaps.begin(), gaps.end());
      median_gap.push_back(gaps[gaps.size() / 2]);
      worst_gap.push_back(gaps.back());
      std::printf(
          "[ measured ] %s, %d steps: completeness gap median %.4f %%, worst %.3f %% over %zu molecules "
          "(|f(x) - f(b)| > 0.01); gradient evaluations per molecule %d to %d, mean %.1f\n",
          variant, steps, 100 * median_gap.back(), 100 * worst_gap.back(), gaps.size(), fewest, most,
          double(evaluations) / double(mols.size()));
      EXPECT_LE(evaluations, static_cast<int64_t>(steps) * static_cast<int64_t>(mols.size()));  // the budget
      EXPECT_LE(most, 4 * steps);
      if (steps == 64) {
        EXPECT_LT(worst_gap.back(), 0.01) << variant;  // every molecule within 1 %
        EXPECT_LT(fewest, steps);                      // converged molecules stop early ...
        EXPECT_GT(most, steps);                        // ... and hard ones get their share
      }
    }
    EXPECT_LT(median_gap[1], median_gap[0]) << variant;
    EXPECT_LT(worst_gap[1], worst_gap[0]) << variant;
  }
}

TEST(Explain, GradientTimesInputAndRolloutGiveOneValuePerAtom) {
  auto model = model::loadModel(test::fixtureDir() + "/postln/model.safetensors");
  ASSERT_TRUE(model.isOk());
  const auto graphs = test::fixtureGraphs(model->config.multi_hop_max_dist);
  const auto mols = pointers(graphs);
  for (auto method : {engine::AttributionMethod::GradientTimesInput, engine::AttributionMethod::AttentionRollout}) {
    engine::AttributionOptions o;
    o.method = method;
    auto a = engine::attribute(model.value(), mols, o);
    ASSERT_TRUE(a.isOk()) << a.status().toString();
    double total_change = 0;
    for (size_t i = 0; i < mols.size(); ++i) {
      ASSERT_EQ(static_cast<int>(a.value()[i].atoms.size()), mols[i]->numNodes());
      for (float v : a.value()[i].atoms) EXPECT_TRUE(std::isfinite(v));
      total_change += std::abs(a.value()[i].sum);
    }
    EXPECT_GT(total_change, 0.0) << engine::attributionMethodName(method);
    if (method == engine::AttributionMethod::AttentionRollout) {
      for (size_t i = 0; i < mols.size(); ++i)
        EXPECT_LE(a.value()[i].sum, 1.0 + 1e-5);  // a share of the graph token's attention
    }
  }
  engine::AttributionOptions bad;
  bad.output = 7;
  EXPECT_FALSE(engine::attribute(model.value(), mols, bad).isOk());
  bad = {};
  bad.precision = tensor::Precision::INT8;
  EXPECT_FALSE(engine::attribute(model.value(), mols, bad).isOk());
}

TEST(Explain, PeakMemoryFallsAsTheCheckpointRatioRises) {
  model::LoadedModel m;
  m.config = test::tinyConfig(6, 64, 128, 4, 1);
  m.model = model::Graphormer(m.config);
  m.model->initializeWeights(2);
  const auto graphs = test::fixtureGraphs(5);
  const auto mols = pointers(graphs);
  // BF16 runs a 16-bit copy of the weights, so it stores 16-bit activations: lower again at every
  // ratio, and its attributions follow FP32's.
  std::map<double, int64_t> fp32_peak;
  std::map<double, std::vector<engine::Attribution>> fp32_result;
  for (auto precision : {tensor::Precision::FP32, tensor::Precision::BF16}) {
    int64_t previous = std::numeric_limits<int64_t>::max();
    for (double ratio : {0.0, 0.5, 1.0}) {
      engine::AttributionOptions o;
      o.method = engine::AttributionMethod::GradientTimesInput;
      o.precision = precision;
      o.checkpoint_ratio = ratio;
      o.batch_size = 64;
      engine::AttributionCallbacks cb;
      cb.memory = std::make_shared<tensor::TensorMemoryTracker>();
      auto a = engine::attribute(m, mols, o, cb);
      ASSERT_TRUE(a.isOk());
      const int64_t peak = cb.memory->peak();
      std::printf("[ measured ] explanation, %s, checkpoint ratio %.1f: peak tensor memory %.1f MiB\n",
                  tensor::precisionName(precision), ratio, peak / 1048576.0);
      EXPECT_LT(peak, previous) << ratio;
      previous = peak;
      if (precision == tensor::Precision::FP32) {
        fp32_peak[ratio] = peak;
        fp32_result[ratio] = a.value();
        continue;
      }
      EXPECT_LT(peak, fp32_peak[ratio]) << ratio;
      double scale = 0, worst = 0;
      for (size_t i = 0; i < mols.size(); ++i) {
        ASSERT_TRUE(a.value()[i].status.isOk()) << a.value()[i].status.message();
        for (size_t k = 0; k < a.value()[i].atoms.size(); ++k) {
          scale = std::max(scale, double(std::abs(fp32_result[ratio][i].atoms[k])));
          worst = std::max(worst, double(std::abs(a.value()[i].atoms[k] - fp32_result[ratio][i].atoms[k])));
        }
      }
      EXPECT_LT(worst, 0.1 * scale) << ratio;
    }
  }
}

// The carbon baseline compares each heteroatom with a carbon in its place: carbons get exactly 0,
// heteroatoms do not, and the attributions are still complete.
TEST(Explain, CarbonBaselineCreditsOnlyHeteroatoms) {
  auto model = model::loadModel(test::fixtureDir() + "/preln/model.safetensors");
  ASSERT_TRUE(model.isOk());
  const auto graphs = test::fixtureGraphs(model->config.multi_hop_max_dist);
  const auto mols = pointers(graphs);
  engine::AttributionOptions o;
  o.baseline = engine::AttributionBaseline::Carbon;
  auto a = engine::attribute(model.value(), mols, o);
  ASSERT_TRUE(a.isOk()) << a.status().toString();
  int carbons = 0, heteroatoms = 0, credited = 0, all_carbon = 0;
  for (size_t i = 0; i < mols.size(); ++i) {
    const auto& r = a.value()[i];
    bool any_hetero = false;
    for (int k = 0; k < mols[i]->numNodes(); ++k) {
      if (mols[i]->graph.node_feat[k * graph::kAtomFeatures] == 5) {  // OGB atomic number - 1: carbon
        ++carbons;
        EXPECT_EQ(r.atoms[k], 0.0f) << i << " " << k;
      } else {
        ++heteroatoms;
        any_hetero = true;
        credited += std::abs(r.atoms[k]) > 1e-6;
      }
    }
    if (!any_hetero) {  // nothing to change: the baseline is the molecule itself
      ++all_carbon;
      EXPECT_NEAR(r.prediction, r.baseline_prediction, 1e-6) << i;
    } else if (std::abs(r.prediction - r.baseline_prediction) > 0.01) {
      EXPECT_LT(std::abs(r.completeness_gap), 0.01 * std::abs(r.prediction - r.baseline_prediction)) << i;
    }
  }
  EXPECT_GT(carbons, 100);
  EXPECT_GT(heteroatoms, 20);
  EXPECT_GT(credited, heteroatoms * 9 / 10);
  EXPECT_GT(all_carbon, 0);
  EXPECT_EQ(engine::parseBaseline("carbon").value(), engine::AttributionBaseline::Carbon);
  EXPECT_FALSE(engine::parseBaseline("random").isOk());
}

// Cancelling part-way through a batch leaves no molecule "ok" without attributions, and the
// shared weights are left as they were (explanations run on a copy).
TEST(Explain, CancelPartWayMarksTheBatchAndLeavesTheWeightsAlone) {
  auto model = model::loadModel(test::fixtureDir() + "/postln/model.safetensors");
  ASSERT_TRUE(model.isOk());
  const auto graphs = test::fixtureGraphs(model->config.multi_hop_max_dist);
  const auto mols = pointers(graphs);
  double before = 0;
  for (const auto& p : model->model->parameters()) before += p.sum().item<double>();
  for (auto precision : {tensor::Precision::FP32, tensor::Precision::BF16}) {
    engine::AttributionOptions o;
    o.precision = precision;
    o.batch_size = 64;  // one batch: the cancel lands inside it
    int calls = 0;
    engine::AttributionCallbacks cb;
    cb.cancelled = [&] { return ++calls > 5; };
    auto a = engine::attribute(model.value(), mols, o, cb);
    ASSERT_TRUE(a.isOk());
    for (const auto& r : a.value()) {
      EXPECT_EQ(r.status.code(), StatusCode::Cancelled);
      EXPECT_TRUE(r.atoms.empty());
    }
  }
  double after = 0;
  for (const auto& p : model->model->parameters()) {
    after += p.sum().item<double>();
    EXPECT_TRUE(p.requires_grad());
    EXPECT_EQ(p.scalar_type(), torch::kFloat);
  }
  EXPECT_EQ(before, after);
}

TEST(Explain, SpearmanHandlesTies) {
  EXPECT_NEAR(stats::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0, 1e-12);
  EXPECT_NEAR(stats::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
  EXPECT_NEAR(stats::spearman({0, 0, 1, 1}, {0, 0, 5, 5}), 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(stats::spearman({1}, {1})));
}

}  // namespace
}  // namespace gs
