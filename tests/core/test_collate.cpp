// Collated fixture batches agree with each molecule collated alone, in both conventions.
#include <gtest/gtest.h>

#include <random>

#include "chem/featurize.h"
#include "core/fixture.h"
#include "tensor/collate.h"

namespace gs {
namespace {

std::vector<graph::Featurized> fixtureMolecules(int hops) {
  std::vector<graph::Featurized> out;
  for (const auto& row : test::loadFeatureFixture()) {
    auto p = chem::parseSmiles(row["smiles"].get<std::string>());
    out.push_back(chem::featurizeMolecule(*p.mol, hops));
  }
  return out;
}

void expectSliceMatches(const tensor::GraphBatch& batch, int64_t b, const tensor::GraphBatch& alone,
                        graph::Convention conv) {
  using torch::indexing::Slice;
  const int64_t n = alone.maxNodes();
  const int64_t N = batch.maxNodes();
  const int64_t D = alone.input_edges.size(3);
  EXPECT_TRUE(batch.input_nodes[b].index({Slice(0, n)}).equal(alone.input_nodes[0]));
  EXPECT_EQ(batch.input_nodes[b].index({Slice(n, N)}).abs().sum().item<int64_t>(), 0);
  EXPECT_TRUE(batch.in_degree[b].index({Slice(0, n)}).equal(alone.in_degree[0]));
  EXPECT_TRUE(batch.spatial_pos[b].index({Slice(0, n), Slice(0, n)}).equal(alone.spatial_pos[0]));
  EXPECT_EQ(batch.spatial_pos[b].sum().item<int64_t>(), alone.spatial_pos[0].sum().item<int64_t>());
  EXPECT_TRUE(batch.attn_edge_type[b].index({Slice(0, n), Slice(0, n)}).equal(alone.attn_edge_type[0]));
  EXPECT_TRUE(batch.input_edges[b].index({Slice(0, n), Slice(0, n), Slice(0, D)}).equal(alone.input_edges[0]));
  EXPECT_EQ(batch.input_edges[b].sum().item<int64_t>(), alone.input_edges[0].sum().item<int64_t>());
  const auto real = batch.attn_bias[b].index({Slice(0, n + 1), Slice(0, n + 1)});
  EXPECT_TRUE(real.equal(alone.attn_bias[0]));
  const auto pad_cols = batch.attn_bias[b].index({Slice(), Slice(n + 1, N + 1)});
  const auto pad_rows = batch.attn_bias[b].index({Slice(n + 1, N + 1), Slice(0, n + 1)});
  if (conv == graph::Convention::Official) {
    EXPECT_TRUE(torch::isinf(pad_cols).all().item<bool>());
  } else {
    EXPECT_EQ(pad_cols.abs().sum().item<float>(), 0.f);
  }
  EXPECT_EQ(pad_rows.abs().sum().item<float>(), 0.f);
}

class CollateFixture : public ::testing::TestWithParam<std::tuple<graph::Convention, int>> {};

TEST_P(CollateFixture, BatchesAgreeWithMoleculesAloneAndMaskFollowsSpatialPosMax) {
  const auto [conv, spm] = GetParam();
  const auto mols = fixtureMolecules(5);
  graph::CollateOptions opt;
  opt.convention = conv;
  opt.spatial_pos_max = spm;
  std::vector<int> order(mols.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(11));
  for (size_t start = 0; start < order.size(); start += 7) {
    std::vector<const graph::Featurized*> batch_mols;
    for (size_t k = start; k < std::min(order.size(), start + 7); ++k) batch_mols.push_back(&mols[order[k]]);
    const auto batch = tensor::collate(batch_mols, opt);
    for (size_t k = 0; k < batch_mols.size(); ++k) {
      const auto& m = *batch_mols[k];
      SCOPED_TRACE("molecule " + std::to_string(order[start + k]));
      const auto alone = tensor::collate({&m}, opt);
      expectSliceMatches(batch, static_cast<int64_t>(k), alone, conv);
      const int n = m.numNodes();
      const int shift = conv == graph::Convention::Official ? 0 : 1;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const bool masked = std::isinf(alone.attn_bias[0][i + 1][j + 1].item<float>());
          ASSERT_EQ(masked, m.enc.distance(i, j) + shift >= spm);
        }
      EXPECT_EQ(alone.attn_bias[0][0].abs().sum().item<float>(), 0.f);  // graph token row never masked
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Conventions, CollateFixture,
                         ::testing::Values(std::make_tuple(graph::Convention::Official, 20),
                                           std::make_tuple(graph::Convention::Official, 1024),
                                           std::make_tuple(graph::Convention::HuggingFace, 20),
                                           std::make_tuple(graph::Convention::HuggingFace, 1024)));

}  // namespace
}  // namespace gs
