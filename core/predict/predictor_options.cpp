#include "predict/predictor_options.h"

#include <functional>
#include <map>
#include <sstream>

#include "common/json_writer.h"

namespace gs::predict {
namespace {

Status bad(const std::string& key, const std::string& what) {
  return Status(StatusCode::InvalidArgument, "predictor options: '" + key + "' " + what);
}

Status readInt(const JsonValue& v, const std::string& key, int64_t lo, int64_t hi, int64_t* out) {
  if (!v.isInteger() || v.asInteger() < lo || v.asInteger() > hi)
    return bad(key, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  *out = v.asInteger();
  return Status::ok();
}

template <typename T>
Status readInt(const JsonValue& v, const std::string& key, int64_t lo, int64_t hi, T* out) {
  int64_t x = 0;
  if (Status s = readInt(v, key, lo, hi, &x); !s.isOk()) return s;
  *out = static_cast<T>(x);
  return Status::ok();
}

Status readString(const JsonValue& v, const std::string& key, std::string* out) {
  if (!v.isString()) return bad(key, "must be a string");
  *out = v.asString();
  return Status::ok();
}

Status readBool(const JsonValue& v, const std::string& key, bool* out) {
  if (!v.isBool()) return bad(key, "must be true or false");
  *out = v.asBool();
  return Status::ok();
}

template <typename E>
Status readEnum(const JsonValue& v, const std::string& key, Result<E> (*parse)(const std::string&), E* out) {
  if (!v.isString()) return bad(key, "must be a string");
  auto e = parse(v.asString());
  if (!e.isOk()) return bad(key, e.status().message());
  *out = e.value();
  return Status::ok();
}

using Reader = std::function<Status(const JsonValue&, PredictorOptions&)>;

// One reader per key: the JSON schema in one table.
const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> table{
      {"model", [](const JsonValue& v, PredictorOptions& o) { return readString(v, "model", &o.model.path); }},
      {"adapter", [](const JsonValue& v, PredictorOptions& o) { return readString(v, "adapter", &o.model.adapter); }},
      {"device", [](const JsonValue& v, PredictorOptions& o) { return readString(v, "device", &o.session.device); }},
      {"precision",
       [](const JsonValue& v, PredictorOptions& o) {
         return readEnum(v, "precision", &tensor::parsePrecision, &o.session.precision);
       }},
      {"threads",
       [](const JsonValue& v, PredictorOptions& o) { return readInt(v, "threads", 0, 1024, &o.session.threads); }},
      {"batch_size",
       [](const JsonValue& v, PredictorOptions& o) {
         return readInt(v, "batch_size", 1, 65536, &o.session.plan.max_batch_size);
       }},
      {"bucketing",
       [](const JsonValue& v, PredictorOptions& o) { return readBool(v, "bucketing", &o.session.plan.bucketing); }},
      {"bucket_window",
       [](const JsonValue& v, PredictorOptions& o) {
         return readInt(v, "bucket_window", 1, 1 << 24, &o.session.plan.window);
       }},
      {"max_padded_nodes",
       [](const JsonValue& v, PredictorOptions& o) {
         return readInt(v, "max_padded_nodes", 0, int64_t{1} << 40, &o.session.plan.max_padded_nodes);
       }},
      {"max_attention_cells",
       [](const JsonValue& v, PredictorOptions& o) {
         return readInt(v, "max_attention_cells", 0, int64_t{1} << 40, &o.session.plan.max_attention_cells);
       }},
      {"autocast",
       [](const JsonValue& v, PredictorOptions& o) { return readBool(v, "autocast", &o.session.autocast); }},
      {"memory_budget_bytes",
       [](const JsonValue& v, PredictorOptions& o) {
         return readInt(v, "memory_budget_bytes", 0, int64_t{1} << 50, &o.session.memory_budget_bytes);
       }},
      {"convention",
       [](const JsonValue& v, PredictorOptions& o) {
         if (v.isNull()) return o.session.convention.reset(), Status::ok();
         graph::Convention c{};
         if (Status s = readEnum(v, "convention", &graph::parseConvention, &c); !s.isOk()) return s;
         o.session.convention = c;
         return Status::ok();
       }},
      {"spatial_pos_max",
       [](const JsonValue& v, PredictorOptions& o) {
         if (v.isNull()) return o.session.spatial_pos_max.reset(), Status::ok();
         int x = 0;
         if (Status s = readInt(v, "spatial_pos_max", 1, 100000, &x); !s.isOk()) return s;
         o.session.spatial_pos_max = x;
         return Status::ok();
       }},
      {"max_atoms",
       [](const JsonValue& v, PredictorOptions& o) { return readInt(v, "max_atoms", 1, 100000, &o.parse.max_atoms); }},
      {"atom_order",
       [](const JsonValue& v, PredictorOptions& o) {
         return readEnum(v, "atom_order", &chem::parseAtomOrder, &o.atom_order);
       }},
      {"trust", [](const JsonValue& v, PredictorOptions& o) { return readBool(v, "trust", &o.trust); }},
      {"confidence",
       [](const JsonValue& v, PredictorOptions& o) {
         if (!v.isNumber() || !(v.asNumber() > 0 && v.asNumber() < 1))
           return bad("confidence", "must be a number in (0, 1)");
         o.confidence = v.asNumber();
         return Status::ok();
       }},
      {"strip_salts",
       [](const JsonValue& v, PredictorOptions& o) { return readBool(v, "strip_salts", &o.strip_salts); }},
  };
  return table;
}

}  // namespace

bool operator==(const PredictorOptions& a, const PredictorOptions& b) {
  return a.model == b.model && a.session == b.session && a.parse.max_atoms == b.parse.max_atoms &&
         a.atom_order == b.atom_order && a.trust == b.trust && a.confidence == b.confidence &&
         a.strip_salts == b.strip_salts;
}

std::string toJson(const PredictorOptions& o) {
  std::ostringstream out;
  JsonWriter w(out);
  const auto& s = o.session;
  w.beginObject()
      .field("model", o.model.path)
      .field("adapter", o.model.adapter)
      .field("device", s.device)
      .field("precision", tensor::precisionName(s.precision))
      .field("threads", s.threads)
      .field("batch_size", s.plan.max_batch_size)
      .field("bucketing", s.plan.bucketing)
      .field("bucket_window", s.plan.window)
      .field("max_padded_nodes", s.plan.max_padded_nodes)
      .field("max_attention_cells", s.plan.max_attention_cells)
      .field("autocast", s.autocast)
      .field("memory_budget_bytes", s.memory_budget_bytes);
  if (s.convention)
    w.field("convention", graph::conventionName(*s.convention));
  else
    w.key("convention").null();
  if (s.spatial_pos_max)
    w.field("spatial_pos_max", *s.spatial_pos_max);
  else
    w.key("spatial_pos_max").null();
  w.field("max_atoms", o.parse.max_atoms)
      .field("atom_order", chem::atomOrderName(o.atom_order))
      .field("trust", o.trust)
      .field("confidence", o.confidence)
      .field("strip_salts", o.strip_salts)
      .endObject();
  return out.str();
}

Result<PredictorOptions> predictorOptionsFromJson(const JsonValue& json) {
  if (!json.isObject()) return Status(StatusCode::InvalidArgument, "predictor options must be a JSON object");
  PredictorOptions o;
  for (const auto& [key, value] : json.members()) {
    auto it = readers().find(key);
    if (it == readers().end()) return bad(key, "is not a predictor option");
    if (Status s = it->second(value, o); !s.isOk()) return s;
  }
  return o;
}

Result<PredictorOptions> predictorOptionsFromJson(std::string_view text) {
  auto json = JsonValue::parse(text);
  if (!json.isOk()) return json.status();
  return predictorOptionsFromJson(json.value());
}

void setMemoryBudget(engine::SessionOptions& session, int64_t budget_mib, std::optional<int> batch_cap) {
  session.memory_budget_bytes = budget_mib > 0 ? budget_mib << 20 : 0;
  if (budget_mib > 0) session.plan.max_batch_size = batch_cap.value_or(kBudgetBatchCap);
}

}  // namespace gs::predict
