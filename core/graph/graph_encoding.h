#pragma once
// Graphormer's structural encodings of one molecule, computed exactly as the public Python
// preprocessing does (Floyd–Warshall with strict '>' in k-i-j order, recursive path
// reconstruction). Index offsets are already applied where both conventions agree; the
// convention-specific node offset is applied by the collator.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/mol_graph.h"

namespace gs::graph {

struct GraphEncoding {
  int num_nodes = 0;
  int max_dist = 0;                // largest entry of the distance matrix (510 when disconnected)
  int hops = 0;                    // path positions stored in edge_input: min(max_dist, max_hops)
  std::vector<int16_t> dist;       // n x n shortest-path lengths, 510 = unreachable
  std::vector<int16_t> degree;     // n, number of bonded neighbours
  std::vector<int16_t> edge_type;  // n x n x 3: edge_attr + 2 + 512*j, 0 = not bonded
  // n x n x hops x 3: the bond features along the shortest path i->j, edge_attr + 3 + 512*j,
  // 0 past the end of the path (and for i == j or unreachable pairs).
  std::vector<int16_t> edge_input;

  int16_t distance(int i, int j) const { return dist[static_cast<size_t>(i) * num_nodes + j]; }
};

// Distances and predecessor matrix (-1 = direct edge or self, 510 = unreachable), as in
// algos.floyd_warshall.
struct ShortestPaths {
  int n = 0;
  std::vector<int32_t> dist;
  std::vector<int32_t> via;
};
ShortestPaths floydWarshall(const MolGraph& g);

// Edge input with `hops` path positions; hops beyond a path's length are 0. Allocates
// n*n*hops*3 entries only, so a disconnected molecule costs no more than a connected one.
std::vector<int16_t> edgeInputs(const ShortestPaths& sp, const std::vector<int16_t>& edge_type, int hops);

// max_hops: multi_hop_max_dist of the model (paths longer than this are truncated before
// allocation).
GraphEncoding encodeGraph(const MolGraph& g, int max_hops);

}  // namespace gs::graph
