#pragma once
// Prediction rows and their CSV + run-record output, shared by `graphormer-cli predict` and the
// desktop app's export (LibTorch-free, so ui/ headers may include it).
//   CSV:        row,id,smiles,canonical_smiles,status,<one column per model output>,
//               <output>_lower,<output>_upper,<output>_sigma per output,domain,domain_reasons,
//               nn_similarity,message (trust columns empty when the model has no trust data)
//   run record: <csv>.json with the model (path, SHA-256, size), settings, versions and counts.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bundle/config.h"
#include "common/status.h"
#include "data/csv_writer.h"
#include "data/record.h"
#include "predict/trust.h"

namespace gs::predict {

struct PredictedRow : data::RowIdentity {
  int num_atoms = 0;
  std::vector<float> values;        // one per model output when status is ok
  std::optional<TrustRow> trust;    // when the model has trust data and the row is ok
  std::vector<std::string> fields;  // the input record's fields (data::RawRecord::fields): the user's other columns
};

// The user's other input columns written beside the predictions (`predict` keeps them unless
// --drop-input-columns): their names, made distinct from the prediction columns ("input_" prefix
// on a clash), and each row's values by index into the record's fields.
struct InputColumns {
  std::vector<int> indices;        // into data::RawRecord::fields
  std::vector<std::string> names;  // as written in the header
  static InputColumns choose(const std::vector<std::string>& reader_columns, const std::vector<int>& other,
                             const std::vector<std::string>& prediction_header);
  std::vector<std::string> values(const std::vector<std::string>& fields) const;
};

struct RunRecord {
  std::string tool = "graphormer-cli predict";
  std::string input;
  std::string model_path, model_format, model_sha256, adapter_path, adapter_sha256;
  int layers = 0, embedding_dim = 0, heads = 0, outputs = 0;
  std::vector<std::string> output_names, output_units;  // per output ("" where the model gives no unit)
  std::string precision, device, convention;
  int batch_size = 0, threads = 0, spatial_pos_max = 0, multi_hop_max_dist = 0;
  bool bucketing = true;
  std::string libtorch_version, rdkit_version;
  double seconds = 0;
  int64_t out_of_memory_retries = 0;  // batches split in halves after an out-of-memory error
  // Trust: the file ("" = none), ensemble members, calibration molecules, confidence, note.
  std::string trust_path, trust_note;
  int trust_members = 0;
  int64_t calibration_rows = 0;
  std::string trust_series;  // JSON: the series the intervals were recalibrated on (calibrate --series); "" = none
  double confidence = 0;
  bool strip_salts = false;
  bool mirror_averaged =
      false;  // the model's targets are mirror-invariant: chiral molecules averaged with their mirror image
};

std::vector<std::string> predictionHeader(const bundle::ModelMetadata& metadata, int num_outputs);
std::vector<std::string> predictionFields(const PredictedRow& row, int num_outputs);
// Counts per status name ("ok", "syntax_error", ...).
std::map<std::string, int64_t> statusCounts(const std::vector<PredictedRow>& rows);

// Writes `rows` as a CSV (an SD file for an SD file name: predict/prediction_writer.h) and
// `path`.json as the run record, both atomically. `input_columns`
// name the user's columns that follow the predictions; each row's `fields` then hold their values.
Status writePredictions(const std::string& path, const bundle::ModelMetadata& metadata, int num_outputs,
                        const std::vector<PredictedRow>& rows, const RunRecord& info,
                        const std::vector<std::string>& input_columns = {});
Status writeRunRecord(const std::string& csv_path, const RunRecord& info, int64_t rows,
                      const std::map<std::string, int64_t>& counts);

}  // namespace gs::predict
