#pragma once
// Everything that decides what a Predictor computes, as plain data: comparable with ==, written to
// and read from JSON (run records, a screening plan, the app's session cache). LibTorch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bundle/model_source.h"
#include "chem/molecule.h"
#include "chem/ogb_features.h"
#include "common/json_value.h"
#include "common/status.h"
#include "engine/inference_session.h"

namespace gs::predict {

struct PredictorOptions {
  bundle::ModelSource model;       // path "" = the bundled default model; adapter on top
  engine::SessionOptions session;  // device, precision, threads, batch plan, memory budget, collation
  chem::ParseOptions parse;
  chem::AtomOrder atom_order = chem::AtomOrder::Canonical;
  // Trust (predict/trust.h): intervals, σ and the applicability domain from the model's trust data;
  // off = plain predictions (faster; the trust columns stay empty).
  bool trust = true;
  double confidence = 0.9;  // of the intervals, in (0, 1)
  // Predict the parent of a salt or mixture (chem/domain.h). Off by default: a prediction is for
  // the structure given, and for electronic properties the counter-ion can matter; the domain
  // flags every multi-fragment input so the user can decide.
  bool strip_salts = false;
};
bool operator==(const PredictorOptions& a, const PredictorOptions& b);
inline bool operator!=(const PredictorOptions& a, const PredictorOptions& b) { return !(a == b); }

// One JSON object with every field (see docs/ARCHITECTURE.md, "Predictor options").
std::string toJson(const PredictorOptions& options);
// Strict: unknown keys, wrong types and out-of-range values are refused with the key named;
// absent keys keep their defaults.
Result<PredictorOptions> predictorOptionsFromJson(const JsonValue& json);
Result<PredictorOptions> predictorOptionsFromJson(std::string_view text);

// The batch cap used when a memory budget sizes the batches and the user set no batch size.
constexpr int kBudgetBatchCap = 4096;
// The memory-budget rule of every front end: budget_mib > 0 sizes batches from the session's
// memory model so that their peak tensor memory stays under it; the batch size then caps them only
// when the user gave one (`batch_cap`), else kBudgetBatchCap. budget_mib = 0 clears the budget and
// leaves the batch size alone.
void setMemoryBudget(engine::SessionOptions& session, int64_t budget_mib, std::optional<int> batch_cap);

}  // namespace gs::predict
