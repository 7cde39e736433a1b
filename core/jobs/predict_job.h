#pragma once
// `graphormer-cli predict` (and the GUI's batch export): streams a molecule file through
// featurization and an inference session and writes one CSV row per input row, in input order:
//   row,id,smiles,canonical_smiles,status,<one column per model output>,message
// plus a sidecar "<output>.json" run record. Both files are written atomically.
#include <functional>
#include <map>
#include <string>

#include "bundle/model_source.h"
#include "chem/featurize.h"
#include "data/record_reader.h"
#include "engine/inference_session.h"
#include "jobs/prediction_table.h"

namespace gs::jobs {

struct PredictJobOptions {
  bundle::ModelSource model;  // "" = the bundled default model; an adapter on top, or an adapter run
  std::string input;
  std::string output;  // CSV path; the run record goes to output + ".json"
  data::ReaderOptions reader;
  chem::FeaturizeOptions featurize;
  engine::SessionOptions session;  // memory_budget_bytes sizes batches to a budget
  int chunk_rows = 4096;  // rows featurized and predicted together (bounds memory on big files)
  std::function<void(int64_t rows_done)> progress;
  std::function<bool()> cancelled;
};

struct PredictSummary {
  int64_t rows = 0;
  std::map<std::string, int64_t> by_status;
  double seconds = 0;
  std::string model_path, model_sha256;
  std::string adapter_path, adapter_sha256;  // when an adapter was applied
  std::vector<std::string> notes;  // from loading the checkpoint
  int64_t out_of_memory_retries = 0;  // batches halved and retried after out-of-memory errors
};

Result<PredictSummary> runPredict(const PredictJobOptions& options);

// Predicts the featurized rows of one chunk; rows that could not be read keep their status.
// Output rows are in input order. What `predict` does per chunk, and the desktop app's worker.
std::vector<PredictedRow> predictRows(engine::InferenceSession& session, const std::vector<chem::MoleculeRow>& rows,
                                      const engine::RunCallbacks& callbacks = {});
// The session's settings for a run record (input, seconds and adapter left for the caller).
RunInfo sessionRunInfo(const engine::InferenceSession& session, const std::string& model_sha256);

}  // namespace gs::jobs
