#include "model/linear.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/nn/init.h>
#include <torch/torch.h>

#include <atomic>
#include <cmath>

#include "model/row_kernels.h"
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
  lora_A =
      register_parameter("lora_A", torch::empty({rank, in}).uniform_(-bound, bound, generator).to(weight.options()));
  lora_B = register_parameter("lora_B", torch::zeros({out, rank}, weight.options()));
  lora_scale_ = alpha / static_cast<double>(rank);
  dropInt8();
  setHalfWeights(torch::kFloat);
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
  setHalfWeights(torch::kFloat);
}

int64_t stableRowCount(int64_t rows) {
  if (rows <= 32) return 32;
  int64_t octave = 1;
  while (octave * 2 <= rows) octave *= 2;
  const int64_t step = octave / 8;
  return (rows + step - 1) / step * step;
}

namespace {
std::atomic<bool> stable_rows{true};
int64_t paddedRows(int64_t rows) { return stable_rows.load(std::memory_order_relaxed) ? stableRowCount(rows) : rows; }

const c10::OperatorHandle& dynamicLinearOp() {
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_dynamic", "");
  return op;
}
}  // namespace

void setStableRowPadding(bool enabled) { stable_rows.store(enabled); }

torch::Tensor LinearImpl::forward(const torch::Tensor& x) {
  if (hasLora()) return torch::linear(x, weight, bias) + torch::linear(torch::linear(x, lora_A), lora_B) * lora_scale_;
  const bool inference = !is_training() && !x.requires_grad() && !torch::GradMode::is_enabled();
  if (!inference || (packed_.isNone() && !weight16_.defined())) return torch::linear(x, weight, bias);
  auto out_sizes = x.sizes().vec();
  const auto x2d = x.reshape({-1, out_sizes.back()});
  auto y = packed_.isNone() ? halfForward(x2d) : int8Forward(x2d);
  out_sizes.back() = y.size(1);
  return y.view(out_sizes);
}

// The input cast to the copies' dtype. Unlike INT8, the rows are not padded to a stable count:
// measured, it gained nothing for bf16 (docs/PERFORMANCE.md).
torch::Tensor LinearImpl::halfForward(const torch::Tensor& x2d) {
  return torch::linear(x2d.to(weight16_.scalar_type()), weight16_, bias16_);
}

// Per-row symmetric quantisation through the per-tensor dynamic kernel: every row is divided by
// its max |x| (so it lies in [-1, 1]) and two sentinel rows, one starting with +1 and one with -1,
// fix the tensor's range to exactly [-1, 1]. The kernel then quantises every row with the same scale (2/255) whatever the
// batch, its integer product is exact, and the row's own scale is multiplied back with the fp32
// bias: a row's result depends on that row alone. The fixed range also means oneDNN sees the same
// quantisation parameters on every call and reuses its kernel for the (stable) shape.
torch::Tensor LinearImpl::int8Forward(const torch::Tensor& x2d) {
  const auto x = x2d.to(torch::kFloat).contiguous();
  const int64_t rows = x.size(0), cols = x.size(1);
  const int64_t padded = paddedRows(rows + 2);
  auto input = torch::empty({padded, cols}, x.options());
  auto scales = torch::empty({rows}, x.options());
  kernels::scaleRows(x.data_ptr<float>(), input.data_ptr<float>(), scales.data_ptr<float>(), rows, cols);
  input.narrow(0, rows, padded - rows).zero_();
  float* sentinels = input.data_ptr<float>() + rows * cols;
  sentinels[0] = 1.f;
  sentinels[cols] = -1.f;
  std::vector<c10::IValue> stack{input, packed_, false};
  dynamicLinearOp().callBoxed(&stack);
  auto out = stack[0].toTensor().contiguous();
  const float* b = bias.defined() ? bias.data_ptr<float>() : nullptr;
  kernels::unscaleRows(out.data_ptr<float>(), scales.data_ptr<float>(), b, rows, out.size(1), out.size(1));
  return out.narrow(0, 0, rows);
}

void LinearImpl::releaseFloatWeight() {
  if (!weight16_.defined()) return;
  torch::NoGradGuard no_grad;
  weight.set_data(torch::empty({0}, weight.options()));
}

void LinearImpl::setHalfWeights(c10::ScalarType dtype) {
  torch::NoGradGuard no_grad;
  if (dtype == torch::kFloat) {
    weight16_ = torch::Tensor();
    bias16_ = torch::Tensor();
    return;
  }
  weight16_ = weight.detach().to(dtype).contiguous();
  bias16_ = bias.defined() ? bias.detach().to(dtype) : torch::Tensor();
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
    std::vector<c10::IValue> stack{qweight, c10::IValue()};  // the bias is added in fp32 after the per-row rescale
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
