#include "model/loader.h"

#include "common/sha256.h"
#include "model/lora.h"

namespace gs::model {

Result<LoadedModel> openModel(const bundle::ModelSource& source) {
  auto resolved = bundle::resolveModel(source);
  if (!resolved.isOk()) return resolved.status();
  return openModel(resolved.value());
}

std::string modelLabel(const LoadedModel& model) {
  return model.weights_path + (model.source.adapter.empty() ? "" : " + " + model.source.adapter);
}

Result<LoadedModel> openModel(const bundle::ResolvedModel& resolved) {
  auto sha = sha256File(resolved.weights);
  if (!sha.isOk()) return sha.status();
  auto loaded = loadModel(resolved.weights);
  if (!loaded.isOk()) return loaded.status();
  LoadedModel m = std::move(loaded.value());
  m.source = resolved;
  m.sha256 = sha.value();
  if (!resolved.adapter.empty()) {
    if (Status s = applyAdapter(resolved.adapter, m, m.sha256); !s.isOk()) return s;
    auto asha = sha256File(resolved.adapter);
    if (!asha.isOk()) return asha.status();
    m.adapter_sha256 = asha.value();
  }
  return m;
}

Result<std::string> saveBundle(const std::string& dir, GraphormerImpl& model, const bundle::ModelMetadata& metadata,
                               const bundle::LoraSpec* adapter) {
  const std::string path = dir + "/" + (adapter ? bundle::kAdapterFile : bundle::kWeightsFile);
  const Status s = adapter ? saveAdapter(path, model, metadata, *adapter) : saveModel(path, model, metadata);
  if (!s.isOk()) return s;
  return path;
}

}  // namespace gs::model
