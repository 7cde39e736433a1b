#include "predict/prediction_json.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace gs::predict {
namespace {

void perOutput(JsonWriter& w, const char* key, const std::vector<std::string>& outputs, const std::vector<double>& v) {
  w.key(key).beginObject();
  for (size_t j = 0; j < outputs.size() && j < v.size(); ++j) w.key(outputs[j]).value(v[j]);
  w.endObject();
}

// σ's inputs (trust.h, SigmaTerms): why an interval is as wide as it is.
void writeSigmaTerms(JsonWriter& w, const std::vector<std::string>& outputs, const TrustRow& t) {
  w.key("sigma_terms").beginObject();
  perOutput(w, "spread", outputs, t.spread);
  w.field("distance", t.distance).field("latent", t.latent);
  perOutput(w, "neighbour_error", outputs, t.neighbour_error);
  w.endObject();
}

void writeTrust(JsonWriter& w, const std::vector<std::string>& outputs, const TrustRow& t) {
  w.key("trust").beginObject();
  perOutput(w, "lower", outputs, t.lower);
  perOutput(w, "upper", outputs, t.upper);
  perOutput(w, "sigma", outputs, t.sigma);
  w.key("output_domain").beginObject();
  for (size_t j = 0; j < outputs.size() && j < t.sigma.size(); ++j)
    w.key(outputs[j]).value(domainBandName(t.outputBand(static_cast<int>(j))));
  w.endObject();
  w.field("domain", domainBandName(t.band));
  w.key("reasons").beginArray();
  for (const std::string& r : t.reasons) w.value(r);
  w.endArray();
  w.field("nn_similarity", t.nn_similarity);
  writeSigmaTerms(w, outputs, t);
  w.endObject();
}

Status bad(const std::string& what) { return {StatusCode::MalformedRecord, "prediction JSON: " + what}; }

std::string stringField(const JsonValue& o, const char* key) {
  const JsonValue* v = o.find(key);
  return v && v->isString() ? v->asString() : std::string();
}

// `key`'s object of one number (or null: `missing`) per output, in output order.
Status readPerOutput(const JsonValue& o, const char* key, const std::vector<std::string>& outputs, double missing,
                     std::vector<double>* out) {
  const JsonValue* m = o.find(key);
  if (!m || !m->isObject()) return bad(std::string("'") + key + "' must be an object");
  for (const std::string& name : outputs) {
    const JsonValue* v = m->find(name);
    if (v && !v->isNumber() && !v->isNull())
      return bad(std::string("'") + key + "." + name + "' must be a number or null");
    out->push_back(v && v->isNumber() ? v->asNumber() : missing);
  }
  return Status::ok();
}

double numberField(const JsonValue& o, const char* key) {
  const JsonValue* v = o.find(key);
  return v && v->isNumber() ? v->asNumber() : std::nan("");
}

// Optional (results written before σ's terms were recorded have none).
Status readSigmaTerms(const JsonValue& t, const std::vector<std::string>& outputs, TrustRow& row) {
  const JsonValue* terms = t.find("sigma_terms");
  if (!terms) return Status::ok();
  if (!terms->isObject()) return bad("'trust.sigma_terms' must be an object");
  if (Status s = readPerOutput(*terms, "spread", outputs, std::nan(""), &row.spread); !s.isOk()) return s;
  if (Status s = readPerOutput(*terms, "neighbour_error", outputs, std::nan(""), &row.neighbour_error); !s.isOk())
    return s;
  row.distance = numberField(*terms, "distance");
  row.latent = numberField(*terms, "latent");
  return Status::ok();
}

Result<TrustRow> readTrust(const JsonValue& t, const std::vector<std::string>& outputs) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  TrustRow row;
  if (Status s = readPerOutput(t, "lower", outputs, -inf, &row.lower); !s.isOk()) return s;
  if (Status s = readPerOutput(t, "upper", outputs, inf, &row.upper); !s.isOk()) return s;
  if (Status s = readPerOutput(t, "sigma", outputs, std::nan(""), &row.sigma); !s.isOk()) return s;
  auto band = parseDomainBand(stringField(t, "domain"));
  if (!band.isOk()) return bad("'trust.domain': " + band.status().message());
  row.band = band.value();
  if (const JsonValue* per = t.find("output_domain"); per && per->isObject())
    for (const std::string& name : outputs) {
      const JsonValue* v = per->find(name);
      auto b = parseDomainBand(v && v->isString() ? v->asString() : std::string(domainBandName(row.band)));
      if (!b.isOk()) return bad("'trust.output_domain." + name + "': " + b.status().message());
      row.output_band.push_back(b.value());
    }
  if (const JsonValue* r = t.find("reasons"); r && r->isArray())
    for (const JsonValue& reason : r->items())
      if (reason.isString()) row.reasons.push_back(reason.asString());
  if (const JsonValue* nn = t.find("nn_similarity"); nn && nn->isNumber()) row.nn_similarity = nn->asNumber();
  if (Status s = readSigmaTerms(t, outputs, row); !s.isOk()) return s;
  return row;
}

}  // namespace

void writePredictionJson(JsonWriter& w, const std::vector<std::string>& outputs, const PredictedRow& row,
                         int duplicate_of) {
  w.beginObject();
  w.field("id", row.id).field("smiles", row.input).field("canonical_smiles", row.canonical);
  w.field("status", statusCodeName(row.status.code()));
  if (row.status.isOk()) {
    w.key("values").beginObject();
    for (size_t j = 0; j < outputs.size() && j < row.values.size(); ++j)
      w.key(outputs[j]).value(static_cast<double>(row.values[j]));
    w.endObject();
    if (row.trust) writeTrust(w, outputs, *row.trust);
  }
  if (duplicate_of >= 0) w.field("duplicate_of", duplicate_of);
  w.field("message", row.status.message());
  w.endObject();
}

std::string predictionJson(const std::vector<std::string>& outputs, const PredictedRow& row, int duplicate_of) {
  std::ostringstream out;
  JsonWriter w(out);
  writePredictionJson(w, outputs, row, duplicate_of);
  return out.str();
}

Result<DecodedPrediction> readPredictionJson(const JsonValue& o, const std::vector<std::string>& outputs) {
  if (!o.isObject()) return bad("a result must be an object");
  const JsonValue* status = o.find("status");
  if (!status || !status->isString()) return bad("'status' must be a string");
  DecodedPrediction d;
  PredictedRow& row = d.row;
  row.id = stringField(o, "id");
  row.input = stringField(o, "smiles");
  row.canonical = stringField(o, "canonical_smiles");
  row.status = status->asString() == "ok" ? Status::ok()
                                          : Status(statusCodeFromName(status->asString()), stringField(o, "message"));
  if (row.status.isOk()) {
    std::vector<double> values;
    if (Status s = readPerOutput(o, "values", outputs, std::nan(""), &values); !s.isOk()) return s;
    for (double v : values) row.values.push_back(static_cast<float>(v));
    if (const JsonValue* t = o.find("trust")) {
      auto trust = readTrust(*t, outputs);
      if (!trust.isOk()) return trust.status();
      row.trust = std::move(trust.value());
    }
  }
  if (const JsonValue* dup = o.find("duplicate_of"); dup && dup->isInteger())
    d.duplicate_of = static_cast<int>(dup->asInteger());
  return d;
}

}  // namespace gs::predict
