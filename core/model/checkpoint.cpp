#include "model/checkpoint.h"

#include <torch/torch.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "bundle/lora_spec.h"
#include "bundle/model_source.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "model/format/pickle_value.h"
#include "model/format/safetensors.h"
#include "model/format/torch_zip.h"
#include "model/lora.h"

namespace gs::model {
namespace fs = std::filesystem;
namespace {

constexpr const char* kConfigKey = "graphormer_config";
using bundle::kMetadataKey;
constexpr const char* kLoraKey = "graphormer_lora";

Status fail(const std::string& what) { return {StatusCode::InvalidArgument, what}; }

std::string siblingConfig(const std::string& weights) {
  return (fs::path(weights).parent_path() / bundle::kConfigFile).string();
}

// Applies config.json (if present) over `config`, and reads our metadata fields from it.
Status applyConfigJson(const std::string& weights, bundle::GraphormerConfig& config, bundle::ModelMetadata& metadata,
                       bool required) {
  const std::string path = siblingConfig(weights);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (required)
      return fail("no config.json next to '" + weights + "': HuggingFace checkpoints keep their configuration there");
    return Status::ok();
  }
  auto json = bundle::readJsonFile(path);
  if (!json.isOk()) return json.status();
  auto parsed = bundle::GraphormerConfig::fromJson(json.value(), config);
  if (!parsed.isOk()) return Status(parsed.status().code(), path + ": " + parsed.status().message());
  config = parsed.value();
  auto md = bundle::ModelMetadata::fromJson(json.value());
  if (!md.isOk()) return Status(md.status().code(), path + ": " + md.status().message());
  metadata.overrideWith(md.value());
  return Status::ok();
}

// Parses the JSON stored under `key` in a safetensors header with T::fromJson; *found says
// whether the key was there.
template <typename T>
Status readEmbedded(const std::string& path, const StringMap& header, const char* key, T& out, bool* found) {
  auto it = header.find(key);
  *found = it != header.end();
  if (!*found) return Status::ok();
  auto json = JsonValue::parse(it->second);
  if (!json.isOk()) return fail(path + ": embedded " + key + ": " + json.status().message());
  auto parsed = T::fromJson(json.value());
  if (!parsed.isOk()) return Status(parsed.status().code(), path + ": " + parsed.status().message());
  out = parsed.value();
  return Status::ok();
}

Status fromSafetensors(const std::string& path, Checkpoint& ck) {
  auto file = readSafetensors(path);
  if (!file.isOk()) return file.status();
  ck.format = "safetensors";
  ck.tensors = std::move(file->tensors);
  bool has_config = false, has_metadata = false;
  if (Status s = readEmbedded(path, file->metadata, kConfigKey, ck.config, &has_config); !s.isOk()) return s;
  if (Status s = readEmbedded(path, file->metadata, kMetadataKey, ck.metadata, &has_metadata); !s.isOk()) return s;
  if (auto it = file->metadata.find(kLoraKey); it != file->metadata.end()) {
    auto json = JsonValue::parse(it->second);
    auto spec = json.isOk() ? bundle::LoraSpec::fromJson(json.value()) : Result<bundle::LoraSpec>(json.status());
    if (!spec.isOk()) return fail(path + ": embedded " + kLoraKey + ": " + spec.status().message());
    ck.lora_rank = spec->rank;
    ck.lora_alpha = spec->alpha;
  }
  return applyConfigJson(path, ck.config, ck.metadata, /*required=*/!has_config);
}

Status stateDictTensors(const PyRef& dict, const std::string& path, TensorList& out) {
  if (!dict || dict->kind != PyValue::Kind::Dict) return fail("'" + path + "' does not hold a state dict");
  for (const auto& [k, v] : dict->pairs) {
    if (!k->isString()) return fail("'" + path + "': state dict key is a " + std::string(k->kindName()));
    if (v->kind != PyValue::Kind::Tensor)
      return fail("'" + path + "': entry '" + k->text + "' is a " + v->kindName() + ", not a tensor");
    out.emplace_back(k->text, v->tensor);
  }
  return Status::ok();
}

// fairseq's argparse.Namespace -> config.json field names, over the architecture's defaults.
Result<bundle::GraphormerConfig> fairseqConfig(const PyRef& args, const std::string& path) {
  if (!args || args->kind != PyValue::Kind::Object)
    return fail("'" + path +
                "': fairseq checkpoint without 'args' (newer omegaconf 'cfg' layout): put a config.json beside it");
  static const std::pair<const char*, const char*> kRename[] = {{"encoder_layers", "num_hidden_layers"},
                                                                {"encoder_embed_dim", "embedding_dim"},
                                                                {"encoder_ffn_embed_dim", "ffn_embedding_dim"},
                                                                {"encoder_attention_heads", "num_attention_heads"},
                                                                {"act_dropout", "activation_dropout"}};
  std::ostringstream text;
  JsonWriter w(text);
  w.beginObject();
  std::string arch = "graphormer_base";
  for (const auto& [k, v] : args->pairs) {
    if (!k->isString()) continue;
    std::string key = k->text;
    for (const auto& [from, to] : kRename)
      if (key == from) key = to;
    if (key == "arch" && v->isString()) arch = v->text;
    if (v->kind == PyValue::Kind::Int)
      w.field(key, v->integer);
    else if (v->kind == PyValue::Kind::Bool)
      w.field(key, v->boolean);
    else if (v->kind == PyValue::Kind::Float)
      w.field(key, v->real);
    else if (v->isString())
      w.field(key, std::string_view(v->text));
  }
  w.endObject();
  bundle::GraphormerConfig defaults;
  if (arch == "graphormer") {  // fairseq base_architecture
    defaults.embedding_dim = 1024;
    defaults.num_hidden_layers = 6;
    defaults.num_attention_heads = 8;
    defaults.ffn_embedding_dim = 4096;
  } else {
    const std::string preset = arch.rfind("graphormer_", 0) == 0 ? arch.substr(11) : "base";
    auto p = bundle::GraphormerConfig::preset(preset);
    if (p.isOk()) defaults = p.value();
  }
  defaults.dropout = 0.1;
  auto json = JsonValue::parse(text.str());
  if (!json.isOk()) return json.status();
  return bundle::GraphormerConfig::fromJson(json.value(), defaults);
}

Status fromTorchZip(const std::string& path, Checkpoint& ck) {
  auto root = readTorchZip(path);
  if (!root.isOk()) return root.status();
  const PyRef& r = root.value();
  const PyRef model = r->kind == PyValue::Kind::Dict ? r->get("model") : nullptr;
  if (!model || model->kind != PyValue::Kind::Dict) {
    ck.format = "pytorch";
    PyRef dict = r->kind == PyValue::Kind::Dict && r->get("state_dict") ? r->get("state_dict") : r;
    if (Status s = stateDictTensors(dict, path, ck.tensors); !s.isOk()) return s;
    return applyConfigJson(path, ck.config, ck.metadata, /*required=*/true);
  }
  ck.format = "fairseq";
  TensorList raw;
  if (Status s = stateDictTensors(model, path, raw); !s.isOk()) return s;
  int dropped = 0;
  int64_t classes = 0;
  for (auto& [key, tensor] : raw) {
    std::string hf;
    if (!mapFairseqKey(key, &hf)) {
      ++dropped;
      continue;
    }
    if (hf == "classifier.classifier.weight" && tensor.dim() == 2) classes = tensor.size(0);
    ck.tensors.emplace_back(hf, tensor);
  }
  if (dropped)
    ck.notes.push_back("dropped " + std::to_string(dropped) + " fairseq-only weights (encoder.masked_lm_pooler.*)");
  auto config = fairseqConfig(r->get("args"), path);
  if (!config.isOk()) {
    // Without usable args a config.json must say everything.
    if (Status s = applyConfigJson(path, ck.config, ck.metadata, true); !s.isOk()) return config.status();
  } else {
    ck.config = config.value();
    PyRef args = r->get("args");
    if (classes > 0 && !(args && args->get("num_classes"))) ck.config.num_classes = static_cast<int>(classes);
    if (Status s = applyConfigJson(path, ck.config, ck.metadata, false); !s.isOk()) return s;
  }
  // Released fairseq checkpoints were trained with the official preprocessing.
  if (!ck.metadata.convention) ck.metadata.convention = graph::Convention::Official;
  return Status::ok();
}

}  // namespace

bool mapFairseqKey(const std::string& fairseq, std::string* hf) {
  if (fairseq.rfind("encoder.masked_lm_pooler.", 0) == 0) return false;
  if (fairseq == "encoder.embed_out.weight")
    *hf = "classifier.classifier.weight";
  else if (fairseq == "encoder.lm_output_learned_bias")
    *hf = "classifier.lm_output_learned_bias";
  else
    *hf = fairseq;
  return true;
}

Result<Checkpoint> readCheckpoint(const std::string& path) {
  auto weights = bundle::resolveWeightsFile(path);
  if (!weights.isOk()) return weights.status();
  Checkpoint ck;
  ck.weights_path = weights.value();
  const Status s = endsWith(ck.weights_path, ".safetensors") ? fromSafetensors(ck.weights_path, ck)
                                                             : fromTorchZip(ck.weights_path, ck);
  if (!s.isOk()) return s;
  if (Status v = ck.metadata.validate(ck.config.num_classes); !v.isOk()) return v;
  return ck;
}

Status loadStateDict(GraphormerImpl& model, const TensorList& tensors) {
  std::map<std::string, const torch::Tensor*> given;
  for (const auto& [name, t] : tensors) given[name] = &t;
  const auto params = model.named_parameters(/*recurse=*/true);
  std::vector<std::string> missing, unexpected;
  for (const auto& p : params)
    if (!given.count(p.key())) missing.push_back(p.key());
  for (const auto& [name, t] : given)
    if (!params.contains(name)) unexpected.push_back(name);
  auto list = [](const std::vector<std::string>& keys) {
    std::string s;
    for (size_t i = 0; i < keys.size() && i < 5; ++i) s += (i ? ", '" : "'") + keys[i] + "'";
    return keys.size() > 5 ? s + ", ..." : s;
  };
  if (!missing.empty())
    return fail("checkpoint lacks " + std::to_string(missing.size()) + " weight(s) the model needs: " + list(missing) +
                " (does the config match the checkpoint?)");
  if (!unexpected.empty())
    return fail("checkpoint has " + std::to_string(unexpected.size()) +
                " weight(s) the model does not use: " + list(unexpected) + " (does the config match the checkpoint?)");
  torch::NoGradGuard no_grad;
  for (const auto& p : params) {
    const torch::Tensor& src = *given[p.key()];
    if (!at::isFloatingType(src.scalar_type()))
      return fail("weight '" + p.key() + "' is stored as " + std::string(c10::toString(src.scalar_type())) +
                  "; a floating-point type is needed");
    if (src.sizes() != p.value().sizes())
      return fail("weight '" + p.key() + "' has shape " + shapeString(src.sizes()) +
                  " in the checkpoint but the config needs " + shapeString(p.value().sizes()));
    if (!torch::isfinite(src).all().item<bool>())
      return fail("weight '" + p.key() + "' contains NaN or infinite values");
    p.value().copy_(src);
  }
  return Status::ok();
}

Result<LoadedModel> loadModel(const std::string& path) {
  auto ck = readCheckpoint(path);
  if (!ck.isOk()) return ck.status();
  LoadedModel m;
  m.config = ck->config;
  m.metadata = ck->metadata;
  m.weights_path = ck->weights_path;
  m.format = ck->format;
  m.notes = ck->notes;
  try {
    m.model = Graphormer(m.config);
  } catch (const std::exception& e) {
    return Status(StatusCode::Internal, std::string("cannot build the model: ") + e.what());
  }
  if (ck->lora_rank > 0) addLora(*m.model, ck->lora_rank, ck->lora_alpha, 0);
  if (Status s = loadStateDict(*m.model, ck->tensors); !s.isOk())
    return Status(s.code(), "'" + m.weights_path + "': " + s.message());
  if (ck->lora_rank > 0) {
    mergeLora(*m.model);
    m.notes.push_back("LoRA adapter (rank " + std::to_string(ck->lora_rank) + ") merged into the weights");
  }
  m.model->eval();
  return m;
}

Status saveModel(const std::string& path, GraphormerImpl& model, const bundle::ModelMetadata& metadata) {
  TensorList tensors;
  for (const auto& p : model.named_parameters(true))
    tensors.emplace_back(p.key(), p.value().detach().to(torch::kFloat));
  StringMap header{{"format", "pt"}, {kConfigKey, model.config().toJson()}, {kMetadataKey, metadata.toJson()}};
  for (auto& linear : model.linears()) {
    if (!linear->hasLora()) continue;
    bundle::LoraSpec spec;
    spec.rank = static_cast<int>(linear->lora_A.size(0));
    spec.alpha = linear->loraScale() * spec.rank;
    header[kLoraKey] = spec.toJson();
    break;
  }
  return writeSafetensors(path, tensors, header);
}

}  // namespace gs::model
