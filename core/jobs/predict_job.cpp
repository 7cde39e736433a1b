#include "jobs/predict_job.h"

#include <chrono>
#include <ctime>
#include <memory>

#include "chem/molecule.h"
#include "common/atomic_file.h"
#include "common/json_writer.h"
#include "data/csv_writer.h"
#include "engine/torch_compat.h"
#include "model/lora.h"

#ifndef GS_VERSION
#define GS_VERSION "dev"
#endif

namespace gs::jobs {
namespace {

std::string utcTimestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void writeRows(const std::vector<chem::MoleculeRow>& rows, const std::vector<engine::Prediction>& predictions,
               const std::vector<int>& prediction_of_row, int num_outputs, data::CsvWriter& csv, PredictSummary& summary) {
  std::vector<std::string> fields;
  for (size_t r = 0; r < rows.size(); ++r) {
    const chem::MoleculeRow& row = rows[r];
    const engine::Prediction* p = prediction_of_row[r] >= 0 ? &predictions[prediction_of_row[r]] : nullptr;
    const Status& status = p ? p->status : row.status;
    fields.assign({std::to_string(row.row), row.id, row.input, row.canonical, statusCodeName(status.code())});
    for (int j = 0; j < num_outputs; ++j)
      fields.push_back(p && status.isOk() ? data::CsvWriter::number(p->values[j]) : std::string());
    fields.push_back(status.isOk() ? std::string() : status.message());
    csv.row(fields);
    ++summary.rows;
    ++summary.by_status[statusCodeName(status.code())];
  }
}

Status writeRunRecord(const PredictJobOptions& options, const engine::InferenceSession& session,
                      const PredictSummary& summary) {
  AtomicFile file(options.output + ".json");
  if (!file.isOpen()) return file.openStatus();
  const auto& m = session.model();
  JsonWriter w(file.stream());
  w.beginObject()
      .field("tool", "graphormer-cli predict").field("version", GS_VERSION).field("timestamp", utcTimestamp())
      .field("input", options.input).field("output", options.output)
      .key("model").beginObject()
      .field("path", m.weights_path).field("format", m.format).field("sha256", summary.model_sha256)
      .field("layers", m.config.num_hidden_layers).field("embedding_dim", m.config.embedding_dim)
      .field("heads", m.config.num_attention_heads).field("outputs", m.config.num_classes)
      .field("adapter", summary.adapter_path).field("adapter_sha256", summary.adapter_sha256)
      .endObject()
      .field("precision", engine::precisionName(session.options().precision))
      .field("batch_size", session.options().plan.max_batch_size)
      .field("bucketing", session.options().plan.bucketing)
      .field("device", session.deviceName())
      .field("threads", at::get_num_threads())
      .field("convention", data::conventionName(session.collateOptions().convention))
      .field("spatial_pos_max", session.collateOptions().spatial_pos_max)
      .field("multi_hop_max_dist", session.collateOptions().multi_hop_max_dist)
      .key("libraries").beginObject()
      .field("libtorch", compat::torchVersion()).field("rdkit", chem::rdkitVersion())
      .endObject()
      .field("rows", summary.rows)
      .field("seconds", summary.seconds);
  w.key("counts").beginObject();
  for (const auto& [name, count] : summary.by_status) w.field(name, count);
  w.endObject().endObject();
  file.stream() << '\n';
  return file.commit();
}

}  // namespace

std::vector<std::string> predictionHeader(const model::ModelMetadata& metadata, int num_outputs) {
  std::vector<std::string> header{"row", "id", "smiles", "canonical_smiles", "status"};
  for (int j = 0; j < num_outputs; ++j) header.push_back(metadata.outputName(j));
  header.push_back("message");
  return header;
}

Result<PredictSummary> runPredict(const PredictJobOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PredictSummary summary;
  auto loaded = model::loadModelWithAdapter(options.model, options.adapter);
  if (!loaded.isOk()) return loaded.status();
  summary.model_sha256 = loaded->sha256;
  summary.adapter_path = loaded->adapter_path;
  summary.adapter_sha256 = loaded->adapter_sha256;
  summary.notes = loaded->model.notes;
  auto session = engine::InferenceSession::create(std::move(loaded->model), options.session);
  if (!session.isOk()) return session.status();
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();

  chem::FeaturizeOptions featurize = options.featurize;
  featurize.multi_hop_max_dist = session.value()->collateOptions().multi_hop_max_dist;
  const int outputs = session.value()->numOutputs();
  AtomicFile file(options.output);
  if (!file.isOpen()) return file.openStatus();
  data::CsvWriter csv(file.stream());
  csv.row(predictionHeader(session.value()->model().metadata, outputs));

  std::vector<chem::MoleculeRow> rows;
  data::RawRecord record;
  bool more = true;
  while (more) {
    rows.clear();
    while (static_cast<int>(rows.size()) < std::max(1, options.chunk_rows) && (more = reader.value()->next(record)))
      rows.push_back(chem::featurizeRecord(record, featurize));
    std::vector<const graph::Featurized*> molecules;
    std::vector<int> prediction_of_row(rows.size(), -1);
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!rows[r].features) continue;
      prediction_of_row[r] = static_cast<int>(molecules.size());
      molecules.push_back(&*rows[r].features);
    }
    engine::RunCallbacks callbacks;
    callbacks.cancelled = options.cancelled;
    const auto predictions = session.value()->predict(molecules, callbacks);
    writeRows(rows, predictions, prediction_of_row, outputs, csv, summary);
    if (options.progress) options.progress(summary.rows);
  }
  if (Status s = file.commit(); !s.isOk()) return s;
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (Status s = writeRunRecord(options, *session.value(), summary); !s.isOk()) return s;
  return summary;
}

}  // namespace gs::jobs
