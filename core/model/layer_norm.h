#pragma once
// Layer norms run in their weights' dtype: fp32 under every autocast precision (CUDA autocast does
// this itself, LibTorch 1.13's CPU autocast does not: bf16 input with fp32 weights is an error
// there); 16-bit only in a model copied to 16 bits.
#include <torch/nn/modules/normalization.h>

namespace gs::model {

inline torch::Tensor layerNormFp32(torch::nn::LayerNorm& norm, const torch::Tensor& x) {
  const auto dtype = norm->weight.scalar_type();
  return norm(x.scalar_type() == dtype ? x : x.to(dtype));
}

}  // namespace gs::model
