#include "model/embeddings.h"

#include <torch/nn/functional/embedding.h>
#include <torch/torch.h>

#include "model/attention_kernels.h"
#include "model/row_kernels.h"
#include "tensor/torch_compat.h"

namespace gs::model {
namespace F = torch::nn::functional;

namespace {

bool fusedInference(const torch::nn::Module& m, const torch::Tensor& t) {
  return !torch::GradMode::is_enabled() && !m.is_training() && t.device().is_cpu() && t.scalar_type() == torch::kFloat;
}

// As torch's embedding lookups do: a c10::Error, which a session turns into that batch's status.
void checkIndices(const torch::Tensor& indices, int64_t size, const char* what) {
  if (!indices.numel()) return;
  const auto low = indices.min().item<int64_t>(), high = indices.max().item<int64_t>();
  TORCH_CHECK_INDEX(low >= 0 && high < size, what, " index ", low < 0 ? low : high, " is outside the model's table of ",
                    size, " rows");
}
}  // namespace

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
  in_degree_encoder =
      register_module("in_degree_encoder", torch::nn::Embedding(padded(c.num_in_degree, c.embedding_dim)));
  out_degree_encoder =
      register_module("out_degree_encoder", torch::nn::Embedding(padded(c.num_out_degree, c.embedding_dim)));
  graph_token = register_module("graph_token", torch::nn::Embedding(1, c.embedding_dim));
  freezePaddingRow(atom_encoder->weight);
}

// Inference on the CPU: every node's sum written in place into [B, 1+N, C], no [B, N, C] temporaries.
torch::Tensor GraphNodeFeatureImpl::fusedForward(const tensor::GraphBatch& batch) {
  const auto nodes = batch.input_nodes.contiguous(), degree = batch.in_degree.contiguous();
  const auto &atoms = atom_encoder->weight, &in = in_degree_encoder->weight, &out = out_degree_encoder->weight;
  checkIndices(nodes, atoms.size(0), "atom feature");
  checkIndices(degree, std::min(in.size(0), out.size(0)), "degree");
  const int64_t b = nodes.size(0), n = nodes.size(1), c = atoms.size(1);
  auto features = torch::empty({b, 1 + n, c}, atoms.options());
  features.select(1, 0).copy_(graph_token->weight.expand({b, c}));
  kernels::sumNodeEmbeddings(nodes.data_ptr<int64_t>(), degree.data_ptr<int64_t>(),
                             {atoms.data_ptr<float>(), in.data_ptr<float>(), out.data_ptr<float>()},
                             features.data_ptr<float>(), b, n, nodes.size(2), c);
  return features;
}

torch::Tensor GraphNodeFeatureImpl::forward(const tensor::GraphBatch& batch) {
  const auto& nodes = batch.input_nodes;  // [B, N, F]
  if (fusedInference(*this, atom_encoder->weight) && in_degree_encoder->weight.is_contiguous() &&
      atom_encoder->weight.is_contiguous() && out_degree_encoder->weight.is_contiguous())
    return fusedForward(batch);
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
  spatial_pos_encoder = register_module(
      "spatial_pos_encoder", torch::nn::Embedding(torch::nn::EmbeddingOptions(c.num_spatial, h).padding_idx(0)));
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
  edges = edges.narrow(3, 0, d);
  auto hops = F::embedding_bag(edges.reshape({-1, edges.size(4)}), edge_encoder->weight,
                               F::EmbeddingBagFuncOptions().mode(torch::kMean));  // [B*N*N*D, H]
  auto flat = hops.view({b * n * n, d, h}).transpose(0, 1);                       // [D, B*N*N, H]
  flat = torch::bmm(flat, edge_dis_encoder->weight.view({-1, h, h}).narrow(0, 0, d));
  auto summed = flat.sum(0).view({b, n, n, h});
  return (summed / sp.to(summed.scalar_type()).unsqueeze(-1)).permute({0, 3, 1, 2});
}

// mean_f(emb[e_f]) @ W_d == sum_f (emb @ W_d / F)[e_f]: the hop matrices folded into the table.
torch::Tensor GraphAttnBiasImpl::foldedEdgeTable() {
  const auto &emb = edge_encoder->weight, &hops = edge_dis_encoder->weight;
  const std::vector<int64_t> key{emb._version(), hops._version(), reinterpret_cast<int64_t>(emb.data_ptr()),
                                 reinterpret_cast<int64_t>(hops.data_ptr())};
  std::lock_guard<std::mutex> lock(table_mutex_);
  if (!table_.defined() || key != table_key_) {
    const int64_t h = heads_;
    const auto hop = hops.view({-1, h, h}).narrow(0, 0, multi_hop_max_dist_).to(torch::kFloat);  // [D, H, H]
    table_ = torch::matmul(emb.to(torch::kFloat).unsqueeze(0), hop).contiguous();                // [D, V, H]
    table_key_ = key;
  }
  return table_;
}

torch::Tensor GraphAttnBiasImpl::fusedForward(const tensor::GraphBatch& batch, c10::ScalarType dtype) {
  const auto edges = batch.input_edges.contiguous(), spatial_pos = batch.spatial_pos.contiguous();
  const auto collated = batch.attn_bias.to(torch::kFloat).contiguous();
  const auto& weight = edge_encoder->weight;
  const int64_t h = heads_, f = edges.size(4), v = weight.size(0);
  const int64_t d = std::min<int64_t>(edges.size(3), multi_hop_max_dist_);
  checkIndices(edges, v, "edge feature");
  checkIndices(spatial_pos, spatial_pos_encoder->weight.size(0), "spatial position");
  const auto table = foldedEdgeTable();
  const auto spatial = spatial_pos_encoder->weight.to(torch::kFloat).contiguous();
  const auto token = graph_token_virtual_distance->weight.to(torch::kFloat).contiguous();
  kernels::BiasTerms terms;
  terms.collated = collated.data_ptr<float>(), terms.token = token.data_ptr<float>();
  terms.edges = edges.data_ptr<int64_t>(), terms.table = table.data_ptr<float>();
  terms.spatial_pos = spatial_pos.data_ptr<int64_t>(), terms.spatial_table = spatial.data_ptr<float>();
  terms.B = edges.size(0), terms.N = edges.size(1), terms.d_full = edges.size(3), terms.D = d, terms.F = f, terms.V = v;
  terms.H = h, terms.max_dist = multi_hop_max_dist_, terms.feature_mean = 1.f / static_cast<float>(f);
  const int64_t t = terms.N + 1;
  auto out = torch::empty({terms.B, h, t, t}, weight.options().dtype(dtype));
  kernels::attentionBias(terms, out.data_ptr(), dtype == torch::kBFloat16);
  return out;
}

torch::Tensor GraphAttnBiasImpl::forward(const tensor::GraphBatch& batch, c10::ScalarType dtype) {
  const int64_t n = batch.input_nodes.size(1), h = heads_;
  compat::AutocastSuspend fp32;  // the bias is small and carries -inf: it is summed in fp32
  if (multi_hop_ && fusedInference(*this, edge_encoder->weight)) return fusedForward(batch, dtype);
  const auto& attn_bias = batch.attn_bias;  // [B, 1+N, 1+N], carries the -inf mask
  auto bias = attn_bias.unsqueeze(1).repeat({1, h, 1, 1});
  const auto t = graph_token_virtual_distance->weight.view({1, h, 1});
  bias.select(3, 0).narrow(2, 1, n).add_(t);  // column 0 below the token
  bias.select(2, 0).add_(t);                  // row 0
  auto inner = bias.narrow(2, 1, n).narrow(3, 1, n);
  inner.add_(spatial_pos_encoder(batch.spatial_pos).permute({0, 3, 1, 2}));
  if (multi_hop_) {
    inner.add_(multiHopEdgeTerm(batch));
  } else {
    const auto& types = batch.attn_edge_type;  // [B, N, N, 3]
    auto single = F::embedding_bag(types.reshape({-1, types.size(3)}), edge_encoder->weight,
                                   F::EmbeddingBagFuncOptions().mode(torch::kMean));
    inner.add_(single.view({types.size(0), n, n, h}).permute({0, 3, 1, 2}));
  }
  // The reference adds the collated bias a second time ("reset"); for 0/-inf it is idempotent.
  bias.add_(attn_bias.unsqueeze(1));
  return bias.scalar_type() == dtype ? bias : bias.to(dtype);
}

}  // namespace gs::model
