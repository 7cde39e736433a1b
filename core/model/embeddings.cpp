#include "model/embeddings.h"

#include <torch/nn/functional/embedding.h>
#include <torch/torch.h>

#include <stdexcept>

#include "tensor/torch_compat.h"
#include "model/attention_kernels.h"

namespace gs::model {
namespace F = torch::nn::functional;

void freezePaddingRow(torch::Tensor& weight) {
  weight.register_hook([](torch::Tensor grad) {
    grad = grad.clone();
    grad[0].zero_();
    return grad;
  });
}

GraphNodeFeatureImpl::GraphNodeFeatureImpl(const bundle::GraphormerConfig& c) {
  auto padded = [](int64_t n, int64_t dim) { return torch::nn::EmbeddingOptions(n, dim).padding_idx(0); };
  atom_encoder = register_module("atom_encoder", torch::nn::Embedding(padded(c.num_atoms + 1, c.embedding_dim)));
  in_degree_encoder = register_module("in_degree_encoder", torch::nn::Embedding(padded(c.num_in_degree, c.embedding_dim)));
  out_degree_encoder = register_module("out_degree_encoder", torch::nn::Embedding(padded(c.num_out_degree, c.embedding_dim)));
  graph_token = register_module("graph_token", torch::nn::Embedding(1, c.embedding_dim));
  freezePaddingRow(atom_encoder->weight);
}

torch::Tensor GraphNodeFeatureImpl::forward(const tensor::GraphBatch& batch) {
  const auto& nodes = batch.input_nodes;  // [B, N, F]
  const int64_t b = nodes.size(0), n = nodes.size(1);
  // Sum over the features in one fused lookup ([B*N, F] bags) instead of [B, N, F, C] then sum.
  auto atoms = F::embedding_bag(nodes.reshape({b * n, nodes.size(2)}), atom_encoder->weight,
                                F::EmbeddingBagFuncOptions().mode(torch::kSum))
                   .view({b, n, -1});
  // Bonds are undirected: the out-degree equals the in-degree.
  auto node_feature = atoms + in_degree_encoder(batch.in_degree) + out_degree_encoder(batch.in_degree);
  auto token = graph_token->weight.unsqueeze(0).expand({b, 1, node_feature.size(2)});
  return torch::cat({token, node_feature}, 1);
}

GraphAttnBiasImpl::GraphAttnBiasImpl(const bundle::GraphormerConfig& c)
    : heads_(c.num_attention_heads), multi_hop_max_dist_(c.multi_hop_max_dist), multi_hop_(c.edge_type == "multi_hop") {
  const int64_t h = c.num_attention_heads;
  edge_encoder = register_module("edge_encoder",
                                 torch::nn::Embedding(torch::nn::EmbeddingOptions(c.num_edges + 1, h).padding_idx(0)));
  edge_dis_encoder = register_module("edge_dis_encoder", torch::nn::Embedding(c.num_edge_dis * h * h, 1));
  spatial_pos_encoder = register_module("spatial_pos_encoder",
                                        torch::nn::Embedding(torch::nn::EmbeddingOptions(c.num_spatial, h).padding_idx(0)));
  graph_token_virtual_distance = register_module("graph_token_virtual_distance", torch::nn::Embedding(1, h));
  freezePaddingRow(edge_encoder->weight);
}

torch::Tensor GraphAttnBiasImpl::multiHopEdgeTerm(const tensor::GraphBatch& batch) {
  const int64_t b = batch.input_nodes.size(0), n = batch.input_nodes.size(1), h = heads_;
  // Divisor of the summed hop terms, as the reference computes it from spatial_pos (= distance + 1):
  // padding 0 -> 1, then x > 1 -> x - 1, clamped to multi_hop_max_dist; i.e. max(1, distance).
  auto sp = batch.spatial_pos.masked_fill(batch.spatial_pos.eq(0), 1);
  sp = torch::where(sp > 1, sp - 1, sp).clamp(0, multi_hop_max_dist_);
  auto edges = batch.input_edges;  // [B, N, N, D, 3]
  const int64_t d = std::min<int64_t>(edges.size(3), multi_hop_max_dist_);
  if (!torch::GradMode::is_enabled() && edges.device().is_cpu() && !is_training())
    return fusedMultiHop(edges.contiguous(), sp, d);
  edges = edges.narrow(3, 0, d);
  auto hops = F::embedding_bag(edges.reshape({-1, edges.size(4)}), edge_encoder->weight,
                               F::EmbeddingBagFuncOptions().mode(torch::kMean));  // [B*N*N*D, H]
  auto flat = hops.view({b * n * n, d, h}).transpose(0, 1);                      // [D, B*N*N, H]
  flat = torch::bmm(flat, edge_dis_encoder->weight.view({-1, h, h}).narrow(0, 0, d));
  auto summed = flat.sum(0).view({b, n, n, h});
  return (summed / sp.to(summed.scalar_type()).unsqueeze(-1)).permute({0, 3, 1, 2});
}

torch::Tensor GraphAttnBiasImpl::fusedMultiHop(const torch::Tensor& edges, const torch::Tensor& divisor, int64_t d) {
  const int64_t b = edges.size(0), n = edges.size(1), f = edges.size(4), h = heads_;
  const auto& weight = edge_encoder->weight;
  const int64_t v = weight.size(0);
  if (edges.numel() && (edges.max().item<int64_t>() >= v || edges.min().item<int64_t>() < 0))
    throw std::out_of_range("edge feature index outside the edge embedding table");
  // mean_f(emb[e_f]) @ W_d == sum_f (emb @ W_d / F)[e_f]: fold the hop matrices into the table.
  auto hop = edge_dis_encoder->weight.view({-1, h, h}).narrow(0, 0, d);                 // [D, H, H]
  auto table = (torch::matmul(weight.to(torch::kFloat).unsqueeze(0), hop.to(torch::kFloat)) / f).contiguous();  // [D, V, H]
  auto div = divisor.to(torch::kFloat).contiguous();
  auto out = torch::empty({b, h, n, n}, weight.options().dtype(torch::kFloat));
  kernels::multiHopEdgeTerm(edges.data_ptr<int64_t>(), table.data_ptr<float>(), div.data_ptr<float>(), out.data_ptr<float>(),
                            b, n, edges.size(3), d, f, v, h);
  return out;
}

torch::Tensor GraphAttnBiasImpl::forward(const tensor::GraphBatch& batch) {
  const int64_t n = batch.input_nodes.size(1), h = heads_;
  compat::AutocastSuspend fp32;  // the bias is small and carries -inf: it is computed in fp32
  const auto& attn_bias = batch.attn_bias;  // [B, 1+N, 1+N], carries the -inf mask
  auto bias = attn_bias.unsqueeze(1).repeat({1, h, 1, 1});
  auto inner = bias.narrow(2, 1, n).narrow(3, 1, n);
  inner.add_(spatial_pos_encoder(batch.spatial_pos).permute({0, 3, 1, 2}));
  const auto t = graph_token_virtual_distance->weight.view({1, h, 1});
  auto column0 = bias.select(3, 0).narrow(2, 1, n);
  column0.add_(t);
  auto row0 = bias.select(2, 0);
  row0.add_(t);
  if (multi_hop_) {
    inner.add_(multiHopEdgeTerm(batch));
  } else {
    const auto& types = batch.attn_edge_type;  // [B, N, N, 3]
    auto single = F::embedding_bag(types.reshape({-1, types.size(3)}), edge_encoder->weight,
                                   F::EmbeddingBagFuncOptions().mode(torch::kMean));
    inner.add_(single.view({types.size(0), n, n, h}).permute({0, 3, 1, 2}));
  }
  // The reference adds the collated bias a second time ("reset"); for 0/-inf it is idempotent.
  return bias + attn_bias.unsqueeze(1);
}

}  // namespace gs::model
