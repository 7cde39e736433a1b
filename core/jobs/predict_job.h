#pragma once
// `graphormer-cli predict`: streams a molecule file through a Predictor (predict/predictor.h) and
// writes one CSV row per input row, in input order:
//   row,id,smiles,canonical_smiles,status,<one column per model output>,...,message,<input columns>
// plus a sidecar "<output>.json" run record. Both files are written atomically. The input's other
// columns (CSV columns besides SMILES and ID, SD data items) follow the prediction columns in their
// input order, unless keep_input_columns is false.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "data/record_reader.h"
#include "predict/predictor.h"

namespace gs::jobs {

struct PredictJobOptions {
  predict::PredictorOptions predictor;  // model "" = the bundled default model; adapters too
  std::string input;
  std::string output;  // CSV path; the run record goes to output + ".json"
  data::ReaderOptions reader;
  bool keep_input_columns = true;
  // Rows read and predicted together (batches are planned within a chunk): `screen` writes what
  // `predict` writes byte for byte when both use the same value.
  int chunk_rows = predict::kChunkRows;
};

struct PredictCallbacks {
  std::function<void(int64_t rows_done)> progress;  // after every chunk
  std::function<bool()> cancelled;
};

struct PredictSummary {
  int64_t rows = 0;
  std::map<std::string, int64_t> by_status;
  double seconds = 0;
  predict::RunRecord record;       // what the sidecar holds (model, SHA-256s, settings, versions)
  std::vector<std::string> notes;  // from loading the checkpoint
};

Result<PredictSummary> runPredict(const PredictJobOptions& options, const PredictCallbacks& callbacks = {});

}  // namespace gs::jobs
