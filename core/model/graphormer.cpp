#include "model/graphormer.h"

#include <torch/torch.h>

#include <limits>

#include "model/attention_kernels.h"
#include "model/layer_norm.h"

namespace gs::model {
namespace {

torch::nn::LayerNorm layerNorm(int64_t dim) { return torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})); }

}  // namespace

GraphEncoderImpl::GraphEncoderImpl(const bundle::GraphormerConfig& c) : dropout_(c.dropout) {
  graph_node_feature = register_module("graph_node_feature", GraphNodeFeature(c));
  graph_attn_bias = register_module("graph_attn_bias", GraphAttnBias(c));
  if (c.encoder_normalize_before) emb_layer_norm = register_module("emb_layer_norm", layerNorm(c.embedding_dim));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int i = 0; i < c.num_hidden_layers; ++i) layers->push_back(EncoderLayer(c));
  if (c.pre_layernorm) final_layer_norm = register_module("final_layer_norm", layerNorm(c.embedding_dim));
}

torch::Tensor GraphEncoderImpl::attentionBias(const tensor::GraphBatch& batch, c10::ScalarType dtype) {
  auto bias = graph_attn_bias(batch, dtype);  // [B, H, T, T]
  // Key padding: padded nodes have all-zero features; the graph token (column 0) is never masked.
  auto padded = batch.input_nodes.select(2, 0).eq(0);
  padded = torch::cat({torch::zeros({padded.size(0), 1}, padded.options()), padded}, 1);
  return bias.masked_fill_(padded.unsqueeze(1).unsqueeze(2), -std::numeric_limits<float>::infinity());
}

torch::Tensor GraphEncoderImpl::normalizeEmbeddings(const torch::Tensor& node_features,
                                                    c10::optional<c10::ScalarType> dtype) {
  torch::Tensor x;
  if (!dtype)
    x = emb_layer_norm ? layerNormFp32(emb_layer_norm, node_features) : node_features;
  else
    x = emb_layer_norm ? layerNormAs(emb_layer_norm, node_features, *dtype) : node_features.to(*dtype);
  return is_training() && dropout_ > 0 ? torch::dropout(x, dropout_, true) : x;
}

torch::Tensor GraphEncoderImpl::runLayers(torch::Tensor x, const torch::Tensor& bias, const LayerRunner& runner) {
  int index = 0;
  for (auto& module : *layers) {
    auto& layer = *module->as<EncoderLayerImpl>();
    x = runner ? runner(index, layer, x, bias) : layer.forward(x, bias);
    ++index;
  }
  return x;  // no layer norm after the last layer, as in the reference
}

EncoderImpl::EncoderImpl(const bundle::GraphormerConfig& c) : gelu_(c.activation_fn == "gelu") {
  graph_encoder = register_module("graph_encoder", GraphEncoder(c));
  lm_head_transform_weight = register_module("lm_head_transform_weight", Linear(c.embedding_dim, c.embedding_dim));
  layer_norm = register_module("layer_norm", layerNorm(c.embedding_dim));
}

torch::Tensor EncoderImpl::headTransform(const torch::Tensor& x) {
  auto h = lm_head_transform_weight(x);
  return layerNormFp32(layer_norm, gelu_ ? torch::gelu(h) : torch::relu(h));
}

DecoderHeadImpl::DecoderHeadImpl(int64_t embed_dim, int64_t num_classes) {
  classifier = register_module("classifier", Linear(embed_dim, num_classes, /*with_bias=*/false));
  lm_output_learned_bias = register_parameter("lm_output_learned_bias", torch::zeros({1}));
}

GraphormerImpl::GraphormerImpl(const bundle::GraphormerConfig& config) : config_(config) {
  encoder = register_module("encoder", Encoder(config));
  classifier = register_module("classifier", DecoderHead(config.embedding_dim, config.num_classes));
}

torch::Tensor GraphormerImpl::forwardFromNodeFeatures(const torch::Tensor& node_features, const torch::Tensor& bias,
                                                      const LayerRunner& runner) {
  return forwardFromEncoderInput(encoder->graph_encoder->normalizeEmbeddings(node_features), bias, runner);
}

torch::Tensor GraphormerImpl::forwardFromEncoderInput(const torch::Tensor& encoder_input, const torch::Tensor& bias,
                                                      const LayerRunner& runner) {
  return run(encoder_input, bias, runner);
}

// `x` by value: a moved-in encoder input is freed as soon as the first layer no longer needs it.
torch::Tensor GraphormerImpl::run(torch::Tensor x, const torch::Tensor& bias, const LayerRunner& runner,
                                  bool with_embedding) {
  // With bfloat16 weight copies, inference carries the residual stream in bfloat16 too (halving
  // the activations' memory); the sums, layer norms and softmax inside each layer are fp32.
  if (narrowResidual() && x.scalar_type() != residual_dtype_) x = x.to(residual_dtype_);
  x = encoder->graph_encoder->runLayers(std::move(x), bias, runner);
  // The head is per token and only the graph token (index 0) is read: project that one only.
  auto token = x.select(1, 0);
  if (narrowResidual()) token = token.to(torch::kFloat);  // the head has no 16-bit copies
  const auto embedding = encoder->headTransform(token);
  auto out = classifier(embedding).to(torch::kFloat);
  return with_embedding ? torch::cat({out, embedding.to(torch::kFloat)}, 1) : out;
}

torch::Tensor GraphormerImpl::forward(tensor::GraphBatch batch, const LayerRunner& runner, bool with_embedding) {
  auto& graph = *encoder->graph_encoder;
  // For the peak memory of a moved-in batch: the bias first, then the inputs only the bias reads
  // are freed, then the node features (in the residual's dtype), then the rest of the batch.
  if (config_.edge_type == "multi_hop") batch.attn_edge_type = torch::Tensor();
  // The CPU attention kernel reads a bfloat16 bias in fp32: with the bfloat16 residual, half the memory.
  const bool narrow_bias = narrowResidual() && kernels::available() && batch.input_nodes.device().is_cpu();
  const auto bias = graph.attentionBias(batch, narrow_bias ? torch::kBFloat16 : torch::kFloat);
  batch.input_edges = batch.spatial_pos = batch.attn_edge_type = batch.attn_bias = torch::Tensor();
  auto x = graph.normalizeEmbeddings(graph.graph_node_feature(batch),
                                     narrowResidual() ? c10::optional<c10::ScalarType>(residual_dtype_) : c10::nullopt);
  batch = tensor::GraphBatch();
  return run(std::move(x), bias, runner, with_embedding);
}

std::shared_ptr<GraphormerImpl> GraphormerImpl::copyAs(torch::ScalarType dtype, const torch::Device& device) const {
  auto copy = std::make_shared<GraphormerImpl>(config_);
  torch::NoGradGuard no_grad;
  auto params = copy->named_parameters(true);
  for (const auto& p : named_parameters(true))
    if (auto* dst = params.find(p.key())) dst->copy_(p.value());  // adapters have no place in the copy
  auto buffers = copy->named_buffers(true);
  for (const auto& b : named_buffers(true))
    if (auto* dst = buffers.find(b.key())) dst->copy_(b.value());
  const auto mine = named_modules();
  const auto theirs = copy->named_modules();
  for (const auto& m : mine) {
    auto* linear = m.value()->as<LinearImpl>();
    if (!linear || !linear->hasLora()) continue;
    if (auto* dst = theirs.find(m.key()))
      (*dst)->as<LinearImpl>()->weight.add_(linear->lora_B.mm(linear->lora_A), linear->loraScale());
  }
  copy->to(device, dtype);
  copy->train(is_training());
  return copy;
}

std::shared_ptr<GraphormerImpl> GraphormerImpl::sharingWeights() const {
  auto copy = std::make_shared<GraphormerImpl>(config_);
  torch::NoGradGuard no_grad;
  auto params = copy->named_parameters(true);
  for (const auto& p : named_parameters(true))
    if (auto* dst = params.find(p.key())) dst->set_data(p.value());
  auto buffers = copy->named_buffers(true);
  for (const auto& b : named_buffers(true))
    if (auto* dst = buffers.find(b.key())) dst->set_data(b.value());
  copy->train(is_training());
  return copy;
}

void GraphormerImpl::initializeWeights(uint64_t seed) {
  torch::NoGradGuard no_grad;
  auto generator = at::detail::createCPUGenerator(seed);
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<LinearImpl>()) {
      linear->weight.normal_(0.0, 0.02, generator);
      if (linear->bias.defined()) linear->bias.zero_();
    } else if (auto* embedding = module->as<torch::nn::EmbeddingImpl>()) {
      embedding->weight.normal_(0.0, 0.02, generator);
      if (embedding->options.padding_idx()) embedding->weight[*embedding->options.padding_idx()].zero_();
    }
  }
  classifier->lm_output_learned_bias.zero_();
}

std::vector<Linear> GraphormerImpl::linears() {
  std::vector<Linear> out;
  for (auto& module : modules(false))
    if (auto linear = std::dynamic_pointer_cast<LinearImpl>(module)) out.emplace_back(linear);
  return out;
}

bool GraphormerImpl::narrowResidual() const {
  return residual_dtype_ != torch::kFloat && !torch::GradMode::is_enabled() && !is_training();
}

bool GraphormerImpl::isHead(const Linear& linear) const {
  return linear.get() == classifier->classifier.get() || linear.get() == encoder->lm_head_transform_weight.get();
}

void GraphormerImpl::setHalfWeights(c10::ScalarType dtype) {
  for (auto& linear : linears()) linear->setHalfWeights(isHead(linear) ? torch::kFloat : dtype);
  residual_dtype_ = dtype == torch::kBFloat16 ? torch::kBFloat16 : torch::kFloat;
}

void GraphormerImpl::releaseFloatWeights() {
  for (auto& linear : linears()) linear->releaseFloatWeight();
}

bool GraphormerImpl::setInt8(bool enable, std::string* error) {
  for (auto& linear : linears()) {
    if (!enable || isHead(linear)) {
      linear->dropInt8();
    } else if (!linear->quantizeInt8(error)) {
      for (auto& l : linears()) l->dropInt8();
      return false;
    }
  }
  return true;
}

}  // namespace gs::model
