#include "tensor/precision.h"

#include <torch/torch.h>

#include "tensor/precision_dtype.h"
#include "tensor/torch_compat.h"

namespace gs::tensor {
namespace {

using NF = NumberFormat;
// The one place each precision is described. Tolerances: the fixture's measured differences with
// headroom (bf16 rounds every projection to 8 mantissa bits; int8 quantises weights per channel and
// activations per row; fp16 has 11 mantissa bits, measured only on CUDA, held to bf16's bound).
const std::vector<PrecisionTraits> kPrecisionTable{
    {Precision::FP32, "fp32", "FP32: the reference numbers", NF::Float32, NF::Float32, false, false, "", true, true,
     false, "", 0.0, 0.0},
    {Precision::BF16, "bf16", "BF16: 16-bit products and working values, about half FP32's memory", NF::BFloat16,
     NF::BFloat16, true, false, "", true, true, false, "", 0.15, 0.02},
    {Precision::FP16, "fp16", "FP16: 16-bit products for NVIDIA GPUs", NF::Float16, NF::Float16, true, false,
     "fp16 autocast needs a CUDA device with this LibTorch; use bf16 on the CPU", true, false, true,
     "fp16 training needs CUDA (loss scaling); use bf16 on the CPU", 0.15, 0.02},
    {Precision::INT8, "int8", "INT8: 8-bit integer products, fastest for large models (CPU)", NF::Int8, NF::Int8, false,
     true, "int8 dynamic quantisation runs on the CPU only; use fp16 or bf16 on CUDA", false, false, false,
     "int8 weights have no gradients", 0.3, 0.05},
};

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

Status checkDevice(const PrecisionTraits& t, const torch::Device& device) {
  if (t.cpu_only && !device.is_cpu()) return {StatusCode::InvalidArgument, t.device_note};
  if (t.sixteen_bit && !compat::autocastSupports(device.type(), scalarType(t.products))) {
    if (*t.device_note) return {StatusCode::InvalidArgument, t.device_note};
    return {StatusCode::InvalidArgument, std::string(t.name) + " autocast is not available on " + device.str()};
  }
  return Status::ok();
}

}  // namespace

const std::vector<PrecisionTraits>& precisionTable() { return kPrecisionTable; }

const PrecisionTraits& traits(Precision p) {
  for (const auto& t : kPrecisionTable)
    if (t.precision == p) return t;
  return kPrecisionTable.front();
}

const char* precisionName(Precision p) { return traits(p).name; }

std::string precisionChoices(bool training) {
  std::vector<std::string> names;
  for (const auto& t : kPrecisionTable)
    if (!training || t.trains)
      names.emplace_back(std::string(t.name) + (training && !t.trains_on_cpu ? " (CUDA)" : ""));
  return join(names);
}

Result<Precision> parsePrecision(const std::string& name) {
  for (const auto& t : kPrecisionTable)
    if (name == t.name) return t.precision;
  return Status(StatusCode::InvalidArgument, "unknown precision '" + name + "' (" + precisionChoices(false) + ")");
}

Status precisionAvailable(Precision precision, const std::string& device) {
  auto d = compat::parseDevice(device);
  if (!d.isOk()) return d.status();
  if (Status s = checkDevice(traits(precision), d.value()); !s.isOk()) return s;
  std::string error;
  if (traits(precision).products == NumberFormat::Int8 && !compat::selectInt8Engine(&error))
    return {StatusCode::InvalidArgument, error};
  return Status::ok();
}

Status trainingPrecisionAvailable(Precision precision, const std::string& device) {
  const PrecisionTraits& t = traits(precision);
  if (!t.trains)
    return {StatusCode::InvalidArgument, std::string(t.training_note) + ": train in " + precisionChoices(true)};
  if (!t.trains_on_cpu && device.rfind("cuda", 0) != 0) return {StatusCode::InvalidArgument, t.training_note};
  return precisionAvailable(precision, device);
}

Status precisionPays(Precision precision, int embedding_dim) {
  if (traits(precision).products != NumberFormat::Int8 || embedding_dim <= 0 || embedding_dim >= kInt8MinWidth)
    return Status::ok();
  return {StatusCode::InvalidArgument, "int8 is slower than fp32 for this model: its layers are " +
                                           std::to_string(embedding_dim) + " wide, and int8 pays from " +
                                           std::to_string(kInt8MinWidth) +
                                           " (the quantisation passes cost more than the small int8 products save); "
                                           "use fp32 or bf16"};
}

std::vector<std::string> availableDevices() {
  std::vector<std::string> out{"cpu"};
  if (compat::cudaAvailable())
    for (int i = 0; i < static_cast<int>(torch::cuda::device_count()); ++i) out.push_back("cuda:" + std::to_string(i));
  return out;
}

}  // namespace gs::tensor
