#pragma once
// `graphormer-cli explain` and the app's Explain action: atom attributions for every molecule of
// a file (or of given records), written as
//   <output>                 row,id,smiles,atom_index,element,attribution   (one row per atom; atom
//                            indices are the input SMILES' atom order)
//   <output>.molecules.csv   row,id,smiles,status,prediction,baseline_prediction,sum,completeness_gap,ig_steps,message
#include <string>
#include <vector>

#include "data/record_reader.h"
#include "engine/attribution.h"
#include "predict/predictor.h"

namespace gs::jobs {

struct ExplainedMolecule : data::RowIdentity {
  std::vector<std::string> elements;  // per atom, input order
  std::vector<double> attributions;   // per atom, input order
  engine::Attribution summary;        // prediction, baseline, sum, gap (its `atoms` in node order)
  int output = 0;                     // the model output explained
};

struct ExplainJobOptions {
  // Model (adapters as for predict), device, threads and parsing; the attribution's precision,
  // batch size and checkpoint ratio are its own (its device and threads come from here).
  predict::PredictorOptions predictor;
  std::string input, output;
  data::ReaderOptions reader;
  engine::AttributionOptions attribution;
};

struct ExplainJobSummary {
  std::string model_path, target;
  int64_t rows = 0, explained = 0;
  double seconds = 0;
  int64_t peak_tensor_bytes = 0;
  double max_relative_gap = 0;  // IG: max |gap| / max(|f(x) - f(baseline)|, 1e-6)
  std::vector<ExplainedMolecule> molecules;
};

// Explains records already read (the app) with an open predictor's model and featurization; one
// molecule per record, in order. attribution.device and threads are taken from the predictor.
Result<std::vector<ExplainedMolecule>> explainRecords(const predict::Predictor& predictor,
                                                      const std::vector<data::RawRecord>& records,
                                                      engine::AttributionOptions attribution,
                                                      const engine::AttributionCallbacks& callbacks = {});
Result<ExplainJobSummary> runExplain(const ExplainJobOptions& options,
                                     const engine::AttributionCallbacks& callbacks = {});
Status writeExplanations(const std::string& path, const std::vector<ExplainedMolecule>& molecules);

}  // namespace gs::jobs
