#pragma once
// How the model's arithmetic runs. FP32 is the reference; BF16/FP16 are autocast mixed precision
// (matrix products in 16-bit, softmax, layer norms and the attention bias in fp32); INT8 is
// dynamic quantisation of every Linear layer (CPU).
#include <string>

namespace gs::engine {

enum class Precision { FP32, BF16, FP16, INT8 };

const char* precisionName(Precision p);  // "fp32", "bf16", "fp16", "int8"
bool parsePrecision(const std::string& name, Precision* out);

}  // namespace gs::engine
