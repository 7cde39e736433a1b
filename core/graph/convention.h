#pragma once
// The two index conventions of the public Graphormer pipelines (fixture README):
//   official (microsoft/Graphormer): node index v + 2 + 512*j; mask where distance >= spatial_pos_max
//   hf (HuggingFace transformers):   node index v + 3 + 512*j; mask where distance + 1 >= spatial_pos_max
// Edge, spatial-position and degree indices are the same in both.
#include <string>

#include "common/status.h"

namespace gs::graph {

enum class Convention { Official, HuggingFace };

const char* conventionName(Convention c);
Result<Convention> parseConvention(const std::string& name);  // "official", "hf" (or "huggingface")
inline int nodeIndexOffset(Convention c) { return c == Convention::Official ? 2 : 3; }
// Added to the distance before comparing with spatial_pos_max.
inline int maskDistanceShift(Convention c) { return c == Convention::Official ? 0 : 1; }

// How a batch is indexed and cut: the convention, the spatial-position cut-off and the longest
// edge path (hops) the model reads. Set from the model bundle (engine::collateOptionsFor).
struct CollateOptions {
  Convention convention = Convention::Official;
  int spatial_pos_max = 1024;  // released checkpoints; the public collators default to 20
  int multi_hop_max_dist = 5;
  bool operator==(const CollateOptions& o) const {
    return convention == o.convention && spatial_pos_max == o.spatial_pos_max &&
           multi_hop_max_dist == o.multi_hop_max_dist;
  }
};

}  // namespace gs::graph
