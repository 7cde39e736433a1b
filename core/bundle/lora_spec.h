#pragma once
// The description of a LoRA adapter (model/lora.h) as stored in its file's header: rank, alpha and
// the base model it was trained on. Torch-free, so resolving "what does this adapter adapt" needs
// no LibTorch.
#include <map>
#include <string>

#include "common/json_value.h"
#include "common/status.h"

namespace gs::bundle {

// Header keys of our safetensors files.
inline constexpr const char* kAdapterKey = "graphormer_adapter";    // an adapter file's LoraSpec
inline constexpr const char* kMetadataKey = "graphormer_metadata";  // bundle::ModelMetadata

struct LoraSpec {
  int rank = 8;
  double alpha = 8.0;       // update scale alpha / rank
  std::string base_sha256;  // of the base model's weights file ("" = unknown)
  std::string base_path;    // where the base was loaded from when training (a hint for loading)
  std::string base_config;  // the base model's configuration (JSON)

  std::string toJson() const;
  static Result<LoraSpec> fromJson(const JsonValue& json);
};

// The adapter description in the header of the adapter file at `path`; an error when the file is
// not an adapter (a full model, a truncated file, another format).
Result<LoraSpec> readAdapterSpec(const std::string& path);
// The same from a header's metadata already read (`path` names the file in errors).
Result<LoraSpec> adapterSpecFromHeader(const std::string& path, const std::map<std::string, std::string>& metadata);

}  // namespace gs::bundle
