#pragma once
// A Linear layer with the parameter names of torch.nn.Linear ("weight", "bias") that can also run
// as a dynamically quantised int8 layer (weights int8 per output channel, activations quantised
// per batch). The fp32 weights stay, so a model switches between precisions without reloading.
// Optionally carries a LoRA adapter (low-rank update, parameters "lora_A" and "lora_B").
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace gs::model {

class LinearImpl : public torch::nn::Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features, bool with_bias = true);
  torch::Tensor forward(const torch::Tensor& x);

  // Packs the current weights for the quantized engine (oneDNN on CPU). Returns false with a
  // message when the engine refuses (no int8 backend on this build).
  bool quantizeInt8(std::string* error);
  void dropInt8() { packed_ = c10::IValue(); }
  bool isInt8() const { return !packed_.isNone(); }

  // LoRA: y = W x + b + (alpha / rank) B (A x), A [rank, in] drawn like a Linear weight from
  // `generator`, B [out, rank] zero, so a fresh adapter leaves the output unchanged.
  void addLora(int64_t rank, double alpha, at::Generator generator);
  bool hasLora() const { return lora_A.defined(); }
  double loraScale() const { return lora_scale_; }
  // W += (alpha / rank) B A, then the adapter is removed: inference costs what the base costs
  // (and int8 quantises the adapted weights).
  void mergeLora();

  torch::Tensor weight;
  torch::Tensor bias;  // undefined when with_bias is false
  torch::Tensor lora_A, lora_B;  // undefined without an adapter

 private:
  c10::IValue packed_;
  double lora_scale_ = 0;
};
TORCH_MODULE(Linear);

}  // namespace gs::model
