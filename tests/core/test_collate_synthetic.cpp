// Collation on hand-built graphs (no RDKit): what a GPU node with only LibTorch can run.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph_builders.h"
#include "tensor/collate.h"

namespace gs {
namespace {

graph::Featurized make(int n, const std::vector<std::pair<int, int>>& bonds, int hops = 5) {
  graph::Featurized f;
  f.graph = test::makeGraph(n, bonds);
  f.enc = graph::encodeGraph(f.graph, hops);
  return f;
}

TEST(CollateSynthetic, OfficialPaddingAndMask) {
  const auto a = make(3, {{0, 1}, {1, 2}});
  const auto b = make(2, {});  // two disconnected atoms
  graph::CollateOptions opt;
  opt.convention = graph::Convention::Official;
  opt.spatial_pos_max = 2;
  const auto batch = tensor::collate({&a, &b}, opt);
  ASSERT_EQ(batch.input_nodes.sizes(), (std::vector<int64_t>{2, 3, 9}));
  EXPECT_EQ(batch.input_nodes[0][0][0].item<int64_t>(), 5 + 2);
  EXPECT_EQ(batch.input_nodes[0][0][1].item<int64_t>(), 0 + 2 + 512);
  EXPECT_EQ(batch.input_nodes[1][2][0].item<int64_t>(), 0);  // padding
  const auto bias = batch.attn_bias;
  // molecule a: distance(0,2) = 2 >= 2 -> masked; distance 1 not
  EXPECT_TRUE(std::isinf(bias[0][1][3].item<float>()));
  EXPECT_EQ(bias[0][1][2].item<float>(), 0.f);
  // molecule b: unreachable pair masked; padded column (index 3) -inf; padded row sees real columns
  EXPECT_TRUE(std::isinf(bias[1][1][2].item<float>()));
  EXPECT_TRUE(std::isinf(bias[1][0][3].item<float>()));
  EXPECT_EQ(bias[1][3][0].item<float>(), 0.f);
  EXPECT_EQ(batch.spatial_pos[1][0][1].item<int64_t>(), 511);
  EXPECT_EQ(batch.spatial_pos[1][2][2].item<int64_t>(), 0);
  EXPECT_EQ(batch.in_degree[0][1].item<int64_t>(), 3);
  // b is disconnected (max distance 510), so its paths are truncated at multi_hop_max_dist = 5
  EXPECT_EQ(batch.input_edges.size(3), 5);
  EXPECT_EQ(tensor::collate({&a}, opt).input_edges.size(3), 2);  // a alone: its longest path
}

TEST(CollateSynthetic, HuggingFaceShiftsMaskAndNodeIndex) {
  const auto a = make(3, {{0, 1}, {1, 2}});
  graph::CollateOptions opt;
  opt.convention = graph::Convention::HuggingFace;
  opt.spatial_pos_max = 2;
  const auto batch = tensor::collate({&a}, opt);
  EXPECT_EQ(batch.input_nodes[0][0][0].item<int64_t>(), 5 + 3);
  // HF compares distance + 1: distance 1 -> 2 >= 2 masked too, the diagonal (0 -> 1) not.
  EXPECT_TRUE(std::isinf(batch.attn_bias[0][1][2].item<float>()));
  EXPECT_EQ(batch.attn_bias[0][1][1].item<float>(), 0.f);
}

TEST(CollateSynthetic, SingleAtomBatchHasOneHopSlot) {
  const auto a = make(1, {});
  const auto batch = tensor::collate({&a}, {});
  EXPECT_EQ(batch.input_edges.size(3), 1);
  EXPECT_EQ(batch.input_edges.sum().item<int64_t>(), 0);
}

}  // namespace
}  // namespace gs
