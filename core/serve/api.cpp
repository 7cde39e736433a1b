#include "serve/api.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "common/json_value.h"
#include "common/json_writer.h"
#include "predict/prediction_json.h"
#include "predict/trust.h"

namespace gs::serve {
namespace {

HttpError bad(std::string message) { return {400, std::move(message)}; }

// Length of the UTF-8 sequence starting at s[i], 0 when it is not a valid one.
size_t utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const auto cont = [&](size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

std::optional<HttpError> parseBody(std::string_view body, int max_depth, JsonValue* out) {
  if (auto e = checkJsonText(body, max_depth)) return e;
  Result<JsonValue> json = JsonValue::parse(body);
  if (!json.isOk()) return bad("malformed JSON: " + json.status().message());
  if (!json->isObject()) return bad("the body must be a JSON object");
  *out = std::move(json.value());
  return std::nullopt;
}

std::optional<HttpError> readTimeout(const JsonValue* v, const RequestLimits& limits, std::optional<int64_t>* out) {
  if (!v) return std::nullopt;
  if (!v->isInteger() || v->asInteger() <= 0) return bad("timeout_ms must be a positive integer");
  *out = std::min<int64_t>(v->asInteger(), limits.max_timeout_ms);
  return std::nullopt;
}

std::optional<HttpError> checkCount(size_t n, const RequestLimits& limits) {
  if (n == 0) return bad("the request has no molecules");
  if (n > static_cast<size_t>(limits.max_molecules))
    return HttpError{413, std::to_string(n) + " molecules in one request; the limit is " +
                              std::to_string(limits.max_molecules) + " (split the request)"};
  return std::nullopt;
}

std::optional<HttpError> readMolecule(const JsonValue& item, size_t index, const RequestLimits& limits,
                                      MoleculeIn* out) {
  const std::string where = "molecules[" + std::to_string(index) + "]";
  const JsonValue* smiles = &item;
  if (item.isObject()) {
    for (const auto& [key, value] : item.members())
      if (key != "smiles" && key != "id") return bad(where + ": unknown key \"" + key + "\" (smiles, id)");
    smiles = item.find("smiles");
    if (!smiles) return bad(where + ": no \"smiles\"");
    if (const JsonValue* id = item.find("id")) {
      if (id->isString())
        out->id = id->asString();
      else if (id->isInteger())
        out->id = std::to_string(id->asInteger());
      else
        return bad(where + ".id must be a string or an integer");
    }
  }
  if (!smiles->isString()) return bad(where + ": a molecule is a SMILES string or {\"smiles\": ..., \"id\": ...}");
  if (out->id.size() > static_cast<size_t>(limits.max_id_bytes))
    return bad(where + ".id is longer than " + std::to_string(limits.max_id_bytes) + " bytes");
  out->smiles = smiles->asString();
  if (out->id.empty()) out->id = std::to_string(index);
  return std::nullopt;
}

const JsonValue* findInput(const JsonValue& inputs, std::string_view name) {
  for (const JsonValue& input : inputs.items()) {
    const JsonValue* n = input.isObject() ? input.find("name") : nullptr;
    if (n && n->isString() && n->asString() == name) return &input;
  }
  return nullptr;
}

// A v2 BYTES tensor of shape [N] or [N, 1] as strings.
std::optional<HttpError> readBytesTensor(const JsonValue& input, const RequestLimits& limits,
                                         std::vector<std::string>* out) {
  const JsonValue* type = input.find("datatype");
  const JsonValue* shape = input.find("shape");
  const JsonValue* data = input.find("data");
  const std::string name = input.find("name")->asString();
  if (!type || !type->isString() || type->asString() != "BYTES")
    return bad("input " + name + ": datatype must be BYTES");
  if (!data || !data->isArray()) return bad("input " + name + ": no data array");
  if (auto e = checkCount(data->items().size(), limits)) return e;
  if (!shape || !shape->isArray() || shape->items().empty() || shape->items().size() > 2)
    return bad("input " + name + ": shape must be [N] or [N, 1]");
  int64_t elements = 1;
  for (const JsonValue& d : shape->items()) {
    if (!d.isInteger() || d.asInteger() < 0) return bad("input " + name + ": shape must hold non-negative integers");
    elements *= std::min<int64_t>(d.asInteger(), 1 << 30);
  }
  if (elements != static_cast<int64_t>(data->items().size()))
    return bad("input " + name + ": shape does not match the " + std::to_string(data->items().size()) + " data items");
  for (const JsonValue& item : data->items()) {
    if (!item.isString()) return bad("input " + name + ": every data item must be a string");
    out->push_back(item.asString());
  }
  return std::nullopt;
}

void writeModel(JsonWriter& w, const ModelInfo& model) {
  w.key("model").beginObject();
  w.field("name", model.name).field("sha256", model.sha256);
  if (!model.adapter_sha256.empty()) w.field("adapter_sha256", model.adapter_sha256);
  w.field("precision", model.precision);
  w.field("device", model.device);
  w.key("outputs").beginArray();
  for (const std::string& o : model.outputs) w.value(o);
  w.endArray().key("units").beginArray();  // one per output, "" where the model gives none
  for (size_t j = 0; j < model.outputs.size(); ++j) w.value(j < model.units.size() ? model.units[j] : std::string());
  w.endArray().endObject();
}

}  // namespace

std::optional<HttpError> checkJsonText(std::string_view body, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size();) {
    const size_t n = utf8Length(body, i);
    if (n == 0) return bad("the body is not valid UTF-8 (byte " + std::to_string(i) + ")");
    const char c = body[i];
    if (in_string) {
      if (c == '\\')
        i += 1;  // the escaped byte is ASCII or caught by the parser
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return bad("JSON nested deeper than " + std::to_string(max_depth) + " levels");
    } else if (c == '}' || c == ']') {
      --depth;
    }
    i += n;
  }
  return std::nullopt;
}

std::optional<HttpError> decodePredict(std::string_view body, const RequestLimits& limits, PredictRequest* out) {
  JsonValue json;
  if (auto e = parseBody(body, limits.max_json_depth, &json)) return e;
  const JsonValue* molecules = nullptr;
  for (const auto& [key, value] : json.members()) {
    if (key == "molecules" || key == "inputs")
      molecules = &value;
    else if (key != "timeout_ms" && key != "model")
      return bad("unknown key \"" + key + "\" (molecules, timeout_ms, model)");
  }
  if (!molecules || !molecules->isArray()) return bad("\"molecules\" must be an array of SMILES or {smiles, id}");
  if (auto e = checkCount(molecules->items().size(), limits)) return e;
  if (auto e = readTimeout(json.find("timeout_ms"), limits, &out->timeout_ms)) return e;
  if (const JsonValue* model = json.find("model")) {
    if (!model->isString()) return bad("\"model\" must be a string");
    out->model = model->asString();
  }
  out->molecules.resize(molecules->items().size());
  for (size_t i = 0; i < out->molecules.size(); ++i)
    if (auto e = readMolecule(molecules->items()[i], i, limits, &out->molecules[i])) return e;
  return std::nullopt;
}

std::optional<HttpError> decodeV2Infer(std::string_view body, const RequestLimits& limits, PredictRequest* out,
                                       std::string* request_id) {
  JsonValue json;
  if (auto e = parseBody(body, limits.max_json_depth, &json)) return e;
  if (const JsonValue* id = json.find("id"); id && id->isString()) *request_id = id->asString();
  const JsonValue* inputs = json.find("inputs");
  if (!inputs || !inputs->isArray()) return bad("no \"inputs\" array");
  const JsonValue* smiles = findInput(*inputs, "smiles");
  if (!smiles) return bad("no input named \"smiles\" (BYTES, shape [N])");
  std::vector<std::string> texts, ids;
  if (auto e = readBytesTensor(*smiles, limits, &texts)) return e;
  if (const JsonValue* id_input = findInput(*inputs, "id")) {
    if (auto e = readBytesTensor(*id_input, limits, &ids)) return e;
    if (ids.size() != texts.size()) return bad("inputs \"id\" and \"smiles\" differ in length");
  }
  if (const JsonValue* params = json.find("parameters"); params && params->isObject())
    if (auto e = readTimeout(params->find("timeout_ms"), limits, &out->timeout_ms)) return e;
  out->molecules.resize(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    out->molecules[i].smiles = std::move(texts[i]);
    // An empty id is replaced by the molecule's index, as in /v1/predict.
    out->molecules[i].id = ids.empty() || ids[i].empty() ? std::to_string(i) : std::move(ids[i]);
    if (out->molecules[i].id.size() > static_cast<size_t>(limits.max_id_bytes))
      return bad("id[" + std::to_string(i) + "] is longer than " + std::to_string(limits.max_id_bytes) + " bytes");
  }
  return std::nullopt;
}

std::vector<int> findDuplicates(const std::vector<MoleculeIn>& molecules) {
  std::vector<int> first(molecules.size(), -1);
  std::unordered_map<std::string_view, int> seen;
  seen.reserve(molecules.size());
  for (size_t i = 0; i < molecules.size(); ++i) {
    auto [it, inserted] = seen.emplace(molecules[i].smiles, static_cast<int>(i));
    if (!inserted) first[i] = it->second;
  }
  return first;
}

std::string encodePredictResponse(const ModelInfo& model, const std::string& request_id,
                                  const std::vector<predict::PredictedRow>& rows,
                                  const std::vector<int>& duplicate_of) {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject().field("request_id", request_id);
  writeModel(w, model);
  std::map<std::string, int64_t> counts = predict::statusCounts(rows);
  w.key("counts").beginObject();
  for (const auto& [name, n] : counts) w.field(name, n);
  w.endObject();
  w.key("results").beginArray();
  for (size_t i = 0; i < rows.size(); ++i)
    predict::writePredictionJson(w, model.outputs, rows[i], i < duplicate_of.size() ? duplicate_of[i] : -1);
  w.endArray().endObject();
  return out.str();
}

namespace {

void v2Tensor(JsonWriter& w, const std::string& name, const char* type, size_t n) {
  w.beginObject().field("name", name).field("datatype", type);
  w.key("shape").beginArray().value(static_cast<int64_t>(n)).endArray();
  w.key("data").beginArray();
}

template <typename F>
void v2Floats(JsonWriter& w, const std::string& name, const std::vector<predict::PredictedRow>& rows, F value) {
  v2Tensor(w, name, "FP32", rows.size());
  for (const auto& row : rows) w.value(row.status.isOk() ? value(row) : std::numeric_limits<double>::quiet_NaN());
  w.endArray().endObject();
}

template <typename F>
void v2Strings(JsonWriter& w, const std::string& name, const std::vector<predict::PredictedRow>& rows, F value) {
  v2Tensor(w, name, "BYTES", rows.size());
  for (const auto& row : rows) w.value(std::string(value(row)));
  w.endArray().endObject();
}

// A row's band as the server names it: the molecule's (j < 0) or output j's; empty without trust.
std::string bandOf(const predict::PredictedRow& row, int j) {
  if (!row.trust || !row.status.isOk()) return {};
  return predict::domainBandName(j < 0 ? row.trust->band : row.trust->outputBand(j));
}

}  // namespace

std::string encodeV2Response(const ModelInfo& model, const std::string& request_id,
                             const std::vector<predict::PredictedRow>& rows) {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject().field("model_name", model.name).field("model_version", model.sha256.substr(0, 12));
  if (!request_id.empty()) w.field("id", request_id);
  w.key("outputs").beginArray();
  v2Strings(w, "status", rows, [](const auto& r) { return statusCodeName(r.status.code()); });
  bool trust = false;
  for (const auto& row : rows) trust = trust || row.trust.has_value();
  for (size_t j = 0; j < model.outputs.size(); ++j) {
    v2Floats(w, model.outputs[j], rows, [j](const auto& r) { return j < r.values.size() ? r.values[j] : NAN; });
    if (!trust) continue;
    const auto bound = [j](const std::optional<predict::TrustRow>& t, const std::vector<double> predict::TrustRow::*f) {
      return t && j < ((*t).*f).size() ? ((*t).*f)[j] : NAN;
    };
    v2Floats(w, model.outputs[j] + "_lower", rows,
             [&](const auto& r) { return bound(r.trust, &predict::TrustRow::lower); });
    v2Floats(w, model.outputs[j] + "_upper", rows,
             [&](const auto& r) { return bound(r.trust, &predict::TrustRow::upper); });
    v2Floats(w, model.outputs[j] + "_sigma", rows,
             [&](const auto& r) { return bound(r.trust, &predict::TrustRow::sigma); });
    v2Strings(w, model.outputs[j] + "_domain", rows, [j](const auto& r) { return bandOf(r, static_cast<int>(j)); });
  }
  if (trust) v2Strings(w, "domain", rows, [](const auto& r) { return bandOf(r, -1); });
  v2Strings(w, "message", rows, [](const auto& r) { return r.status.message(); });
  w.endArray().endObject();
  return out.str();
}

std::string encodeV2Metadata(const ModelInfo& model, bool with_trust) {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject().field("name", model.name);
  w.key("versions").beginArray().value(model.sha256.substr(0, 12)).endArray();
  w.field("platform", "graphormer_libtorch");
  w.key("inputs").beginArray();
  for (const char* name : {"smiles", "id"}) {
    w.beginObject().field("name", name).field("datatype", "BYTES");
    w.key("shape").beginArray().value(int64_t{-1}).endArray().endObject();
  }
  w.endArray().key("outputs").beginArray();
  const auto output = [&](const std::string& name, const char* type) {
    w.beginObject().field("name", name).field("datatype", type);
    w.key("shape").beginArray().value(int64_t{-1}).endArray().endObject();
  };
  output("status", "BYTES");
  for (const std::string& o : model.outputs) {
    output(o, "FP32");
    if (!with_trust) continue;
    for (const char* suffix : {"_lower", "_upper", "_sigma"}) output(o + suffix, "FP32");
    output(o + "_domain", "BYTES");
  }
  if (with_trust) output("domain", "BYTES");
  output("message", "BYTES");
  w.endArray().endObject();
  return out.str();
}

std::string encodeError(const HttpError& error) {
  std::ostringstream out;
  JsonWriter(out).beginObject().field("error", error.message).field("status", error.status).endObject();
  return out.str();
}

}  // namespace gs::serve
