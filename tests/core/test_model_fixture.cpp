// Fixture equivalence: the LibTorch Graphormer reproduces the public Python implementations
// (HF and official pipelines) from all three checkpoint formats, for several batch sizes and
// shuffled batch membership.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "core/model_fixture.h"
#include "model/checkpoint.h"
#include "model/encoder_layer.h"
#include "model/format/safetensors.h"
#include "model/layer_norm.h"
#include "tensor/collate.h"

namespace gs {
namespace {

constexpr double kTolerance = 1e-4;

struct Case {
  std::string variant;  // postln / preln
  std::string weights;  // file inside the variant directory
};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  std::string w = info.param.weights.substr(0, info.param.weights.find('.'));
  return info.param.variant + "_" + w;
}

class FixtureEquivalence : public ::testing::TestWithParam<Case> {
 protected:
  std::unique_ptr<engine::InferenceSession> session(graph::Convention convention, int spm, int batch, bool bucketing) {
    auto model = model::loadModel(test::fixtureDir() + "/" + GetParam().variant + "/" + GetParam().weights);
    EXPECT_TRUE(model.isOk()) << model.status().toString();
    engine::SessionOptions o;
    o.convention = convention;
    o.spatial_pos_max = spm;
    o.plan.max_batch_size = batch;
    o.plan.bucketing = bucketing;
    auto s = engine::InferenceSession::create(std::move(model.value()), o);
    EXPECT_TRUE(s.isOk()) << s.status().toString();
    return std::move(s.value());
  }

  // Max |ours - reference| over all molecules and outputs for one expected.csv column family.
  double maxError(engine::InferenceSession& s, const std::vector<const graph::Featurized*>& mols,
                  const std::vector<int>& order, const std::string& column) {
    const auto expected = test::loadExpected(GetParam().variant);
    std::vector<const graph::Featurized*> permuted;
    for (int i : order) permuted.push_back(mols[i]);
    const auto out = s.predict(permuted);
    double worst = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      EXPECT_TRUE(out[k].status.isOk()) << out[k].status.toString();
      for (int c = 0; c < s.numOutputs(); ++c) {
        const auto& col = expected.at(column + "_" + std::to_string(c));
        worst = std::max(worst, std::abs(out[k].values[c] - col[order[k]]));
      }
    }
    return worst;
  }
};

TEST_P(FixtureEquivalence, MatchesEveryReferencePipelineAtEveryBatchSize) {
  auto probe = model::loadModel(test::fixtureDir() + "/" + GetParam().variant + "/" + GetParam().weights);
  ASSERT_TRUE(probe.isOk()) << probe.status().toString();
  const auto graphs = test::fixtureGraphs(probe->config.multi_hop_max_dist);
  const auto mols = test::pointers(graphs);
  std::vector<int> identity(mols.size());
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<int> shuffled = identity;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));

  struct Column {
    const char* name;
    graph::Convention convention;
    int spm;
  };
  const Column columns[] = {{"hf_single", graph::Convention::HuggingFace, 20},
                            {"hf_batched", graph::Convention::HuggingFace, 20},
                            {"official_batched", graph::Convention::Official, 20},
                            {"official_spm1024", graph::Convention::Official, 1024}};
  for (const auto& col : columns) {
    for (int batch : {1, 3, 64}) {
      for (bool shuffle : {false, true}) {
        auto s = session(col.convention, col.spm, batch, /*bucketing=*/shuffle);
        const double err = maxError(*s, mols, shuffle ? shuffled : identity, col.name);
        EXPECT_LT(err, kTolerance) << col.name << " batch " << batch << (shuffle ? " shuffled" : "");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, FixtureEquivalence,
                         ::testing::Values(Case{"postln", "model.safetensors"}, Case{"postln", "pytorch_model.bin"},
                                           Case{"postln", "fairseq_checkpoint.pt"}, Case{"preln", "model.safetensors"},
                                           Case{"preln", "pytorch_model.bin"}, Case{"preln", "fairseq_checkpoint.pt"}),
                         caseName);

// Without a config.json beside it, a fairseq checkpoint's config comes from its pickled args plus
// fairseq's defaults, and must still reproduce the official pipeline.
TEST(FairseqArgs, ConfigFromPickledArgsAlone) {
  for (const std::string variant : {"postln", "preln"}) {
    const auto dir = std::filesystem::temp_directory_path() / ("gs_fairseq_" + variant);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(test::fixtureDir() + "/" + variant + "/fairseq_checkpoint.pt", dir / "model.pt",
                               std::filesystem::copy_options::overwrite_existing);
    auto model = model::loadModel(dir.string());
    ASSERT_TRUE(model.isOk()) << model.status().toString();
    EXPECT_EQ(model->format, "fairseq");
    ASSERT_EQ(model->notes.size(), 1u);
    auto reference = model::loadModel(test::fixtureDir() + "/" + variant + "/model.safetensors");
    ASSERT_TRUE(reference.isOk());
    const auto& a = model->config;
    const auto& b = reference->config;  // from config.json
    EXPECT_EQ(a.num_hidden_layers, b.num_hidden_layers);
    EXPECT_EQ(a.embedding_dim, b.embedding_dim);
    EXPECT_EQ(a.ffn_embedding_dim, b.ffn_embedding_dim);
    EXPECT_EQ(a.num_attention_heads, b.num_attention_heads);
    EXPECT_EQ(a.num_classes, b.num_classes);
    EXPECT_EQ(a.pre_layernorm, b.pre_layernorm);
    EXPECT_EQ(a.encoder_normalize_before, b.encoder_normalize_before);
    EXPECT_EQ(a.multi_hop_max_dist, b.multi_hop_max_dist);
    engine::SessionOptions o;
    o.spatial_pos_max = 20;
    auto s = engine::InferenceSession::create(std::move(model.value()), o);
    ASSERT_TRUE(s.isOk());
    EXPECT_EQ(s.value()->collateOptions().convention, graph::Convention::Official);
    const auto graphs = test::fixtureGraphs(s.value()->collateOptions().multi_hop_max_dist);
    const auto out = s.value()->predict(test::pointers(graphs));
    const auto expected = test::loadExpected(variant);
    for (size_t i = 0; i < out.size(); ++i)
      for (int c = 0; c < s.value()->numOutputs(); ++c)
        EXPECT_NEAR(out[i].values[c], expected.at("official_batched_" + std::to_string(c))[i], kTolerance);
    std::filesystem::remove_all(dir);
  }
}

// Intermediate tensors of batch 0 (rows 0-6, HF convention, spatial_pos_max 20) localise a mismatch.
TEST(FixtureIntermediates, BiasEmbeddingsAndEveryLayerMatch) {
  for (const std::string variant : {"postln", "preln"}) {
    auto ref = model::readSafetensors(test::fixtureDir() + "/" + variant + "/intermediates_batch0.safetensors");
    ASSERT_TRUE(ref.isOk()) << ref.status().toString();
    std::map<std::string, torch::Tensor> t(ref->tensors.begin(), ref->tensors.end());
    auto model = model::loadModel(test::fixtureDir() + "/" + variant + "/model.safetensors");
    ASSERT_TRUE(model.isOk());
    auto& m = *model->model;
    const auto graphs = test::fixtureGraphs(model->config.multi_hop_max_dist);
    std::vector<const graph::Featurized*> batch0;
    for (int i = 0; i < 7; ++i) batch0.push_back(&graphs[i]);
    graph::CollateOptions co{graph::Convention::HuggingFace, 20, model->config.multi_hop_max_dist};
    const auto batch = tensor::collate(batch0, co);
    EXPECT_TRUE(batch.input_nodes.equal(t["input.input_nodes"]));
    EXPECT_TRUE(batch.spatial_pos.equal(t["input.spatial_pos"]));

    torch::NoGradGuard no_grad;
    auto& enc = *m.encoder->graph_encoder;
    auto bias = enc.graph_attn_bias(batch);
    auto ref_bias = t["graph_attn_bias"];
    auto finite = ref_bias > -1e29;
    EXPECT_TRUE(torch::isinf(bias).eq(finite.logical_not()).all().item<bool>()) << variant << ": -inf mask differs";
    EXPECT_LT((bias - ref_bias).masked_select(finite).abs().max().item<float>(), 1e-5) << variant;
    auto nodes = enc.graph_node_feature(batch);
    EXPECT_LT((nodes - t["graph_node_feature"]).abs().max().item<float>(), 1e-5) << variant;
    auto x = enc.normalizeEmbeddings(nodes);
    EXPECT_LT((x - t["after_embedding"]).abs().max().item<float>(), 1e-5) << variant;
    const auto full_bias = enc.attentionBias(batch);
    for (int i = 0; i < model->config.num_hidden_layers; ++i) {
      x = enc.layers[i]->as<model::EncoderLayerImpl>()->forward(x, full_bias);
      // Padded positions are garbage in both implementations; compare the real tokens only.
      for (int b = 0; b < 7; ++b) {
        const int64_t tokens = batch.num_nodes[b] + 1;
        auto diff = (x[b].narrow(0, 0, tokens) - t["layer_" + std::to_string(i) + "_output"][b].narrow(0, 0, tokens));
        EXPECT_LT(diff.abs().max().item<float>(), 1e-4) << variant << " layer " << i << " molecule " << b;
      }
    }
    EXPECT_LT((m.forward(batch) - t["logits"]).abs().max().item<float>(), 1e-4) << variant;
  }
}

// The pieces of BF16 inference round the fp32 results once: the bias (summed in fp32), the layer
// norm of the embeddings (fp32 in) and the fused residual sum + layer norm (bfloat16 in).
TEST(FixtureIntermediates, Bf16InferencePiecesRoundTheFp32ResultsOnce) {
  auto model = model::loadModel(test::fixtureDir() + "/postln/model.safetensors");
  ASSERT_TRUE(model.isOk());
  auto& enc = *model->model->encoder->graph_encoder;
  const auto graphs = test::fixtureGraphs(model->config.multi_hop_max_dist);
  const auto batch = tensor::collate(test::pointers(graphs), {});
  torch::NoGradGuard no_grad;
  const auto within_one_rounding = [](const torch::Tensor& got, const torch::Tensor& exact) {
    const auto finite = torch::isfinite(exact);
    EXPECT_TRUE(torch::isfinite(got.to(torch::kFloat)).equal(finite));
    const auto err = (got.to(torch::kFloat) - exact).masked_select(finite).abs();
    const auto bound = exact.masked_select(finite).abs() * (1.0 / 256) + 1e-6;  // half an ulp of 8 bits, and then some
    EXPECT_TRUE((err <= bound).all().item<bool>()) << "worst " << (err - bound).max().item<float>();
  };
  const auto bias32 = enc.attentionBias(batch);
  const auto bias16 = enc.attentionBias(batch, torch::kBFloat16);
  EXPECT_EQ(bias16.scalar_type(), torch::kBFloat16);
  within_one_rounding(bias16, bias32);

  const auto nodes = enc.graph_node_feature(batch);
  const auto x32 = enc.normalizeEmbeddings(nodes);
  const auto x16 = enc.normalizeEmbeddings(nodes, torch::kBFloat16);
  EXPECT_EQ(x16.scalar_type(), torch::kBFloat16);
  within_one_rounding(x16, x32);

  auto& layer = *enc.layers[0]->as<model::EncoderLayerImpl>();
  const auto h16 = (x32 * 0.5 + 0.25).to(torch::kBFloat16);
  const auto fused = model::layerNormAs(layer.final_layer_norm, x16, torch::kBFloat16, h16);
  const auto exact = model::layerNormFp32(layer.final_layer_norm, x16.to(torch::kFloat) + h16.to(torch::kFloat));
  within_one_rounding(fused, exact);
}

// Inference folds the edge embeddings into a table kept with the module; a change of the weights
// (a training step, a reload) must reach the next prediction.
TEST(FixtureIntermediates, TheFoldedEdgeTableFollowsTheWeights) {
  auto model = model::loadModel(test::fixtureDir() + "/postln/model.safetensors");
  ASSERT_TRUE(model.isOk());
  auto& attn = *model->model->encoder->graph_encoder->graph_attn_bias;
  const auto graphs = test::fixtureGraphs(model->config.multi_hop_max_dist);
  const auto batch = tensor::collate(test::pointers(graphs), {});
  const auto generic = [&] {  // the autograd path, which folds nothing
    auto b = attn.forward(batch).detach();
    return b.masked_fill(torch::isinf(b), 0);
  };
  const auto fused = [&] {
    torch::NoGradGuard no_grad;
    auto b = attn.forward(batch);
    return b.masked_fill(torch::isinf(b), 0);
  };
  EXPECT_LT((fused() - generic()).abs().max().item<float>(), 1e-5);
  const auto before = fused();
  {
    torch::NoGradGuard no_grad;
    attn.edge_encoder->weight.mul_(2);
    attn.edge_dis_encoder->weight.add_(0.1);
  }
  const auto after = fused();
  EXPECT_GT((after - before).abs().max().item<float>(), 0.1) << "the new weights must reach the bias";
  EXPECT_LT((after - generic()).abs().max().item<float>(), 1e-4);
}

}  // namespace
}  // namespace gs
