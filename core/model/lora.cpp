#include "model/lora.h"

#include <torch/torch.h>

#include <map>
#include <sstream>

#include "common/json_value.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "model/format/safetensors.h"

namespace gs::model {
namespace {

using bundle::kAdapterKey;
using bundle::kMetadataKey;

std::vector<LinearImpl*> adaptedLinears(GraphormerImpl& model) {
  std::vector<LinearImpl*> out;
  for (const auto& m : *model.encoder->graph_encoder->layers) {
    auto& layer = *m->as<EncoderLayerImpl>();
    for (auto* lin : {layer.self_attn->q_proj.get(), layer.self_attn->k_proj.get(), layer.self_attn->v_proj.get(),
                      layer.self_attn->out_proj.get(), layer.fc1.get(), layer.fc2.get()})
      out.push_back(lin);
  }
  return out;
}

Status fail(const std::string& what) { return {StatusCode::InvalidArgument, what}; }

}  // namespace

void addLora(GraphormerImpl& model, int rank, double alpha, uint64_t seed) {
  auto generator = at::detail::createCPUGenerator(seed);
  for (auto* lin : adaptedLinears(model)) lin->addLora(rank, alpha, generator);
}

bool hasLora(GraphormerImpl& model) {
  for (auto* lin : adaptedLinears(model))
    if (lin->hasLora()) return true;
  return false;
}

void mergeLora(GraphormerImpl& model) {
  for (auto* lin : adaptedLinears(model)) lin->mergeLora();
}

bool isAdapterParameter(const std::string& name) {
  return endsWith(name, ".lora_A") || endsWith(name, ".lora_B") ||
         startsWith(name, "encoder.lm_head_transform_weight.") || startsWith(name, "encoder.layer_norm.") ||
         startsWith(name, "classifier.");
}

Status saveAdapter(const std::string& path, GraphormerImpl& model, const bundle::ModelMetadata& metadata,
                   const LoraSpec& spec) {
  if (!hasLora(model)) return fail("the model has no LoRA adapter to save");
  TensorList tensors;
  for (const auto& p : model.named_parameters(true))
    if (isAdapterParameter(p.key())) tensors.emplace_back(p.key(), p.value().detach().to(torch::kFloat));
  StringMap header{{"format", "pt"}, {kAdapterKey, spec.toJson()}, {kMetadataKey, metadata.toJson()}};
  return writeSafetensors(path, tensors, header);
}

Status applyAdapter(const std::string& path, LoadedModel& base, const std::string& base_sha256) {
  auto file = readSafetensors(path);
  if (!file.isOk()) return file.status();
  auto spec = bundle::adapterSpecFromHeader(path, file->metadata);
  if (!spec.isOk()) return spec.status();
  if (!spec->base_sha256.empty() && !base_sha256.empty() && spec->base_sha256 != base_sha256)
    return fail("adapter '" + path + "' was trained on the base model with SHA-256 " + spec->base_sha256 +
                ", not on '" + base.weights_path + "' (" + base_sha256 + ")");
  if (!spec->base_config.empty() && spec->base_config != base.config.toJson())
    return fail("adapter '" + path + "' was trained on a base model with another configuration than '" +
                base.weights_path + "'");
  auto md_it = file->metadata.find(kMetadataKey);
  bundle::ModelMetadata metadata = base.metadata;
  if (md_it != file->metadata.end()) {
    auto md_json = JsonValue::parse(md_it->second);
    if (!md_json.isOk()) return fail(path + ": " + md_json.status().message());
    auto md = bundle::ModelMetadata::fromJson(md_json.value());
    if (!md.isOk()) return Status(md.status().code(), path + ": " + md.status().message());
    metadata.overrideWith(md.value());
  }
  auto& model = *base.model;
  mergeLora(model);
  addLora(model, spec->rank, spec->alpha, 0);
  // The adapter's tensors replace the matching parameters; every adapter parameter must be there.
  std::map<std::string, const torch::Tensor*> given;
  for (const auto& [name, t] : file->tensors) given[name] = &t;
  const auto params = model.named_parameters(true);
  TensorList full;
  for (const auto& p : params) {
    auto g = given.find(p.key());
    if (isAdapterParameter(p.key())) {
      if (g == given.end()) {
        mergeLora(model);
        return fail("adapter '" + path + "' lacks '" + p.key() + "'");
      }
      full.emplace_back(p.key(), *g->second);
      given.erase(g);
    } else {
      full.emplace_back(p.key(), p.value());
    }
  }
  if (!given.empty()) {
    mergeLora(model);
    return fail("adapter '" + path + "' has tensor '" + given.begin()->first + "' that this model does not use");
  }
  Status loaded = loadStateDict(model, full);
  mergeLora(model);
  if (!loaded.isOk()) return Status(loaded.code(), "'" + path + "': " + loaded.message());
  if (Status s = metadata.validate(base.config.num_classes); !s.isOk())
    return Status(s.code(), path + ": " + s.message());
  base.metadata = metadata;
  base.notes.push_back("LoRA adapter " + path + " (rank " + std::to_string(spec->rank) + ") merged");
  return Status::ok();
}

}  // namespace gs::model
