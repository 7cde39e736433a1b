#include "bundle/model_source.h"

#include <filesystem>
#include <optional>
#include <utility>

#include "bundle/lora_spec.h"
#include "common/resources.h"
#include "common/text.h"

namespace gs::bundle {
namespace {

namespace fs = std::filesystem;

// The adapter `path` stands for on its own, with its description: a run directory holding only
// adapter.safetensors, or an adapter file. nullopt when `path` is a model.
std::optional<std::pair<std::string, Result<LoraSpec>>> adapterOf(const std::string& path) {
  std::error_code ec;
  const fs::path dir(path);
  if (fs::is_directory(dir, ec)) {
    if (!fs::exists(dir / kAdapterFile, ec) || fs::exists(dir / kWeightsFile, ec) ||
        fs::exists(dir / "pytorch_model.bin", ec))
      return std::nullopt;
    const std::string adapter = (dir / kAdapterFile).string();
    return std::make_pair(adapter, readAdapterSpec(adapter));
  }
  if (!endsWith(path, ".safetensors")) return std::nullopt;
  auto spec = readAdapterSpec(path);  // a .safetensors file that is no adapter is a model
  if (!spec.isOk()) return std::nullopt;
  return std::make_pair(path, std::move(spec));
}

// The base model an adapter records.
Result<std::string> baseOf(const std::string& adapter, const Result<LoraSpec>& spec) {
  if (!spec.isOk()) return spec.status();
  std::error_code ec;
  if (spec->base_path.empty() || !fs::exists(spec->base_path, ec))
    return Status(
        StatusCode::InvalidArgument,
        "'" + adapter + "' is a LoRA adapter whose base model " +
            (spec->base_path.empty() ? std::string("is not recorded") : "'" + spec->base_path + "' is not there") +
            "; give the base with --model and the adapter with --adapter");
  return spec->base_path;
}

}  // namespace

std::vector<std::string> ResolvedModel::files() const {
  std::vector<std::string> out{weights};
  if (!config.empty()) out.push_back(config);
  if (!adapter.empty()) out.push_back(adapter);
  return out;
}

Result<std::string> resolveWeightsFile(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status(StatusCode::IoError, "model path '" + path + "' does not exist");
  if (!fs::is_directory(path, ec)) return path;
  for (const char* name : {kWeightsFile, "pytorch_model.bin"}) {
    const auto candidate = fs::path(path) / name;
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  std::vector<std::string> others;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string p = entry.path().string();
    if (endsWith(p, ".pt") || endsWith(p, ".pth") || endsWith(p, ".safetensors")) others.push_back(p);
  }
  if (others.size() == 1) return others.front();
  if (others.empty())
    return Status(
        StatusCode::IoError,
        "directory '" + path + "' holds no checkpoint (model.safetensors, pytorch_model.bin or a fairseq .pt)");
  return Status(StatusCode::InvalidArgument, "directory '" + path + "' holds several checkpoints; name the file");
}

namespace {
std::string bundledNames() {
  std::string names;
  for (const auto& m : bundledModels()) names += (names.empty() ? "" : ", ") + m.name;
  return names.empty() ? "none installed" : names;
}
}  // namespace

Result<ResolvedModel> resolveModel(const ModelSource& source) {
  ResolvedModel r;
  std::string base = source.path;
  if (base.empty()) {
    base = defaultModelPath();
    r.bundled_default = true;
    if (base.empty()) return Status(StatusCode::IoError, "no model given and the bundled default model was not found");
  }
  std::error_code ec;
  if (!r.bundled_default && !fs::exists(base, ec)) {
    const std::string named = bundledModelPath(base);  // "--model fast"
    if (named.empty())
      return Status(StatusCode::IoError, "model path '" + base + "' does not exist, and no bundled model has that name (" +
                                             bundledNames() + ")");
    base = named;
  }
  r.adapter = source.adapter;
  if (r.adapter.empty()) {
    if (auto found = adapterOf(base)) {  // the model named is itself an adapter
      auto b = baseOf(found->first, found->second);
      if (!b.isOk()) return b.status();
      r.adapter = found->first;
      base = b.value();
    }
  }
  auto weights = resolveWeightsFile(base);
  if (!weights.isOk()) return weights.status();
  r.weights = weights.value();
  const fs::path config = fs::path(r.weights).parent_path() / kConfigFile;
  if (fs::exists(config, ec)) r.config = config.string();
  return r;
}

}  // namespace gs::bundle
