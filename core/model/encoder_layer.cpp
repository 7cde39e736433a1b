#include "model/encoder_layer.h"

#include <torch/torch.h>

#include <cmath>
#include <utility>

#include "model/attention_kernels.h"
#include "model/layer_norm.h"
#include "model/row_kernels.h"
#include "tensor/torch_compat.h"

namespace gs::model {

SelfAttentionImpl::SelfAttentionImpl(int64_t embed_dim, int64_t heads, double attention_dropout)
    : heads_(heads), head_dim_(embed_dim / heads), dropout_(attention_dropout) {
  scaling_ = 1.0 / std::sqrt(static_cast<double>(head_dim_));
  k_proj = register_module("k_proj", Linear(embed_dim, embed_dim));
  v_proj = register_module("v_proj", Linear(embed_dim, embed_dim));
  q_proj = register_module("q_proj", Linear(embed_dim, embed_dim));
  out_proj = register_module("out_proj", Linear(embed_dim, embed_dim));
}

torch::Tensor SelfAttentionImpl::scores(const torch::Tensor& x, const torch::Tensor& bias) {
  const int64_t b = x.size(0), t = x.size(1);
  auto q = (q_proj(x) * scaling_).view({b, t, heads_, head_dim_}).transpose(1, 2);
  auto k = k_proj(x).view({b, t, heads_, head_dim_}).transpose(1, 2);
  // Attention products run in the bias's dtype: fp32 under autocast (they cost T^2*d FLOPs
  // against the projections' T*d^2, and 16-bit scores lose most of the bias's precision); 16-bit
  // only for a model copied to 16 bits with a 16-bit bias (explanations that store 16-bit
  // activations).
  compat::AutocastSuspend fp32;
  const auto dtype = bias.scalar_type();
  return torch::baddbmm(bias.view({b * heads_, t, t}), q.to(dtype).reshape({b * heads_, t, head_dim_}),
                        k.to(dtype).reshape({b * heads_, t, head_dim_}).transpose(1, 2))
      .view({b, heads_, t, t});
}

torch::Tensor SelfAttentionImpl::fusedInference(const torch::Tensor& x, const torch::Tensor& bias) {
  const int64_t b = x.size(0), t = x.size(1);
  // q, k, v stay in the projections' dtype (fp32, or bf16 with 16-bit weight copies): the kernel
  // reads each head's slice into fp32 scratch, so no fp32 copy of them and no [B, H, T, T] scores
  // tensor is made. Each (molecule, head) reads its slice of q before writing its output there, so
  // the output overwrites q.
  auto q = q_proj(x);
  const auto type = q.scalar_type() == torch::kBFloat16 ? torch::kBFloat16 : torch::kFloat;
  q = q.to(type).contiguous();
  {
    const auto k = k_proj(x).to(type).contiguous(), v = v_proj(x).to(type).contiguous();
    const auto bias_c = bias.contiguous();
    kernels::attention(q.data_ptr(), k.data_ptr(), v.data_ptr(), type == torch::kBFloat16, static_cast<float>(scaling_),
                       bias_c.data_ptr(), bias_c.scalar_type() == torch::kBFloat16, q.data_ptr(), b, t, heads_,
                       head_dim_);
  }
  return out_proj(q);
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& bias) {
  if (kernels::available() && !torch::GradMode::is_enabled() && x.device().is_cpu() && !is_training() && !capture_ &&
      (bias.scalar_type() == torch::kFloat || bias.scalar_type() == torch::kBFloat16))
    return fusedInference(x, bias);
  const int64_t b = x.size(0), t = x.size(1);
  auto v = v_proj(x).view({b, t, heads_, head_dim_}).transpose(1, 2);
  auto probs = torch::softmax(scores(x, bias), -1);
  if (capture_) capture_->push_back(probs.detach().mean(1));
  if (is_training() && dropout_ > 0) probs = torch::dropout(probs, dropout_, true);
  compat::AutocastSuspend fp32;
  auto out = torch::matmul(probs, v.to(probs.scalar_type()));  // [B, H, T, d]
  return out_proj(out.transpose(1, 2).reshape({b, t, heads_ * head_dim_}));
}

EncoderLayerImpl::EncoderLayerImpl(const bundle::GraphormerConfig& c)
    : pre_layernorm_(c.pre_layernorm),
      gelu_(c.activation_fn == "gelu"),
      dropout_(c.dropout),
      activation_dropout_(c.activation_dropout) {
  const int64_t dim = c.embedding_dim;
  self_attn = register_module("self_attn", SelfAttention(dim, c.num_attention_heads, c.attention_dropout));
  self_attn_layer_norm =
      register_module("self_attn_layer_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  fc1 = register_module("fc1", Linear(dim, c.ffn_embedding_dim));
  fc2 = register_module("fc2", Linear(c.ffn_embedding_dim, dim));
  final_layer_norm = register_module("final_layer_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
}

torch::Tensor EncoderLayerImpl::activation(const torch::Tensor& x) const {
  return gelu_ ? torch::gelu(x) : torch::relu(x);
}

torch::Tensor layerNormAs(torch::nn::LayerNorm& ln, torch::Tensor x, c10::ScalarType out_dtype, torch::Tensor add) {
  const auto& w = ln->weight;
  const auto in_dtype = x.scalar_type();
  const bool addable = !add.defined() || (add.scalar_type() == torch::kBFloat16 && add.sizes() == x.sizes());
  if (out_dtype != torch::kBFloat16 || (in_dtype != torch::kFloat && in_dtype != torch::kBFloat16) || !addable ||
      !x.device().is_cpu() || torch::GradMode::is_enabled() || !w.defined() || w.scalar_type() != torch::kFloat ||
      !ln->bias.defined() || ln->options.normalized_shape().size() != 1) {
    if (add.defined()) x = x + std::exchange(add, torch::Tensor());  // moved-in operands are freed before the norm
    x = layerNormFp32(ln, x);
    return x.scalar_type() == out_dtype ? x : x.to(out_dtype);
  }
  const auto in = x.contiguous();
  const auto more = add.defined() ? add.contiguous() : add;
  auto out = torch::empty(in.sizes(), in.options().dtype(torch::kBFloat16));
  const int64_t cols = in.size(-1);
  kernels::layerNormToBf16(in.data_ptr(), in_dtype == torch::kBFloat16,
                           more.defined() ? static_cast<const uint16_t*>(more.data_ptr()) : nullptr,
                           static_cast<uint16_t*>(out.data_ptr()), w.data_ptr<float>(), ln->bias.data_ptr<float>(),
                           static_cast<float>(ln->options.eps()), in.numel() / cols, cols);
  return out;
}

// Layer norms of x (+ add) keep the residual stream's dtype.
torch::Tensor EncoderLayerImpl::norm(torch::nn::LayerNorm& ln, torch::Tensor x, torch::Tensor add) {
  const auto dtype = x.scalar_type();
  return layerNormAs(ln, std::move(x), dtype, std::move(add));
}

torch::Tensor EncoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& bias) {
  const bool train = is_training();
  auto h = pre_layernorm_ ? norm(self_attn_layer_norm, x) : x;
  h = torch::dropout(self_attn(h, bias), dropout_, train && dropout_ > 0);
  auto y = pre_layernorm_ ? x + h : norm(self_attn_layer_norm, x, std::move(h));
  h = pre_layernorm_ ? norm(final_layer_norm, y) : y;
  h = torch::dropout(activation(fc1(h)), activation_dropout_, train && activation_dropout_ > 0);
  h = torch::dropout(fc2(h), dropout_, train && dropout_ > 0);
  return pre_layernorm_ ? y + h : norm(final_layer_norm, std::move(y), std::move(h));
}

}  // namespace gs::model
