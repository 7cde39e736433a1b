#pragma once
// Atom-level explanations of a prediction, batched, for any loaded model and output:
//   gradxinput — gradient × input on the atom embeddings (each atom's row of the encoder input,
//                after the embedding layer norm), summed over channels;
//   ig         — integrated gradients on the same rows from a baseline, the path integral by
//                adaptive Simpson panels: `steps` gradient evaluations per molecule on average
//                over a batch, placed where the path is steep; a molecule stops once its gap is
//                within `tolerance` (0.1 %) and leaves its share to harder ones (up to 4x
//                `steps` each; tolerance 0 spends the whole budget);
//                completeness: the attributions sum to f(x) - f(baseline) up to the reported gap.
//                Baselines (AttributionBaseline):
//                  mean   — every atom row replaced by the molecule's mean atom row ("an average
//                           atom"): each attribution says how much that atom, as it is, moves the
//                           prediction away from a molecule of average atoms. The default.
//                  carbon — every heteroatom made a carbon in the same place (same charge,
//                           hydrogens, hybridization, aromaticity, ring): each heteroatom's
//                           attribution is what it adds compared with a carbon there; carbons get
//                           exactly 0 by construction, so this baseline cannot credit carbons.
//                  zero   — all-zero atom rows; a poor path for layer-normalised networks:
//                           LayerNorm is scale-invariant, so the output barely changes until the
//                           path nears zero, where it jumps (completeness needs many steps);
//   rollout    — attention rollout (Abnar & Zuidema 2020) from the graph token; no gradients.
// Gradients run under the chosen precision (autocast) and activation-checkpoint ratio, so an
// explanation run is where checkpointing saves memory in everyday use. Attributions are in the
// output's units (the model's target normalisation is applied).
//
// Thread-safety: one thread drives an explanation; callbacks run on it.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "graph/featurized.h"
#include "tensor/memory_probe.h"
#include "tensor/precision.h"

namespace gs::model {
struct LoadedModel;
}

namespace gs::engine {

enum class AttributionMethod { IntegratedGradients, GradientTimesInput, AttentionRollout };
const char* attributionMethodName(AttributionMethod m);  // "ig", "gradxinput", "rollout"
Result<AttributionMethod> parseAttributionMethod(const std::string& name);

enum class AttributionBaseline { MeanAtom, Carbon, Zero };
const char* baselineName(AttributionBaseline b);  // "mean", "carbon", "zero"
Result<AttributionBaseline> parseBaseline(const std::string& name);

struct AttributionOptions {
  AttributionMethod method = AttributionMethod::IntegratedGradients;
  int output = 0;           // which model output to explain
  int steps = 64;           // integrated gradients: gradient evaluations per molecule, on average (>= 3)
  double tolerance = 1e-3;  // integrated gradients: a molecule stops once |gap| <= this x |f(x) - f(baseline)|
  using Baseline = AttributionBaseline;
  Baseline baseline = Baseline::MeanAtom;
  tensor::Precision precision = tensor::Precision::FP32;  // FP32, BF16, FP16 (CUDA)
  double checkpoint_ratio = 0.0;
  int batch_size = 16;
  std::string device = "cpu";
  int threads = 0;
};

struct Attribution {
  Status status;
  std::vector<float> atoms;        // one per graph node (atom), in the featurized node order
  double prediction = 0;           // f(x), de-normalised
  double baseline_prediction = 0;  // f(baseline) (IG); 0 otherwise
  double sum = 0;                  // of the atom attributions
  double completeness_gap = 0;     // IG: sum - (f(x) - f(baseline)); 0 otherwise
  int steps = 0;                   // IG: gradient evaluations this molecule took (its share of the batch's budget)
};

struct AttributionCallbacks {
  std::function<void(int64_t done, int64_t total)> progress;
  std::function<bool()> cancelled;
  std::shared_ptr<tensor::TensorMemoryTracker> memory;
};

// One result per molecule, in input order. The model's weights are shared and left unchanged.
Result<std::vector<Attribution>> attribute(const model::LoadedModel& model,
                                           const std::vector<const graph::Featurized*>& molecules,
                                           const AttributionOptions& options,
                                           const AttributionCallbacks& callbacks = {});

}  // namespace gs::engine
