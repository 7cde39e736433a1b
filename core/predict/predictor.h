#pragma once
// The prediction pipeline between the engine and every front end (predict, evaluate, explain,
// bench, the app's worker; later the server and screening): a Predictor is opened once from plain
// PredictorOptions (model resolved and loaded, session created) and then turns input records into
// prediction rows, one per record, in input order, with row identity, status, values and message.
// predictStream() is the one read -> featurize -> predict loop over a whole input; only the sink
// differs between front ends (CSV writer, signals to the UI, a report). LibTorch-free header.
//
// Thread-safety: one thread at a time per Predictor. Predictors opened on one loaded model
// (open(shared model, ...)) share its weights read-only and may run on different threads at once;
// none of them changes the model (engine/inference_session.h).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "chem/featurize.h"
#include "data/record.h"
#include "data/record_reader.h"
#include "engine/inference_session.h"
#include "predict/prediction_table.h"
#include "predict/predictor_options.h"
#include "predict/trust_ensemble.h"

namespace gs::model {
struct LoadedModel;
}

namespace gs::predict {

class Predictor {
 public:
  // Resolves and loads options.model (model/loader.h), then creates the session.
  static Result<std::unique_ptr<Predictor>> open(const PredictorOptions& options);
  // On a model already loaded; options.model is kept for the run record only.
  static Result<std::unique_ptr<Predictor>> open(std::shared_ptr<const model::LoadedModel> model,
                                                 const PredictorOptions& options);
  ~Predictor();

  // How records are featurized for this model (multi-hop distance from its configuration).
  chem::FeaturizeOptions featurizeOptions(bool keep_molecule = false) const;
  chem::MoleculeRow featurize(const data::RawRecord& record, bool keep_molecule = false) const;
  // One row per record / featurized row, in order; rows that could not be read keep their status.
  std::vector<PredictedRow> predict(const std::vector<data::RawRecord>& records,
                                    const engine::RunCallbacks& callbacks = {});
  std::vector<PredictedRow> predict(const std::vector<chem::MoleculeRow>& rows,
                                    const engine::RunCallbacks& callbacks = {});

  const PredictorOptions& options() const { return options_; }
  const model::LoadedModel& model() const { return *model_; }
  engine::InferenceSession& session() { return *session_; }
  const engine::InferenceSession& session() const { return *session_; }
  int numOutputs() const;
  // The CSV header of this model's predictions.
  std::vector<std::string> header() const;
  // Model (path, SHA-256s, size), settings and library versions; tool, input and seconds are
  // left for the caller.
  RunRecord runRecord() const;
  // The model's trust data and ensemble; null when trust is off or the model has none.
  const TrustEnsemble* trust() const { return trust_.get(); }
  // Why predictions carry no trust ("" when they do).
  const std::string& trustNote() const { return trust_note_; }

 private:
  Predictor(std::shared_ptr<const model::LoadedModel> model, const PredictorOptions& options,
            std::unique_ptr<engine::InferenceSession> session);
  std::shared_ptr<const model::LoadedModel> model_;
  PredictorOptions options_;
  std::unique_ptr<engine::InferenceSession> session_;
  std::unique_ptr<TrustEnsemble> trust_;
  std::string trust_note_;
};

// A row for a record that was read but not (yet) predicted: identity only, status as given.
PredictedRow pendingRow(const data::RawRecord& record, Status status = Status::ok());

struct StreamSummary {
  int64_t rows = 0;
  std::map<std::string, int64_t> by_status;  // status name -> rows
  bool cancelled = false;
};

// Rows of one chunk, in input order; a sink error stops the stream and is returned.
using RowSink = std::function<Status(const std::vector<PredictedRow>& rows)>;
// Rows read and predicted together: bounds memory on big files and sets the batches (the planner
// buckets within a chunk), so every front end uses the same value and gets the same numbers.
constexpr int kChunkRows = 512;

// The one read -> featurize -> predict loop: reads `source` to the end, kChunkRows records at a
// time, and hands every chunk's rows to `sink`. After callbacks.cancelled() the remaining records
// are still read and passed on with status cancelled, so the output keeps one row per input row.
Result<StreamSummary> predictStream(Predictor& predictor, data::RecordReader& source, const RowSink& sink,
                                    const engine::RunCallbacks& callbacks = {}, int chunk_rows = kChunkRows);

// Reads and featurizes records until `max_molecules` (> 0) usable molecules are collected (all,
// when 0): the input of bench and the Compare tab. `rows_read` counts every record read.
std::vector<chem::MoleculeRow> featurizeUsable(const Predictor& predictor, data::RecordReader& source,
                                               int64_t max_molecules, int64_t* rows_read);

// A RecordReader over records already in memory (the app reads its input first to show it).
class VectorReader final : public data::RecordReader {
 public:
  explicit VectorReader(const std::vector<data::RawRecord>& records) : records_(records) {}
  bool next(data::RawRecord& out) override;

 private:
  const std::vector<data::RawRecord>& records_;
  size_t next_ = 0;
};

}  // namespace gs::predict
