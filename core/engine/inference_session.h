#pragma once
// An inference session owns one loaded model on one device in one precision and predicts
// featurized molecules in planner batches.
//
// Thread-safety: a session is used by one thread at a time (any thread: InferenceMode and the
// autocast state are set up on the calling thread for each call). Progress and cancellation
// callbacks run on that thread; cancellation is checked between batches.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "data/batch_planner.h"
#include "data/collate.h"
#include "data/memory_planner.h"
#include "engine/memory_probe.h"
#include "engine/precision.h"
#include "graph/featurized.h"
#include "model/checkpoint.h"

namespace gs::engine {

struct SessionOptions {
  Precision precision = Precision::FP32;
  std::string device = "cpu";  // "cpu", "cuda", "cuda:N"
  int threads = 0;             // intra-op threads; 0 = LibTorch's default
  // Collation: unset = the model's metadata, else the official convention and the config's
  // spatial_pos_max (1024 in released configs).
  std::optional<data::Convention> convention;
  std::optional<int> spatial_pos_max;
  data::PlanOptions plan;
  // > 0: batches are sized so that their peak tensor memory (above the weights) stays under this
  // many bytes, from a memory model fitted on short probe batches (fitMemoryModel, or the first
  // predict call); a molecule that alone would exceed it gets out_of_memory. plan.max_batch_size
  // still caps the batch.
  int64_t memory_budget_bytes = 0;
};

struct Prediction {
  Status status;              // ok, too_many_atoms, out_of_memory, cancelled, internal_error
  std::vector<float> values;  // one per model output, de-normalised; empty unless ok
};

struct RunCallbacks {
  std::function<void(int64_t done, int64_t total)> progress;
  std::function<bool()> cancelled;
  std::shared_ptr<TensorMemoryTracker> memory;  // tensor bytes of the run are reported here
};

// Whether `precision` can run on `device` here, with the reason when not (for menus and errors).
Status precisionAvailable(Precision precision, const std::string& device);
// "cpu" and "cuda:N" for every CUDA device this LibTorch sees.
std::vector<std::string> availableDevices();
// "cpu", "cuda" or "cuda:N", refused when this build or machine cannot run it.
Result<torch::Device> parseDevice(const std::string& name);
// How a session collates for `model`: index convention and spatial cut-off from the options,
// else the model's metadata, else the defaults.
data::CollateOptions collateOptionsFor(const model::LoadedModel& model, const SessionOptions& options);

class InferenceSession {
 public:
  static Result<std::unique_ptr<InferenceSession>> create(model::LoadedModel model, const SessionOptions& options);
  ~InferenceSession();

  // One prediction per molecule, in the order given (the planner's reordering is undone).
  std::vector<Prediction> predict(const std::vector<const graph::Featurized*>& molecules,
                                  const RunCallbacks& callbacks = {});
  // Raw outputs [B, num_outputs] float32 on the CPU, before de-normalisation, for one batch.
  torch::Tensor forward(const data::GraphBatch& batch);
  // Switches precision without reloading (INT8 packs or drops the quantised weights).
  Status setPrecision(Precision precision);
  // Measures the peak tensor memory of a few probe batches (the smallest, median and largest of
  // `probes`, at 1, 4 and 16 copies) and fits the memory model the budget planner uses.
  Status fitMemoryModel(const std::vector<const graph::Featurized*>& probes);
  std::string memoryModelDescription() const { return memory_model_.describe(); }
  // Batches split in halves after an out-of-memory error (CUDA or host), since creation.
  int64_t outOfMemoryRetries() const { return oom_retries_; }

  const SessionOptions& options() const { return options_; }
  const data::CollateOptions& collateOptions() const { return collate_; }
  const model::LoadedModel& model() const { return model_; }
  int numOutputs() const { return model_.config.num_classes; }
  std::string deviceName() const;

 private:
  InferenceSession(model::LoadedModel model, const SessionOptions& options, const torch::Device& device);
  void runBatch(const std::vector<const graph::Featurized*>& molecules, const data::Batch& batch,
                std::vector<Prediction>& out);
  void scatter(const torch::Tensor& raw, const data::Batch& batch, std::vector<Prediction>& out) const;

  model::LoadedModel model_;
  SessionOptions options_;
  data::CollateOptions collate_;
  torch::Device device_;
  data::MemoryModel memory_model_;
  int64_t oom_retries_ = 0;
};

}  // namespace gs::engine
