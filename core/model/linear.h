#pragma once
// A Linear layer with the parameter names of torch.nn.Linear ("weight", "bias") that can also run
// as a dynamically quantised int8 layer (weights int8 per output channel, activations quantised
// per batch). The fp32 weights stay, so a model switches between precisions without reloading.
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

  torch::Tensor weight;
  torch::Tensor bias;  // undefined when with_bias is false

 private:
  c10::IValue packed_;
};
TORCH_MODULE(Linear);

}  // namespace gs::model
