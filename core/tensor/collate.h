#pragma once
// Pads a batch of featurized molecules into the tensors Graphormer reads, in either index
// convention. Matches microsoft/Graphormer's collator (official) or HuggingFace's
// GraphormerDataCollator (hf) value for value, padding included.
#include <torch/types.h>

#include <vector>

#include "graph/convention.h"
#include "graph/featurized.h"

namespace gs::tensor {

struct GraphBatch {
  torch::Tensor input_nodes;     // [B, N, 9] int64, 0 = padding
  torch::Tensor in_degree;       // [B, N] int64, degree + 1 (also the out-degree: bonds are undirected)
  torch::Tensor spatial_pos;     // [B, N, N] int64, distance + 1, 0 = padding
  torch::Tensor attn_bias;       // [B, N+1, N+1] float32, graph token first, -inf = masked
  torch::Tensor attn_edge_type;  // [B, N, N, 3] int64
  torch::Tensor input_edges;     // [B, N, N, D, 3] int64, D = max hops in the batch (>= 1)
  std::vector<int> num_nodes;    // per molecule

  int64_t batchSize() const { return static_cast<int64_t>(num_nodes.size()); }
  int64_t maxNodes() const { return input_nodes.defined() ? input_nodes.size(1) : 0; }
  GraphBatch to(const torch::Device& device) const;
};

GraphBatch collate(const std::vector<const graph::Featurized*>& mols, const graph::CollateOptions& options);

}  // namespace gs::tensor
