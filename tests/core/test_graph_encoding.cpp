#include <gtest/gtest.h>

#include "core/graph_builders.h"
#include "graph/graph_encoding.h"

namespace gs {
namespace {

TEST(GraphEncoding, SquareRingTieBreaksLikeTheReference) {
  // 0-1-2-3-0: two shortest paths from 0 to 2. k-i-j order with strict '>' picks k = 1.
  auto g = test::makeGraph(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  g.edge_attr[2 * 3] = 1;  // bond 1-2 double (both directions)
  g.edge_attr[3 * 3] = 1;
  const auto sp = graph::floydWarshall(g);
  EXPECT_EQ(sp.dist[0 * 4 + 2], 2);
  EXPECT_EQ(sp.via[0 * 4 + 2], 1);
  const auto enc = graph::encodeGraph(g, 5);
  const int16_t* p = &enc.edge_input[(0 * 4 + 2) * enc.hops * 3];
  EXPECT_EQ(p[0], 3);      // 0-1 single: 0 + 3
  EXPECT_EQ(p[3], 1 + 3);  // 1-2 double
}

TEST(GraphEncoding, UnreachablePairsAndTruncation) {
  auto g = test::makeGraph(5, {{0, 1}, {1, 2}, {3, 4}});
  const auto enc = graph::encodeGraph(g, 1);
  EXPECT_EQ(enc.max_dist, graph::kUnreachable);
  EXPECT_EQ(enc.hops, 1);
  EXPECT_EQ(enc.distance(0, 3), graph::kUnreachable);
  EXPECT_EQ(enc.distance(0, 2), 2);
  EXPECT_EQ(enc.edge_input.size(), 5u * 5u * 1u * 3u);
  EXPECT_EQ(enc.degree, (std::vector<int16_t>{1, 2, 1, 1, 1}));
}

TEST(GraphEncoding, ZeroHopsAllowed) {
  auto g = test::makeGraph(3, {{0, 1}, {1, 2}});
  const auto enc = graph::encodeGraph(g, 0);
  EXPECT_EQ(enc.hops, 0);
  EXPECT_TRUE(enc.edge_input.empty());
}

}  // namespace
}  // namespace gs
