// Activation checkpointing: same gradients as without it, less memory as the ratio rises.
#include <gtest/gtest.h>

#include "core/model_fixture.h"
#include "engine/activation_checkpoint.h"

namespace gs {
namespace {

data::GraphBatch fixtureBatch(int copies) {
  static const auto graphs = test::fixtureGraphs(5);
  std::vector<const graph::Featurized*> mols;
  for (int c = 0; c < copies; ++c)
    for (const auto& g : graphs) mols.push_back(&g);
  return data::collate(mols, {});
}

std::map<std::string, torch::Tensor> gradients(const model::GraphormerConfig& c, const data::GraphBatch& batch,
                                               double ratio, uint64_t dropout_seed) {
  model::Graphormer m(c);
  m->initializeWeights(5);
  m->train();
  torch::manual_seed(dropout_seed);
  auto out = m->forward(batch, engine::checkpointRunner(c.num_hidden_layers, ratio));
  (out * out).sum().backward();
  std::map<std::string, torch::Tensor> g;
  for (const auto& p : m->named_parameters())
    if (p.value().grad().defined()) g[p.key()] = p.value().grad().clone();
  return g;
}

TEST(ActivationCheckpoint, GradientsEqualThoseWithoutCheckpointing) {
  auto c = test::tinyConfig(4, 16, 24, 2);
  c.dropout = c.attention_dropout = c.activation_dropout = 0.1;  // dropout on: the RNG replay matters
  const auto batch = fixtureBatch(1);
  const auto reference = gradients(c, batch, 0.0, 11);
  ASSERT_TRUE(reference.count("encoder.graph_encoder.graph_attn_bias.edge_encoder.weight"));
  ASSERT_TRUE(reference.count("encoder.graph_encoder.graph_attn_bias.spatial_pos_encoder.weight"));
  for (double ratio : {0.0, 0.5, 1.0}) {
    const auto got = gradients(c, batch, ratio, 11);
    ASSERT_EQ(got.size(), reference.size()) << ratio;
    double worst = 0;
    for (const auto& [name, g] : reference) worst = std::max(worst, (got.at(name) - g).abs().max().item<double>());
    EXPECT_LE(worst, 1e-6) << "ratio " << ratio;
  }
  // The dropout masks really are random: another seed gives other gradients.
  const auto other = gradients(c, batch, 0.5, 12);
  double diff = 0;
  for (const auto& [name, g] : reference) diff = std::max(diff, (other.at(name) - g).abs().max().item<double>());
  EXPECT_GT(diff, 1e-4);
}

TEST(ActivationCheckpoint, PeakTensorMemoryOfATrainingStepFallsAsTheRatioRises) {
  const auto c = test::tinyConfig(6, 64, 128, 4);
  const auto batch = fixtureBatch(2);  // 128 molecules
  int64_t previous = std::numeric_limits<int64_t>::max();
  for (double ratio : {0.0, 0.5, 1.0}) {
    model::Graphormer m(c);
    m->initializeWeights(1);
    m->train();
    auto tracker = std::make_shared<engine::TensorMemoryTracker>();
    {
      engine::TensorMemoryScope scope(tracker);
      auto out = m->forward(batch, engine::checkpointRunner(c.num_hidden_layers, ratio));
      out.sum().backward();
    }
    std::printf("[ measured ] checkpoint ratio %.1f: peak tensor memory %.1f MiB\n", ratio, tracker->peak() / 1048576.0);
    EXPECT_LT(tracker->peak(), previous) << "ratio " << ratio;
    previous = tracker->peak();
  }
  EXPECT_EQ(engine::checkpointedLayers(12, 0.5), 6);
  EXPECT_EQ(engine::checkpointedLayers(12, 0.3), 4);
  EXPECT_EQ(engine::checkpointedLayers(12, 2.0), 12);
}

}  // namespace
}  // namespace gs
