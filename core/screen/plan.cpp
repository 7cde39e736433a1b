#include "screen/plan.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/json_value.h"
#include "common/json_writer.h"
#include "common/sha256.h"

namespace gs::screen {
namespace {

const Codec kCodecs[] = {Codec::None, Codec::Gzip, Codec::Bzip2, Codec::Zstd};

void writeReader(JsonWriter& w, const data::ReaderOptions& r) {
  w.beginObject()
      .field("smiles_column", r.smiles_column)
      .field("id_column", r.id_column)
      .field("csv_header", r.csv_header)
      .field("csv_delimiter", std::string(r.csv_delimiter ? 1 : 0, r.csv_delimiter))
      .field("sdf_id_property", r.sdf_id_property)
      .endObject();
}

void writeInput(JsonWriter& w, const InputFingerprint& in) {
  w.beginObject()
      .field("path", in.path)
      .field("size", in.size)
      .field("mtime_ns", std::to_string(in.mtime_ns))
      .field("sha256", in.sha256)
      .field("format", data::formatInfo(in.format).name)
      .field("codec", codecName(in.codec))
      .field("rows", in.rows)
      .field("header_bytes", in.header_bytes)
      .endObject();
}

void writeShard(JsonWriter& w, const Shard& s) {
  w.beginObject()
      .field("id", s.id)
      .field("input", s.input)
      .field("begin", s.begin)
      .field("end", s.end)
      .field("first_row", s.first_row)
      .field("rows", s.rows)
      .field("sha256", s.sha256)
      .endObject();
}

// Field readers that remember the first problem, so a plan is read in straight lines.
struct Fields {
  const JsonValue& object;
  std::string where;
  Status* status;
  const JsonValue* get(const char* key) const {
    const JsonValue* v = object.find(key);
    if (!v && status->isOk()) *status = {StatusCode::InvalidArgument, where + ": missing '" + key + "'"};
    return v;
  }
  int64_t integer(const char* key) const {
    const JsonValue* v = get(key);
    if (v && v->isInteger()) return v->asInteger();
    if (v && status->isOk()) *status = {StatusCode::InvalidArgument, where + ": '" + key + "' is not an integer"};
    return 0;
  }
  double number(const char* key) const {
    const JsonValue* v = get(key);
    return v && v->isNumber() ? v->asNumber() : 0;
  }
  std::string text(const char* key) const {
    const JsonValue* v = get(key);
    if (v && v->isString()) return v->asString();
    if (v && status->isOk()) *status = {StatusCode::InvalidArgument, where + ": '" + key + "' is not a string"};
    return {};
  }
  bool flag(const char* key) const {
    const JsonValue* v = get(key);
    return v && v->isBool() && v->asBool();
  }
};

template <typename T, size_t N, typename NameOf>
T byName(const T (&values)[N], NameOf name_of, const std::string& name, Status* status, const char* what) {
  for (T v : values)
    if (name == name_of(v)) return v;
  if (status->isOk()) *status = {StatusCode::InvalidArgument, std::string("plan: unknown ") + what + " '" + name + "'"};
  return values[0];
}

InputFingerprint readInput(const JsonValue& j, Status* status) {
  Fields f{j, "plan input", status};
  InputFingerprint in;
  in.path = f.text("path");
  in.size = f.integer("size");
  in.mtime_ns = std::atoll(f.text("mtime_ns").c_str());  // a string: JSON numbers are doubles
  in.sha256 = f.text("sha256");
  if (auto format = data::formatFromName(f.text("format")); format.isOk())
    in.format = format.value();
  else if (status->isOk())
    *status = {StatusCode::InvalidArgument, "plan: " + format.status().message()};
  in.codec = byName(kCodecs, codecName, f.text("codec"), status, "codec");
  in.rows = f.integer("rows");
  in.header_bytes = f.integer("header_bytes");
  return in;
}

Shard readShard(const JsonValue& j, Status* status) {
  Fields f{j, "plan shard", status};
  Shard s;
  s.id = static_cast<int>(f.integer("id"));
  s.input = static_cast<int>(f.integer("input"));
  s.begin = f.integer("begin");
  s.end = f.integer("end");
  s.first_row = f.integer("first_row");
  s.rows = f.integer("rows");
  s.sha256 = f.text("sha256");
  return s;
}

data::ReaderOptions readReader(const JsonValue& j, Status* status) {
  Fields f{j, "plan reader", status};
  data::ReaderOptions r;
  r.smiles_column = f.text("smiles_column");
  r.id_column = f.text("id_column");
  r.csv_header = f.flag("csv_header");
  const std::string d = f.text("csv_delimiter");
  r.csv_delimiter = d.empty() ? '\0' : d[0];
  r.sdf_id_property = f.text("sdf_id_property");
  return r;
}

Status checkShards(const Plan& plan) {
  for (size_t i = 0; i < plan.shards.size(); ++i) {
    const Shard& s = plan.shards[i];
    if (s.id != static_cast<int>(i) || s.input < 0 || s.input >= static_cast<int>(plan.inputs.size()))
      return {StatusCode::InvalidArgument, "plan: shard " + std::to_string(i) + " is inconsistent"};
  }
  if (plan.chunk_rows <= 0) return {StatusCode::InvalidArgument, "plan: chunk_rows must be positive"};
  return Status::ok();
}

}  // namespace

std::string outputSuffix(Codec codec) {
  for (const auto& s : codecSuffixes())
    if (s.codec == codec && s.usual) return std::string(".csv") + s.suffix;
  return ".csv";
}

std::string toJson(const Plan& plan) {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject().field("version", Plan::kVersion).field("created", plan.created);
  w.key("predictor").raw(predict::toJson(plan.predictor));
  w.key("reader");
  writeReader(w, plan.reader);
  w.field("model_sha256", plan.model_sha256)
      .field("adapter_sha256", plan.adapter_sha256)
      .field("trust_sha256", plan.trust_sha256)
      .field("output_codec", codecName(plan.output_codec))
      .field("num_outputs", plan.num_outputs)
      .field("chunk_rows", plan.chunk_rows)
      .field("measured_rate", plan.measured_rate)
      .field("shard_seconds", plan.shard_seconds);
  w.key("header").beginArray();
  for (const auto& h : plan.header) w.value(h);
  w.endArray().key("inputs").beginArray();
  for (const auto& in : plan.inputs) writeInput(w, in);
  w.endArray().key("shards").beginArray();
  for (const auto& s : plan.shards) writeShard(w, s);
  w.endArray().endObject();
  out << '\n';
  return out.str();
}

Result<Plan> planFromJson(const std::string& text) {
  auto json = JsonValue::parse(text);
  if (!json.isOk()) return Status{StatusCode::InvalidArgument, "plan.json: " + json.status().message()};
  Status status;
  Fields f{json.value(), "plan", &status};
  if (f.integer("version") != Plan::kVersion)
    return Status{StatusCode::InvalidArgument, "plan.json: version " + std::to_string(f.integer("version")) +
                                                   " is not the version this program writes (" +
                                                   std::to_string(Plan::kVersion) + ")"};
  Plan plan;
  plan.created = f.text("created");
  if (const JsonValue* p = f.get("predictor")) {
    auto options = predict::predictorOptionsFromJson(*p);
    if (!options.isOk()) return Status{StatusCode::InvalidArgument, "plan.json: " + options.status().message()};
    plan.predictor = options.value();
  }
  if (const JsonValue* r = f.get("reader")) plan.reader = readReader(*r, &status);
  plan.model_sha256 = f.text("model_sha256");
  plan.adapter_sha256 = f.text("adapter_sha256");
  plan.trust_sha256 = f.text("trust_sha256");
  plan.output_codec = byName(kCodecs, codecName, f.text("output_codec"), &status, "codec");
  plan.num_outputs = static_cast<int>(f.integer("num_outputs"));
  plan.chunk_rows = static_cast<int>(f.integer("chunk_rows"));
  plan.measured_rate = f.number("measured_rate");
  plan.shard_seconds = f.number("shard_seconds");
  if (const JsonValue* h = f.get("header"))
    for (const auto& v : h->items()) plan.header.push_back(v.asString());
  if (const JsonValue* inputs = f.get("inputs"))
    for (const auto& v : inputs->items()) plan.inputs.push_back(readInput(v, &status));
  if (const JsonValue* shards = f.get("shards"))
    for (const auto& v : shards->items()) plan.shards.push_back(readShard(v, &status));
  if (status.isOk()) status = checkShards(plan);
  if (!status.isOk()) return status;
  return plan;
}

Result<Plan> readPlan(const std::string& dir, std::string* id) {
  std::ifstream in(dir + "/plan.json", std::ios::binary);
  if (!in) return Status{StatusCode::IoError, "no plan in " + dir + " (run `graphormer-cli screen plan` first)"};
  std::ostringstream text;
  text << in.rdbuf();
  auto plan = planFromJson(text.str());
  if (plan.isOk() && id) {
    Sha256 h;
    h.update(text.str().data(), text.str().size());
    *id = h.hexDigest();
  }
  return plan;
}

}  // namespace gs::screen
