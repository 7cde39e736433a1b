#include "engine/activation_checkpoint.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "tensor/torch_compat.h"

namespace gs::engine {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class CheckpointedLayer : public torch::autograd::Function<CheckpointedLayer> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor bias, int64_t layer_address) {
    ctx->saved_data["layer"] = layer_address;
    ctx->saved_data["rng"] = compat::rngState(x.device());
    ctx->saved_data["device"] = x.device().str();
    ctx->save_for_backward({x, bias});
    torch::NoGradGuard no_grad;
    return layerOf(layer_address).forward(x, bias);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const torch::Device device(ctx->saved_data["device"].toStringRef());
    auto x = saved[0].detach().requires_grad_(saved[0].requires_grad());
    auto bias = saved[1].detach().requires_grad_(saved[1].requires_grad());
    // Replay the forward's random numbers, then put the generator back where backward found it.
    const auto resume = compat::rngState(device);
    compat::setRngState(device, ctx->saved_data["rng"].toTensor());
    torch::Tensor out;
    {
      torch::AutoGradMode grad(true);
      out = layerOf(ctx->saved_data["layer"].toInt()).forward(x, bias);
    }
    compat::setRngState(device, resume);
    torch::autograd::backward({out}, {grad_outputs[0]});
    return {x.requires_grad() ? x.grad() : torch::Tensor(), bias.requires_grad() ? bias.grad() : torch::Tensor(),
            torch::Tensor()};
  }

 private:
  static model::EncoderLayerImpl& layerOf(int64_t address) {
    return *reinterpret_cast<model::EncoderLayerImpl*>(static_cast<intptr_t>(address));
  }
};

}  // namespace

int checkpointedLayers(int num_layers, double ratio) {
  return static_cast<int>(std::lround(std::clamp(ratio, 0.0, 1.0) * num_layers));
}

model::LayerRunner checkpointRunner(int num_layers, double ratio) {
  const int k = checkpointedLayers(num_layers, ratio);
  if (k == 0) return {};
  return [k](int index, model::EncoderLayerImpl& layer, const torch::Tensor& x, const torch::Tensor& bias) {
    if (index >= k || !torch::GradMode::is_enabled()) return layer.forward(x, bias);
    return CheckpointedLayer::apply(x, bias, static_cast<int64_t>(reinterpret_cast<intptr_t>(&layer)));
  };
}

}  // namespace gs::engine
