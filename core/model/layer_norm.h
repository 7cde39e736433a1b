#pragma once
// Layer norms run in fp32 under every precision: CUDA autocast does this itself, LibTorch 1.13's
// CPU autocast does not (bf16 input with fp32 weights is an error there).
#include <torch/nn/modules/normalization.h>

namespace gs::model {

inline torch::Tensor layerNormFp32(torch::nn::LayerNorm& norm, const torch::Tensor& x) {
  return norm(x.scalar_type() == torch::kFloat ? x : x.to(torch::kFloat));
}

}  // namespace gs::model
