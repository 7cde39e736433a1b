// Activation checkpointing: same gradients as without it, less memory as the ratio rises.
#include <gtest/gtest.h>

#include "core/model_fixture.h"
#include "engine/activation_checkpoint.h"
#include "engine/loss_scaler.h"
#include "engine/train_state.h"
#include "engine/trainer.h"
#include "model/checkpoint.h"
#include "tensor/collate.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>

namespace gs {
namespace {

tensor::GraphBatch fixtureBatch(int copies) {
  static const auto graphs = test::fixtureGraphs(5);
  std::vector<const graph::Featurized*> mols;
  for (int c = 0; c < copies; ++c)
    for (const auto& g : graphs) mols.push_back(&g);
  return tensor::collate(mols, {});
}

std::map<std::string, torch::Tensor> gradients(const bundle::GraphormerConfig& c, const tensor::GraphBatch& batch,
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

// Gradients of the multi-task loss of one batch in which each target misses some labels, and of
// the same loss computed target by target on only the molecules labelled for it (each such subset
// a batch of its own): the masked loss must count a missing label as nothing at all.
std::map<std::string, torch::Tensor> maskedGradients(const bundle::GraphormerConfig& c,
                                                     const std::vector<const graph::Featurized*>& mols,
                                                     const torch::Tensor& target, engine::TrainOptions::Loss loss,
                                                     bool per_target) {
  model::Graphormer m(c);
  m->initializeWeights(7);
  m->eval();  // no dropout: a molecule's output does not depend on its batch
  torch::Tensor total = torch::zeros({});
  if (!per_target) total = engine::maskedLossSum(m->forward(tensor::collate(mols, {})), target, loss);
  for (int64_t j = 0; per_target && j < target.size(1); ++j) {
    std::vector<const graph::Featurized*> labelled;
    std::vector<float> y;
    for (int64_t i = 0; i < target.size(0); ++i)
      if (std::isfinite(target[i][j].item<float>()))
        labelled.push_back(mols[size_t(i)]), y.push_back(target[i][j].item<float>());
    const auto out = m->forward(tensor::collate(labelled, {})).select(1, j);
    const auto diff = out - torch::tensor(y);
    total = total + (loss == engine::TrainOptions::Loss::L1 ? diff.abs() : diff * diff).sum();
  }
  total.backward();
  std::map<std::string, torch::Tensor> g;
  for (const auto& p : m->named_parameters())
    if (p.value().grad().defined()) g[p.key()] = p.value().grad().clone();
  return g;
}

TEST(MaskedLoss, GradientsEqualThoseOfDroppingTheUnlabelledRowsPerTarget) {
  static const auto graphs = test::fixtureGraphs(5);
  std::vector<const graph::Featurized*> mols;
  for (const auto& g : graphs) mols.push_back(&g);
  const int64_t n = static_cast<int64_t>(mols.size()), k = 3;
  torch::manual_seed(3);
  auto target = torch::randn({n, k});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Every target misses some labels, one molecule has none, and each target keeps at least two.
  for (auto [i, j] :
       std::vector<std::pair<int, int>>{{0, 0}, {3, 0}, {1, 1}, {4, 1}, {6, 1}, {2, 2}, {7, 2}, {5, 0}, {5, 1}, {5, 2}})
    target[i][j] = nan;
  const auto c = test::tinyConfig(2, 16, 24, 2, int(k));
  for (auto loss : {engine::TrainOptions::Loss::L1, engine::TrainOptions::Loss::MSE}) {
    const auto masked = maskedGradients(c, mols, target, loss, false);
    const auto dropped = maskedGradients(c, mols, target, loss, true);
    ASSERT_EQ(masked.size(), dropped.size());
    double worst = 0, size = 0;
    for (const auto& [name, g] : dropped) {
      worst = std::max(worst, (masked.at(name) - g).abs().max().item<double>());
      size = std::max(size, g.abs().max().item<double>());
    }
    EXPECT_GT(size, 1e-3) << engine::lossName(loss);  // the gradients are not trivially zero
    EXPECT_LE(worst, 1e-5 * std::max(1.0, size)) << engine::lossName(loss);
  }
  // A missing label read as 0 instead would change them: the comparison can fail.
  const auto zeros = maskedGradients(c, mols, target.nan_to_num(0.0), engine::TrainOptions::Loss::L1, false);
  const auto dropped = maskedGradients(c, mols, target, engine::TrainOptions::Loss::L1, true);
  double diff = 0;
  for (const auto& [name, g] : dropped) diff = std::max(diff, (zeros.at(name) - g).abs().max().item<double>());
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
    auto tracker = std::make_shared<tensor::TensorMemoryTracker>();
    {
      tensor::TensorMemoryScope scope(tracker);
      auto out = m->forward(batch, engine::checkpointRunner(c.num_hidden_layers, ratio));
      out.sum().backward();
    }
    std::printf("[ measured ] checkpoint ratio %.1f: peak tensor memory %.1f MiB\n", ratio,
                tracker->peak() / 1048576.0);
    EXPECT_LT(tracker->peak(), previous) << "ratio " << ratio;
    previous = tracker->peak();
  }
  EXPECT_EQ(engine::checkpointedLayers(12, 0.5), 6);
  EXPECT_EQ(engine::checkpointedLayers(12, 0.3), 4);
  EXPECT_EQ(engine::checkpointedLayers(12, 2.0), 12);
}

}  // namespace
}  // namespace gs

namespace gs {
namespace {

std::vector<engine::TrainExample> fixtureExamples(const std::vector<graph::Featurized>& graphs) {
  std::vector<engine::TrainExample> out;
  for (const auto& g : graphs) {
    engine::TrainExample e;
    e.graph = &g;
    // a learnable toy target: atom count, and a second one missing for every third molecule
    e.targets = {float(g.numNodes()), out.size() % 3 ? float(g.graph.numEdges()) : std::nanf("")};
    out.push_back(e);
  }
  return out;
}

model::LoadedModel freshModel(uint64_t seed) {
  model::LoadedModel m;
  m.config = test::tinyConfig(2, 16, 32, 2, 2);
  m.model = model::Graphormer(m.config);
  m.model->initializeWeights(seed);
  return m;
}

TEST(Trainer, Bf16StepsReduceTheLoss) {
  const auto graphs = test::fixtureGraphs(5);
  const auto examples = fixtureExamples(graphs);
  engine::TrainOptions o;
  o.precision = tensor::Precision::BF16;
  o.epochs = 40;
  o.batch_size = 16;
  o.learning_rate = 3e-3;
  o.warmup_fraction = 0.0;
  engine::Trainer trainer(freshModel(1), o);
  auto summary = trainer.fit(examples, {});
  ASSERT_TRUE(summary.isOk()) << summary.status().toString();
  EXPECT_LT(summary->epochs.back().train_loss, 0.7 * summary->epochs.front().train_loss);
}

TEST(LossScaler, SkipsAStepWithAnInfiniteGradientAndBacksOff) {
  engine::LossScaler scaler(true, 1024.0, 2);
  auto p = torch::ones({3}, torch::requires_grad());
  scaler.scale((p * 2).sum()).backward();
  EXPECT_TRUE(scaler.unscaleAndCheck({p}));
  EXPECT_TRUE(torch::allclose(p.grad(), torch::full({3}, 2.0)));  // unscaled
  p.mutable_grad().zero_();
  scaler.scale((p * 2).sum()).backward();
  EXPECT_TRUE(scaler.unscaleAndCheck({p}));
  EXPECT_EQ(scaler.currentScale(), 2048.0);                      // grew after two clean steps
  p.mutable_grad()[1] = std::numeric_limits<float>::infinity();  // injected overflow
  EXPECT_FALSE(scaler.unscaleAndCheck({p}));
  EXPECT_EQ(scaler.currentScale(), 1024.0);
  EXPECT_EQ(scaler.skippedSteps(), 1);
}

// An interrupted run (cancelled after two of four epochs) resumed from its output directory ends
// with exactly the weights of an uninterrupted run.
TEST(Trainer, ResumingGivesTheSameWeightsAsAnUninterruptedRun) {
  const auto graphs = test::fixtureGraphs(5);
  const auto examples = fixtureExamples(graphs);
  const std::vector<engine::TrainExample> train(examples.begin(), examples.begin() + 48);
  const std::vector<engine::TrainExample> valid(examples.begin() + 48, examples.end());
  auto run = [&](const std::string& dir, bool resume, int stop_after) {
    engine::TrainOptions o;
    o.epochs = 4;
    o.batch_size = 8;
    o.seed = 3;
    o.patience = 0;
    o.output_dir = dir;
    o.resume = resume;
    auto m = freshModel(2);
    m.config.dropout = 0.1;
    m.model = model::Graphormer(m.config);
    m.model->initializeWeights(2);
    engine::Trainer t(std::move(m), o);
    int epochs_done = 0;
    engine::TrainCallbacks cb;
    cb.epoch_done = [&](const engine::EpochReport&) { ++epochs_done; };
    cb.cancelled = [&] { return stop_after > 0 && epochs_done >= stop_after; };
    auto s = t.fit(train, valid, cb);
    EXPECT_TRUE(s.isOk()) << s.status().toString();
    EXPECT_EQ(s->cancelled, stop_after > 0);
    return model::readCheckpoint(dir + "/last.safetensors");
  };
  const auto base = std::filesystem::temp_directory_path();
  for (const char* d : {"gs_full", "gs_split"}) std::filesystem::remove_all(base / d);
  auto full = run((base / "gs_full").string(), false, 0);
  run((base / "gs_split").string(), false, 2);
  auto resumed = run((base / "gs_split").string(), true, 0);
  ASSERT_TRUE(full.isOk() && resumed.isOk());
  std::map<std::string, torch::Tensor> a(full->tensors.begin(), full->tensors.end());
  double worst = 0;
  for (const auto& [name, t] : resumed->tensors) worst = std::max(worst, (t - a.at(name)).abs().max().item<double>());
  EXPECT_EQ(worst, 0.0) << "resumed weights differ by up to " << worst;
  for (const char* d : {"gs_full", "gs_split"}) std::filesystem::remove_all(base / d);
}

// A run stopped before its first validation has no best epoch yet: resuming it must not read the
// missing best error as 0 (no later epoch would then count as an improvement).
TEST(TrainState, ABestErrorNotYetMeasuredSurvivesTheStateFile) {
  const auto path = std::filesystem::temp_directory_path() / ("gs_state_" + std::to_string(::getpid()) + ".json");
  engine::TrainState s;
  s.step = 5;
  ASSERT_TRUE(engine::writeState(path.string(), s).isOk());
  auto back = engine::readState(path.string());
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_TRUE(std::isinf(back->best)) << back->best;
  EXPECT_EQ(back->step, 5);
  s.best = 0.25;
  ASSERT_TRUE(engine::writeState(path.string(), s).isOk());
  EXPECT_DOUBLE_EQ(engine::readState(path.string())->best, 0.25);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gs
