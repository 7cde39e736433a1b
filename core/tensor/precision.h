#pragma once
// How the model's arithmetic runs. FP32 is the reference; BF16/FP16 are autocast mixed precision
// (matrix products in 16-bit, softmax, layer norms and the attention bias in fp32); INT8 is
// dynamic quantisation of every Linear layer (CPU). This header is LibTorch-free.
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::tensor {

enum class Precision { FP32, BF16, FP16, INT8 };

const char* precisionName(Precision p);  // "fp32", "bf16", "fp16", "int8"
// The error names the choices: "unknown precision 'x' (fp32, bf16, fp16 or int8)".
Result<Precision> parsePrecision(const std::string& name);

// Whether `precision` can run on `device` ("cpu", "cuda", "cuda:N") here, with the reason when
// not (for menus and errors).
Status precisionAvailable(Precision precision, const std::string& device);
// INT8 on the CPU is faster than FP32 only for encoders at least this wide: below it the per-row
// quantisation passes cost more than the int8 products save (bench/inference, docs/PERFORMANCE.md).
constexpr int kInt8MinWidth = 256;
// Whether `precision` is worth choosing for a model whose encoder is `embedding_dim` wide, with
// the reason when not. The app does not offer such a precision; the CLI runs it with a note.
Status precisionPays(Precision precision, int embedding_dim);

// "cpu" and "cuda:N" for every CUDA device this LibTorch sees.
std::vector<std::string> availableDevices();

}  // namespace gs::tensor
