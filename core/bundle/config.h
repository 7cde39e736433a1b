#pragma once
// Graphormer hyper-parameters, with the HuggingFace config.json field names, and the metadata a
// model carries about what it predicts. Presets follow microsoft/Graphormer's architectures.
#include <optional>
#include <string>
#include <vector>

#include "common/json_value.h"
#include "common/status.h"
#include "graph/convention.h"

namespace gs::bundle {

struct GraphormerConfig {
  int num_atoms = 512 * 9;  // embedding rows = num_atoms + 1 (row 0 = padding)
  int num_edges = 512 * 3;
  int num_in_degree = 512;
  int num_out_degree = 512;
  int num_spatial = 512;
  int num_edge_dis = 128;
  std::string edge_type = "multi_hop";  // or "single_hop"
  int max_nodes = 512;
  int spatial_pos_max = 1024;
  int multi_hop_max_dist = 5;
  int num_hidden_layers = 12;
  int embedding_dim = 768;
  int ffn_embedding_dim = 768;
  int num_attention_heads = 32;
  int num_classes = 1;
  bool encoder_normalize_before = true;  // layer norm on the embeddings
  bool pre_layernorm = false;            // pre-LN encoder layers (released checkpoints: post-LN)
  std::string activation_fn = "gelu";    // "gelu" (erf) or "relu"
  double dropout = 0.0;
  double attention_dropout = 0.1;
  double activation_dropout = 0.1;

  // Checks ranges and divisibility; the message names the offending field.
  Status validate() const;
  // "slim" (80 dims, 12 layers), "base" (768, 12), "large" (1024, 24).
  static Result<GraphormerConfig> preset(const std::string& name, int num_classes = 1);
  // Reads HuggingFace config.json fields; absent fields keep the values of `defaults`.
  static Result<GraphormerConfig> fromJson(const JsonValue& json, const GraphormerConfig& defaults);
  static Result<GraphormerConfig> fromJson(const JsonValue& json);
  std::string toJson() const;
  int64_t parameterCount() const;
};

// What the model's outputs mean and how its inputs were prepared. Stored with the weights
// (safetensors metadata) or in config.json next to them.
struct ModelMetadata {
  std::vector<std::string> target_names;  // one per output; empty = output_0, output_1, ...
  std::vector<std::string> target_units;
  std::optional<graph::Convention> convention;  // index convention the model was trained with
  std::optional<int> spatial_pos_max;           // collator masking used in training
  std::vector<double> target_mean;              // outputs are de-normalised: y = raw * std + mean
  std::vector<double> target_std;
  // Added to output j after de-normalisation: the median error of the trained model on its
  // validation fold (train and `calibrate --recenter`), so a model that runs high or low on held-out
  // molecules is re-centred. Empty = none; training a model again clears it.
  std::vector<double> output_offset;
  std::string description;
  // True when every target is the same for a molecule and its mirror image (a gap, logP, TPSA;
  // not an optical rotation or a binding affinity to a chiral pocket): predictions are then
  // averaged over both (engine/mirror_average.h). Absent = false, so checkpoints without it keep
  // their reference behaviour.
  std::optional<bool> mirror_invariant;

  bool mirrorInvariant() const { return mirror_invariant.value_or(false); }
  std::string outputName(int i) const;
  // Output j in target units: raw * target_std[j] + target_mean[j] + output_offset[j] (raw when not
  // normalised).
  // The one de-normalisation of predictions, explanations, comparisons and training reports.
  double denormalize(int j, double raw) const { return raw * outputScale(j) + outputShift(j); }
  double outputScale(int j) const { return j < static_cast<int>(target_std.size()) ? target_std[j] : 1.0; }
  double outputShift(int j) const {
    return (j < static_cast<int>(target_mean.size()) ? target_mean[j] : 0.0) +
           (j < static_cast<int>(output_offset.size()) ? output_offset[j] : 0.0);
  }
  static Result<ModelMetadata> fromJson(const JsonValue& json);
  // Merges fields present in `other` over this one.
  void overrideWith(const ModelMetadata& other);
  std::string toJson() const;
  Status validate(int num_outputs) const;
};

Result<JsonValue> readJsonFile(const std::string& path);

}  // namespace gs::bundle
