#include "jobs/explain_job.h"

#include <chrono>
#include <cmath>

#include "chem/descriptors.h"
#include "common/atomic_file.h"
#include "data/csv_writer.h"
#include "jobs/output_check.h"
#include "model/loader.h"

namespace gs::jobs {

Result<std::vector<ExplainedMolecule>> explainRecords(const predict::Predictor& predictor,
                                                      const std::vector<data::RawRecord>& records,
                                                      engine::AttributionOptions attribution,
                                                      const engine::AttributionCallbacks& callbacks) {
  std::vector<chem::MoleculeRow> rows;
  for (const auto& r : records) rows.push_back(predictor.featurize(r, /*keep_molecule=*/true));
  std::vector<int> index_of_row;
  const auto mols = chem::featurizedMolecules(rows, &index_of_row);
  attribution.device = predictor.options().session.device;
  attribution.threads = predictor.options().session.threads;
  std::vector<engine::Attribution> attributions;
  if (!mols.empty()) {
    auto a = engine::attribute(predictor.model(), mols, attribution, callbacks);
    if (!a.isOk()) return a.status();
    attributions = std::move(a.value());
  }
  std::vector<ExplainedMolecule> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& e = out[i];
    const auto& row = rows[i];
    static_cast<data::RowIdentity&>(e) = row;
    e.output = attribution.output;
    if (index_of_row[i] < 0) continue;
    e.summary = attributions[index_of_row[i]];
    e.status = e.summary.status;
    if (!e.status.isOk() || !row.mol) continue;
    e.elements = chem::atomSymbols(*row.mol);
    e.attributions.assign(e.elements.size(), 0.0);
    for (size_t k = 0; k < e.summary.atoms.size() && k < row.atom_of_node.size(); ++k)
      e.attributions[static_cast<size_t>(row.atom_of_node[k])] = e.summary.atoms[k];
  }
  return out;
}

Status writeExplanations(const std::string& path, const std::vector<ExplainedMolecule>& molecules) {
  AtomicFile atoms(path);
  if (!atoms.isOpen()) return atoms.openStatus();
  data::CsvWriter a(atoms.stream());
  a.row({"row", "id", "smiles", "atom_index", "element", "attribution"});
  for (const auto& m : molecules)
    for (size_t i = 0; i < m.attributions.size(); ++i)
      a.row({std::to_string(m.row), m.id, m.input, std::to_string(i), m.elements[i],
             data::CsvWriter::number(float(m.attributions[i]))});
  if (Status s = atoms.commit(); !s.isOk()) return s;
  AtomicFile mols(path + ".molecules.csv");
  if (!mols.isOpen()) return mols.openStatus();
  data::CsvWriter w(mols.stream());
  w.row({"row", "id", "smiles", "status", "prediction", "baseline_prediction", "sum", "completeness_gap", "ig_steps",
         "message"});
  for (const auto& m : molecules) {
    const bool ok = m.status.isOk();
    auto num = [&](double v) { return ok ? data::CsvWriter::number(float(v)) : std::string(); };
    w.row({std::to_string(m.row), m.id, m.input, statusCodeName(m.status.code()), num(m.summary.prediction),
           num(m.summary.baseline_prediction), num(m.summary.sum), num(m.summary.completeness_gap),
           ok && m.summary.steps > 0 ? std::to_string(m.summary.steps) : std::string(), ok ? "" : m.status.message()});
  }
  return mols.commit();
}

Result<ExplainJobSummary> runExplain(const ExplainJobOptions& options, const engine::AttributionCallbacks& callbacks) {
  const auto t0 = std::chrono::steady_clock::now();
  ExplainJobSummary summary;
  if (options.output.empty()) return Status(StatusCode::InvalidArgument, "an output file is needed");
  if (Status s =
          checkOutputs({options.output, options.output + ".molecules.csv"}, {options.input}, options.predictor.model);
      !s.isOk())
    return s;
  predict::PredictorOptions po = options.predictor;
  po.session.precision =
      tensor::Precision::FP32;  // the predictor only featurizes here; attributions run on their own copy
  po.trust = false;
  auto predictor = predict::Predictor::open(po);
  if (!predictor.isOk()) return predictor.status();
  summary.model_path = model::modelLabel(predictor.value()->model());
  summary.target = predictor.value()->model().metadata.outputName(options.attribution.output);
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();
  std::vector<data::RawRecord> records;
  data::RawRecord record;
  while (reader.value()->next(record)) records.push_back(record);
  summary.rows = static_cast<int64_t>(records.size());
  engine::AttributionCallbacks cb = callbacks;
  if (!cb.memory) cb.memory = std::make_shared<tensor::TensorMemoryTracker>();
  auto explained = explainRecords(*predictor.value(), records, options.attribution, cb);
  if (!explained.isOk()) return explained.status();
  summary.molecules = std::move(explained.value());
  const auto& tracker = cb.memory;
  summary.peak_tensor_bytes = tracker->peak();
  for (const auto& m : summary.molecules) {
    if (!m.status.isOk()) continue;
    ++summary.explained;
    if (options.attribution.method == engine::AttributionMethod::IntegratedGradients) {
      const double span = std::max(std::abs(m.summary.prediction - m.summary.baseline_prediction), 1e-6);
      summary.max_relative_gap = std::max(summary.max_relative_gap, std::abs(m.summary.completeness_gap) / span);
    }
  }
  if (Status s = writeExplanations(options.output, summary.molecules); !s.isOk()) return s;
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

}  // namespace gs::jobs
