#pragma once
// The prediction JSON: one PredictedRow as the server's /v1/predict results carry it and the
// app's remote client reads it, written and read here only.
//   {"id", "smiles", "canonical_smiles", "status",
//    "values": {output: number}, "trust": {"lower": {output: number|null}, "upper": {...},
//    "sigma": {...}, "output_domain": {output: "in|borderline|out"}, "domain": "in|borderline|out",
//    "reasons": [..], "nn_similarity": number}
//    (values and trust only when status is "ok"), "duplicate_of": index (optional), "message"}
// Non-finite numbers are null: an unbounded lower (upper) end reads back as -inf (+inf), a
// missing value or σ as NaN. Numbers carry 9 significant digits (exact for the float values).
#include <string>
#include <vector>

#include "common/json_value.h"
#include "common/json_writer.h"
#include "predict/prediction_table.h"

namespace gs::predict {

// `outputs`: the model's output names, in order; `duplicate_of` < 0 writes no such field.
void writePredictionJson(JsonWriter& w, const std::vector<std::string>& outputs, const PredictedRow& row,
                         int duplicate_of = -1);
std::string predictionJson(const std::vector<std::string>& outputs, const PredictedRow& row, int duplicate_of = -1);

struct DecodedPrediction {
  PredictedRow row;       // id, input (smiles), canonical, status, values, trust
  int duplicate_of = -1;  // -1 when absent
};
// Reads one result object; an error names the field that is not as above.
Result<DecodedPrediction> readPredictionJson(const JsonValue& object, const std::vector<std::string>& outputs);

}  // namespace gs::predict
