#pragma once
// What "a model" means to every command and the app, in one place and without LibTorch.
//
// A ModelSource is what the user names: a path (a model directory, a weights file, a LoRA adapter
// file or a training run's directory holding only an adapter; the name of a bundled model such as
// "fast" (common/resources.h) when no file of that name exists; "" = the bundled default model) and
// optionally an adapter to apply on top. resolveModel turns it into the files loading reads:
//   - a directory: model.safetensors, else pytorch_model.bin, else its single .pt/.pth/.safetensors;
//   - a directory with adapter.safetensors and no model weights, or an adapter file given as the
//     model: the adapter, on the base model its header records (base_path);
//   - config.json beside the weights, when present (it overrides the embedded configuration).
// Resolving reads at most an adapter's header; it never loads weights.
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::bundle {

// File names inside a model directory (what train writes and resolveModel reads).
inline constexpr const char* kWeightsFile = "model.safetensors";
inline constexpr const char* kAdapterFile = "adapter.safetensors";
inline constexpr const char* kConfigFile = "config.json";

struct ModelSource {
  std::string path;     // "" = the bundled default model
  std::string adapter;  // "" = none, or found from `path` as described above
  bool operator==(const ModelSource& o) const { return path == o.path && adapter == o.adapter; }
  bool operator!=(const ModelSource& o) const { return !(*this == o); }
};

struct ResolvedModel {
  std::string weights;  // the (base) weights file
  std::string config;   // config.json beside the weights; "" when there is none
  std::string adapter;  // "" = no adapter
  bool bundled_default = false;
  // Every file loading reads: weights, config.json (if any), adapter (if any).
  std::vector<std::string> files() const;
};

Result<ResolvedModel> resolveModel(const ModelSource& source);

// The weights file of a directory (see above), or `path` itself when it is a file.
Result<std::string> resolveWeightsFile(const std::string& path);

}  // namespace gs::bundle
