#include "predict/prediction_table.h"

#include "predict/prediction_writer.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "common/atomic_file.h"
#include "common/json_writer.h"

#ifndef GS_VERSION
#define GS_VERSION "dev"
#endif

namespace gs::predict {
namespace {

std::string utcTimestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::vector<std::string> predictionHeader(const bundle::ModelMetadata& metadata, int num_outputs) {
  std::vector<std::string> header{"row", "id", "smiles", "canonical_smiles", "status"};
  for (int j = 0; j < num_outputs; ++j) header.push_back(metadata.outputName(j));
  for (int j = 0; j < num_outputs; ++j)
    for (const char* suffix : {"_lower", "_upper", "_sigma", "_domain"}) header.push_back(metadata.outputName(j) + suffix);
  for (const char* name : {"domain", "domain_reasons", "nn_similarity", "message"}) header.push_back(name);
  return header;
}

namespace {

std::string bound(double v) { return std::isinf(v) ? (v > 0 ? "inf" : "-inf") : data::CsvWriter::number(v); }

void trustFields(const std::optional<TrustRow>& t, int num_outputs, std::vector<std::string>& fields) {
  const bool ok = t && static_cast<int>(t->sigma.size()) >= num_outputs;
  for (int j = 0; j < num_outputs; ++j) {
    fields.push_back(ok ? bound(t->lower[j]) : std::string());
    fields.push_back(ok ? bound(t->upper[j]) : std::string());
    fields.push_back(ok ? data::CsvWriter::number(t->sigma[j]) : std::string());
    fields.push_back(ok ? domainBandName(t->outputBand(j)) : std::string());
  }
  std::string reasons;
  if (t)
    for (const auto& r : t->reasons) reasons += (reasons.empty() ? "" : "; ") + r;
  fields.push_back(t ? domainBandName(t->band) : "");
  fields.push_back(reasons);
  fields.push_back(t ? data::CsvWriter::number(t->nn_similarity) : std::string());
}

}  // namespace

std::vector<std::string> predictionFields(const PredictedRow& row, int num_outputs) {
  std::vector<std::string> fields{std::to_string(row.row), row.id, row.input, row.canonical,
                                  statusCodeName(row.status.code())};
  const bool ok = row.status.isOk() && static_cast<int>(row.values.size()) >= num_outputs;
  for (int j = 0; j < num_outputs; ++j) fields.push_back(ok ? data::CsvWriter::number(row.values[j]) : std::string());
  trustFields(ok ? row.trust : std::nullopt, num_outputs, fields);
  fields.push_back(row.status.isOk() ? row.note : row.status.message());
  return fields;
}

InputColumns InputColumns::choose(const std::vector<std::string>& reader_columns, const std::vector<int>& other,
                                  const std::vector<std::string>& prediction_header) {
  InputColumns out;
  std::vector<std::string> taken = prediction_header;
  for (int c : other) {
    if (c < 0 || c >= static_cast<int>(reader_columns.size())) continue;
    std::string name = reader_columns[static_cast<size_t>(c)];
    if (name.empty()) name = "column_" + std::to_string(c + 1);
    while (std::find(taken.begin(), taken.end(), name) != taken.end()) name = "input_" + name;
    taken.push_back(name);
    out.indices.push_back(c);
    out.names.push_back(name);
  }
  return out;
}

std::vector<std::string> InputColumns::values(const std::vector<std::string>& fields) const {
  std::vector<std::string> out;
  out.reserve(indices.size());
  for (int c : indices)
    out.push_back(c < static_cast<int>(fields.size()) ? fields[static_cast<size_t>(c)] : std::string());
  return out;
}

std::map<std::string, int64_t> statusCounts(const std::vector<PredictedRow>& rows) {
  std::map<std::string, int64_t> counts;
  for (const auto& r : rows) ++counts[statusCodeName(r.status.code())];
  return counts;
}

Status writeRunRecord(const std::string& csv_path, const RunRecord& m, int64_t rows,
                      const std::map<std::string, int64_t>& counts) {
  AtomicFile file(csv_path + ".json");
  if (!file.isOpen()) return file.openStatus();
  JsonWriter w(file.stream());
  w.beginObject()
      .field("tool", m.tool)
      .field("version", GS_VERSION)
      .field("timestamp", utcTimestamp())
      .field("input", m.input)
      .field("output", csv_path)
      .key("model")
      .beginObject()
      .field("path", m.model_path)
      .field("format", m.model_format)
      .field("sha256", m.model_sha256)
      .field("layers", m.layers)
      .field("embedding_dim", m.embedding_dim)
      .field("heads", m.heads)
      .field("outputs", m.outputs)
      .field("adapter", m.adapter_path)
      .field("adapter_sha256", m.adapter_sha256);
  w.key("properties").beginArray();  // each output's column name and unit
  for (size_t j = 0; j < m.output_names.size(); ++j)
    w.beginObject()
        .field("name", m.output_names[j])
        .field("unit", j < m.output_units.size() ? m.output_units[j] : std::string())
        .endObject();
  w.endArray()
      .endObject()
      .field("precision", m.precision)
      .field("batch_size", m.batch_size)
      .field("bucketing", m.bucketing)
      .field("device", m.device)
      .field("threads", m.threads)
      .field("convention", m.convention)
      .field("spatial_pos_max", m.spatial_pos_max)
      .field("multi_hop_max_dist", m.multi_hop_max_dist)
      .key("libraries")
      .beginObject()
      .field("libtorch", m.libtorch_version)
      .field("rdkit", m.rdkit_version)
      .endObject()
      .field("rows", rows)
      .field("seconds", m.seconds)
      .field("out_of_memory_retries", m.out_of_memory_retries)
      .field("strip_salts", m.strip_salts)
      .field("mirror_averaged", m.mirror_averaged)
      .key("trust")
      .beginObject()
      .field("file", m.trust_path)
      .field("members", m.trust_members)
      .field("calibration_molecules", m.calibration_rows)
      .key("series")
      .raw(m.trust_series.empty() ? "null" : m.trust_series)
      .field("confidence", m.confidence)
      .field("note", m.trust_note)
      .endObject();
  w.key("counts").beginObject();
  for (const auto& [name, count] : counts) w.field(name, count);
  w.endObject().endObject();
  file.stream() << '\n';
  return file.commit();
}

Status writePredictions(const std::string& path, const bundle::ModelMetadata& metadata, int num_outputs,
                        const std::vector<PredictedRow>& rows, const RunRecord& info,
                        const std::vector<std::string>& input_columns) {
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  auto header = predictionHeader(metadata, num_outputs);
  header.insert(header.end(), input_columns.begin(), input_columns.end());
  const auto writer = makePredictionWriter(file.stream(), path, header);
  for (const auto& r : rows) {
    auto fields = predictionFields(r, num_outputs);
    for (size_t k = 0; k < input_columns.size(); ++k)
      fields.push_back(k < r.fields.size() ? r.fields[k] : std::string());
    writer->write(fields, r);
  }
  if (Status s = file.commit(); !s.isOk()) return s;
  return writeRunRecord(path, info, static_cast<int64_t>(rows.size()), statusCounts(rows));
}

}  // namespace gs::predict
