#include "graph/graph_encoding.h"

#include <algorithm>

namespace gs::graph {
namespace {

constexpr int kEdgeOffset = 512;

std::vector<int16_t> edgeTypes(const MolGraph& g) {
  const size_t n = g.num_nodes;
  std::vector<int16_t> et(n * n * kBondFeatures, 0);
  for (int e = 0; e < g.numEdges(); ++e) {
    int16_t* dst = &et[(g.edge_src[e] * n + g.edge_dst[e]) * kBondFeatures];
    for (int j = 0; j < kBondFeatures; ++j)
      dst[j] = static_cast<int16_t>(g.edge_attr[e * kBondFeatures + j] + 2 + kEdgeOffset * j);
  }
  return et;
}

// Writes the intermediate vertices of the path i -> j in order, as get_all_edges does, but stops
// after `limit` of them: only the first `hops` steps of a path are ever stored.
int intermediateVertices(const ShortestPaths& sp, int i, int j, int* out, int count, int limit) {
  const int k = sp.via[static_cast<size_t>(i) * sp.n + j];
  if (k == -1 || count >= limit) return count;
  count = intermediateVertices(sp, i, k, out, count, limit);
  if (count >= limit) return count;
  out[count++] = k;
  return intermediateVertices(sp, k, j, out, count, limit);
}

}  // namespace

ShortestPaths floydWarshall(const MolGraph& g) {
  ShortestPaths sp;
  const int n = sp.n = g.num_nodes;
  sp.dist.assign(static_cast<size_t>(n) * n, kUnreachable);
  sp.via.assign(static_cast<size_t>(n) * n, -1);
  for (int i = 0; i < n; ++i) sp.dist[static_cast<size_t>(i) * n + i] = 0;
  for (int e = 0; e < g.numEdges(); ++e)
    if (g.edge_src[e] != g.edge_dst[e]) sp.dist[static_cast<size_t>(g.edge_src[e]) * n + g.edge_dst[e]] = 1;
  int32_t* M = sp.dist.data();
  int32_t* P = sp.via.data();
  for (int k = 0; k < n; ++k) {
    const int32_t* Mk = M + static_cast<size_t>(k) * n;
    for (int i = 0; i < n; ++i) {
      int32_t* Mi = M + static_cast<size_t>(i) * n;
      const int32_t mik = Mi[k];
      if (mik >= kUnreachable) continue;  // i-k-j can never beat an unreachable bound
      int32_t* Pi = P + static_cast<size_t>(i) * n;
      for (int j = 0; j < n; ++j) {
        const int32_t cost = mik + Mk[j];
        if (Mi[j] > cost) {
          Mi[j] = cost;
          Pi[j] = k;
        }
      }
    }
  }
  for (size_t idx = 0; idx < sp.dist.size(); ++idx) {
    if (M[idx] >= kUnreachable) {
      M[idx] = kUnreachable;
      P[idx] = kUnreachable;
    }
  }
  return sp;
}

std::vector<int16_t> edgeInputs(const ShortestPaths& sp, const std::vector<int16_t>& edge_type, int hops) {
  const size_t n = sp.n;
  std::vector<int16_t> out(n * n * std::max(hops, 0) * kBondFeatures, 0);
  if (hops <= 0) return out;
  std::vector<int> path(static_cast<size_t>(hops) + 2);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j || sp.via[i * n + j] == kUnreachable) continue;
      path[0] = static_cast<int>(i);
      const int inner = intermediateVertices(sp, static_cast<int>(i), static_cast<int>(j), &path[1], 0, hops);
      path[inner + 1] = static_cast<int>(j);  // past the stored steps when truncated; unused then
      const int steps = std::min(inner + 1, hops);
      int16_t* dst = &out[(i * n + j) * hops * kBondFeatures];
      for (int s = 0; s < steps; ++s) {
        const int16_t* et = &edge_type[(static_cast<size_t>(path[s]) * n + path[s + 1]) * kBondFeatures];
        for (int f = 0; f < kBondFeatures; ++f) dst[s * kBondFeatures + f] = static_cast<int16_t>(et[f] + 1);
      }
    }
  }
  return out;
}

GraphEncoding encodeGraph(const MolGraph& g, int max_hops) {
  GraphEncoding enc;
  const int n = enc.num_nodes = g.num_nodes;
  ShortestPaths sp = floydWarshall(g);
  enc.dist.resize(sp.dist.size());
  for (size_t idx = 0; idx < sp.dist.size(); ++idx) {
    enc.dist[idx] = static_cast<int16_t>(sp.dist[idx]);
    enc.max_dist = std::max<int>(enc.max_dist, sp.dist[idx]);
  }
  enc.degree.assign(n, 0);
  for (int e = 0; e < g.numEdges(); ++e) ++enc.degree[g.edge_src[e]];
  enc.edge_type = edgeTypes(g);
  enc.hops = std::min(enc.max_dist, std::max(max_hops, 0));
  enc.edge_input = edgeInputs(sp, enc.edge_type, enc.hops);
  return enc;
}

}  // namespace gs::graph
