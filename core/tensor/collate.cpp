#include "tensor/collate.h"

#include <algorithm>
#include <limits>

namespace gs::tensor {

GraphBatch GraphBatch::to(const torch::Device& device) const {
  GraphBatch b;
  b.input_nodes = input_nodes.to(device, /*non_blocking=*/true);
  b.in_degree = in_degree.to(device, true);
  b.spatial_pos = spatial_pos.to(device, true);
  b.attn_bias = attn_bias.to(device, true);
  b.attn_edge_type = attn_edge_type.to(device, true);
  b.input_edges = input_edges.to(device, true);
  b.num_nodes = num_nodes;
  return b;
}

namespace {

void fillMolecule(const graph::Featurized& m, int64_t b, int64_t N, int64_t D, const graph::CollateOptions& opt,
                  GraphBatch& out) {
  const int n = m.numNodes();
  const auto& enc = m.enc;
  const int node_offset = graph::nodeIndexOffset(opt.convention);
  int64_t* nodes = out.input_nodes.data_ptr<int64_t>() + b * N * graph::kAtomFeatures;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < graph::kAtomFeatures; ++j)
      nodes[i * graph::kAtomFeatures + j] = m.graph.node_feat[i * graph::kAtomFeatures + j] + node_offset + 512 * j;

  int64_t* deg = out.in_degree.data_ptr<int64_t>() + b * N;
  for (int i = 0; i < n; ++i) deg[i] = enc.degree[i] + 1;

  const int64_t T = N + 1;
  float* bias = out.attn_bias.data_ptr<float>() + b * T * T;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  if (opt.convention == graph::Convention::Official) {
    // pad_attn_bias_unsqueeze: padded columns are -inf, padded rows see the real columns.
    for (int64_t r = 0; r < T; ++r)
      for (int64_t c = n + 1; c < T; ++c) bias[r * T + c] = neg_inf;
  }
  const int shift = graph::maskDistanceShift(opt.convention);
  int64_t* sp = out.spatial_pos.data_ptr<int64_t>() + b * N * N;
  int64_t* et = out.attn_edge_type.data_ptr<int64_t>() + b * N * N * graph::kBondFeatures;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int d = enc.dist[static_cast<size_t>(i) * n + j];
      sp[i * N + j] = d + 1;
      if (d + shift >= opt.spatial_pos_max) bias[(i + 1) * T + (j + 1)] = neg_inf;
      for (int f = 0; f < graph::kBondFeatures; ++f)
        et[(i * N + j) * graph::kBondFeatures + f] =
            enc.edge_type[(static_cast<size_t>(i) * n + j) * graph::kBondFeatures + f];
    }
  }

  const int hops = std::min<int>(enc.hops, static_cast<int>(D));
  int64_t* ei = out.input_edges.data_ptr<int64_t>() + b * N * N * D * graph::kBondFeatures;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int16_t* src = enc.edge_input.data() + ((static_cast<size_t>(i) * n + j) * enc.hops) * graph::kBondFeatures;
      int64_t* dst = ei + ((i * N + j) * D) * graph::kBondFeatures;
      for (int h = 0; h < hops * graph::kBondFeatures; ++h) dst[h] = src[h];
    }
}

}  // namespace

GraphBatch collate(const std::vector<const graph::Featurized*>& mols, const graph::CollateOptions& options) {
  GraphBatch out;
  const int64_t B = static_cast<int64_t>(mols.size());
  int64_t N = 0;
  int64_t D = 1;  // at least one hop slot: single-atom batches get an all-padding path axis
  for (const auto* m : mols) {
    N = std::max<int64_t>(N, m->numNodes());
    D = std::max<int64_t>(D, std::min(m->enc.hops, options.multi_hop_max_dist));
    out.num_nodes.push_back(m->numNodes());
  }
  const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  out.input_nodes = torch::zeros({B, N, graph::kAtomFeatures}, i64);
  out.in_degree = torch::zeros({B, N}, i64);
  out.spatial_pos = torch::zeros({B, N, N}, i64);
  out.attn_bias = torch::zeros({B, N + 1, N + 1}, torch::TensorOptions().dtype(torch::kFloat32));
  out.attn_edge_type = torch::zeros({B, N, N, graph::kBondFeatures}, i64);
  out.input_edges = torch::zeros({B, N, N, D, graph::kBondFeatures}, i64);
  for (int64_t b = 0; b < B; ++b) fillMolecule(*mols[b], b, N, D, options, out);
  return out;
}

}  // namespace gs::tensor
