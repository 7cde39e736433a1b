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

#include "tensor/collate.h"
#include "tensor/precision.h"
#include "graph/featurized.h"
#include "model/checkpoint.h"

namespace gs::engine {

struct TrainExample {
  const graph::Featurized* graph = nullptr;
  std::vector<float> targets;  // one per model output; NaN = missing
};

struct TrainOptions {
  int epochs = 100;
  int batch_size = 32;
  double learning_rate = 2e-4;
  double weight_decay = 0.01;
  double warmup_fraction = 0.06;  // of all steps
  enum class Schedule { Linear, Cosine } schedule = Schedule::Cosine;
  enum class Loss { L1, MSE } loss = Loss::L1;
  double clip_norm = 5.0;  // 0 = off
  tensor::Precision precision = tensor::Precision::FP32;  // FP32, BF16 or FP16 (CUDA)
  double checkpoint_ratio = 0.0;
  // Molecules per forward/backward pass: a step accumulates the gradients of ceil(batch_size /
  // micro_batch) passes, so the optimizer sees the same batch in less memory (the loss is the same
  // sum over the batch's targets; only dropout masks and rounding differ). 0 = the whole batch.
  int micro_batch = 0;
  // An out-of-memory error in a step does not end the run: the step is retried with a quarter of
  // the layers more checkpointed, then (all checkpointed) with half the micro-batch; each change is
  // reported through TrainCallbacks::note and kept for the rest of the run.
  bool adapt_to_memory = true;
  uint64_t seed = 0;
  int patience = 20;         // epochs without validation improvement before stopping; 0 = off
  int freeze_layers = 0;     // fine-tuning: the first k encoder layers (and the embeddings) stay fixed
  bool reset_head = false;   // fine-tuning: re-initialise the head
  // Fine-tuning with LoRA adapters of this rank on every attention and feed-forward projection
  // (model/lora.h): only the adapters and the head train. 0 = off. The model keeps its unmerged
  // adapter after fit() (save it with model::saveAdapter, or merge it).
  int lora_rank = 0;
  double lora_alpha = 0;     // 0 = the rank (update scale 1)
  std::string device = "cpu";
  int threads = 0;
  graph::CollateOptions collate;
  std::string output_dir;    // best.safetensors, last.safetensors, state.pt; empty = keep in memory
  bool resume = false;       // continue from output_dir/last.* when present
};

struct EpochReport {
  int epoch = 0;  // 1-based
  double train_loss = 0;  // in normalised units
  double valid_mae = 0;   // in target units, mean over outputs
  std::vector<double> valid_mae_per_target;
  double seconds = 0;
  bool improved = false;
  int skipped_steps = 0;  // FP16 steps skipped by the loss scaler so far
  int snapshot = 0;       // 0 = the training run; k = snapshot cycle k (snapshotCycles)
  int micro_batch = 0;    // in effect at the end of the epoch (after any out-of-memory change)
  double checkpoint_ratio = 0;
};

// Names of the schedule ("cosine", "linear") and loss ("l1", "mse") for flags and reports.
const char* scheduleName(TrainOptions::Schedule schedule);
Result<TrainOptions::Schedule> parseSchedule(const std::string& name);
const char* lossName(TrainOptions::Loss loss);
Result<TrainOptions::Loss> parseLoss(const std::string& name);

struct TrainCallbacks {
  std::function<void(const EpochReport&)> epoch_done;
  std::function<void(int64_t step, int64_t total_steps, double loss)> step_done;
  // Checked before every step: a cancelled run stops within one step and, with an output
  // directory, leaves a state that `resume` continues exactly.
  std::function<bool()> cancelled;
  std::function<void(const std::string&)> note;  // changes made during the run (out-of-memory retries)
  // Called before every forward pass with the micro-batch size and checkpoint ratio in effect
  // (progress displays; tests inject faults by throwing from it).
  std::function<void(int micro_batch, double checkpoint_ratio)> before_forward;
};

struct TrainSummary {
  std::vector<EpochReport> epochs;
  int best_epoch = 0;
  double best_valid_mae = 0;
  bool stopped_early = false;
  bool cancelled = false;
  int memory_retries = 0;  // steps retried after an out-of-memory error
  int micro_batch = 0;     // in effect at the end (0 = whole batches)
  double checkpoint_ratio = 0;
};

// Whether training can run in `precision` on `device`: the inference rule (precisionAvailable),
// and int8 (no gradients) and fp16 off CUDA (its loss scaling needs CUDA) are refused with why.
Status trainingPrecisionAvailable(tensor::Precision precision, const std::string& device);

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
  int snapshot_ = 0;  // the snapshot cycle fit() is running, 0 = none
  int eval_batch_ = 0;  // the micro-batch in effect (evaluate() passes twice as many molecules)
};

}  // namespace gs::engine
