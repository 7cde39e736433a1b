#include "model/lora.h"

#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "common/json_value.h"
#include "common/sha256.h"
#include "common/json_writer.h"
#include "model/safetensors.h"

namespace gs::model {
namespace {

constexpr const char* kAdapterKey = "graphormer_adapter";
constexpr const char* kMetadataKey = "graphormer_metadata";

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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

std::string LoraSpec::toJson() const {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject().field("rank", rank).field("alpha", alpha).field("base_sha256", base_sha256).field("base_path", base_path)
      .field("base_config", base_config).endObject();
  return out.str();
}

Result<LoraSpec> LoraSpec::fromJson(const JsonValue& json) {
  LoraSpec s;
  const auto* rank = json.find("rank");
  const auto* alpha = json.find("alpha");
  if (!rank || !rank->isInteger() || rank->asInteger() <= 0 || !alpha || !alpha->isNumber())
    return fail("adapter description needs a positive integer 'rank' and a number 'alpha'");
  s.rank = static_cast<int>(rank->asInteger());
  s.alpha = alpha->asNumber();
  if (const auto* sha = json.find("base_sha256"); sha && sha->isString()) s.base_sha256 = sha->asString();
  if (const auto* bp = json.find("base_path"); bp && bp->isString()) s.base_path = bp->asString();
  if (const auto* cfg = json.find("base_config"); cfg && cfg->isString()) s.base_config = cfg->asString();
  return s;
}

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
  return endsWith(name, ".lora_A") || endsWith(name, ".lora_B") || startsWith(name, "encoder.lm_head_transform_weight.") ||
         startsWith(name, "encoder.layer_norm.") || startsWith(name, "classifier.");
}

Status saveAdapter(const std::string& path, GraphormerImpl& model, const ModelMetadata& metadata, const LoraSpec& spec) {
  if (!hasLora(model)) return fail("the model has no LoRA adapter to save");
  TensorList tensors;
  for (const auto& p : model.named_parameters(true))
    if (isAdapterParameter(p.key())) tensors.emplace_back(p.key(), p.value().detach().to(torch::kFloat));
  StringMap header{{"format", "pt"}, {kAdapterKey, spec.toJson()}, {kMetadataKey, metadata.toJson()}};
  return writeSafetensors(path, tensors, header);
}

namespace {

// The adapter description in a safetensors header.
Result<LoraSpec> specOf(const std::string& path, const StringMap& header) {
  auto it = header.find(kAdapterKey);
  if (it == header.end()) return fail("'" + path + "' is not a LoRA adapter file (no " + kAdapterKey + " in its header)");
  auto json = JsonValue::parse(it->second);
  if (!json.isOk()) return fail(path + ": " + json.status().message());
  auto spec = LoraSpec::fromJson(json.value());
  if (!spec.isOk()) return Status(spec.status().code(), path + ": " + spec.status().message());
  return spec;
}

}  // namespace

Result<LoraSpec> readAdapterSpec(const std::string& path) {
  auto file = readSafetensors(path);
  if (!file.isOk()) return file.status();
  return specOf(path, file->metadata);
}

Status applyAdapter(const std::string& path, LoadedModel& base, const std::string& base_sha256) {
  auto file = readSafetensors(path);
  if (!file.isOk()) return file.status();
  auto spec = specOf(path, file->metadata);
  if (!spec.isOk()) return spec.status();
  if (!spec->base_sha256.empty() && !base_sha256.empty() && spec->base_sha256 != base_sha256)
    return fail("adapter '" + path + "' was trained on the base model with SHA-256 " + spec->base_sha256 + ", not on '" +
                base.weights_path + "' (" + base_sha256 + ")");
  if (!spec->base_config.empty() && spec->base_config != base.config.toJson())
    return fail("adapter '" + path + "' was trained on a base model with another configuration than '" + base.weights_path + "'");
  auto md_it = file->metadata.find(kMetadataKey);
  ModelMetadata metadata = base.metadata;
  if (md_it != file->metadata.end()) {
    auto md_json = JsonValue::parse(md_it->second);
    if (!md_json.isOk()) return fail(path + ": " + md_json.status().message());
    auto md = ModelMetadata::fromJson(md_json.value());
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
  if (Status s = metadata.validate(base.config.num_classes); !s.isOk()) return Status(s.code(), path + ": " + s.message());
  base.metadata = metadata;
  base.notes.push_back("LoRA adapter " + path + " (rank " + std::to_string(spec->rank) + ") merged");
  return Status::ok();
}

std::vector<std::string> ModelFiles::all() const {
  std::vector<std::string> out{weights};
  if (!config.empty()) out.push_back(config);
  if (!adapter.empty()) out.push_back(adapter);
  return out;
}

Result<ModelFiles> resolveModelFiles(const std::string& model_path, const std::string& adapter_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string base = model_path;
  ModelFiles files;
  files.adapter = adapter_path;
  if (files.adapter.empty()) {
    const fs::path dir(model_path);
    if (fs::is_directory(dir, ec) && fs::exists(dir / "adapter.safetensors", ec) && !fs::exists(dir / "model.safetensors", ec) &&
        !fs::exists(dir / "pytorch_model.bin", ec))
      files.adapter = (dir / "adapter.safetensors").string();
    else if (endsWith(model_path, ".safetensors") && readAdapterSpec(model_path).isOk())
      files.adapter = model_path;
    if (!files.adapter.empty()) {
      auto spec = readAdapterSpec(files.adapter);
      if (!spec.isOk()) return spec.status();
      if (spec->base_path.empty() || !fs::exists(spec->base_path, ec))
        return fail("'" + files.adapter + "' is a LoRA adapter whose base model " +
                    (spec->base_path.empty() ? std::string("is not recorded") : "'" + spec->base_path + "' is not there") +
                    "; give the base with --model and the adapter with --adapter");
      base = spec->base_path;
    }
  }
  auto weights = resolveWeightsFile(base);
  if (!weights.isOk()) return weights.status();
  files.weights = weights.value();
  const fs::path config = fs::path(files.weights).parent_path() / "config.json";
  if (fs::exists(config, ec)) files.config = config.string();
  return files;
}

Result<ModelWithAdapter> loadModelWithAdapter(const std::string& model_path, const std::string& adapter_path) {
  auto files = resolveModelFiles(model_path, adapter_path);
  if (!files.isOk()) return files.status();
  auto sha = sha256File(files->weights);
  if (!sha.isOk()) return sha.status();
  auto loaded = loadModel(files->weights);
  if (!loaded.isOk()) return loaded.status();
  ModelWithAdapter out;
  out.model = std::move(loaded.value());
  out.files = files.value();
  out.sha256 = sha.value();
  if (!files->adapter.empty()) {
    if (Status s = applyAdapter(files->adapter, out.model, out.sha256); !s.isOk()) return s;
    auto asha = sha256File(files->adapter);
    if (!asha.isOk()) return asha.status();
    out.adapter_path = files->adapter;
    out.adapter_sha256 = asha.value();
  }
  return out;
}

}  // namespace gs::model
