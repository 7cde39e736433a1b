#pragma once
// The two input modules of Graphormer, with HuggingFace parameter names:
//   GraphNodeFeature: atom embeddings summed over the 9 OGB features + in/out-degree embeddings,
//                     graph token prepended -> [B, 1+N, C]
//   GraphAttnBias:    spatial-position, multi-hop edge and graph-token virtual-distance terms plus
//                     the collated attention mask -> [B, H, 1+N, 1+N]
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include <mutex>
#include <vector>

#include "bundle/config.h"
#include "tensor/collate.h"

namespace gs::model {

class GraphNodeFeatureImpl : public torch::nn::Module {
 public:
  explicit GraphNodeFeatureImpl(const bundle::GraphormerConfig& config);
  torch::Tensor forward(const tensor::GraphBatch& batch);

  torch::nn::Embedding atom_encoder{nullptr}, in_degree_encoder{nullptr}, out_degree_encoder{nullptr},
      graph_token{nullptr};

 private:
  torch::Tensor fusedForward(const tensor::GraphBatch& batch);
};
TORCH_MODULE(GraphNodeFeature);

class GraphAttnBiasImpl : public torch::nn::Module {
 public:
  explicit GraphAttnBiasImpl(const bundle::GraphormerConfig& config);
  // Summed in fp32; the result in `dtype` (bfloat16 for the bfloat16 inference path).
  torch::Tensor forward(const tensor::GraphBatch& batch, c10::ScalarType dtype = c10::ScalarType::Float);

  torch::nn::Embedding edge_encoder{nullptr}, edge_dis_encoder{nullptr}, spatial_pos_encoder{nullptr},
      graph_token_virtual_distance{nullptr};

 private:
  torch::Tensor multiHopEdgeTerm(const tensor::GraphBatch& batch);  // [B, H, N, N]
  // Inference on the CPU: the whole bias in one pass (model/attention_kernels.h), without the
  // [B, H, N, N] tensors autograd needs.
  torch::Tensor fusedForward(const tensor::GraphBatch& batch, c10::ScalarType dtype);
  // The edge embeddings folded with every hop's H x H matrix, [multi_hop_max_dist, V, H] fp32:
  // made once and kept until either weight changes (version or storage), so a batch's peak
  // memory does not carry it. Sessions on many threads may share this module: guarded.
  torch::Tensor foldedEdgeTable();
  std::mutex table_mutex_;
  torch::Tensor table_;
  std::vector<int64_t> table_key_;
  int64_t heads_;
  int64_t multi_hop_max_dist_;
  bool multi_hop_;
};
TORCH_MODULE(GraphAttnBias);

// Keeps embedding row 0 (padding) at zero during training, as torch.nn.Embedding(padding_idx=0)
// does; the fused embedding_bag lookups have no padding index of their own.
void freezePaddingRow(torch::Tensor& weight);

}  // namespace gs::model
