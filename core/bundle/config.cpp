#include "bundle/config.h"

#include <fstream>
#include <sstream>

#include "common/json_writer.h"

namespace gs::bundle {
namespace {

Status bad(const std::string& field, const std::string& why) {
  return {StatusCode::InvalidArgument, "model config: '" + field + "' " + why};
}

Status readInt(const JsonValue& json, const char* key, int& out) {
  const JsonValue* v = json.find(key);
  if (!v || v->isNull()) return Status::ok();
  if (!v->isInteger() || v->asInteger() < 0 || v->asInteger() > (1LL << 30))
    return bad(key, "must be a non-negative integer");
  out = static_cast<int>(v->asInteger());
  return Status::ok();
}

Status readBool(const JsonValue& json, const char* key, bool& out) {
  const JsonValue* v = json.find(key);
  if (!v || v->isNull()) return Status::ok();
  if (!v->isBool()) return bad(key, "must be true or false");
  out = v->asBool();
  return Status::ok();
}

Status readDouble(const JsonValue& json, const char* key, double& out) {
  const JsonValue* v = json.find(key);
  if (!v || v->isNull()) return Status::ok();
  if (!v->isNumber()) return bad(key, "must be a number");
  out = v->asNumber();
  return Status::ok();
}

Status readString(const JsonValue& json, const char* key, std::string& out) {
  const JsonValue* v = json.find(key);
  if (!v || v->isNull()) return Status::ok();
  if (!v->isString()) return bad(key, "must be a string");
  out = v->asString();
  return Status::ok();
}

template <typename T, typename Read>
Status readList(const JsonValue& json, const char* key, std::vector<T>& out, Read read) {
  const JsonValue* v = json.find(key);
  if (!v || v->isNull()) return Status::ok();
  if (!v->isArray()) return bad(key, "must be a list");
  out.clear();
  for (const JsonValue& item : v->items()) {
    if (!read(item, out)) return bad(key, "has an element of the wrong type");
  }
  return Status::ok();
}

}  // namespace

Status GraphormerConfig::validate() const {
  if (num_hidden_layers < 1) return bad("num_hidden_layers", "must be at least 1");
  if (embedding_dim < 1 || num_attention_heads < 1)
    return bad("embedding_dim", "and num_attention_heads must be positive");
  if (embedding_dim % num_attention_heads != 0)
    return bad("embedding_dim", "(" + std::to_string(embedding_dim) + ") must be divisible by num_attention_heads (" +
                                    std::to_string(num_attention_heads) + ")");
  if (ffn_embedding_dim < 1) return bad("ffn_embedding_dim", "must be positive");
  if (num_classes < 1) return bad("num_classes", "must be at least 1");
  if (num_atoms < 1 || num_edges < 1 || num_in_degree < 1 || num_out_degree < 1 || num_spatial < 1 || num_edge_dis < 1)
    return bad("num_atoms", "and the other vocabulary sizes must be positive");
  if (edge_type != "multi_hop" && edge_type != "single_hop")
    return bad("edge_type", "must be 'multi_hop' or 'single_hop'");
  if (edge_type == "multi_hop" && (multi_hop_max_dist < 1 || multi_hop_max_dist > num_edge_dis))
    return bad("multi_hop_max_dist", "must be between 1 and num_edge_dis");
  if (activation_fn != "gelu" && activation_fn != "relu") return bad("activation_fn", "must be 'gelu' or 'relu'");
  if (spatial_pos_max < 1) return bad("spatial_pos_max", "must be positive");
  return Status::ok();
}

Result<GraphormerConfig> GraphormerConfig::preset(const std::string& name, int num_classes) {
  GraphormerConfig c;
  c.num_classes = num_classes;
  if (name == "slim") {
    c.embedding_dim = 80;
    c.ffn_embedding_dim = 80;
    c.num_attention_heads = 8;
  } else if (name == "base") {
    // defaults are the base architecture
  } else if (name == "large") {
    c.num_hidden_layers = 24;
    c.embedding_dim = 1024;
    c.ffn_embedding_dim = 1024;
  } else {
    return Status(StatusCode::InvalidArgument, "unknown model preset '" + name + "' (slim, base or large)");
  }
  return c;
}

Result<GraphormerConfig> GraphormerConfig::fromJson(const JsonValue& json, const GraphormerConfig& defaults) {
  if (!json.isObject()) return bad("config", "must be a JSON object");
  GraphormerConfig c = defaults;
  const std::pair<const char*, int*> ints[] = {{"num_atoms", &c.num_atoms},
                                               {"num_edges", &c.num_edges},
                                               {"num_in_degree", &c.num_in_degree},
                                               {"num_out_degree", &c.num_out_degree},
                                               {"num_spatial", &c.num_spatial},
                                               {"num_edge_dis", &c.num_edge_dis},
                                               {"max_nodes", &c.max_nodes},
                                               {"spatial_pos_max", &c.spatial_pos_max},
                                               {"multi_hop_max_dist", &c.multi_hop_max_dist},
                                               {"num_hidden_layers", &c.num_hidden_layers},
                                               {"embedding_dim", &c.embedding_dim},
                                               {"ffn_embedding_dim", &c.ffn_embedding_dim},
                                               {"num_attention_heads", &c.num_attention_heads},
                                               {"num_classes", &c.num_classes}};
  for (const auto& [key, field] : ints)
    if (Status s = readInt(json, key, *field); !s.isOk()) return s;
  const std::pair<const char*, double*> doubles[] = {{"dropout", &c.dropout},
                                                     {"attention_dropout", &c.attention_dropout},
                                                     {"activation_dropout", &c.activation_dropout}};
  for (const auto& [key, field] : doubles)
    if (Status s = readDouble(json, key, *field); !s.isOk()) return s;
  for (Status s : {readBool(json, "encoder_normalize_before", c.encoder_normalize_before),
                   readBool(json, "pre_layernorm", c.pre_layernorm), readString(json, "edge_type", c.edge_type),
                   readString(json, "activation_fn", c.activation_fn)})
    if (!s.isOk()) return s;
  if (Status s = c.validate(); !s.isOk()) return s;
  return c;
}

Result<GraphormerConfig> GraphormerConfig::fromJson(const JsonValue& json) {
  return fromJson(json, GraphormerConfig{});
}

std::string GraphormerConfig::toJson() const {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject()
      .field("model_type", "graphormer")
      .field("num_atoms", num_atoms)
      .field("num_edges", num_edges)
      .field("num_in_degree", num_in_degree)
      .field("num_out_degree", num_out_degree)
      .field("num_spatial", num_spatial)
      .field("num_edge_dis", num_edge_dis)
      .field("edge_type", std::string_view(edge_type))
      .field("max_nodes", max_nodes)
      .field("spatial_pos_max", spatial_pos_max)
      .field("multi_hop_max_dist", multi_hop_max_dist)
      .field("num_hidden_layers", num_hidden_layers)
      .field("embedding_dim", embedding_dim)
      .field("ffn_embedding_dim", ffn_embedding_dim)
      .field("num_attention_heads", num_attention_heads)
      .field("num_classes", num_classes)
      .field("encoder_normalize_before", encoder_normalize_before)
      .field("pre_layernorm", pre_layernorm)
      .field("activation_fn", std::string_view(activation_fn))
      .field("dropout", dropout)
      .field("attention_dropout", attention_dropout)
      .field("activation_dropout", activation_dropout)
      .endObject();
  return out.str();
}

int64_t GraphormerConfig::parameterCount() const {
  const int64_t c = embedding_dim, h = num_attention_heads, f = ffn_embedding_dim;
  int64_t n = (num_atoms + 1) * c + (num_in_degree + num_out_degree + 1) * c;  // node features
  n += (num_edges + 1) * h + num_edge_dis * h * h + num_spatial * h + h;       // attention bias
  if (encoder_normalize_before) n += 2 * c;
  if (pre_layernorm) n += 2 * c;  // unused final_layer_norm kept for checkpoint compatibility
  n += num_hidden_layers * (4 * (c * c + c) + 2 * c + (c * f + f) + (f * c + c) + 2 * c);
  n += c * c + c + 2 * c + 1 + num_classes * c;  // head
  return n;
}

std::string ModelMetadata::outputName(int i) const {
  if (i >= 0 && i < static_cast<int>(target_names.size()) && !target_names[i].empty()) return target_names[i];
  return "output_" + std::to_string(i);
}

Result<ModelMetadata> ModelMetadata::fromJson(const JsonValue& json) {
  if (!json.isObject()) return bad("metadata", "must be a JSON object");
  ModelMetadata m;
  auto str = [](const JsonValue& v, std::vector<std::string>& out) {
    if (!v.isString()) return false;
    out.push_back(v.asString());
    return true;
  };
  auto num = [](const JsonValue& v, std::vector<double>& out) {
    if (!v.isNumber()) return false;
    out.push_back(v.asNumber());
    return true;
  };
  for (Status s :
       {readList(json, "target_names", m.target_names, str), readList(json, "target_units", m.target_units, str),
        readList(json, "target_mean", m.target_mean, num), readList(json, "target_std", m.target_std, num),
        readList(json, "output_offset", m.output_offset, num),
        readString(json, "description", m.description)})
    if (!s.isOk()) return s;
  std::string convention;
  if (Status s = readString(json, "index_convention", convention); !s.isOk()) return s;
  if (!convention.empty()) {
    auto c = graph::parseConvention(convention);
    if (!c.isOk()) return bad("index_convention", "must be 'official' or 'hf'");
    m.convention = c.value();
  }
  int spm = -1;
  if (Status s = readInt(json, "training_spatial_pos_max", spm); !s.isOk()) return s;
  if (spm >= 0) m.spatial_pos_max = spm;
  if (const JsonValue* v = json.find("mirror_invariant"); v && !v->isNull()) {
    bool invariant = false;
    if (Status s = readBool(json, "mirror_invariant", invariant); !s.isOk()) return s;
    m.mirror_invariant = invariant;
  }
  return m;
}

void ModelMetadata::overrideWith(const ModelMetadata& other) {
  if (!other.target_names.empty()) target_names = other.target_names;
  if (!other.target_units.empty()) target_units = other.target_units;
  if (other.convention) convention = other.convention;
  if (other.spatial_pos_max) spatial_pos_max = other.spatial_pos_max;
  // An offset belongs to the normalisation it was fitted with: new statistics (a LoRA adapter's)
  // bring their own offset or none.
  if (!other.target_mean.empty()) target_mean = other.target_mean, output_offset = other.output_offset;
  if (!other.target_std.empty()) target_std = other.target_std;
  if (!other.output_offset.empty()) output_offset = other.output_offset;
  if (!other.description.empty()) description = other.description;
  if (other.mirror_invariant) mirror_invariant = other.mirror_invariant;
}

std::string ModelMetadata::toJson() const {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject();
  w.key("target_names").beginArray();
  for (const auto& n : target_names) w.value(std::string_view(n));
  w.endArray().key("target_units").beginArray();
  for (const auto& u : target_units) w.value(std::string_view(u));
  w.endArray().key("target_mean").beginArray();
  for (double v : target_mean) w.value(v);
  w.endArray().key("target_std").beginArray();
  for (double v : target_std) w.value(v);
  w.endArray();
  if (!output_offset.empty()) {
    w.key("output_offset").beginArray();
    for (double v : output_offset) w.value(v);
    w.endArray();
  }
  if (convention) w.field("index_convention", graph::conventionName(*convention));
  if (spatial_pos_max) w.field("training_spatial_pos_max", *spatial_pos_max);
  if (!description.empty()) w.field("description", std::string_view(description));
  if (mirror_invariant) w.field("mirror_invariant", *mirror_invariant);
  w.endObject();
  return out.str();
}

Status ModelMetadata::validate(int num_outputs) const {
  auto check = [&](size_t n, const char* what) -> Status {
    if (n != 0 && n != static_cast<size_t>(num_outputs))
      return bad(what,
                 "has " + std::to_string(n) + " entries but the model has " + std::to_string(num_outputs) + " outputs");
    return Status::ok();
  };
  for (Status s : {check(target_names.size(), "target_names"), check(target_units.size(), "target_units"),
                   check(target_mean.size(), "target_mean"), check(target_std.size(), "target_std"),
                   check(output_offset.size(), "output_offset")})
    if (!s.isOk()) return s;
  if (target_mean.size() != target_std.size()) return bad("target_mean", "and target_std must both be given");
  for (double s : target_std)
    if (!(s > 0)) return bad("target_std", "entries must be positive");
  return Status::ok();
}

Result<JsonValue> readJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::IoError, "cannot open '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto parsed = JsonValue::parse(buffer.str());
  if (!parsed.isOk()) return Status(parsed.status().code(), path + ": " + parsed.status().message());
  return parsed;
}

}  // namespace gs::bundle
