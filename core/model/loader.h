#pragma once
// The one model loader of every command and the app: a ModelSource (bundle/model_source.h) is
// resolved to its files, the weights loaded (model/checkpoint.h), an adapter applied and merged
// (model/lora.h, checked against the base's SHA-256 and configuration), and where it all came from
// recorded in the LoadedModel (source, sha256, adapter_sha256).
#include "bundle/lora_spec.h"
#include "bundle/model_source.h"
#include "common/status.h"
#include "model/checkpoint.h"

namespace gs::model {

Result<LoadedModel> openModel(const bundle::ModelSource& source);
// "weights file" or "weights file + adapter file", for messages and reports.
std::string modelLabel(const LoadedModel& model);
Result<LoadedModel> openModel(const bundle::ResolvedModel& resolved);

// The one model-directory writer (train): `dir`/model.safetensors with the configuration and
// metadata in its header, or, given `adapter`, `dir`/adapter.safetensors with only the LoRA
// tensors and the base they adapt (bundle/lora_spec.h). Atomic; returns the file written.
Result<std::string> saveBundle(const std::string& dir, GraphormerImpl& model, const bundle::ModelMetadata& metadata,
                               const bundle::LoraSpec* adapter = nullptr);

}  // namespace gs::model
