#pragma once
// The two index conventions of the public Graphormer pipelines (fixture README):
//   official (microsoft/Graphormer): node index v + 2 + 512*j; mask where distance >= spatial_pos_max
//   hf (HuggingFace transformers):   node index v + 3 + 512*j; mask where distance + 1 >= spatial_pos_max
// Edge, spatial-position and degree indices are the same in both.
#include <string>

namespace gs::data {

enum class Convention { Official, HuggingFace };

const char* conventionName(Convention c);
bool parseConvention(const std::string& name, Convention* out);
inline int nodeIndexOffset(Convention c) { return c == Convention::Official ? 2 : 3; }
// Added to the distance before comparing with spatial_pos_max.
inline int maskDistanceShift(Convention c) { return c == Convention::Official ? 0 : 1; }

}  // namespace gs::data
