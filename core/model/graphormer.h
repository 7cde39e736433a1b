#pragma once
// Graphormer for graph-level prediction, module for module and name for name the HuggingFace
// GraphormerForGraphClassification, so a state dict maps one to one:
//   encoder.graph_encoder.{graph_node_feature, graph_attn_bias, emb_layer_norm, layers.i, final_layer_norm}
//   encoder.{lm_head_transform_weight, layer_norm}, classifier.{classifier, lm_output_learned_bias}
// Thread-safety: a module may be used by one thread at a time.
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <functional>

#include "bundle/config.h"
#include "model/embeddings.h"
#include "model/encoder_layer.h"
#include "model/linear.h"
#include "tensor/collate.h"

namespace gs::model {

// Runs encoder layer `index` on (x, bias); lets the engine wrap layers (activation checkpointing,
// per-layer hooks) without the model knowing.
using LayerRunner =
    std::function<torch::Tensor(int index, EncoderLayerImpl& layer, const torch::Tensor& x, const torch::Tensor& bias)>;

class GraphEncoderImpl : public torch::nn::Module {
 public:
  explicit GraphEncoderImpl(const bundle::GraphormerConfig& config);
  // [B, H, T, T] attention bias with the padded keys masked (-inf): summed in fp32, returned in
  // `dtype`.
  torch::Tensor attentionBias(const tensor::GraphBatch& batch, c10::ScalarType dtype = c10::ScalarType::Float);
  // Embedding layer norm (when configured); input is graph_node_feature's output. With `dtype`,
  // the result in that dtype (the residual stream's).
  torch::Tensor normalizeEmbeddings(const torch::Tensor& node_features, c10::optional<c10::ScalarType> dtype = {});
  torch::Tensor runLayers(torch::Tensor x, const torch::Tensor& bias, const LayerRunner& runner = {});

  GraphNodeFeature graph_node_feature{nullptr};
  GraphAttnBias graph_attn_bias{nullptr};
  torch::nn::LayerNorm emb_layer_norm{nullptr};  // when encoder_normalize_before
  torch::nn::ModuleList layers{nullptr};
  torch::nn::LayerNorm final_layer_norm{nullptr};  // when pre_layernorm: in checkpoints, unused by the forward

 private:
  double dropout_;
};
TORCH_MODULE(GraphEncoder);

class EncoderImpl : public torch::nn::Module {
 public:
  explicit EncoderImpl(const bundle::GraphormerConfig& config);
  torch::Tensor headTransform(const torch::Tensor& x);  // layer_norm(act(W x))

  GraphEncoder graph_encoder{nullptr};
  Linear lm_head_transform_weight{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};

 private:
  bool gelu_;
};
TORCH_MODULE(Encoder);

class DecoderHeadImpl : public torch::nn::Module {
 public:
  DecoderHeadImpl(int64_t embed_dim, int64_t num_classes);
  torch::Tensor forward(const torch::Tensor& x) { return classifier(x) + lm_output_learned_bias; }

  Linear classifier{nullptr};
  torch::Tensor lm_output_learned_bias;
};
TORCH_MODULE(DecoderHead);

class GraphormerImpl : public torch::nn::Module {
 public:
  explicit GraphormerImpl(const bundle::GraphormerConfig& config);

  // [B, num_classes] float32 raw outputs (before any target de-normalisation). A batch passed by
  // rvalue is freed once the bias and node features are built. `with_embedding`: [B, num_classes
  // + embedding_dim], the outputs followed by the molecule's embedding (the graph token as the
  // head reads it, after the head's transform): what the trust data's latent distance measures.
  torch::Tensor forward(tensor::GraphBatch batch, const LayerRunner& runner = {}, bool with_embedding = false);
  // The same forward split at the node features, for attributions: `node_features` is
  // graph_node_feature's output [B, T, C] (or a perturbation of it).
  torch::Tensor forwardFromNodeFeatures(const torch::Tensor& node_features, const torch::Tensor& bias,
                                        const LayerRunner& runner = {});
  // From the encoder's input: node features after the embedding layer norm (when configured).
  // Attributions start here: the layer norm is scale-invariant, so a path that scales the raw
  // node features to zero would leave the output constant until the very end.
  torch::Tensor forwardFromEncoderInput(const torch::Tensor& encoder_input, const torch::Tensor& bias,
                                        const LayerRunner& runner = {});
  // Graphormer initialisation: Linear and Embedding weights N(0, 0.02), biases 0, padding rows 0.
  void initializeWeights(uint64_t seed);
  // Packs every Linear but the head's for int8 (or drops the packing with enable = false).
  bool setInt8(bool enable, std::string* error);
  // 16-bit copies (kBFloat16, kHalf) of every Linear's weights but the head's (which stays fp32:
  // one row per molecule, where rounding would reach the prediction directly); kFloat drops them.
  // Used in inference only; layer norms, embeddings, attention scores and softmax stay fp32.
  // With bfloat16 the residual stream between layers is bfloat16 too (fp16, with its narrow
  // range, keeps an fp32 residual).
  void setHalfWeights(c10::ScalarType dtype);
  // Frees the fp32 weights of the layers that have 16-bit copies (see LinearImpl).
  void releaseFloatWeights();
  std::vector<Linear> linears();
  // A copy of the model with every parameter and buffer in `dtype` on `device` (LoRA adapters
  // merged into the copy's weights); the source is left as it is. With a 16-bit dtype and no
  // autocast, activations (and what backward keeps of them) are 16-bit too, attention included.
  std::shared_ptr<GraphormerImpl> copyAs(torch::ScalarType dtype, const torch::Device& device) const;
  // A new module whose parameters and buffers are this module's tensors (no data is copied): its
  // own training flag and int8 packing, the same weights. Not for a model with unmerged LoRA
  // adapters (the new module has none; use copyAs).
  std::shared_ptr<GraphormerImpl> sharingWeights() const;

  const bundle::GraphormerConfig& config() const { return config_; }

  Encoder encoder{nullptr};
  DecoderHead classifier{nullptr};

 private:
  bool isHead(const Linear& linear) const;
  torch::Tensor run(torch::Tensor encoder_input, const torch::Tensor& bias, const LayerRunner& runner,
                    bool with_embedding = false);
  bool narrowResidual() const;  // inference with bfloat16 weight copies
  bundle::GraphormerConfig config_;
  c10::ScalarType residual_dtype_ = c10::ScalarType::Float;
};
TORCH_MODULE(Graphormer);

}  // namespace gs::model
