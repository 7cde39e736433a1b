#pragma once
// A Linear layer with the parameter names of torch.nn.Linear ("weight", "bias") that can also run,
// in inference (no gradients), with reduced-precision weights made once:
//   - 16-bit (bf16, or fp16 on CUDA): a copy of weight and bias in that dtype; the input is cast to
//     it and the product accumulates in fp32 (oneDNN, cuBLAS), its output is 16-bit.
//   - int8: weights int8 per output channel, activations quantised per row (per token) with a
//     symmetric scale, so a row's result never depends on the other rows of the batch.
// INT8 pads the rows of the product to a few stable counts (stableRowCount), so that oneDNN, which
// builds a kernel per shape, can reuse its kernels instead of building one per batch.
// The fp32 weights stay, so a model switches between precisions without reloading; training and
// gradient computation always use them. Optionally carries a LoRA adapter (low-rank update,
// parameters "lora_A" and "lora_B").
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
  // 16-bit copies of the current weights (kBFloat16 or kHalf), or none with kFloat.
  void setHalfWeights(c10::ScalarType dtype);
  bool hasHalfWeights() const { return weight16_.defined(); }
  // Frees the fp32 weight of a layer that has 16-bit copies (a private inference copy on a GPU);
  // the layer then runs in inference only, and its 16-bit copies cannot be remade.
  void releaseFloatWeight();

  // LoRA: y = W x + b + (alpha / rank) B (A x), A [rank, in] drawn like a Linear weight from
  // `generator`, B [out, rank] zero, so a fresh adapter leaves the output unchanged.
  void addLora(int64_t rank, double alpha, at::Generator generator);
  bool hasLora() const { return lora_A.defined(); }
  double loraScale() const { return lora_scale_; }
  // W += (alpha / rank) B A, then the adapter is removed: inference costs what the base costs
  // (and int8 quantises the adapted weights).
  void mergeLora();

  torch::Tensor weight;
  torch::Tensor bias;            // undefined when with_bias is false
  torch::Tensor lora_A, lora_B;  // undefined without an adapter

 private:
  torch::Tensor int8Forward(const torch::Tensor& x2d);
  torch::Tensor halfForward(const torch::Tensor& x2d);

  c10::IValue packed_;  // int8 weights without the bias (added in fp32 after the per-row rescale)
  torch::Tensor weight16_, bias16_;
  double lora_scale_ = 0;
};
TORCH_MODULE(Linear);

// The row count an INT8 product of `rows` rows is padded to: at least 32, and at most 1/8
// (12.5 %) more, from 8 steps per power of two; so oneDNN meets a few dozen shapes, not one per
// batch.
int64_t stableRowCount(int64_t rows);
// Turns the padding to stable row counts off (process-wide), so bench/inference can measure what
// it costs and saves; on by default.
void setStableRowPadding(bool enabled);

}  // namespace gs::model
