#pragma once
// A molecule as plain arrays: what chem/ produces and everything below it consumes. No RDKit, no
// torch, so data/, model/ and engine/ build on a machine that has neither RDKit nor Qt.
#include <cstdint>
#include <vector>

namespace gs::graph {

inline constexpr int kAtomFeatures = 9;   // OGB atom feature columns
inline constexpr int kBondFeatures = 3;   // OGB bond feature columns
inline constexpr int kUnreachable = 510;  // shortest-path distance between disconnected atoms

struct MolGraph {
  int num_nodes = 0;
  std::vector<int16_t> node_feat;  // num_nodes x 9, raw OGB indices
  std::vector<int32_t> edge_src;   // E directed edges: every bond twice, (i,j) then (j,i)
  std::vector<int32_t> edge_dst;
  std::vector<int16_t> edge_attr;  // E x 3, raw OGB indices

  int numEdges() const { return static_cast<int>(edge_src.size()); }
};

// OGB's chirality column (atom feature 1): 1 = CHI_TETRAHEDRAL_CW, 2 = CHI_TETRAHEDRAL_CCW.
inline constexpr int kChiralityFeature = 1;
inline constexpr int16_t kChiralCW = 1, kChiralCCW = 2;

// True when some atom carries a tetrahedral tag, i.e. the molecule may differ from its mirror image.
bool hasTetrahedralStereo(const MolGraph& g);
// The mirror image: every tetrahedral tag inverted (CW <-> CCW). Bond stereo (E/Z, cis/trans) is
// its own mirror image and stays; so do the atom order and every encoding.
MolGraph mirrorImage(const MolGraph& g);

}  // namespace gs::graph
