#pragma once
// How the model's arithmetic runs, one row per precision (kPrecisionTable in precision.cpp): every
// question of the kind "is it 16-bit", "does it train", "where does it run", "how far from FP32
// may it be" reads the row. FP32 is the reference. BF16/FP16 in inference keep 16-bit copies of
// the weights and run the products, residual stream and attention bias in 16 bits with every sum
// and normalisation in fp32 (SessionOptions::autocast selects LibTorch autocast instead); in
// training they are autocast mixed precision. INT8 is dynamic quantisation of every Linear layer
// (weights per channel, activations per row; CPU). This header is LibTorch-free; the LibTorch
// dtype of a NumberFormat is in tensor/precision_dtype.h.
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::tensor {

enum class Precision { FP32, BF16, FP16, INT8 };
// The number formats a precision stores weights in and runs products in.
enum class NumberFormat { Float32, BFloat16, Float16, Int8 };

struct PrecisionTraits {
  Precision precision;
  const char* name;           // "fp32": the CLI's --precision value, file and JSON field values
  const char* summary;        // one line for menus and help
  NumberFormat weights;       // what the session's own copy of the weights holds (inference)
  NumberFormat products;      // what the matrix products run in; the autocast type in training
  bool sixteen_bit;           // BF16/FP16: 16-bit copies in inference, autocast in training
  bool cpu_only;              // runs on the CPU only
  const char* device_note;    // why it cannot run on a device (cpu_only, or no 16-bit support)
  bool trains;                // has gradients (train, fine-tune, gradient explanations)
  bool trains_on_cpu;         // trains on the CPU too (FP16's loss scaling is CUDA only)
  bool loss_scaling;          // training scales the loss (FP16's narrow exponent range)
  const char* training_note;  // why it cannot train (there), when !trains or !trains_on_cpu
  double max_abs_vs_fp32;     // tolerance against FP32 on the reference fixture (outputs sd ~0.5):
  double mean_abs_vs_fp32;    // the tests hold every precision to its row (docs/PERFORMANCE.md)
};

// Every precision, in the order menus and help list them.
const std::vector<PrecisionTraits>& precisionTable();
const PrecisionTraits& traits(Precision p);

const char* precisionName(Precision p);  // "fp32", "bf16", "fp16", "int8"
// The error names the choices: "unknown precision 'x' (fp32, bf16, fp16 or int8)".
Result<Precision> parsePrecision(const std::string& name);
// "fp32, bf16, fp16 or int8" (inference) / "fp32, bf16 or fp16" (training) for help and errors.
std::string precisionChoices(bool training);

// Whether `precision` can run on `device` ("cpu", "cuda", "cuda:N") here, with the reason when
// not (for menus and errors).
Status precisionAvailable(Precision precision, const std::string& device);
// The same for training on `device`: the row's gradient rules, then precisionAvailable.
Status trainingPrecisionAvailable(Precision precision, const std::string& device);
// INT8 on the CPU is faster than FP32 only for encoders at least this wide: below it the per-row
// quantisation passes cost more than the int8 products save (bench/inference, docs/PERFORMANCE.md).
constexpr int kInt8MinWidth = 256;
// Whether `precision` is worth choosing for a model whose encoder is `embedding_dim` wide, with
// the reason when not. The app does not offer such a precision; the CLI runs it with a note.
Status precisionPays(Precision precision, int embedding_dim);

// "cpu" and "cuda:N" for every CUDA device this LibTorch sees.
std::vector<std::string> availableDevices();

}  // namespace gs::tensor
