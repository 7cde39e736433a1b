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

// The norm of x (+ add, the residual sum) with its result in `out` (the bfloat16 residual stream
// of inference with 16-bit weight copies). For bfloat16 out on the CPU without autograd, one row
// kernel (x fp32 or bfloat16, add bfloat16; sum, statistics and affine in fp32, one rounding): no
// fp32 copy and no rounded sum is made. Otherwise layerNormFp32, then a cast. (Defined in
// encoder_layer.cpp.)
torch::Tensor layerNormAs(torch::nn::LayerNorm& norm, torch::Tensor x, c10::ScalarType out, torch::Tensor add = {});

}  // namespace gs::model
