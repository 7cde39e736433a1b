#pragma once
// `graphormer-cli bench` and the app's Compare tab: featurize a molecule file through a Predictor
// and measure each optimisation mode on its molecules with engine::runComparison.
#include <string>
#include <vector>

#include "data/record_reader.h"
#include "engine/compare.h"
#include "predict/predictor.h"

namespace gs::jobs {

struct BenchJobOptions {
  // Model (adapters as for predict), device, threads, parsing; precision and batch size come
  // from each mode.
  predict::PredictorOptions predictor;
  std::string input;
  data::ReaderOptions reader;
  engine::CompareOptions compare;   // its device and threads are taken from `predictor`
  int64_t max_molecules = 0;        // > 0: the first N readable molecules only
  std::string json_path, csv_path;  // written when set
};

struct BenchJobSummary {
  std::string model_path;
  int64_t rows = 0, molecules = 0;  // rows read, molecules measured
  std::vector<std::string> outputs;  // the model's outputs with their units ("gap_ev (eV)")
  std::vector<engine::ModeResult> results;
};

Result<BenchJobSummary> runBench(const BenchJobOptions& options, const engine::CompareCallbacks& callbacks = {});
// The comparison on molecules of an open predictor (the app's Compare tab on its current input).
// Modes that name another model (bf16@fast) load it first (a bundled name or a path).
Result<std::vector<engine::ModeResult>> compareModes(const predict::Predictor& predictor,
                                                     const std::vector<chem::MoleculeRow>& rows,
                                                     engine::CompareOptions options,
                                                     const engine::CompareCallbacks& callbacks);

}  // namespace gs::jobs
