#include "graph/mol_graph.h"

#include <cstddef>

namespace gs::graph {

bool hasTetrahedralStereo(const MolGraph& g) {
  for (int i = 0; i < g.num_nodes; ++i) {
    const int16_t tag = g.node_feat[static_cast<size_t>(i) * kAtomFeatures + kChiralityFeature];
    if (tag == kChiralCW || tag == kChiralCCW) return true;
  }
  return false;
}

MolGraph mirrorImage(const MolGraph& g) {
  MolGraph m = g;
  for (int i = 0; i < m.num_nodes; ++i) {
    int16_t& tag = m.node_feat[static_cast<size_t>(i) * kAtomFeatures + kChiralityFeature];
    if (tag == kChiralCW)
      tag = kChiralCCW;
    else if (tag == kChiralCCW)
      tag = kChiralCW;
  }
  return m;
}

}  // namespace gs::graph
