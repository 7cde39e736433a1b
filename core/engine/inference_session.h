#pragma once
// An inference session runs one loaded model on one device in one precision and predicts
// featurized molecules in planner batches. This header is LibTorch-free.
//
// Precision: BF16/FP16 run the encoder's matrix products with 16-bit copies of their weights
// made once when the precision is set (model::LinearImpl), inputs cast to 16 bits, fp32
// accumulation; embeddings, the attention bias, attention scores and softmax, layer norms, the
// residual stream and the head stay fp32. `autocast` instead runs LibTorch's autocast over the
// fp32 weights (every product casts its weights on every call), the path training uses.
//
// Sharing: a session never changes the model it was created from. On the CPU in FP32 (or 16-bit
// autocast) it runs the loaded module itself, read-only (the loader leaves it in eval mode). For
// INT8 or 16-bit weights, or a module in training mode, it makes a module of its own once, whose
// parameters are the loaded tensors (no copy; it adds only its packed int8 or 16-bit weights); on
// another device it copies the weights there (16-bit: only the 16-bit copies stay). So any number
// of sessions, on any threads, may be created from one loaded model.
//
// Thread-safety: a session is used by one thread at a time (any thread: InferenceMode and the
// autocast state are set up on the calling thread for each call). Progress and cancellation
// callbacks run on that thread; cancellation is checked between batches. `threads` is
// process-wide (compat::setThreads): create() applies it, predict() never touches it.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "data/batch_planner.h"
#include "graph/convention.h"
#include "graph/featurized.h"
#include "tensor/memory_probe.h"
#include "tensor/precision.h"

namespace gs::bundle {
struct GraphormerConfig;
struct ModelMetadata;
}  // namespace gs::bundle
namespace gs::model {
struct LoadedModel;
}

namespace gs::engine {

struct SessionOptions {
  tensor::Precision precision = tensor::Precision::FP32;
  std::string device = "cpu";  // "cpu", "cuda", "cuda:N"
  int threads = 0;             // intra-op threads, process-wide; 0 = leave as it is
  // Collation: unset = the model's metadata, else the official convention and the config's
  // spatial_pos_max (1024 in released configs).
  std::optional<graph::Convention> convention;
  std::optional<int> spatial_pos_max;
  data::PlanOptions plan;
  // > 0: batches are sized so that their peak tensor memory (above the weights) stays under this
  // many bytes, from a memory model fitted on short probe batches (fitMemoryModel, or the first
  // predict call); a molecule that alone would exceed it gets out_of_memory. plan.max_batch_size
  // still caps the batch.
  int64_t memory_budget_bytes = 0;
  // BF16/FP16 by autocast over the fp32 weights instead of 16-bit weight copies (see above).
  bool autocast = false;
  // Each prediction carries the molecule's embedding too (Prediction::embedding).
  bool embeddings = false;
};
bool operator==(const SessionOptions& a, const SessionOptions& b);
inline bool operator!=(const SessionOptions& a, const SessionOptions& b) { return !(a == b); }

struct Prediction {
  Status status;              // ok, too_many_atoms, out_of_memory, cancelled, internal_error
  std::vector<float> values;     // one per model output, de-normalised; empty unless ok
  std::vector<float> embedding;  // with SessionOptions::embeddings: the graph token the head reads
};

struct RunCallbacks {
  std::function<void(int64_t done, int64_t total)> progress;
  std::function<bool()> cancelled;
  std::shared_ptr<tensor::TensorMemoryTracker> memory;  // tensor bytes of the run are reported here
};

// How a session collates for a model: index convention and spatial cut-off from the options,
// else the model's metadata, else the defaults.
graph::CollateOptions collateOptionsFor(const bundle::GraphormerConfig& config, const bundle::ModelMetadata& metadata,
                                        const SessionOptions& options);
graph::CollateOptions collateOptionsFor(const model::LoadedModel& model, const SessionOptions& options);
// Whether the model takes this molecule: ok, or invalid_argument (nothing featurized) or
// too_many_atoms with the limit. The one admission check of prediction and explanation.
Status admit(const graph::Featurized* molecule, const bundle::GraphormerConfig& config);

class InferenceSession {
 public:
  // `model` is shared, never modified (see above); it must outlive nothing: the session keeps a
  // reference-counted handle to the weights.
  static Result<std::unique_ptr<InferenceSession>> create(const model::LoadedModel& model,
                                                          const SessionOptions& options);
  ~InferenceSession();
  InferenceSession(const InferenceSession&) = delete;
  InferenceSession& operator=(const InferenceSession&) = delete;

  // One prediction per molecule, in the order given (the planner's reordering is undone).
  std::vector<Prediction> predict(const std::vector<const graph::Featurized*>& molecules,
                                  const RunCallbacks& callbacks = {});
  // Switches precision without reloading (INT8 packs this session's own copy of the weights).
  Status setPrecision(tensor::Precision precision);
  // Measures the peak tensor memory of a few probe batches (the smallest, median and largest of
  // `probes`, at 1, 4 and 16 copies) and fits the memory model the budget planner uses.
  Status fitMemoryModel(const std::vector<const graph::Featurized*>& probes);
  std::string memoryModelDescription() const;
  // Batches split in halves after an out-of-memory error (CUDA or host), since creation.
  int64_t outOfMemoryRetries() const;

  const SessionOptions& options() const;
  const graph::CollateOptions& collateOptions() const;
  const model::LoadedModel& model() const;
  int numOutputs() const;
  std::string deviceName() const;
  // True while the session runs the loaded module itself (no module of its own).
  bool usesLoadedModule() const;

 private:
  struct Impl;
  explicit InferenceSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gs::engine
