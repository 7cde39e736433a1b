// LoRA adapters: a fresh adapter changes nothing, fine-tuning trains only the adapter and the
// head, the adapter file is small and reproduces the fine-tuned model on a freshly loaded base,
// and a wrong base is refused. Also the fingerprint baselines.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>

#include <filesystem>

#include "common/sha256.h"
#include "core/model_fixture.h"
#include "engine/baselines.h"
#include "engine/trainer.h"
#include "model/checkpoint.h"
#include "model/loader.h"
#include "model/lora.h"
#include "similarity/knn.h"
#include "tensor/collate.h"

namespace gs {
namespace {
namespace fs = std::filesystem;

struct LoraFixture : ::testing::Test {
  void SetUp() override {
    dir = fs::temp_directory_path() / ("gs_lora_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    graphs = test::fixtureGraphs(5);
    for (const auto& g : graphs) {
      engine::TrainExample e;
      e.graph = &g;
      e.targets = {float(g.graph.numEdges()) - 0.5f * float(g.numNodes())};
      examples.push_back(e);
    }
    // A "pretrained" base model saved to disk.
    model::LoadedModel base;
    base.config = test::tinyConfig(2, 16, 32, 2, 1);
    base.model = model::Graphormer(base.config);
    base.model->initializeWeights(4);
    base.metadata.target_mean = {0.0};
    base.metadata.target_std = {1.0};
    base_path = (dir / "base.safetensors").string();
    ASSERT_TRUE(model::saveModel(base_path, *base.model, base.metadata).isOk());
  }
  void TearDown() override { fs::remove_all(dir); }

  model::LoadedModel loadBase() {
    auto m = model::loadModel(base_path);
    EXPECT_TRUE(m.isOk()) << m.status().toString();
    return std::move(m.value());
  }
  torch::Tensor predict(model::GraphormerImpl& m) {
    torch::NoGradGuard ng;
    m.eval();
    std::vector<const graph::Featurized*> mols;
    for (const auto& g : graphs) mols.push_back(&g);
    return m.forward(tensor::collate(mols, {}));
  }

  fs::path dir;
  std::string base_path;
  std::vector<graph::Featurized> graphs;
  std::vector<engine::TrainExample> examples;
};

TEST_F(LoraFixture, AFreshAdapterLeavesTheOutputUnchangedAndMergingKeepsIt) {
  auto m = loadBase();
  const auto before = predict(*m.model);
  model::addLora(*m.model, 4, 8.0, 1);
  EXPECT_TRUE(model::hasLora(*m.model));
  EXPECT_TRUE(torch::allclose(predict(*m.model), before, 0, 1e-6));
  // A non-zero update changes the output; merging it gives the same output without the adapter.
  for (auto& p : m.model->named_parameters())
    if (p.key().find("lora_B") != std::string::npos) p.value().data().normal_(0.0, 0.05);
  const auto adapted = predict(*m.model);
  EXPECT_GT((adapted - before).abs().max().item<double>(), 1e-4);
  model::mergeLora(*m.model);
  EXPECT_FALSE(model::hasLora(*m.model));
  for (auto& p : m.model->named_parameters()) EXPECT_EQ(p.key().find("lora"), std::string::npos) << p.key();
  EXPECT_TRUE(torch::allclose(predict(*m.model), adapted, 1e-5, 1e-5));
}

TEST_F(LoraFixture, FineTuningTrainsOnlyTheAdapterAndHeadAndTheAdapterFileReproducesIt) {
  auto base = loadBase();
  std::map<std::string, torch::Tensor> start;
  for (auto& p : base.model->named_parameters()) start[p.key()] = p.value().detach().clone();
  engine::TrainOptions o;
  o.epochs = 6;
  o.batch_size = 16;
  o.learning_rate = 3e-3;
  o.lora_rank = 4;
  o.seed = 2;
  engine::Trainer trainer(std::move(base), o);
  auto summary = trainer.fit(examples, {});
  ASSERT_TRUE(summary.isOk()) << summary.status().toString();
  EXPECT_LT(summary->epochs.back().train_loss, summary->epochs.front().train_loss);
  auto& tuned = *trainer.model().model;
  ASSERT_TRUE(model::hasLora(tuned));
  int lora_changed = 0;
  for (auto& p : tuned.named_parameters()) {
    const bool adapter = model::isAdapterParameter(p.key());
    if (!start.count(p.key())) {
      EXPECT_TRUE(adapter) << p.key();
      lora_changed += p.key().find("lora_B") != std::string::npos && p.value().abs().max().item<double>() > 0;
      continue;
    }
    const double moved = (p.value() - start[p.key()]).abs().max().item<double>();
    if (!adapter) {
      EXPECT_EQ(moved, 0.0) << p.key() << " is a base weight and must stay fixed";
    }
  }
  EXPECT_EQ(lora_changed, 2 * 6);  // 2 layers x (q, k, v, out, fc1, fc2)
  const auto expected = predict(tuned);

  model::LoraSpec spec;
  spec.rank = 4;
  spec.alpha = 4;
  spec.base_sha256 = sha256File(base_path).value();
  spec.base_path = base_path;
  spec.base_config = trainer.model().config.toJson();
  const std::string adapter = (dir / "adapter.safetensors").string();
  ASSERT_TRUE(model::saveAdapter(adapter, tuned, trainer.model().metadata, spec).isOk());
  EXPECT_LT(fs::file_size(adapter), fs::file_size(base_path) / 2) << "the adapter file should be small";

  // Applied to a freshly loaded base (explicitly, and found through the recorded base path).
  auto fresh = loadBase();
  ASSERT_TRUE(model::applyAdapter(adapter, fresh, spec.base_sha256).isOk());
  EXPECT_FALSE(model::hasLora(*fresh.model));  // merged
  EXPECT_TRUE(torch::allclose(predict(*fresh.model), expected, 1e-5, 1e-5));
  EXPECT_NEAR(fresh.metadata.target_mean.at(0), trainer.model().metadata.target_mean.at(0), 1e-9);
  auto found = model::openModel(bundle::ModelSource{adapter, ""});
  ASSERT_TRUE(found.isOk()) << found.status().toString();
  EXPECT_EQ(found->source.adapter, adapter);
  EXPECT_EQ(found->source.weights, base_path);
  EXPECT_EQ(found->sha256, spec.base_sha256);
  EXPECT_EQ(found->adapter_sha256, sha256File(adapter).value());
  EXPECT_TRUE(torch::allclose(predict(*found->model), expected, 1e-5, 1e-5));
  // The run directory holding only the adapter resolves the same way; the adapter given
  // explicitly on top of the base too.
  for (const bundle::ModelSource& source :
       {bundle::ModelSource{dir.string(), ""}, bundle::ModelSource{base_path, adapter}}) {
    auto resolved = bundle::resolveModel(source);
    ASSERT_TRUE(resolved.isOk()) << resolved.status().toString();
    EXPECT_EQ(resolved->weights, base_path);
    EXPECT_EQ(resolved->adapter, adapter);
    EXPECT_FALSE(resolved->bundled_default);
  }

  // Another base (other weights, same shape) is refused by its SHA-256.
  auto other = loadBase();
  const auto st = model::applyAdapter(adapter, other, std::string(64, 'a'));
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("SHA-256"), std::string::npos) << st.message();
  // A base with another configuration is refused.
  model::LoadedModel wide;
  wide.config = test::tinyConfig(2, 24, 32, 2, 1);
  wide.model = model::Graphormer(wide.config);
  const auto st2 = model::applyAdapter(adapter, wide, "");
  ASSERT_FALSE(st2.isOk());
  EXPECT_NE(st2.message().find("configuration"), std::string::npos) << st2.message();
  // A plain model file is not an adapter.
  EXPECT_FALSE(bundle::readAdapterSpec(base_path).isOk());

  // The trainer's own checkpoint of a LoRA run (unmerged adapter inside) loads as a plain model.
  const std::string ck = (dir / "lora_checkpoint.safetensors").string();
  ASSERT_TRUE(model::saveModel(ck, tuned, trainer.model().metadata).isOk());
  auto reloaded = model::loadModel(ck);
  ASSERT_TRUE(reloaded.isOk()) << reloaded.status().toString();
  EXPECT_TRUE(torch::allclose(predict(*reloaded->model), expected, 1e-5, 1e-5));
}

TEST(Baselines, RidgeRecoversALinearFunctionOfTheBitsAndKnnAveragesTheNearest) {
  auto fp = [](std::initializer_list<int> bits) {
    similarity::BitFingerprint f;
    f.words.assign(1, 0);
    for (int b : bits) f.words[0] |= uint64_t{1} << b, ++f.on_bits;
    return f;
  };
  std::vector<similarity::BitFingerprint> x;
  std::vector<float> y;
  for (int i = 0; i < 64; ++i) {
    x.push_back(fp({i % 7, 8 + i % 5, 20 + i % 3}));
    y.push_back(1.0f + 2.0f * float(x.back().test(3)) - float(x.back().test(9)) + 0.5f * float(x.back().test(21)));
  }
  y[5] = std::nanf("");  // a missing target is skipped, not fitted as NaN
  std::vector<const similarity::BitFingerprint*> px;
  for (const auto& f : x) px.push_back(&f);
  auto ridge = engine::RidgeRegression::fitSelect(px, y, px, y, {1e-6, 10.0});
  ASSERT_TRUE(ridge.isOk()) << ridge.status().toString();
  EXPECT_EQ(ridge->lambda(), 1e-6);  // the near-exact fit wins on validation
  const auto probe = fp({3, 10, 21});
  EXPECT_NEAR(ridge->predict(probe), 1.0 + 2.0 + 0.5, 1e-3);
  EXPECT_NEAR(engine::meanTarget({1.0f, std::nanf(""), 3.0f}), 2.0, 1e-12);

  const std::vector<similarity::BitFingerprint> train{fp({1, 2, 3}), fp({1, 2, 4}), fp({10, 11}), fp({12, 13})};
  const std::vector<float> ty{1.0f, 3.0f, 100.0f, std::nanf("")};
  std::vector<const similarity::BitFingerprint*> pt;
  for (const auto& f : train) pt.push_back(&f);
  const auto q = fp({1, 2, 3});
  const auto knn = similarity::knnPredict(pt, ty, {&q}, 2);
  EXPECT_DOUBLE_EQ(knn.at(0), 2.0);  // the two similar molecules, not the dissimilar one
  EXPECT_DOUBLE_EQ(similarity::tanimoto(train[0], train[1]), 0.5);
  EXPECT_DOUBLE_EQ(similarity::tanimoto(train[0], train[2]), 0.0);
}

}  // namespace
}  // namespace gs
