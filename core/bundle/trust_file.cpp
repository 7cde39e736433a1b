#include "bundle/trust_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "bundle/safetensors_header.h"
#include "common/atomic_file.h"
#include "common/json_value.h"
#include "common/json_writer.h"
#include "common/sha256.h"

namespace gs::bundle {
namespace {

constexpr const char* kFormat = "graphormer-trust";

struct Array {
  std::string dtype;  // safetensors dtype: U8, I32, U32, U64, F32, F64
  std::vector<int64_t> shape;
  std::string bytes;
};

template <typename T>
Array makeArray(const char* dtype, const std::vector<T>& v, std::vector<int64_t> shape = {}) {
  Array a{dtype, shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(v.size())} : std::move(shape), {}};
  a.bytes.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  return a;
}

Array joinStrings(const std::vector<std::string>& v) {
  std::string joined;
  for (const auto& s : v) joined.append(s).push_back('\0');
  Array a{"U8", {static_cast<int64_t>(joined.size())}, {}};
  a.bytes = std::move(joined);
  return a;
}

std::string jsonStrings(const std::vector<std::string>& v) {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginArray();
  for (const auto& s : v) w.value(s);
  w.endArray();
  return out.str();
}

std::string binnedScoresName(size_t output, size_t bin) {
  return "calibration_scores_" + std::to_string(output) + "_bin_" + std::to_string(bin);
}

std::map<std::string, Array> arraysOf(const TrustData& t) {
  std::map<std::string, Array> a;
  const auto n = t.reference.size();
  // Fingerprints as their on-bit positions (a folded Morgan fingerprint has a few dozen of 2,048
  // bits set: a third of the dense size).
  std::vector<uint16_t> bits;
  std::vector<int64_t> offsets{0};
  for (const auto& f : t.reference.fingerprints) {
    for (size_t w = 0; w < f.words.size(); ++w)
      for (uint64_t word = f.words[w]; word; word &= word - 1)
        bits.push_back(static_cast<uint16_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(word))));
    offsets.push_back(static_cast<int64_t>(bits.size()));
  }
  a["fingerprint_bits"] = makeArray("U16", bits);
  a["fingerprint_offsets"] = makeArray("I64", offsets);
  a["labels"] = makeArray("F32", t.reference.labels, {n, t.outputs});
  a["predictions"] = makeArray("F32", t.reference.predictions, {n, t.outputs});
  a["ids"] = joinStrings(t.reference.ids);
  a["smiles"] = joinStrings(t.reference.smiles);
  a["elements"] = makeArray("I32", t.domain.elements);
  a["env_r1"] = makeArray("U32", t.domain.env_r1);
  a["env_r2"] = makeArray("U32", t.domain.env_r2);
  a["sigma_ensemble_weight"] = makeArray("F64", t.sigma.ensemble_weight);
  a["sigma_distance_weight"] = makeArray("F64", t.sigma.distance_weight);
  a["sigma_beta"] = makeArray("F64", t.sigma.beta);
  a["sigma_latent_weight"] = makeArray(
      "F64", t.sigma.latent_weight.empty() ? std::vector<double>(static_cast<size_t>(t.outputs), 0.0) : t.sigma.latent_weight);
  a["sigma_residual_weight"] = makeArray(
      "F64", t.sigma.residual_weight.empty() ? std::vector<double>(static_cast<size_t>(t.outputs), 0.0) : t.sigma.residual_weight);
  if (!t.sigma.residual_prior.empty()) a["sigma_residual_prior"] = makeArray("F64", t.sigma.residual_prior);
  if (!t.domain.sigma_median.empty()) a["sigma_median"] = makeArray("F64", t.domain.sigma_median);
  a["latent_reference"] = makeArray("F32", t.latent.embeddings, {t.latent.size(), t.latent.dim});
  for (int j = 0; j < t.outputs; ++j) {
    a["calibration_scores_" + std::to_string(j)] = makeArray("F64", t.calibration_scores[j]);
    a["calibration_residuals_" + std::to_string(j)] = makeArray("F64", t.calibration_residuals[j]);
  }
  if (!t.domain.output_sigma_out.empty()) {
    a["output_sigma_borderline"] = makeArray("F64", t.domain.output_sigma_borderline);
    a["output_sigma_out"] = makeArray("F64", t.domain.output_sigma_out);
  }
  a["score_bin_edges"] = makeArray("F64", t.score_bin_edges);
  for (size_t j = 0; j < t.binned_scores.size(); ++j)
    for (size_t b = 0; b < t.binned_scores[j].size(); ++b)
      a[binnedScoresName(j, b)] = makeArray("F64", t.binned_scores[j][b]);
  return a;
}

std::map<std::string, std::string> metadataOf(const TrustData& t, const std::string& data_sha256) {
  auto num = [](double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
  };
  return {{"format", kFormat},
          {"version", std::to_string(kTrustVersion)},
          {"model_sha256", t.model_sha256},
          {"adapter_sha256", t.adapter_sha256},
          {"outputs", std::to_string(t.outputs)},
          {"members", jsonStrings(t.members)},
          {"member_sha256", jsonStrings(t.member_sha256)},
          {"distance_share", num(t.sigma.distance_share)},
          {"neighbours", std::to_string(t.sigma.neighbours)},
          {"residual_neighbours", std::to_string(t.sigma.residual_neighbours)},
          {"residual_fade_similarity", num(t.sigma.residual_fade_similarity)},
          {"fingerprint_length", std::to_string(t.reference.fingerprints.empty()
                                                    ? 0
                                                    : t.reference.fingerprints[0].words.size() * 64)},
          {"latent_scale", num(t.latent.scale)},
          {"max_heavy_atoms", std::to_string(t.domain.max_heavy_atoms)},
          {"similarity_borderline", num(t.domain.similarity_borderline)},
          {"similarity_out", num(t.domain.similarity_out)},
          {"uncertainty_borderline", num(t.domain.uncertainty_borderline)},
          {"uncertainty_out", num(t.domain.uncertainty_out)},
          {"split", t.split_json},
          {"series", t.series},
          {"rows", jsonStrings({std::to_string(t.train_rows), std::to_string(t.valid_rows),
                                std::to_string(t.calibration_rows), std::to_string(t.test_rows)})},
          {"data_sha256", data_sha256}};
}

Status checkSizes(const TrustData& t) {
  const auto n = static_cast<size_t>(t.reference.size());
  const auto cells = n * static_cast<size_t>(t.outputs);
  if (t.outputs <= 0) return Status(StatusCode::InvalidArgument, "trust data needs at least one output");
  if (t.reference.ids.size() != n || t.reference.smiles.size() != n || t.reference.labels.size() != cells ||
      t.reference.predictions.size() != cells)
    return Status(StatusCode::InvalidArgument, "trust data: reference arrays of different lengths");
  for (const auto& f : t.reference.fingerprints)
    if (f.words.size() != t.reference.fingerprints[0].words.size())
      return Status(StatusCode::InvalidArgument, "trust data: fingerprints of different lengths");
  const auto outs = static_cast<size_t>(t.outputs);
  if (t.calibration_scores.size() != outs || t.calibration_residuals.size() != outs || t.sigma.beta.size() != outs ||
      t.sigma.ensemble_weight.size() != outs || t.sigma.distance_weight.size() != outs ||
      (t.sigma.latent_weight.size() != outs && !t.sigma.latent_weight.empty()) ||
      (t.sigma.residual_weight.size() != outs && !t.sigma.residual_weight.empty()) ||
      (t.sigma.residual_prior.size() != outs && !t.sigma.residual_prior.empty()))
    return Status(StatusCode::InvalidArgument, "trust data: per-output arrays do not match the outputs");
  if (t.latent.dim < 0 || (t.latent.dim > 0 && t.latent.embeddings.size() % static_cast<size_t>(t.latent.dim) != 0) ||
      (t.latent.dim == 0 && !t.latent.embeddings.empty()) || !(t.latent.scale > 0))
    return Status(StatusCode::InvalidArgument, "trust data: latent reference of inconsistent size or scale");
  if (t.members.size() != t.member_sha256.size())
    return Status(StatusCode::InvalidArgument, "trust data: member hashes missing");
  if (t.domain.output_sigma_borderline.size() != t.domain.output_sigma_out.size() ||
      (!t.domain.output_sigma_out.empty() && t.domain.output_sigma_out.size() != outs))
    return Status(StatusCode::InvalidArgument, "trust data: per-output domain thresholds do not match the outputs");
  if (!std::is_sorted(t.score_bin_edges.begin(), t.score_bin_edges.end()) || t.binned_scores.size() > outs)
    return Status(StatusCode::InvalidArgument, "trust data: calibration bins out of order or too many outputs");
  for (const auto& bins : t.binned_scores)
    if (!bins.empty() && bins.size() != t.score_bin_edges.size() + 1)
      return Status(StatusCode::InvalidArgument, "trust data: calibration bins do not match their edges");
  return Status::ok();
}

}  // namespace

Status writeTrust(const std::string& path, const TrustData& t) {
  if (Status s = checkSizes(t); !s.isOk()) return s;
  const auto arrays = arraysOf(t);
  std::string data;
  std::ostringstream header;
  JsonWriter w(header);
  w.beginObject();
  for (const auto& [name, a] : arrays) {
    w.key(name).beginObject().field("dtype", a.dtype).key("shape").beginArray();
    for (auto d : a.shape) w.value(d);
    w.endArray().key("data_offsets").beginArray().value(static_cast<int64_t>(data.size()));
    data += a.bytes;
    w.value(static_cast<int64_t>(data.size())).endArray().endObject();
  }
  Sha256 sha;
  sha.update(data.data(), data.size());
  w.key("__metadata__").beginObject();
  for (const auto& [k, v] : metadataOf(t, sha.hexDigest())) w.field(k, v);
  w.endObject().endObject();
  std::string text = header.str();
  text.append((8 - text.size() % 8) % 8, ' ');
  AtomicFile file(path, true);
  if (!file.isOpen()) return file.openStatus();
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>((uint64_t{text.size()} >> (8 * i)) & 0xFF);
  file.stream().write(reinterpret_cast<const char*>(len), 8);
  file.stream() << text << data;
  return file.commit();
}

namespace {

class TrustReader {
 public:
  TrustReader(std::string path, SafetensorsHeader header, std::string data)
      : path_(std::move(path)), header_(std::move(header)), data_(std::move(data)) {}

  Status error(const std::string& what) const {
    return {StatusCode::MalformedRecord, "trust file '" + path_ + "': " + what};
  }
  Result<std::string> meta(const std::string& key) const {
    auto it = header_.metadata.find(key);
    if (it == header_.metadata.end()) return error("metadata '" + key + "' is missing");
    return it->second;
  }
  Result<double> number(const std::string& key) const {
    auto s = meta(key);
    if (!s.isOk()) return s.status();
    char* end = nullptr;
    const double v = std::strtod(s->c_str(), &end);
    if (s->empty() || *end != '\0' || !std::isfinite(v)) return error("metadata '" + key + "' is not a number");
    return v;
  }
  Result<std::vector<std::string>> strings(const std::string& key) const;
  bool has(const std::string& name) const { return header_.json.find(name) != nullptr; }
  // Extent of array `name` along `axis` (0 when it has no such axis).
  int64_t dim(const std::string& name, size_t axis) const {
    const JsonValue* e = header_.json.find(name);
    const JsonValue* shape = e ? e->find("shape") : nullptr;
    if (!shape || !shape->isArray() || shape->items().size() <= axis || !shape->items()[axis].isInteger()) return 0;
    return shape->items()[axis].asInteger();
  }
  // The raw bytes of array `name`, checked for dtype, element size and (if given) element count.
  Result<std::string_view> bytes(const std::string& name, const char* dtype, size_t element, int64_t count = -1) const;
  template <typename T>
  Result<std::vector<T>> array(const std::string& name, const char* dtype, int64_t count = -1) const {
    auto b = bytes(name, dtype, sizeof(T), count);
    if (!b.isOk()) return b.status();
    std::vector<T> v(b->size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), b->data(), b->size());
    return v;
  }
  Result<std::vector<std::string>> split(const std::string& name, int64_t count) const;

 private:
  std::string path_;
  SafetensorsHeader header_;
  std::string data_;
};

Result<std::vector<std::string>> TrustReader::strings(const std::string& key) const {
  auto s = meta(key);
  if (!s.isOk()) return s.status();
  auto json = JsonValue::parse(s.value());
  if (!json.isOk() || !json->isArray()) return error("metadata '" + key + "' is not a JSON array");
  std::vector<std::string> out;
  for (const auto& v : json->items()) {
    if (!v.isString()) return error("metadata '" + key + "' holds a non-string");
    out.push_back(v.asString());
  }
  return out;
}

Result<std::string_view> TrustReader::bytes(const std::string& name, const char* dtype, size_t element,
                                            int64_t count) const {
  const JsonValue* e = header_.json.find(name);
  if (!e) return error("array '" + name + "' is missing");
  const JsonValue* dt = e->find("dtype");
  const JsonValue* off = e->find("data_offsets");
  if (!dt || !dt->isString() || dt->asString() != dtype) return error("array '" + name + "' is not " + dtype);
  if (!off || !off->isArray() || off->items().size() != 2 || !off->items()[0].isInteger() ||
      !off->items()[1].isInteger())
    return error("array '" + name + "' has no valid data_offsets");
  const auto begin = off->items()[0].asInteger(), end = off->items()[1].asInteger();
  if (begin < 0 || end < begin || static_cast<uint64_t>(end) > data_.size())
    return error("array '" + name + "' lies outside the data section (truncated file?)");
  const auto size = static_cast<size_t>(end - begin);
  if (size % element != 0 || (count >= 0 && size != static_cast<size_t>(count) * element))
    return error("array '" + name + "' has " + std::to_string(size / element) + " elements, expected " +
                 std::to_string(count));
  return std::string_view(data_).substr(static_cast<size_t>(begin), size);
}

Result<std::vector<std::string>> TrustReader::split(const std::string& name, int64_t count) const {
  auto b = bytes(name, "U8", 1);
  if (!b.isOk()) return b.status();
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < b->size(); ++i)
    if (b.value()[i] == '\0') {
      out.emplace_back(b->substr(start, i - start));
      start = i + 1;
    }
  if (start != b->size() || static_cast<int64_t>(out.size()) != count)
    return error("array '" + name + "' holds " + std::to_string(out.size()) + " strings, expected " +
                 std::to_string(count));
  return out;
}

#define GS_TRY(var, expr)                       \
  auto var##_r = (expr);                        \
  if (!var##_r.isOk()) return var##_r.status(); \
  auto var = std::move(var##_r.value())

Status readHeaderFields(const TrustReader& r, TrustData& t) {
  GS_TRY(version, r.number("version"));
  if (version < 1 || version > kTrustVersion)
    return r.error("version " + std::to_string(static_cast<int>(version)) + " (this build reads version " +
                   std::to_string(kTrustVersion) + ")");
  GS_TRY(model_sha, r.meta("model_sha256"));
  GS_TRY(adapter_sha, r.meta("adapter_sha256"));
  GS_TRY(outputs, r.number("outputs"));
  GS_TRY(members, r.strings("members"));
  GS_TRY(member_sha, r.strings("member_sha256"));
  GS_TRY(share, r.number("distance_share"));
  GS_TRY(k, r.number("neighbours"));
  GS_TRY(max_atoms, r.number("max_heavy_atoms"));
  GS_TRY(border, r.number("similarity_borderline"));
  GS_TRY(out, r.number("similarity_out"));
  if (version >= 2) {
    GS_TRY(scale, r.number("latent_scale"));
    t.latent.scale = scale;
  }
  t.sigma.residual_neighbours = 0;  // no r(x) before version 4: d(x)'s 5 neighbours are enough
  if (version >= 4) {
    GS_TRY(kr, r.number("residual_neighbours"));
    if (kr < 1 || kr > 1000) return r.error("inconsistent metadata");
    t.sigma.residual_neighbours = static_cast<int>(kr);
  }
  GS_TRY(split, r.meta("split"));
  GS_TRY(rows, r.strings("rows"));
  if (outputs < 1 || outputs > 4096 || members.size() != member_sha.size() || rows.size() != 4 || k < 1)
    return r.error("inconsistent metadata");
  t.model_sha256 = model_sha;
  t.adapter_sha256 = adapter_sha;
  t.outputs = static_cast<int>(outputs);
  t.members = members;
  t.member_sha256 = member_sha;
  t.sigma.distance_share = share;
  t.sigma.neighbours = static_cast<int>(k);
  t.domain.max_heavy_atoms = static_cast<int>(max_atoms);
  t.domain.similarity_borderline = border;
  t.domain.similarity_out = out;
  t.split_json = split;
  if (auto series = r.meta("series"); series.isOk() && !series->empty()) {  // optional: calibrate --series
    auto json = JsonValue::parse(series.value());
    if (!json.isOk() || !json->isObject()) return r.error("metadata 'series' is not a JSON object");
    t.series = series.value();
  }
  int64_t* counts[] = {&t.train_rows, &t.valid_rows, &t.calibration_rows, &t.test_rows};
  for (size_t i = 0; i < 4; ++i) *counts[i] = std::atoll(rows[i].c_str());
  return Status::ok();
}

// Version 3: on-bit positions and per-molecule offsets; 1 and 2: dense words [n, words].
Result<std::vector<similarity::BitFingerprint>> readFingerprints(const TrustReader& r, int64_t n) {
  std::vector<similarity::BitFingerprint> out(static_cast<size_t>(n));
  if (r.has("fingerprints")) {
    GS_TRY(fp, r.array<uint64_t>("fingerprints", "U64"));
    if (fp.size() % static_cast<size_t>(n) != 0) return r.error("fingerprints do not match the reference molecules");
    const size_t words = fp.size() / static_cast<size_t>(n);
    for (size_t i = 0; i < out.size(); ++i)
      out[i].words.assign(fp.begin() + static_cast<std::ptrdiff_t>(i * words),
                          fp.begin() + static_cast<std::ptrdiff_t>((i + 1) * words));
  } else {
    GS_TRY(length, r.number("fingerprint_length"));
    GS_TRY(bits, r.array<uint16_t>("fingerprint_bits", "U16"));
    GS_TRY(offsets, r.array<int64_t>("fingerprint_offsets", "I64", n + 1));
    if (length < 64 || length > 65536 || std::fmod(length, 64) != 0 || offsets.front() != 0 ||
        offsets.back() != static_cast<int64_t>(bits.size()))
      return r.error("fingerprints do not match the reference molecules");
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].words.assign(static_cast<size_t>(length) / 64, 0);
      if (offsets[i] > offsets[i + 1]) return r.error("fingerprint offsets decrease");
      for (int64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
        const uint16_t b = bits[static_cast<size_t>(k)];
        if (b >= length) return r.error("a fingerprint bit past the fingerprint's length");
        out[i].words[b / 64] |= uint64_t{1} << (b % 64);
      }
    }
  }
  for (auto& f : out) {
    f.on_bits = 0;
    for (auto w : f.words) f.on_bits += __builtin_popcountll(w);
  }
  return out;
}

// Per-output domain thresholds and the calibration bins (absent before version 5).
Status readVersion5Arrays(const TrustReader& r, TrustData& t) {
  const int outs = t.outputs;
  if (r.has("output_sigma_out")) {
    GS_TRY(border, r.array<double>("output_sigma_borderline", "F64", outs));
    GS_TRY(out, r.array<double>("output_sigma_out", "F64", outs));
    t.domain.output_sigma_borderline = std::move(border);
    t.domain.output_sigma_out = std::move(out);
  }
  if (!r.has("score_bin_edges")) return Status::ok();
  GS_TRY(edges, r.array<double>("score_bin_edges", "F64"));
  if (edges.size() > 64) return r.error("too many calibration bins");
  t.score_bin_edges = std::move(edges);
  for (int j = 0; j < outs && !t.score_bin_edges.empty(); ++j) {
    std::vector<std::vector<double>> bins;
    for (size_t b = 0; b <= t.score_bin_edges.size() && r.has(binnedScoresName(static_cast<size_t>(j), b)); ++b) {
      GS_TRY(s, r.array<double>(binnedScoresName(static_cast<size_t>(j), b), "F64"));
      bins.push_back(std::move(s));
    }
    t.binned_scores.push_back(std::move(bins));
  }
  return Status::ok();
}

Status readArrays(const TrustReader& r, TrustData& t) {
  const int outs = t.outputs;
  GS_TRY(labels, r.array<float>("labels", "F32"));
  if (labels.size() % static_cast<size_t>(outs) != 0) return r.error("labels do not match the outputs");
  const int64_t n = static_cast<int64_t>(labels.size()) / outs;
  if (n == 0) return r.error("no reference molecules");
  GS_TRY(preds, r.array<float>("predictions", "F32", n * outs));
  GS_TRY(ids, r.split("ids", n));
  GS_TRY(smiles, r.split("smiles", n));
  GS_TRY(fingerprints, readFingerprints(r, n));
  t.reference.fingerprints = std::move(fingerprints);
  t.reference.labels = std::move(labels);
  t.reference.predictions = std::move(preds);
  t.reference.ids = std::move(ids);
  t.reference.smiles = std::move(smiles);
  GS_TRY(elements, r.array<int32_t>("elements", "I32"));
  t.domain.elements.assign(elements.begin(), elements.end());
  GS_TRY(r1, r.array<uint32_t>("env_r1", "U32"));
  GS_TRY(r2, r.array<uint32_t>("env_r2", "U32"));
  t.domain.env_r1 = std::move(r1);
  t.domain.env_r2 = std::move(r2);
  GS_TRY(a, r.array<double>("sigma_ensemble_weight", "F64", outs));
  GS_TRY(b, r.array<double>("sigma_distance_weight", "F64", outs));
  GS_TRY(beta, r.array<double>("sigma_beta", "F64", outs));
  t.sigma.ensemble_weight = std::move(a);
  t.sigma.distance_weight = std::move(b);
  t.sigma.beta = std::move(beta);
  if (r.has("sigma_median")) {
    GS_TRY(m, r.array<double>("sigma_median", "F64", outs));
    GS_TRY(border, r.number("uncertainty_borderline"));
    GS_TRY(out, r.number("uncertainty_out"));
    t.domain.sigma_median = std::move(m);
    t.domain.uncertainty_borderline = border;
    t.domain.uncertainty_out = out;
  }
  t.sigma.latent_weight.assign(static_cast<size_t>(outs), 0.0);
  if (r.has("sigma_latent_weight")) {
    GS_TRY(c, r.array<double>("sigma_latent_weight", "F64", outs));
    t.sigma.latent_weight = std::move(c);
    GS_TRY(latent, r.array<float>("latent_reference", "F32"));
    t.latent.dim = static_cast<int>(r.dim("latent_reference", 1));
    t.latent.embeddings = std::move(latent);
  }
  t.sigma.residual_weight.assign(static_cast<size_t>(outs), 0.0);
  if (r.has("sigma_residual_weight")) {
    GS_TRY(e, r.array<double>("sigma_residual_weight", "F64", outs));
    t.sigma.residual_weight = std::move(e);
  }
  if (r.has("sigma_residual_prior")) {  // version 6
    GS_TRY(prior, r.array<double>("sigma_residual_prior", "F64", outs));
    GS_TRY(fade, r.number("residual_fade_similarity"));
    if (fade < 0 || fade > 1) return r.error("inconsistent metadata");
    t.sigma.residual_prior = std::move(prior);
    t.sigma.residual_fade_similarity = fade;
  }
  for (int j = 0; j < outs; ++j) {
    GS_TRY(s, r.array<double>("calibration_scores_" + std::to_string(j), "F64"));
    GS_TRY(res, r.array<double>("calibration_residuals_" + std::to_string(j), "F64"));
    t.calibration_scores.push_back(std::move(s));
    t.calibration_residuals.push_back(std::move(res));
  }
  return readVersion5Arrays(r, t);
}

}  // namespace

Result<TrustData> readTrust(const std::string& path) {
  auto header = readSafetensorsHeader(path);
  if (!header.isOk()) return Status(header.status().code(), "trust file: " + header.status().message());
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(header->data_start));
  std::string data(static_cast<size_t>(header->file_size - header->data_start), '\0');
  if (!in.read(data.data(), static_cast<std::streamsize>(data.size())))
    return Status(StatusCode::IoError, "trust file '" + path + "': cannot read the data section");
  Sha256 sha;
  sha.update(data.data(), data.size());
  const std::string digest = sha.hexDigest();
  TrustReader r(path, std::move(header.value()), std::move(data));
  GS_TRY(format, r.meta("format"));
  if (format != kFormat) return r.error("not a trust file (format '" + format + "')");
  GS_TRY(expected, r.meta("data_sha256"));
  if (expected != digest) return r.error("data section does not match its SHA-256 (corrupt or truncated file)");
  TrustData t;
  if (Status s = readHeaderFields(r, t); !s.isOk()) return s;
  if (Status s = readArrays(r, t); !s.isOk()) return s;
  if (Status s = checkSizes(t); !s.isOk()) return r.error(s.message());
  return t;
}

#undef GS_TRY

}  // namespace gs::bundle
