#include "jobs/model_summary.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "bundle/trust_file.h"
#include "common/json_value.h"
#include "model/loader.h"
#include "predict/prediction_table.h"
#include "predict/trust_ensemble.h"

namespace gs::jobs {
namespace {

// What the summary shows of the trust data beside the weights (predict/trust_ensemble.h); a file
// that cannot be read is reported when a run opens it.
void addTrust(const model::LoadedModel& m, ModelSummary& s) {
  const std::string path = predict::TrustEnsemble::trustPath(m);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    s.trust_note = "This model has no trust data (trust.safetensors): predictions come without intervals or domain.";
    return;
  }
  auto trust = bundle::readTrust(path);
  if (!trust.isOk()) {
    s.trust_note = trust.status().message();
    return;
  }
  s.calibration_molecules = trust->calibration_rows;
  if (auto series = JsonValue::parse(trust->series); !trust->series.empty() && series.isOk())
    if (const JsonValue* file = series->find("file"); file && file->isString()) s.calibration_series = file->asString();
  const auto& ref = trust->reference;
  for (int j = 0; j < trust->outputs; ++j) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double v = ref.labels[static_cast<size_t>(i * trust->outputs + j)];
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    s.label_range.emplace_back(lo, hi);
  }
}

ModelSummary summarize(const model::LoadedModel& m) {
  ModelSummary s;
  s.source = {m.weights_path, m.source.adapter};
  s.files = m.source.files();
  s.sha256 = m.sha256;
  s.description = m.metadata.description;
  const int outputs = m.config.num_classes;
  for (int j = 0; j < outputs; ++j) {
    s.target_names.push_back(m.metadata.outputName(j));
    s.target_units.push_back(j < static_cast<int>(m.metadata.target_units.size()) ? m.metadata.target_units[j] : "");
  }
  s.layers = m.config.num_hidden_layers;
  s.embedding_dim = m.config.embedding_dim;
  s.heads = m.config.num_attention_heads;
  s.parameters = m.config.parameterCount();
  s.convention = graph::conventionName(m.metadata.convention.value_or(graph::Convention::Official));
  s.notes = m.notes;
  s.prediction_header = predict::predictionHeader(m.metadata, outputs);
  addTrust(m, s);
  return s;
}

}  // namespace

Result<OpenedModel> openForPrediction(const bundle::ModelSource& source) {
  auto loaded = model::openModel(source);
  if (!loaded.isOk()) return loaded.status();
  OpenedModel out;
  auto shared = std::make_shared<const model::LoadedModel>(std::move(loaded.value()));
  out.summary = summarize(*shared);
  out.model = std::move(shared);
  return out;
}

}  // namespace gs::jobs
