#pragma once
// One Graphormer encoder layer (self-attention + feed-forward), post-LN or pre-LN, with the
// HuggingFace parameter names (self_attn.{q,k,v,out}_proj, self_attn_layer_norm, fc1, fc2,
// final_layer_norm). Batch-first: x is [B, T, C]; bias is [B, H, T, T] in float32 and already holds
// the key-padding mask, so one tensor serves every layer.
#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <vector>

#include "bundle/config.h"
#include "model/linear.h"

namespace gs::model {

class SelfAttentionImpl : public torch::nn::Module {
 public:
  SelfAttentionImpl(int64_t embed_dim, int64_t heads, double attention_dropout);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& bias);
  // While set, every forward appends its attention probabilities averaged over heads, [B, T, T]
  // (for attention rollout); nullptr to stop.
  void captureAttention(std::vector<torch::Tensor>* sink) { capture_ = sink; }

  Linear k_proj{nullptr}, v_proj{nullptr}, q_proj{nullptr}, out_proj{nullptr};

 private:
  torch::Tensor scores(const torch::Tensor& x, const torch::Tensor& bias);  // softmax input, fp32
  // Same result without autograd, through the CPU kernels (no per-matrix dispatch).
  torch::Tensor fusedInference(const torch::Tensor& x, const torch::Tensor& bias);
  int64_t heads_, head_dim_;
  double scaling_, dropout_;
  std::vector<torch::Tensor>* capture_ = nullptr;
};
TORCH_MODULE(SelfAttention);

class EncoderLayerImpl : public torch::nn::Module {
 public:
  explicit EncoderLayerImpl(const bundle::GraphormerConfig& config);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& bias);

  SelfAttention self_attn{nullptr};
  torch::nn::LayerNorm self_attn_layer_norm{nullptr};
  Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::LayerNorm final_layer_norm{nullptr};

 private:
  torch::Tensor activation(const torch::Tensor& x) const;
  torch::Tensor norm(torch::nn::LayerNorm& ln, torch::Tensor x, torch::Tensor add = {});
  bool pre_layernorm_, gelu_;
  double dropout_, activation_dropout_;
};
TORCH_MODULE(EncoderLayer);

}  // namespace gs::model
