#pragma once
// Supervised training and fine-tuning of a Graphormer on featurized molecules with one or more
// targets (NaN = missing value, left out of the loss). AdamW, warm-up then linear or cosine decay,
// L1 or MSE loss, gradient clipping, target normalisation stored in the model's metadata, BF16
// autocast (CPU/CUDA) or FP16 autocast with dynamic loss scaling (CUDA), activation checkpointing,
// early stopping on the validation MAE, best-checkpoint saving and resume from the last epoch.
// Runs are reproducible from the seed: the batch order of epoch e depends only on (seed, e) and the
// dropout of step s only on (seed, s), so a run resumed from any step continues exactly as an
// uninterrupted one.
//
// Thread-safety: one thread drives a Trainer; callbacks run on it.
#include <functional>
#include <string>
#include <vector>

#include "engine/train_types.h"
#include "graph/featurized.h"
#include "model/checkpoint.h"
#include "tensor/collate.h"
#include "tensor/precision.h"

namespace gs::engine {

struct TrainExample {
  const graph::Featurized* graph = nullptr;
  std::vector<float> targets;  // one per model output; NaN = missing
};

// The multi-task loss of a batch before its division by the count of present targets: the sum of
// L1 or squared errors over the finite entries of `target` [B, K] only. A missing label (NaN)
// contributes neither loss nor gradient, so the gradient for output j is the one a batch of just
// the molecules labelled for j would give (test MaskedLoss.*).
torch::Tensor maskedLossSum(const torch::Tensor& out, const torch::Tensor& target, TrainOptions::Loss kind);

// Sets which parameters train (LoRA adapters added when asked; frozen layers) and returns them.
std::vector<torch::Tensor> markTrainable(model::GraphormerImpl& model, const TrainOptions& options);

class Trainer {
 public:
  // Takes a model to train from (random init or a loaded checkpoint) and its metadata; the
  // target normalisation is computed from the training targets and written into the metadata.
  Trainer(model::LoadedModel model, TrainOptions options);
  Result<TrainSummary> fit(const std::vector<TrainExample>& train, const std::vector<TrainExample>& valid,
                           const TrainCallbacks& callbacks = {});
  // A snapshot ensemble from this run (cosine annealing with warm restarts, Huang et al. 2017):
  // `cycles` further runs of `epochs` each, starting from the current weights, the learning rate
  // restarting at `learning_rate` and annealing to zero in every run, no validation; after run k
  // (1-based) `snapshot(k)` receives control with the model holding that snapshot. The model is
  // left at the last snapshot.
  Status snapshotCycles(const std::vector<TrainExample>& train, int cycles, int epochs, double learning_rate,
                        const std::function<Status(int)>& snapshot, const TrainCallbacks& callbacks = {});
  // The trained model (best validation epoch when a validation set was given).
  model::LoadedModel& model() { return model_; }
  // Mean absolute error per output in target units (missing targets skipped).
  std::vector<double> evaluate(const std::vector<TrainExample>& examples);
  // The model's outputs in target units, one row per example.
  std::vector<std::vector<float>> predict(const std::vector<TrainExample>& examples);
  // Sets the model's output offsets (metadata.output_offset) to its median error on `valid` per
  // output, or none where fewer than `min_count` molecules carry that label; returns them.
  std::vector<double> recenter(const std::vector<TrainExample>& valid, int64_t min_count);
  // The files fit() writes into an output directory: last and best weights, state, optimizer.
  static std::vector<std::string> checkpointFiles(const std::string& output_dir);
  // Whether output_dir holds a state that `resume` continues (a cancelled or interrupted run).
  static bool resumable(const std::string& output_dir);

 private:
  struct Run;
  void prepare(Run& run, const std::vector<TrainExample>& train);
  Status restore(Run& run);
  Result<bool> runEpoch(Run& run, int epoch, const std::vector<TrainExample>& train, const TrainCallbacks& cb);
  Result<EpochReport> endEpoch(Run& run, int epoch, const std::vector<TrainExample>& valid);
  Result<double> step(Run& run, const std::vector<const graph::Featurized*>& mols, const torch::Tensor& target,
                      int64_t step, const TrainCallbacks& cb);
  Status saveProgress(Run& run);
  model::LoadedModel model_;
  TrainOptions options_;
  int snapshot_ = 0;    // the snapshot cycle fit() is running, 0 = none
  int eval_batch_ = 0;  // the micro-batch in effect (evaluate() passes twice as many molecules)
};

}  // namespace gs::engine
