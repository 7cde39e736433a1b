#pragma once
// The prediction server's wire format, apart from HTTP: request bodies in (/v1/predict and the
// KServe/Triton v2 `infer` subset) and response bodies out. Pure functions on strings, so the
// decoder is fuzzed without a socket (tests/fuzz/fuzz_serve_decode.cpp). Every refusal carries
// the HTTP status that describes the request (400, 404, 413) and a message a client can show.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "predict/prediction_table.h"

namespace gs::serve {

// What one request may contain (the HTTP-level limits are in server_options.h).
struct RequestLimits {
  int max_molecules = 10000;  // per request (413 above)
  int max_id_bytes = 256;     // per molecule (400 above)
  int max_json_depth = 8;     // 400 above; the decoder needs 4
  int64_t max_timeout_ms = 600000;
};

struct HttpError {
  int status = 400;
  std::string message;
};

struct MoleculeIn {
  std::string smiles;
  std::string id;  // "" = the 0-based index, as text
};

struct PredictRequest {
  std::vector<MoleculeIn> molecules;
  std::optional<int64_t> timeout_ms;  // from the body; the server caps it
  std::string model;                  // "" = the served model
};

// Checks UTF-8 (RFC 3629: no overlongs, no surrogates) and the nesting depth before parsing.
std::optional<HttpError> checkJsonText(std::string_view body, int max_depth);

// {"molecules": ["CCO", {"smiles": "c1ccccc1", "id": "benzene"}, ...], "timeout_ms": 5000,
//  "model": "name"}; `inputs` is accepted as a synonym of `molecules`.
std::optional<HttpError> decodePredict(std::string_view body, const RequestLimits& limits, PredictRequest* out);

// KServe v2: {"id": "...", "inputs": [{"name": "smiles", "datatype": "BYTES", "shape": [N],
// "data": ["CCO", ...]}], "parameters": {"timeout_ms": 5000}}; an optional BYTES input "id" of
// the same shape names the molecules. `request_id` receives the body's "id".
std::optional<HttpError> decodeV2Infer(std::string_view body, const RequestLimits& limits, PredictRequest* out,
                                       std::string* request_id);

// The model a response names.
struct ModelInfo {
  std::string name, sha256, adapter_sha256, precision, device;
  std::vector<std::string> outputs;  // output names, in value order
  std::vector<std::string> units;    // "" where the model gives none
};

// One result per molecule, in request order; `duplicate_of[i]` >= 0 when molecule i repeated an
// earlier one in the same request (its result was copied, not recomputed).
std::string encodePredictResponse(const ModelInfo& model, const std::string& request_id,
                                  const std::vector<predict::PredictedRow>& rows, const std::vector<int>& duplicate_of);
// v2: outputs "status" (BYTES), one FP32 output per model output ([N], NaN where not ok),
// "message" (BYTES), and with trust "<output>_lower/_upper/_sigma" (FP32), "<output>_domain" and "domain" (BYTES).
std::string encodeV2Response(const ModelInfo& model, const std::string& request_id,
                             const std::vector<predict::PredictedRow>& rows);
// GET /v2/models/{m}: name, versions, platform, inputs and outputs.
std::string encodeV2Metadata(const ModelInfo& model, bool with_trust);
// {"error": "..."} (v1 adds "status"); v2 clients read "error" only.
std::string encodeError(const HttpError& error);

// For duplicates: index of the first molecule with the same SMILES text, or -1.
std::vector<int> findDuplicates(const std::vector<MoleculeIn>& molecules);

}  // namespace gs::serve
