#pragma once
// LoRA adapters (Hu et al., 2021) on a Graphormer's attention (q, k, v, out) and feed-forward
// (fc1, fc2) projections of every encoder layer: W x + (alpha / rank) B A x with A [rank, in],
// B [out, rank]. Fine-tuning with an adapter trains A, B and the prediction head (which a new
// task needs anyway); everything else stays at the base model's values.
//
// An adapter file ("adapter.safetensors") holds only the trainable tensors: the A and B matrices
// and the head, plus the target names and normalisation and the SHA-256 and configuration of the
// base model it was trained on. Loading checks both, then merges the update into the weights, so
// an adapted model runs exactly as fast as the base (int8 quantises the adapted weights).
#include <string>
#include <vector>

#include "common/status.h"
#include "model/checkpoint.h"

namespace gs::model {

struct LoraSpec {
  int rank = 8;
  double alpha = 8.0;  // update scale alpha / rank
  std::string base_sha256;  // of the base model's weights file ("" = unknown)
  std::string base_path;    // where the base was loaded from when training (a hint for loading)
  std::string base_config;  // the base model's configuration (JSON)

  std::string toJson() const;
  static Result<LoraSpec> fromJson(const JsonValue& json);
};

// Adds a fresh adapter (A from `seed`, B = 0) to every attention and feed-forward projection.
void addLora(GraphormerImpl& model, int rank, double alpha, uint64_t seed);
bool hasLora(GraphormerImpl& model);
void mergeLora(GraphormerImpl& model);
// Parameters an adapter trains and stores: "*.lora_A", "*.lora_B" and the head.
bool isAdapterParameter(const std::string& name);

Status saveAdapter(const std::string& path, GraphormerImpl& model, const ModelMetadata& metadata, const LoraSpec& spec);
// Applies the adapter at `path` to `base` (loaded from the weights file whose SHA-256 is
// `base_sha256`) and merges it; the metadata (targets, normalisation) becomes the adapter's.
// Errors name what does not match: another base model, another configuration, missing tensors.
Status applyAdapter(const std::string& path, LoadedModel& base, const std::string& base_sha256);
// The LoRA description in an adapter file's header (to find its base model).
Result<LoraSpec> readAdapterSpec(const std::string& path);

// What `predict --model M [--adapter A]` loads. M is a model (file or directory) or an adapter
// file; a directory with adapter.safetensors and no model weights is an adapter run. Without A the
// base is the one the adapter records (its path, checked against its SHA-256).
// The files loading M [with A] reads: the (base) weights, the config.json beside them if there is
// one, and the adapter. Resolving reads only the adapter's header, so commands can check their
// outputs against these files (common/output_guard.h) before loading anything.
struct ModelFiles {
  std::string weights;
  std::string config;   // "" when the weights have no config.json beside them
  std::string adapter;  // "" = no adapter
  std::vector<std::string> all() const;
};
Result<ModelFiles> resolveModelFiles(const std::string& model_path, const std::string& adapter_path = "");

struct ModelWithAdapter {
  LoadedModel model;
  ModelFiles files;
  std::string sha256;          // of the (base) weights file
  std::string adapter_path;    // "" = no adapter
  std::string adapter_sha256;
};
Result<ModelWithAdapter> loadModelWithAdapter(const std::string& model_path, const std::string& adapter_path = "");

}  // namespace gs::model
