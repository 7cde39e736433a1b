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

#include "bundle/lora_spec.h"
#include "common/status.h"
#include "model/checkpoint.h"

namespace gs::model {

using bundle::LoraSpec;

// Adds a fresh adapter (A from `seed`, B = 0) to every attention and feed-forward projection.
void addLora(GraphormerImpl& model, int rank, double alpha, uint64_t seed);
bool hasLora(GraphormerImpl& model);
void mergeLora(GraphormerImpl& model);
// Parameters an adapter trains and stores: "*.lora_A", "*.lora_B" and the head.
bool isAdapterParameter(const std::string& name);

Status saveAdapter(const std::string& path, GraphormerImpl& model, const bundle::ModelMetadata& metadata,
                   const LoraSpec& spec);
// Applies the adapter at `path` to `base` (loaded from the weights file whose SHA-256 is
// `base_sha256`) and merges it; the metadata (targets, normalisation) becomes the adapter's.
// Errors name what does not match: another base model, another configuration, missing tensors.
Status applyAdapter(const std::string& path, LoadedModel& base, const std::string& base_sha256);

}  // namespace gs::model
