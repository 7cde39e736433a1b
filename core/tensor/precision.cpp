#include "tensor/precision.h"

#include <torch/torch.h>

#include "common/named_enum.h"
#include "tensor/torch_compat.h"

namespace gs::tensor {
namespace {

constexpr NameTable<Precision, 4> kPrecisions{
    {Precision::FP32, "fp32"}, {Precision::BF16, "bf16"}, {Precision::FP16, "fp16"}, {Precision::INT8, "int8"}};

Status checkPrecision(Precision p, const torch::Device& device) {
  if (p == Precision::BF16 && !compat::autocastSupports(device.type(), torch::kBFloat16))
    return {StatusCode::InvalidArgument, "bf16 autocast is not available on " + device.str()};
  if (p == Precision::FP16 && !compat::autocastSupports(device.type(), torch::kHalf))
    return {StatusCode::InvalidArgument, "fp16 autocast needs a CUDA device with this LibTorch; use bf16 on the CPU"};
  if (p == Precision::INT8 && !device.is_cpu())
    return {StatusCode::InvalidArgument, "int8 dynamic quantisation runs on the CPU only; use fp16 or bf16 on CUDA"};
  return Status::ok();
}

}  // namespace

const char* precisionName(Precision p) { return nameIn(kPrecisions, p); }

Result<Precision> parsePrecision(const std::string& name) { return parseIn(kPrecisions, name, "precision"); }

Status precisionAvailable(Precision precision, const std::string& device) {
  auto d = compat::parseDevice(device);
  if (!d.isOk()) return d.status();
  if (Status s = checkPrecision(precision, d.value()); !s.isOk()) return s;
  std::string error;
  if (precision == Precision::INT8 && !compat::selectInt8Engine(&error)) return {StatusCode::InvalidArgument, error};
  return Status::ok();
}

Status precisionPays(Precision precision, int embedding_dim) {
  if (precision != Precision::INT8 || embedding_dim <= 0 || embedding_dim >= kInt8MinWidth) return Status::ok();
  return {StatusCode::InvalidArgument, "int8 is slower than fp32 for this model: its layers are " + std::to_string(embedding_dim) +
                                           " wide, and int8 pays from " + std::to_string(kInt8MinWidth) +
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
