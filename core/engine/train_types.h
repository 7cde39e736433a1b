#pragma once
// What a training run is asked and what it reports, without LibTorch: the options, the epoch and
// run reports, the callbacks and the memory-fit result. The UI, the CLI and the job layer include
// this header; the Trainer itself (engine/trainer.h) and the memory probes (engine/train_memory.h)
// are the only places that need tensors.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "graph/convention.h"
#include "tensor/precision.h"

namespace gs::engine {

struct TrainOptions {
  int epochs = 100;
  int batch_size = 32;
  double learning_rate = 2e-4;
  double weight_decay = 0.01;
  double warmup_fraction = 0.06;  // of all steps
  enum class Schedule { Linear, Cosine } schedule = Schedule::Cosine;
  enum class Loss { L1, MSE } loss = Loss::L1;
  double clip_norm = 5.0;                                 // 0 = off
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
  int patience = 20;        // epochs without validation improvement before stopping; 0 = off
  int freeze_layers = 0;    // fine-tuning: the first k encoder layers (and the embeddings) stay fixed
  bool reset_head = false;  // fine-tuning: re-initialise the head
  // Fine-tuning with LoRA adapters of this rank on every attention and feed-forward projection
  // (model/lora.h): only the adapters and the head train. 0 = off. The model keeps its unmerged
  // adapter after fit() (save it with model::saveAdapter, or merge it).
  int lora_rank = 0;
  double lora_alpha = 0;  // 0 = the rank (update scale 1)
  std::string device = "cpu";
  int threads = 0;
  graph::CollateOptions collate;
  std::string output_dir;  // best.safetensors, last.safetensors, state.pt; empty = keep in memory
  bool resume = false;     // continue from output_dir/last.* when present
};

struct EpochReport {
  int epoch = 0;          // 1-based
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

struct MemoryFitCandidate {
  tensor::Precision precision = tensor::Precision::FP32;
  int micro_batch = 0;  // molecules per pass
  double checkpoint_ratio = 0;
  double predicted_bytes = 0;   // peak of a training step
  double time_factor = 0;       // predicted epoch time / that of the user's batch in one pass, no checkpointing
  double measured_seconds = 0;  // per batch on a few real batches (the shortlist only; 0 = not measured)
  bool fits = false;
};

struct MemoryFit {
  int64_t budget_bytes = 0;
  int batch_size = 0;  // the optimizer's batch (unchanged)
  MemoryFitCandidate chosen;
  MemoryFitCandidate unconstrained;  // the user's batch in one pass, ratio 0, the user's precision
  int64_t static_bytes = 0;          // weights + gradients + optimizer moments
  int64_t gradient_bytes = 0;  // one set of the trainable parameters' gradients (added when a batch runs in passes)
  std::vector<MemoryFitCandidate> candidates;  // every setting considered
  double probe_seconds = 0;
  std::string summary()
      const;  // "batch 64 in 2 passes of 32, ratio 0.50, fp32: predicted peak 410 MiB of 512 MiB, 1.20x time"
  // Applies the choice to training options (micro-batch, checkpoint ratio, precision).
  void applyTo(TrainOptions& options) const;
};

struct MemoryFitOptions {
  int64_t budget_bytes = 0;
  bool allow_precision = false;  // may also choose bf16 (CPU/CUDA) or fp16 (CUDA) where available
  double margin =
      1.15;  // predicted peak × margin must fit (the base model's measured peak ran 6 % over its prediction)
};

}  // namespace gs::engine
