#include "model/linear.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/nn/init.h>
#include <torch/torch.h>

#include <cmath>

#include "tensor/torch_compat.h"

namespace gs::model {

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features, bool with_bias) {
  weight = register_parameter("weight", torch::empty({out_features, in_features}));
  torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (with_bias) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
    bias = register_parameter("bias", torch::empty({out_features}).uniform_(-bound, bound));
  }
}

void LinearImpl::addLora(int64_t rank, double alpha, at::Generator generator) {
  TORCH_CHECK(rank > 0 && !hasLora(), "LoRA: rank must be positive and the layer must have no adapter yet");
  torch::NoGradGuard no_grad;
  const int64_t in = weight.size(1), out = weight.size(0);
  // kaiming_uniform_(a = sqrt(5)) of a [rank, in] matrix: U(-1/sqrt(in), 1/sqrt(in)).
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  lora_A = register_parameter("lora_A", torch::empty({rank, in}).uniform_(-bound, bound, generator).to(weight.options()));
  lora_B = register_parameter("lora_B", torch::zeros({out, rank}, weight.options()));
  lora_scale_ = alpha / static_cast<double>(rank);
  dropInt8();
}

void LinearImpl::mergeLora() {
  if (!hasLora()) return;
  {
    torch::NoGradGuard no_grad;
    weight.add_(lora_B.mm(lora_A).to(weight.dtype()), lora_scale_);
  }
  parameters_.erase("lora_A");
  parameters_.erase("lora_B");
  lora_A = torch::Tensor();
  lora_B = torch::Tensor();
  lora_scale_ = 0;
  dropInt8();
}

torch::Tensor LinearImpl::forward(const torch::Tensor& x) {
  if (hasLora()) return torch::linear(x, weight, bias) + torch::linear(torch::linear(x, lora_A), lora_B) * lora_scale_;
  if (packed_.isNone() || is_training() || x.requires_grad()) return torch::linear(x, weight, bias);
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_dynamic", "");
  const auto sizes = x.sizes().vec();
  std::vector<c10::IValue> stack{x.reshape({-1, sizes.back()}).to(torch::kFloat).contiguous(), packed_, false};
  op.callBoxed(&stack);
  auto out_sizes = sizes;
  out_sizes.back() = weight.size(0);
  return stack[0].toTensor().view(out_sizes);
}

bool LinearImpl::quantizeInt8(std::string* error) {
  if (!compat::selectInt8Engine(error)) return false;
  try {
    torch::NoGradGuard no_grad;
    const auto w = weight.detach().to(torch::kCPU, torch::kFloat).contiguous();
    // Symmetric per-output-channel scales: oneDNN requires zero weight zero-points.
    const auto scales = (w.abs().amax(1) / 127.0).clamp_min(1e-12).to(torch::kDouble);
    const auto zero_points = torch::zeros({w.size(0)}, torch::kLong);
    const auto qweight = torch::quantize_per_channel(w, scales, zero_points, 0, torch::kQInt8);
    static const auto prepack = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_prepack", "");
    std::vector<c10::IValue> stack{qweight, bias.defined() ? c10::IValue(bias.detach().to(torch::kFloat)) : c10::IValue()};
    prepack.callBoxed(&stack);
    packed_ = stack[0];
    return true;
  } catch (const c10::Error& e) {
    if (error) *error = std::string("int8 packing failed: ") + e.what_without_backtrace();
    packed_ = c10::IValue();
    return false;
  }
}

}  // namespace gs::model
