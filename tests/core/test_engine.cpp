// Inference session behaviour: precisions, invariance, cancellation, progress, memory probes.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "core/model_fixture.h"
#include "model/checkpoint.h"
#include "model/linear.h"
#include "tensor/collate.h"
#include "tensor/torch_compat.h"

namespace gs {
namespace {

std::unique_ptr<engine::InferenceSession> fixtureSession(tensor::Precision p, int batch = 16,
                                                         const std::string& variant = "postln", bool autocast = false) {
  auto model = model::loadModel(test::fixtureDir() + "/" + variant);
  EXPECT_TRUE(model.isOk()) << model.status().toString();
  engine::SessionOptions o;
  o.precision = p;
  o.autocast = autocast;
  o.plan.max_batch_size = batch;
  auto s = engine::InferenceSession::create(std::move(model.value()), o);
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  return s.isOk() ? std::move(s.value()) : nullptr;
}

double maxAbsDiff(const std::vector<engine::Prediction>& a, const std::vector<engine::Prediction>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < a[i].values.size(); ++j)
      worst = std::max(worst, double(std::abs(a[i].values[j] - b[i].values[j])));
  return worst;
}

TEST(Precision, EveryPrecisionStaysWithinItsTablesTolerance) {
  const auto graphs = test::fixtureGraphs(5);
  const auto mols = test::pointers(graphs);
  for (const std::string variant : {"postln", "preln"}) {
    const auto fp32 = fixtureSession(tensor::Precision::FP32, 16, variant)->predict(mols);
    const auto fp32_again = fixtureSession(tensor::Precision::FP32, 16, variant)->predict(mols);
    EXPECT_EQ(maxAbsDiff(fp32, fp32_again), 0.0) << "fp32 against itself must be exact";
    // Every precision that runs here, held to its row's tolerance (the fixture's weights are
    // random and large, outputs have a standard deviation of ~0.5; docs/PERFORMANCE.md).
    for (const tensor::PrecisionTraits& t : tensor::precisionTable()) {
      if (t.precision == tensor::Precision::FP32 || !tensor::precisionAvailable(t.precision, "cpu").isOk()) continue;
      const auto out = fixtureSession(t.precision, 16, variant)->predict(mols);
      double mean = 0;
      int n = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(out[i].status.isOk()) << out[i].status.toString();
        for (size_t j = 0; j < out[i].values.size(); ++j, ++n) mean += std::abs(out[i].values[j] - fp32[i].values[j]);
      }
      mean /= n;
      const double worst = maxAbsDiff(fp32, out);
      std::printf("[ measured ] %s %s vs fp32: max |d| %.4f, mean |d| %.4f\n", variant.c_str(),
                  tensor::precisionName(t.precision), worst, mean);
      EXPECT_LT(worst, t.max_abs_vs_fp32) << variant << " " << t.name;
      EXPECT_LT(mean, t.mean_abs_vs_fp32) << variant << " " << t.name;
      EXPECT_GT(worst, 0.0) << tensor::precisionName(t.precision) << " must actually change the arithmetic";
    }
  }
}

// The 16-bit weight copies round the products' inputs as autocast does, from the same fp32
// weights; unlike autocast they also keep the residual stream and the attention bias in bfloat16
// (half the activation memory) and round the attention products' inputs less (autocast: q, k, v
// and the probabilities in 16 bits; the copies: fp32 scores and probabilities). Measured on the
// fixture: max |copies - autocast| 0.036 / 0.042 (post-LN / pre-LN), copies 0.082 / 0.045 from
// fp32, autocast 0.068 / 0.038.
TEST(Precision, Bf16WeightCopiesAgreeWithAutocast) {
  const auto graphs = test::fixtureGraphs(5);
  const auto mols = test::pointers(graphs);
  for (const std::string variant : {"postln", "preln"}) {
    const auto fp32 = fixtureSession(tensor::Precision::FP32, 16, variant)->predict(mols);
    auto copies_session = fixtureSession(tensor::Precision::BF16, 16, variant);
    EXPECT_FALSE(copies_session->usesLoadedModule());  // its own module, holding the 16-bit copies
    const auto copies = copies_session->predict(mols);
    auto autocast_session = fixtureSession(tensor::Precision::BF16, 16, variant, /*autocast=*/true);
    EXPECT_TRUE(autocast_session->usesLoadedModule());
    const auto autocast = autocast_session->predict(mols);
    const double between = maxAbsDiff(copies, autocast);
    std::printf("[ measured ] %s bf16 copies vs autocast: max |d| %.4f (vs fp32: copies %.4f, autocast %.4f)\n",
                variant.c_str(), between, maxAbsDiff(copies, fp32), maxAbsDiff(autocast, fp32));
    EXPECT_LT(between, 0.06) << variant;
    EXPECT_GT(maxAbsDiff(copies, fp32), 0.0) << "the copies must really be 16-bit";
    EXPECT_LT(maxAbsDiff(copies, fp32), 1.5 * maxAbsDiff(autocast, fp32)) << variant;
  }
}

// INT8 activations are quantised per row: a molecule's prediction is the same alone, in a batch
// of others, and beside a much larger molecule (which, quantised per tensor, would set the scale
// of the whole batch).
TEST(Precision, Int8PredictionDoesNotDependOnBatchCompanions) {
  if (!tensor::precisionAvailable(tensor::Precision::INT8, "cpu").isOk())
    GTEST_SKIP() << "no int8 engine in this LibTorch";
  const auto graphs = test::fixtureGraphs(5);
  auto s = fixtureSession(tensor::Precision::INT8, 64);
  for (int target : {0, 1, 5, 30}) {
    const auto alone = s->predict({&graphs[target]});
    const auto crowded = s->predict({&graphs[3], &graphs[target], &graphs[2], &graphs[40]});
    std::vector<const graph::Featurized*> many;
    for (size_t i = 0; i < 40; ++i) many.push_back(&graphs[(i * 7) % graphs.size()]);
    many[17] = &graphs[target];
    const auto batch = s->predict(many);
    for (int c = 0; c < s->numOutputs(); ++c) {
      EXPECT_NEAR(alone[0].values[c], crowded[1].values[c], 1e-5) << target;
      EXPECT_NEAR(alone[0].values[c], batch[17].values[c], 1e-5) << target;
    }
  }
}

// BF16 inference keeps the residual stream, the bias and every activation in 16 bits: its peak
// tensor memory at the same batch is about half FP32's (0.50x measured here, 0.51x on the base model in
// bench/inference), where autocast's copies of the weights made it higher than FP32's.
TEST(Precision, Bf16InferenceHoldsAboutHalfTheTensorMemoryOfFp32) {
  const auto graphs = test::fixtureGraphs(5);
  const auto mols = test::pointers(graphs);
  std::map<std::string, int64_t> peaks;
  for (const auto& [name, precision, autocast] :
       {std::tuple{"fp32", tensor::Precision::FP32, false}, std::tuple{"bf16", tensor::Precision::BF16, false},
        std::tuple{"bf16-autocast", tensor::Precision::BF16, true}}) {
    model::LoadedModel m;
    m.config = test::tinyConfig(2, 768, 768, 32);  // the base model's width, fewer layers
    m.model = model::Graphormer(m.config);
    m.model->initializeWeights(5);
    engine::SessionOptions o;
    o.precision = precision;
    o.autocast = autocast;
    o.plan.max_batch_size = 64;
    auto s = engine::InferenceSession::create(std::move(m), o);
    ASSERT_TRUE(s.isOk()) << s.status().toString();
    engine::RunCallbacks cb;
    cb.memory = std::make_shared<tensor::TensorMemoryTracker>();
    for (const auto& p : s.value()->predict(mols, cb)) ASSERT_TRUE(p.status.isOk()) << p.status.toString();
    peaks[name] = cb.memory->peak();
    std::printf("[ measured ] %s: peak tensor memory %.2f MiB\n", name, peaks[name] / 1048576.0);
  }
  EXPECT_LT(peaks["bf16"], 0.6 * peaks["fp32"]);
  EXPECT_LT(peaks["bf16"], peaks["bf16-autocast"]);
}

TEST(Precision, StableRowCountsPadLittleAndRepeat) {
  std::set<int64_t> distinct;
  for (int64_t rows = 1; rows <= 4096; ++rows) {
    const int64_t padded = model::stableRowCount(rows);
    EXPECT_GE(padded, rows);
    EXPECT_LE(padded, std::max<int64_t>(32, rows + rows / 8)) << rows;  // at most 12.5 % more
    EXPECT_EQ(model::stableRowCount(padded), padded);
    distinct.insert(padded);
  }
  EXPECT_LE(distinct.size(), 60u);  // a few dozen shapes for every row count up to 4096
}

TEST(Precision, SwitchingBackToFp32RestoresExactOutputs) {
  const auto graphs = test::fixtureGraphs(5);
  const auto mols = test::pointers(graphs);
  auto s = fixtureSession(tensor::Precision::FP32);
  const auto before = s->predict(mols);
  ASSERT_TRUE(s->setPrecision(tensor::Precision::INT8).isOk());
  EXPECT_GT(maxAbsDiff(before, s->predict(mols)), 0.0);
  ASSERT_TRUE(s->setPrecision(tensor::Precision::FP32).isOk());
  EXPECT_EQ(maxAbsDiff(before, s->predict(mols)), 0.0);
  ASSERT_TRUE(s->setPrecision(tensor::Precision::BF16).isOk());
  EXPECT_GT(maxAbsDiff(before, s->predict(mols)), 0.0);
  ASSERT_TRUE(s->setPrecision(tensor::Precision::FP32).isOk());
  EXPECT_EQ(maxAbsDiff(before, s->predict(mols)), 0.0);
}

TEST(Precision, UnsupportedCombinationsAreRefusedWithAReason) {
  auto model = model::loadModel(test::fixtureDir() + "/postln");
  ASSERT_TRUE(model.isOk());
  engine::SessionOptions o;
  o.precision = tensor::Precision::FP16;
  if (!gs::compat::autocastSupports(c10::DeviceType::CPU, torch::kHalf)) {
    auto s = engine::InferenceSession::create(model.value(), o);
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.status().message().find("fp16"), std::string::npos);
  }
  o.precision = tensor::Precision::FP32;
  o.device = "cuda";
  if (!compat::cudaAvailable()) {
    auto s = engine::InferenceSession::create(model.value(), o);
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.status().message().find("CUDA is not available"), std::string::npos);
  }
  o.device = "tpu";
  EXPECT_FALSE(engine::InferenceSession::create(model.value(), o).isOk());
}

TEST(Invariance, PredictionDoesNotDependOnBatchCompanions) {
  const auto graphs = test::fixtureGraphs(5);
  auto s = fixtureSession(tensor::Precision::FP32, 64);
  for (int target : {0, 1, 5, 30}) {
    const auto alone = s->predict({&graphs[target]});
    // the longest molecule and a disconnected one force padding and wide path tensors
    const auto crowded = s->predict({&graphs[3], &graphs[target], &graphs[2], &graphs[40]});
    for (int c = 0; c < s->numOutputs(); ++c) EXPECT_NEAR(alone[0].values[c], crowded[1].values[c], 1e-5) << target;
  }
}

TEST(Session, CancellationStopsBetweenBatchesAndMarksTheRest) {
  const auto graphs = test::fixtureGraphs(5);
  auto s = fixtureSession(tensor::Precision::FP32, 8);
  int batches = 0;
  engine::RunCallbacks cb;
  std::vector<int64_t> progress;
  cb.progress = [&](int64_t done, int64_t total) {
    progress.push_back(done);
    EXPECT_EQ(total, 64);
  };
  cb.cancelled = [&] { return ++batches > 2; };
  const auto out = s->predict(test::pointers(graphs), cb);
  ASSERT_EQ(out.size(), 64u);
  int ok = 0, cancelled = 0;
  for (const auto& o : out)
    (o.status.isOk() ? ok : cancelled) += o.status.isOk() || o.status.code() == StatusCode::Cancelled;
  EXPECT_EQ(ok, 16);
  EXPECT_EQ(cancelled, 48);
  EXPECT_EQ(progress, (std::vector<int64_t>{8, 16}));
}

TEST(Session, MoleculesLargerThanTheModelAllowsGetTheirOwnStatus) {
  bundle::GraphormerConfig c = test::tinyConfig(1, 8, 8, 2);
  c.max_nodes = 10;
  model::LoadedModel m;
  m.config = c;
  m.model = model::Graphormer(c);
  m.model->initializeWeights(1);
  auto s = engine::InferenceSession::create(std::move(m), {});
  ASSERT_TRUE(s.isOk());
  const auto graphs = test::fixtureGraphs(5);
  const auto out = s.value()->predict({&graphs[0], &graphs[3], &graphs[1]});
  EXPECT_TRUE(out[0].status.isOk());
  EXPECT_EQ(out[1].status.code(), StatusCode::TooManyAtoms) << out[1].status.toString();
  EXPECT_TRUE(out[2].status.isOk());
}

TEST(MemoryProbe, CountsTensorBytesOnlyInsideTheScope) {
  auto tracker = std::make_shared<tensor::TensorMemoryTracker>();
  torch::Tensor outside = torch::ones({1 << 18});
  EXPECT_EQ(tracker->current(), 0);
  {
    tensor::TensorMemoryScope scope(tracker);
    auto a = torch::ones({1 << 20});  // 4 MiB
    EXPECT_GE(tracker->current(), 4 << 20);
    a = torch::Tensor();
    EXPECT_LT(tracker->current(), 4 << 20);
    EXPECT_GE(tracker->peak(), 4 << 20);
    tracker->resetPeak();
    EXPECT_LT(tracker->peak(), 4 << 20);
  }
  tensor::MemoryProbe probe(tracker);
  const auto sample = probe.sample();
  EXPECT_GT(sample.rss_bytes, 0);
  EXPECT_GE(sample.rss_peak_bytes, sample.rss_bytes);
  EXPECT_EQ(sample.cuda_allocated_bytes, -1);
}

TEST(MemoryProbe, PeakTensorMemoryGrowsWithBatchSize) {
  const auto graphs = test::fixtureGraphs(5);
  std::vector<const graph::Featurized*> mols;
  for (int rep = 0; rep < 4; ++rep)
    for (const auto& g : graphs) mols.push_back(&g);
  int64_t previous = 0;
  for (int batch : {1, 16, 128}) {
    auto s = fixtureSession(tensor::Precision::FP32, batch);
    engine::RunCallbacks cb;
    cb.memory = std::make_shared<tensor::TensorMemoryTracker>();
    s->predict(mols, cb);
    EXPECT_GT(cb.memory->peak(), previous) << "batch " << batch;
    previous = cb.memory->peak();
  }
}

}  // namespace
}  // namespace gs
