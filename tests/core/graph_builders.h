#pragma once
// Hand-built molecular graphs for tests that run without RDKit.
#include <utility>
#include <vector>

#include "graph/mol_graph.h"

namespace gs::test {

// Atoms all carbon-like (feature 5 in column 0), bonds single; bonds given as atom pairs.
inline graph::MolGraph makeGraph(int n, const std::vector<std::pair<int, int>>& bonds, int bond_type = 0) {
  graph::MolGraph g;
  g.num_nodes = n;
  g.node_feat.assign(static_cast<size_t>(n) * graph::kAtomFeatures, 0);
  for (int i = 0; i < n; ++i) g.node_feat[i * graph::kAtomFeatures] = 5;
  for (auto [a, b] : bonds) {
    for (int dir = 0; dir < 2; ++dir) {
      g.edge_src.push_back(dir ? b : a);
      g.edge_dst.push_back(dir ? a : b);
      g.edge_attr.insert(g.edge_attr.end(), {static_cast<int16_t>(bond_type), 0, 0});
    }
  }
  return g;
}

}  // namespace gs::test
