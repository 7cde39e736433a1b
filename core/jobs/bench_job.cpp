#include "jobs/bench_job.h"

#include "jobs/bench_report.h"
#include "jobs/output_check.h"
#include "model/loader.h"

namespace gs::jobs {

Result<std::vector<engine::ModeResult>> compareModes(const predict::Predictor& predictor,
                                                     const std::vector<chem::MoleculeRow>& rows,
                                                     engine::CompareOptions options,
                                                     const engine::CompareCallbacks& callbacks) {
  std::vector<const graph::Featurized*> mols;
  for (const auto& r : rows)
    if (r.features) mols.push_back(&*r.features);
  options.device = predictor.options().session.device;
  options.threads = predictor.options().session.threads;
  for (const auto& mode : options.modes) {
    if (mode.model.empty() || options.models.count(mode.model)) continue;
    auto other = model::openModel(bundle::ModelSource{mode.model, {}});
    if (!other.isOk()) return Status(other.status().code(), "mode '" + mode.label() + "': " + other.status().message());
    options.models[mode.model] = std::make_shared<const model::LoadedModel>(std::move(other.value()));
  }
  return engine::runComparison(predictor.model(), mols, options, callbacks);
}

Result<BenchJobSummary> runBench(const BenchJobOptions& options, const engine::CompareCallbacks& callbacks) {
  BenchJobSummary summary;
  if (Status s = checkOutputs({options.json_path, options.csv_path}, {options.input}, options.predictor.model);
      !s.isOk())
    return s;
  predict::PredictorOptions po = options.predictor;
  po.trust = false;  // bench times the model's own modes
  auto predictor = predict::Predictor::open(po);
  if (!predictor.isOk()) return predictor.status();
  summary.model_path = model::modelLabel(predictor.value()->model());
  const auto& md = predictor.value()->model().metadata;
  for (int j = 0; j < predictor.value()->numOutputs(); ++j) {
    const std::string unit = j < static_cast<int>(md.target_units.size()) ? md.target_units[j] : "";
    const std::string name = j < static_cast<int>(md.target_names.size()) ? md.target_names[j] : "output_" + std::to_string(j);
    summary.outputs.push_back(unit.empty() ? name : name + " (" + unit + ")");
  }
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();
  const auto rows = predict::featurizeUsable(*predictor.value(), *reader.value(), options.max_molecules, &summary.rows);
  if (rows.empty()) return Status(StatusCode::InvalidArgument, "no readable molecules in '" + options.input + "'");
  summary.molecules = static_cast<int64_t>(rows.size());
  auto results = compareModes(*predictor.value(), rows, options.compare, callbacks);
  if (!results.isOk()) return results.status();
  summary.results = std::move(results.value());
  if (!options.json_path.empty())
    if (Status s = writeComparisonJson(options.json_path, summary.results); !s.isOk()) return s;
  if (!options.csv_path.empty())
    if (Status s = writeComparisonCsv(options.csv_path, summary.results); !s.isOk()) return s;
  return summary;
}

}  // namespace gs::jobs
