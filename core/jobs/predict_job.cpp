#include "jobs/predict_job.h"

#include <chrono>
#include <ctime>
#include <memory>

#include "chem/molecule.h"
#include "common/atomic_file.h"
#include "common/json_writer.h"
#include "data/csv_writer.h"
#include "engine/torch_compat.h"
#include "jobs/output_check.h"
#include "model/loader.h"

namespace gs::jobs {

std::vector<PredictedRow> predictRows(engine::InferenceSession& session, const std::vector<chem::MoleculeRow>& rows,
                                      const engine::RunCallbacks& callbacks) {
  std::vector<int> prediction_of_row;
  const auto molecules = chem::featurizedMolecules(rows, &prediction_of_row);
  const auto predictions = session.predict(molecules, callbacks);
  std::vector<PredictedRow> out(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const chem::MoleculeRow& row = rows[r];
    PredictedRow& o = out[r];
    o.row = row.row;
    o.id = row.id;
    o.input = row.input;
    o.canonical = row.canonical;
    o.num_atoms = row.num_atoms;
    o.status = row.status;
    if (prediction_of_row[r] >= 0) {
      const auto& p = predictions[prediction_of_row[r]];
      o.status = p.status;
      o.values = p.values;
    }
  }
  return out;
}

RunInfo sessionRunInfo(const engine::InferenceSession& session, const std::string& model_sha256) {
  RunInfo info;
  const auto& m = session.model();
  info.model_path = m.weights_path;
  info.model_format = m.format;
  info.model_sha256 = model_sha256;
  info.layers = m.config.num_hidden_layers;
  info.embedding_dim = m.config.embedding_dim;
  info.heads = m.config.num_attention_heads;
  info.outputs = m.config.num_classes;
  info.precision = engine::precisionName(session.options().precision);
  info.batch_size = session.options().plan.max_batch_size;
  info.bucketing = session.options().plan.bucketing;
  info.device = session.deviceName();
  info.threads = at::get_num_threads();
  info.convention = data::conventionName(session.collateOptions().convention);
  info.spatial_pos_max = session.collateOptions().spatial_pos_max;
  info.multi_hop_max_dist = session.collateOptions().multi_hop_max_dist;
  info.libtorch_version = compat::torchVersion();
  info.rdkit_version = chem::rdkitVersion();
  return info;
}

Result<PredictSummary> runPredict(const PredictJobOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PredictSummary summary;
  if (Status s = checkOutputs({options.output, options.output + ".json"}, {options.input}, options.model); !s.isOk()) return s;
  auto loaded = model::openModel(options.model);
  if (!loaded.isOk()) return loaded.status();
  summary.model_path = loaded->weights_path;
  summary.model_sha256 = loaded->sha256;
  summary.adapter_path = loaded->source.adapter;
  summary.adapter_sha256 = loaded->adapter_sha256;
  summary.notes = loaded->notes;
  auto session = engine::InferenceSession::create(std::move(loaded.value()), options.session);
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
  engine::RunCallbacks callbacks;
  callbacks.cancelled = options.cancelled;
  while (more) {
    rows.clear();
    while (static_cast<int>(rows.size()) < std::max(1, options.chunk_rows) && (more = reader.value()->next(record)))
      rows.push_back(chem::featurizeRecord(record, featurize));
    for (const auto& out : predictRows(*session.value(), rows, callbacks)) {
      csv.row(predictionFields(out, outputs));
      ++summary.rows;
      ++summary.by_status[statusCodeName(out.status.code())];
    }
    if (options.progress) options.progress(summary.rows);
  }
  if (Status s = file.commit(); !s.isOk()) return s;
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RunInfo info = sessionRunInfo(*session.value(), summary.model_sha256);
  info.input = options.input;
  info.adapter_path = summary.adapter_path;
  info.adapter_sha256 = summary.adapter_sha256;
  info.seconds = summary.seconds;
  info.out_of_memory_retries = session.value()->outOfMemoryRetries();
  summary.out_of_memory_retries = info.out_of_memory_retries;
  if (Status s = writeRunRecord(options.output, info, summary.rows, summary.by_status); !s.isOk()) return s;
  return summary;
}

}  // namespace gs::jobs
