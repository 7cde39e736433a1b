#include "predict/predictor.h"

#include <algorithm>

#include "engine/mirror_average.h"
#include "model/loader.h"
#include "tensor/torch_compat.h"

namespace gs::predict {

Predictor::Predictor(std::shared_ptr<const model::LoadedModel> model, const PredictorOptions& options,
                     std::unique_ptr<engine::InferenceSession> session)
    : model_(std::move(model)), options_(options), session_(std::move(session)) {}

Predictor::~Predictor() = default;

Result<std::unique_ptr<Predictor>> Predictor::open(const PredictorOptions& options) {
  auto loaded = model::openModel(options.model);
  if (!loaded.isOk()) return loaded.status();
  return open(std::make_shared<const model::LoadedModel>(std::move(loaded.value())), options);
}

Result<std::unique_ptr<Predictor>> Predictor::open(std::shared_ptr<const model::LoadedModel> model,
                                                   const PredictorOptions& options) {
  if (!model || !model->model) return Status(StatusCode::InvalidArgument, "no model loaded");
  if (!(options.confidence > 0 && options.confidence < 1))
    return Status(StatusCode::InvalidArgument, "the confidence level must lie between 0 and 1 (e.g. 0.9)");
  std::unique_ptr<TrustEnsemble> trust;
  std::string note = "trust is off: interval and domain columns are empty";
  if (options.trust) {
    auto opened = TrustEnsemble::open(*model, options.session, &note);
    if (!opened.isOk()) return opened.status();
    trust = std::move(opened.value());
    if (trust) note.clear();
  }
  auto session_options = options.session;  // the latent distance needs the model's embeddings
  session_options.embeddings = session_options.embeddings || (trust && trust->assessor().usesEmbeddings());
  auto session = engine::InferenceSession::create(*model, session_options);
  if (!session.isOk()) return session.status();
  std::unique_ptr<Predictor> p(new Predictor(model, options, std::move(session.value())));
  p->trust_ = std::move(trust);
  p->trust_note_ = note;
  return p;
}

chem::FeaturizeOptions Predictor::featurizeOptions(bool keep_molecule) const {
  auto f = chem::FeaturizeOptions::forModel(model_->config, options_.parse, options_.atom_order);
  f.keep_molecule = keep_molecule;
  f.strip_salts = options_.strip_salts;
  f.domain = trust_ != nullptr;
  return f;
}

chem::MoleculeRow Predictor::featurize(const data::RawRecord& record, bool keep_molecule) const {
  return chem::featurizeRecord(record, featurizeOptions(keep_molecule));
}

std::vector<PredictedRow> Predictor::predict(const std::vector<data::RawRecord>& records,
                                             const engine::RunCallbacks& callbacks) {
  const auto options = featurizeOptions();
  std::vector<chem::MoleculeRow> rows;
  rows.reserve(records.size());
  for (const auto& r : records) rows.push_back(chem::featurizeRecord(r, options));
  return predict(rows, callbacks);
}

std::vector<PredictedRow> Predictor::predict(const std::vector<chem::MoleculeRow>& rows,
                                             const engine::RunCallbacks& callbacks) {
  std::vector<int> prediction_of_row;
  const auto molecules = chem::featurizedMolecules(rows, &prediction_of_row);
  const bool mirror = model_->metadata.mirrorInvariant();
  const auto predictions = engine::predictForTargets(*session_, mirror, molecules, callbacks);
  std::vector<PredictedRow> out(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const chem::MoleculeRow& row = rows[r];
    PredictedRow& o = out[r];
    static_cast<data::RowIdentity&>(o) = row;
    o.num_atoms = row.num_atoms;
    if (prediction_of_row[r] < 0) continue;
    const auto& p = predictions[prediction_of_row[r]];
    o.status = p.status;
    o.values = p.values;
  }
  if (trust_)
    trust_->apply(rows, molecules, prediction_of_row, predictions, options_.confidence, mirror, callbacks, out);
  return out;
}

int Predictor::numOutputs() const { return session_->numOutputs(); }

std::vector<std::string> Predictor::header() const { return predictionHeader(model_->metadata, numOutputs()); }

RunRecord Predictor::runRecord() const {
  RunRecord info;
  const auto& m = *model_;
  const auto& so = session_->options();
  info.model_path = m.weights_path;
  info.model_format = m.format;
  info.model_sha256 = m.sha256;
  info.adapter_path = m.source.adapter;
  info.adapter_sha256 = m.adapter_sha256;
  info.layers = m.config.num_hidden_layers;
  info.embedding_dim = m.config.embedding_dim;
  info.heads = m.config.num_attention_heads;
  info.outputs = m.config.num_classes;
  for (int j = 0; j < m.config.num_classes; ++j) {
    info.output_names.push_back(m.metadata.outputName(j));
    info.output_units.push_back(j < static_cast<int>(m.metadata.target_units.size()) ? m.metadata.target_units[j] : "");
  }
  info.precision = tensor::precisionName(so.precision);
  info.batch_size = so.plan.max_batch_size;
  info.bucketing = so.plan.bucketing;
  info.device = session_->deviceName();
  info.threads = compat::threads();
  info.convention = graph::conventionName(session_->collateOptions().convention);
  info.spatial_pos_max = session_->collateOptions().spatial_pos_max;
  info.multi_hop_max_dist = session_->collateOptions().multi_hop_max_dist;
  info.libtorch_version = compat::torchVersion();
  info.rdkit_version = chem::rdkitVersion();
  info.out_of_memory_retries = session_->outOfMemoryRetries();
  info.strip_salts = options_.strip_salts;
  info.mirror_averaged = m.metadata.mirrorInvariant();
  info.confidence = options_.confidence;
  info.trust_note = trust_note_;
  if (trust_) {
    info.trust_path = trust_->path();
    info.trust_members = trust_->members();
    info.calibration_rows = trust_->assessor().data().calibration_rows;
    info.trust_series = trust_->assessor().data().series;
  }
  return info;
}

PredictedRow pendingRow(const data::RawRecord& record, Status status) {
  PredictedRow row;
  row.row = record.row;
  row.id = record.id;
  row.input = record.kind == data::RecordKind::Smiles ? record.text : std::string();
  row.status = std::move(status);
  row.fields = record.fields;
  return row;
}

namespace {

// Rows of records left unpredicted after a cancel: identity and status cancelled.
std::vector<PredictedRow> cancelledRows(const std::vector<data::RawRecord>& records) {
  std::vector<PredictedRow> out;
  out.reserve(records.size());
  for (const auto& r : records)
    out.push_back(pendingRow(r, Status(StatusCode::Cancelled, "not predicted: the run was cancelled")));
  return out;
}

}  // namespace

Result<StreamSummary> predictStream(Predictor& predictor, data::RecordReader& source, const RowSink& sink,
                                    const engine::RunCallbacks& callbacks, int chunk_rows) {
  StreamSummary summary;
  std::vector<data::RawRecord> chunk;
  data::RawRecord record;
  bool more = true;
  while (more) {
    chunk.clear();
    while (static_cast<int>(chunk.size()) < std::max(1, chunk_rows) && (more = source.next(record)))
      chunk.push_back(record);
    if (chunk.empty()) break;
    summary.cancelled = summary.cancelled || (callbacks.cancelled && callbacks.cancelled());
    auto rows = summary.cancelled ? cancelledRows(chunk) : predictor.predict(chunk, callbacks);
    for (size_t i = 0; i < rows.size(); ++i) rows[i].fields = std::move(chunk[i].fields);
    for (const auto& r : rows) ++summary.by_status[statusCodeName(r.status.code())];
    summary.rows += static_cast<int64_t>(rows.size());
    if (Status s = sink(rows); !s.isOk()) return s;
  }
  return summary;
}

std::vector<chem::MoleculeRow> featurizeUsable(const Predictor& predictor, data::RecordReader& source,
                                               int64_t max_molecules, int64_t* rows_read) {
  std::vector<chem::MoleculeRow> out;
  const auto options = predictor.featurizeOptions();
  const auto& config = predictor.model().config;
  data::RawRecord record;
  int64_t read = 0;
  while ((max_molecules <= 0 || static_cast<int64_t>(out.size()) < max_molecules) && source.next(record)) {
    ++read;
    auto row = chem::featurizeRecord(record, options);
    if (row.features && engine::admit(&*row.features, config).isOk()) out.push_back(std::move(row));
  }
  if (rows_read) *rows_read = read;
  return out;
}

bool VectorReader::next(data::RawRecord& out) {
  if (next_ >= records_.size()) return false;
  out = records_[next_++];
  return true;
}

}  // namespace gs::predict
