#pragma once
// Loading and saving Graphormer checkpoints.
//   model.safetensors  (HF names; our own files also carry the config and metadata in the header)
//   pytorch_model.bin  (torch.save(model.state_dict()), HF names, config.json beside it)
//   fairseq .pt        (microsoft/Graphormer: {"args": Namespace, "model": state_dict, ...})
// A path may be a file or a directory holding one of them. A config.json beside the weights
// overrides the configuration embedded in them. Loading is strict: every missing, unexpected,
// mis-shaped, non-float or non-finite weight is an error that names the key.
#include <string>
#include <vector>

#include "bundle/config.h"
#include "bundle/model_source.h"
#include "common/status.h"
#include "model/graphormer.h"
#include "model/tensor_map.h"

namespace gs::model {

struct Checkpoint {
  std::string weights_path;  // the file actually read
  std::string format;        // "safetensors", "pytorch" or "fairseq"
  bundle::GraphormerConfig config;
  bundle::ModelMetadata metadata;
  TensorList tensors;              // HuggingFace names
  std::vector<std::string> notes;  // e.g. which fairseq-only weights were dropped
  // Training checkpoints of a LoRA run keep the unmerged adapter (rank, alpha from the header).
  int lora_rank = 0;
  double lora_alpha = 0;
};

struct LoadedModel {
  Graphormer model{nullptr};
  bundle::GraphormerConfig config;
  bundle::ModelMetadata metadata;
  std::string weights_path;
  std::string format;
  std::vector<std::string> notes;
  // Filled by openModel (model/loader.h): where the model came from and the files' SHA-256.
  bundle::ResolvedModel source;
  std::string sha256;          // of the (base) weights file
  std::string adapter_sha256;  // of source.adapter, when there is one
};

// A path may be a directory: its weights file is found as bundle::resolveWeightsFile does.
Result<Checkpoint> readCheckpoint(const std::string& path);
// Copies `tensors` into the model's parameters, checking names, shapes, dtypes and values.
Status loadStateDict(GraphormerImpl& model, const TensorList& tensors);
Result<LoadedModel> loadModel(const std::string& path);
// Writes model.safetensors with the config and metadata in its header (atomic). A model with an
// unmerged LoRA adapter is written with it (and its rank and alpha); loadModel merges it.
Status saveModel(const std::string& path, GraphormerImpl& model, const bundle::ModelMetadata& metadata);

// Maps fairseq key names to HuggingFace ones; returns false for keys HF has no use for.
bool mapFairseqKey(const std::string& fairseq, std::string* hf);

}  // namespace gs::model
