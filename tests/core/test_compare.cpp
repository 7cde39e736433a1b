// The compare runner (measured memory, speed and accuracy cost per mode) and the memory-budget
// batch planner.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/graph_builders.h"
#include "core/model_fixture.h"
#include "data/memory_planner.h"
#include "engine/compare.h"
#include "engine/inference_session.h"
#include "graph/graph_encoding.h"
#include "model/checkpoint.h"
#include "tensor/collate.h"

namespace gs {
namespace {

model::LoadedModel smallModel() {
  model::LoadedModel m;
  m.config = test::tinyConfig(3, 32, 64, 4, 1);
  m.model = model::Graphormer(m.config);
  m.model->initializeWeights(3);
  m.model->eval();
  return m;
}

std::vector<const graph::Featurized*> pointers(const std::vector<graph::Featurized>& v) {
  std::vector<const graph::Featurized*> out;
  for (const auto& g : v) out.push_back(&g);
  return out;
}

// Ring of n atoms (a large synthetic molecule).
graph::Featurized ring(int n) {
  std::vector<std::pair<int, int>> bonds;
  for (int i = 0; i < n; ++i) bonds.emplace_back(i, (i + 1) % n);
  auto g = test::makeGraph(n, bonds);
  return {g, graph::encodeGraph(g, 5)};
}

TEST(Compare, ParsesModesAndRefusesBadOnes) {
  auto m = engine::parseModes("fp32,bf16+ckpt=0.5,int8+bs=64", 16);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ(m.value()[0].precision, tensor::Precision::FP32);
  EXPECT_EQ(m.value()[0].batch_size, 16);
  EXPECT_EQ(m.value()[1].precision, tensor::Precision::BF16);
  EXPECT_DOUBLE_EQ(m.value()[1].checkpoint_ratio, 0.5);
  EXPECT_EQ(m.value()[2].batch_size, 64);
  EXPECT_EQ(m.value()[1].label(), "bf16+ckpt=0.5+bs=16");
  // The words the app shows instead of the code.
  EXPECT_EQ(m.value()[1].description(), "BF16 mixed precision · 50 % of layers recomputed · batch 16");
  EXPECT_EQ(engine::parseModes("int8+ckpt=1+bs=8").value()[0].description("\n"),
            "INT8 weights\nevery layer recomputed\nbatch 8");
  EXPECT_EQ(engine::parseModes("fp32").value()[0].description(), "FP32 · batch 32");
  for (const char* bad : {"", "fp64", "fp32+ckpt=2", "fp32+bs=0", "bf16+fast"})
    EXPECT_FALSE(engine::parseModes(bad).isOk()) << bad;
}

TEST(Compare, Fp32AgainstItselfHasNoDeltaAndPeaksGrowWithBatchSize) {
  const auto graphs = test::fixtureGraphs(5);
  const auto mols = pointers(graphs);
  engine::CompareOptions o;
  o.modes = engine::parseModes("fp32+bs=32,fp32+bs=1,fp32+bs=8,fp32+bs=64,bf16+bs=32,int8+bs=32").value();
  o.repeats = 2;
  auto r = engine::runComparison(smallModel(), mols, o);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->size(), 6u);
  for (const auto& m : r.value()) {
    if (!m.status.isOk()) continue;  // int8 where no engine exists
    EXPECT_EQ(m.molecules, 64);
    EXPECT_GT(m.ms_per_molecule, 0);
    EXPECT_GT(m.peak_tensor_bytes, 0) << m.mode.label();
    EXPECT_GT(m.peak_rss_bytes, 0);
    EXPECT_FALSE(m.trace_seconds.empty());
  }
  // Each mode is compared with FP32 at its own batch size (the batch sets the padded shapes, and
  // BLAS may round differently for other shapes), so FP32 at any batch size is the same arithmetic
  // as its reference in this process: exactly 0 on every machine and BLAS kernel.
  for (int k : {0, 1, 2, 3}) {
    EXPECT_EQ(r.value()[k].max_abs_delta, 0.0) << r.value()[k].mode.label();
    EXPECT_EQ(r.value()[k].mean_abs_delta, 0.0) << r.value()[k].mode.label();
  }
  EXPECT_LT(r.value()[1].peak_tensor_bytes, r.value()[2].peak_tensor_bytes);
  EXPECT_LT(r.value()[2].peak_tensor_bytes, r.value()[3].peak_tensor_bytes);
  EXPECT_GT(r.value()[4].max_abs_delta, 0.0);  // bf16 really ran in lower precision
  EXPECT_LT(r.value()[4].mean_abs_delta, 0.5);
}

// A model of three outputs on very different scales: each output's |Δ| is in its own unit, so
// BF16's rounding shows up a thousand times larger in the output whose standard deviation is.
TEST(Compare, EveryOutputGetsItsOwnDeltaInItsOwnUnit) {
  const auto graphs = test::fixtureGraphs(5);
  model::LoadedModel m;
  m.config = test::tinyConfig(3, 32, 64, 4, 3);
  m.model = model::Graphormer(m.config);
  m.model->initializeWeights(5);
  m.model->eval();
  m.metadata.target_names = {"a", "b", "c"};
  m.metadata.target_mean = {0, 0, 0};
  m.metadata.target_std = {1, 1000, 0.001};
  engine::CompareOptions o;
  o.modes = engine::parseModes("fp32,bf16").value();
  o.repeats = 1;
  auto r = engine::runComparison(m, pointers(graphs), o);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  const auto& fp32 = r.value()[0];
  const auto& bf16 = r.value()[1];
  ASSERT_EQ(fp32.output_mean_abs_delta, std::vector<double>(3, 0.0));
  ASSERT_EQ(bf16.output_mean_abs_delta.size(), 3u);
  ASSERT_EQ(bf16.output_max_abs_delta.size(), 3u);
  EXPECT_GT(bf16.output_mean_abs_delta[0], 0.0);
  EXPECT_GT(bf16.output_mean_abs_delta[1], 100 * bf16.output_mean_abs_delta[0]);
  EXPECT_LT(bf16.output_mean_abs_delta[2], 0.01 * bf16.output_mean_abs_delta[0]);
  for (int j = 0; j < 3; ++j) EXPECT_LE(bf16.output_mean_abs_delta[j], bf16.output_max_abs_delta[j]);
  EXPECT_EQ(bf16.max_abs_delta, bf16.output_max_abs_delta[1]);
  EXPECT_NEAR(bf16.mean_abs_delta,
              (bf16.output_mean_abs_delta[0] + bf16.output_mean_abs_delta[1] + bf16.output_mean_abs_delta[2]) / 3, 1e-9);
}

// Modes of another model (PRECISION@MODEL): its |Δ| is its difference from the model compared, in
// each output's unit; a model with other outputs or one not loaded gets a status, not figures.
TEST(Compare, AnotherModelsModesMeasureItsDifferenceFromTheModelCompared) {
  auto parsed = engine::parseModes("fp32,bf16+bs=8@other", 16);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed.value()[1].model, "other");
  EXPECT_EQ(parsed.value()[1].label(), "bf16+bs=8@other");
  EXPECT_EQ(parsed.value()[1].description(), "model other · BF16 mixed precision · batch 8");
  EXPECT_FALSE(engine::parseModes("bf16@").isOk());
  const auto graphs = test::fixtureGraphs(5);
  auto make = [](uint64_t seed, std::vector<std::string> names) {
    auto m = std::make_shared<model::LoadedModel>();
    m->config = test::tinyConfig(2, 32, 64, 4, static_cast<int>(names.size()));
    m->model = model::Graphormer(m->config);
    m->model->initializeWeights(seed);
    m->model->eval();
    m->metadata.target_names = names;
    m->metadata.target_mean.assign(names.size(), 0);
    m->metadata.target_std.assign(names.size(), 1);
    return m;
  };
  const auto compared = make(1, {"a", "b"});
  engine::CompareOptions o;
  o.modes = engine::parseModes("fp32,fp32@twin,fp32@other,fp32@wrong,fp32@missing").value();
  o.repeats = 1;
  o.models["twin"] = make(1, {"a", "b"});   // the same weights: no difference
  o.models["other"] = make(2, {"a", "b"});  // other weights: a difference per output
  o.models["wrong"] = make(3, {"x"});       // other outputs
  auto r = engine::runComparison(*compared, pointers(graphs), o);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->size(), 5u);
  EXPECT_TRUE(r.value()[1].status.isOk());
  EXPECT_EQ(r.value()[1].mean_abs_delta, 0.0);
  EXPECT_TRUE(r.value()[2].status.isOk());
  ASSERT_EQ(r.value()[2].output_mean_abs_delta.size(), 2u);
  EXPECT_GT(r.value()[2].output_mean_abs_delta[0], 0.0);
  EXPECT_FALSE(r.value()[3].status.isOk());
  EXPECT_NE(r.value()[3].status.message().find("other outputs"), std::string::npos);
  EXPECT_FALSE(r.value()[4].status.isOk());
}

TEST(Compare, CheckpointingSavesMemoryOnlyWhenGradientsAreComputed) {
  const auto graphs = test::fixtureGraphs(5);
  std::vector<const graph::Featurized*> mols;
  for (int c = 0; c < 2; ++c)
    for (const auto& g : graphs) mols.push_back(&g);  // 128 molecules: one batch
  model::LoadedModel m;
  m.config = test::tinyConfig(6, 64, 128, 4, 1);
  m.config.attention_dropout = m.config.activation_dropout = 0.1;
  m.model = model::Graphormer(m.config);
  m.model->initializeWeights(3);
  engine::CompareOptions o;
  o.modes = engine::parseModes("fp32+bs=128,fp32+ckpt=0.5+bs=128,fp32+ckpt=1+bs=128,int8+bs=128").value();
  o.repeats = 1;
  o.workload = engine::Workload::Train;
  auto train = engine::runComparison(m, mols, o);
  ASSERT_TRUE(train.isOk());
  const auto& t = train.value();
  EXPECT_LT(t[1].peak_tensor_bytes, t[0].peak_tensor_bytes);
  EXPECT_LT(t[2].peak_tensor_bytes, 0.8 * t[1].peak_tensor_bytes);
  EXPECT_LT(std::abs(t[2].max_abs_delta - t[0].max_abs_delta), 1e-3);  // same arithmetic, recomputed
  EXPECT_FALSE(t[3].status.isOk());                                    // int8 has no gradients
  o.workload = engine::Workload::Inference;
  auto infer = engine::runComparison(m, mols, o);
  ASSERT_TRUE(infer.isOk());
  const auto& i = infer.value();
  EXPECT_EQ(i[2].peak_tensor_bytes, i[0].peak_tensor_bytes);  // nothing stored to drop
  // Inference ignores the ratio: the same session arithmetic as FP32 at batch 128, its reference.
  EXPECT_EQ(i[2].max_abs_delta, 0.0);
  EXPECT_EQ(i[0].max_abs_delta, 0.0);
  EXPECT_LT(i[0].peak_tensor_bytes, t[2].peak_tensor_bytes);
}

TEST(MemoryPlanner, FitsProbesAndPlansWithinTheBudget) {
  std::vector<data::BatchShape> shapes;
  std::vector<int64_t> peaks;
  for (int b : {1, 4, 16})
    for (int t : {10, 20, 40}) {
      shapes.push_back({b, t});
      peaks.push_back(1000 + 50 * b * (t + 1) + 3 * b * (t + 1) * (t + 1));
    }
  const auto m = data::MemoryModel::fit(shapes, peaks);
  ASSERT_TRUE(m.valid());
  EXPECT_NEAR(m.predict({8, 100}), 1000 + 50 * 8 * 101 + 3 * 8 * 101 * 101, 1.0);
  std::vector<int> sizes{5, 300, 12, 30, 30, 8, 2000};
  data::PlanOptions po;
  po.max_batch_size = 64;
  const int64_t budget = 1'000'000;
  const auto plan = data::planWithinBudget(sizes, m, budget, po);
  std::vector<int> seen;
  for (const auto& b : plan.batches) {
    int max_atoms = 0;
    for (int i : b) max_atoms = std::max(max_atoms, sizes[i]), seen.push_back(i);
    EXPECT_LE(m.predict({static_cast<int64_t>(b.size()), max_atoms}) * 1.2, double(budget));
  }
  ASSERT_EQ(plan.over_budget, std::vector<int>{6});  // 2,000 atoms alone need ~12 MB
  seen.push_back(6);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
}

// Sweep of budgets: every batch's measured peak stays within the budget, also for molecules far
// larger than the probes the memory model was fitted on.
TEST(MemoryPlanner, MeasuredPeaksNeverExceedTheBudget) {
  const auto small = test::fixtureGraphs(5);  // 64 molecules of up to ~30 atoms: the probes
  std::vector<graph::Featurized> large;
  for (int n : {60, 90, 120, 150, 40, 75, 110, 130}) large.push_back(ring(n));
  for (int64_t budget_mib : {4, 8, 16, 32}) {
    engine::SessionOptions so;
    so.memory_budget_bytes = budget_mib << 20;
    so.plan.max_batch_size = 256;
    auto session = engine::InferenceSession::create(smallModel(), so);
    ASSERT_TRUE(session.isOk());
    ASSERT_TRUE(session.value()->fitMemoryModel(pointers(small)).isOk());
    std::vector<const graph::Featurized*> mols = pointers(small);
    for (const auto& g : large) mols.push_back(&g);
    auto tracker = std::make_shared<tensor::TensorMemoryTracker>();
    engine::RunCallbacks cb;
    cb.memory = tracker;
    int64_t worst = 0;
    int batches = 0;
    cb.progress = [&](int64_t, int64_t) {
      worst = std::max(worst, tracker->peak() - tracker->current());
      tracker->resetPeak();
      ++batches;
    };
    tracker->resetPeak();
    const auto out = session.value()->predict(mols, cb);
    int ok = 0;
    for (const auto& p : out) ok += p.status.isOk();
    EXPECT_LE(worst, budget_mib << 20) << budget_mib << " MiB budget: measured " << worst << " bytes; "
                                       << session.value()->memoryModelDescription();
    EXPECT_GT(ok, 0) << budget_mib;
    for (const auto& p : out)
      if (!p.status.isOk()) {
        EXPECT_EQ(p.status.code(), StatusCode::OutOfMemory) << p.status.toString();
      }
    std::printf("[ figure ] budget %lld MiB: %d batches, worst measured batch peak %.2f MiB, %d of %zu predicted\n",
                static_cast<long long>(budget_mib), batches, worst / 1048576.0, ok, out.size());
  }
}

}  // namespace
}  // namespace gs
