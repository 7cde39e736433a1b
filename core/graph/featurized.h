#pragma once
// A molecule ready for collation: its OGB graph and Graphormer encodings.
#include "graph/graph_encoding.h"
#include "graph/mol_graph.h"

namespace gs::graph {

struct Featurized {
  MolGraph graph;
  GraphEncoding enc;
  int numNodes() const { return graph.num_nodes; }
};

}  // namespace gs::graph
