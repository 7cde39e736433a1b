// Training under memory pressure: micro-batches, out-of-memory retries, fitting a budget, and
// cancelling mid-epoch with an exact resume.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "core/model_fixture.h"
#include "engine/train_memory.h"
#include "engine/trainer.h"
#include "model/checkpoint.h"
#include "tensor/memory_probe.h"

namespace gs {
namespace {

std::vector<engine::TrainExample> examplesOf(const std::vector<graph::Featurized>& graphs) {
  std::vector<engine::TrainExample> out;
  for (const auto& g : graphs) out.push_back({&g, {float(g.numNodes()), float(g.graph.numEdges())}});
  return out;
}

model::LoadedModel model(int layers, double dropout, uint64_t seed = 4) {
  model::LoadedModel m;
  m.config = test::tinyConfig(layers, 16, 32, 2, 2);
  m.config.dropout = m.config.attention_dropout = m.config.activation_dropout = dropout;
  m.model = model::Graphormer(m.config);
  m.model->initializeWeights(seed);
  return m;
}

engine::TrainOptions options(int epochs, int batch) {
  engine::TrainOptions o;
  o.epochs = epochs;
  o.batch_size = batch;
  o.patience = 0;
  o.seed = 11;
  o.learning_rate = 1e-3;
  return o;
}

double largestDifference(engine::Trainer& a, engine::Trainer& b) {
  auto pa = a.model().model->named_parameters();
  auto pb = b.model().model->named_parameters();
  double worst = 0;
  for (const auto& p : pa) worst = std::max(worst, (p.value() - pb[p.key()]).abs().max().item<double>());
  return worst;
}

// Gradients accumulated over passes of 3 molecules give the step of the whole batch of 16.
TEST(TrainMemory, MicroBatchesTakeTheSameStepsAsWholeBatches) {
  const auto graphs = test::fixtureGraphs(5);
  const auto train = examplesOf(graphs);
  engine::Trainer whole(model(2, 0.0), options(2, 16));
  auto o = options(2, 16);
  o.micro_batch = 3;
  engine::Trainer passes(model(2, 0.0), o);
  int forwards = 0;
  engine::TrainCallbacks cb;
  cb.before_forward = [&](int micro, double) {
    EXPECT_EQ(micro, 3);
    ++forwards;
  };
  ASSERT_TRUE(whole.fit(train, {}).isOk());
  ASSERT_TRUE(passes.fit(train, {}, cb).isOk());
  EXPECT_EQ(forwards, 2 * 4 * 6);  // 2 epochs x 4 steps x ceil(16 / 3) passes
  EXPECT_LT(largestDifference(whole, passes), 1e-4);
  EXPECT_GT(whole.model().model->named_parameters().size(), 0u);
}

// An out-of-memory error (injected as CUDA reports it) raises the checkpoint ratio a quarter of the
// layers at a time, then halves the pass; the run completes and says what it changed.
TEST(TrainMemory, OutOfMemoryRaisesTheRatioThenSplitsTheBatch) {
  const auto graphs = test::fixtureGraphs(5);
  const auto train = examplesOf(graphs);
  engine::Trainer trainer(model(4, 0.1), options(1, 16));
  std::vector<std::string> notes;
  engine::TrainCallbacks cb;
  cb.note = [&](const std::string& n) { notes.push_back(n); };
  cb.before_forward = [](int micro, double ratio) {
    if (micro > 4 || ratio < 1.0) throw std::runtime_error("CUDA out of memory. Tried to allocate 2.00 GiB (injected)");
  };
  auto summary = trainer.fit(train, {}, cb);
  ASSERT_TRUE(summary.isOk()) << summary.status().toString();
  EXPECT_EQ(summary->checkpoint_ratio, 1.0);
  EXPECT_EQ(summary->micro_batch, 4);
  EXPECT_EQ(summary->memory_retries, 4 + 2);  // 4 layers one at a time, then 16 -> 8 -> 4
  ASSERT_EQ(notes.size(), 6u);
  EXPECT_NE(notes[0].find("checkpoint ratio raised to 0.25"), std::string::npos) << notes[0];
  EXPECT_NE(notes[5].find("micro-batch lowered to 4"), std::string::npos) << notes[5];
  EXPECT_EQ(summary->epochs.size(), 1u);

  engine::TrainOptions strict = options(1, 16);
  strict.adapt_to_memory = false;
  engine::Trainer refuses(model(4, 0.1), strict);
  auto failed = refuses.fit(train, {}, cb);
  ASSERT_FALSE(failed.isOk());
  EXPECT_EQ(failed.status().code(), StatusCode::OutOfMemory);

  engine::TrainCallbacks other;
  other.before_forward = [](int, double) { throw std::runtime_error("index out of range"); };
  engine::Trainer broken(model(2, 0.1), options(1, 16));
  auto error = broken.fit(train, {}, other);
  ASSERT_FALSE(error.isOk());
  EXPECT_EQ(error.status().code(), StatusCode::Internal);  // not retried: only allocation failures are
}

// Cancelled in the middle of an epoch, then resumed: the same weights as an uninterrupted run.
TEST(TrainMemory, CancelMidEpochThenResumeEndsWithTheSameWeights) {
  const auto graphs = test::fixtureGraphs(5);
  const auto all = examplesOf(graphs);
  const std::vector<engine::TrainExample> train(all.begin(), all.begin() + 48), valid(all.begin() + 48, all.end());
  const auto base = std::filesystem::temp_directory_path() / ("gs_mid_" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  auto run = [&](const std::string& dir, bool resume, int cancel_after_steps) {
    auto o = options(3, 8);
    o.output_dir = dir;
    o.resume = resume;
    engine::Trainer t(model(2, 0.1), o);
    int steps = 0;
    engine::TrainCallbacks cb;
    cb.step_done = [&](int64_t, int64_t, double) { ++steps; };
    cb.cancelled = [&] { return cancel_after_steps > 0 && steps >= cancel_after_steps; };
    auto s = t.fit(train, valid, cb);
    EXPECT_TRUE(s.isOk()) << s.status().toString();
    EXPECT_EQ(s->cancelled, cancel_after_steps > 0);
    return std::make_pair(steps, model::readCheckpoint(dir + "/last.safetensors"));
  };
  auto full = run((base / "full").string(), false, 0);
  EXPECT_EQ(full.first, 18);
  auto first = run((base / "split").string(), false, 9);  // 1.5 epochs of 6 steps
  EXPECT_EQ(first.first, 9);
  EXPECT_TRUE(engine::Trainer::resumable((base / "split").string()));
  auto second = run((base / "split").string(), true, 0);
  EXPECT_EQ(second.first, 9);  // the remaining steps only
  ASSERT_TRUE(full.second.isOk() && second.second.isOk());
  std::map<std::string, torch::Tensor> a(full.second->tensors.begin(), full.second->tensors.end());
  double worst = 0;
  for (const auto& [name, t] : second.second->tensors)
    worst = std::max(worst, (t - a.at(name)).abs().max().item<double>());
  EXPECT_LT(worst, 1e-6) << "resumed weights differ by up to " << worst;
  std::filesystem::remove_all(base);
}

int64_t weightBytes(const model::LoadedModel& m) {
  int64_t n = 0;
  for (const auto& p : m.model->parameters()) n += p.numel() * 4;
  return n;
}

// Peak tensor memory of one real training epoch with the options (weights included).
int64_t measuredEpochPeak(const std::vector<engine::TrainExample>& train, const engine::TrainOptions& o, int layers) {
  auto m = model(layers, 0.1);
  const int64_t weights = weightBytes(m);
  auto tracker = std::make_shared<tensor::TensorMemoryTracker>();
  tensor::TensorMemoryScope scope(tracker);
  tracker->resetPeak();
  const int64_t base = tracker->current();
  engine::Trainer t(std::move(m), o);
  EXPECT_TRUE(t.fit(train, {}).isOk());
  return tracker->peak() - base + weights;
}

// For budgets between the smallest footprint and more than the unconstrained one, the chosen
// settings' real epoch stays within the budget; a budget below the smallest is refused by size.
TEST(TrainMemory, ChosenSettingsKeepARealEpochWithinTheBudget) {
  const auto graphs = test::fixtureGraphs(5);
  const auto train = examplesOf(graphs);
  auto o = options(1, 32);
  const int layers = 4;
  engine::MemoryFitOptions fit;
  fit.budget_bytes = int64_t(1) << 40;
  auto wide = engine::fitTrainingToMemory(model(layers, 0.1), train, o, fit);
  ASSERT_TRUE(wide.isOk()) << wide.status().toString();
  const double unconstrained = wide->unconstrained.predicted_bytes;
  double smallest = unconstrained;
  for (const auto& c : wide->candidates) smallest = std::min(smallest, c.predicted_bytes);
  ASSERT_LT(smallest, 0.8 * unconstrained) << "checkpointing and passes must save memory";
  for (double budget : {1.3 * unconstrained, 1.2 * (smallest + unconstrained) / 2, 1.25 * smallest}) {
    fit.budget_bytes = int64_t(budget);
    auto chosen = engine::fitTrainingToMemory(model(layers, 0.1), train, o, fit);
    ASSERT_TRUE(chosen.isOk()) << chosen.status().toString();
    auto run = o;
    chosen->applyTo(run);
    const int64_t peak = measuredEpochPeak(train, run, layers);
    std::cout << "[ budget ] " << (budget / 1024) << " KiB: " << chosen->summary() << "; measured " << peak / 1024
              << " KiB\n";
    EXPECT_LE(peak, fit.budget_bytes) << chosen->summary();
  }
  fit.budget_bytes = int64_t(0.5 * smallest);
  auto refused = engine::fitTrainingToMemory(model(layers, 0.1), train, o, fit);
  ASSERT_FALSE(refused.isOk());
  EXPECT_EQ(refused.status().code(), StatusCode::OutOfMemory);
  EXPECT_NE(refused.status().message().find("one molecule per pass"), std::string::npos) << refused.status().message();
}

}  // namespace
}  // namespace gs
