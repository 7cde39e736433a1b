#pragma once
// Fitting a training run to a memory budget. Before training, short probe passes (forward +
// backward; a warm-up, then the faster of two timed passes) on the largest training molecules at
// one and at 16 molecules per pass, with no and with every layer checkpointed, in each allowed
// precision, plus one on median-size molecules, measure what a pass costs. Memory is linear in the
// pass size and in the checkpointed share; time per pass is an overhead plus a per-molecule part
// that shrinks with the pass's padded size ((t/T)^gamma, gamma from the median probe), summed over
// the passes of a simulated shuffled epoch, so the padding a large pass carries is counted. The
// choice: of the settings that fit (with a 15 % margin), the three predicted fastest (and the
// user's batch in one pass, if it fits) are timed on a few real training batches, and the fastest
// measured wins. The optimizer's batch stays as the user set it, split into passes when better.
//
// Memory counted: the weights, the trainable parameters' gradients and AdamW's two moments, one
// more set of gradients when a batch runs in several passes (measured: the base model's peak ran
// up to 12 % over the prediction without it), and the activations of one pass (CPU: LibTorch's
// tensor allocator; CUDA: the caching allocator). Largest molecules first make the probe an upper bound for any pass the epoch draws.
#include <string>
#include <vector>

#include "engine/trainer.h"

namespace gs::engine {

struct MemoryFitCandidate {
  tensor::Precision precision = tensor::Precision::FP32;
  int micro_batch = 0;           // molecules per pass
  double checkpoint_ratio = 0;
  double predicted_bytes = 0;    // peak of a training step
  double time_factor = 0;        // predicted epoch time / that of the user's batch in one pass, no checkpointing
  double measured_seconds = 0;   // per batch on a few real batches (the shortlist only; 0 = not measured)
  bool fits = false;
};

struct MemoryFit {
  int64_t budget_bytes = 0;
  int batch_size = 0;             // the optimizer's batch (unchanged)
  MemoryFitCandidate chosen;
  MemoryFitCandidate unconstrained;  // the user's batch in one pass, ratio 0, the user's precision
  int64_t static_bytes = 0;       // weights + gradients + optimizer moments
  int64_t gradient_bytes = 0;     // one set of the trainable parameters' gradients (added when a batch runs in passes)
  std::vector<MemoryFitCandidate> candidates;  // every setting considered
  double probe_seconds = 0;
  std::string summary() const;    // "batch 64 in 2 passes of 32, ratio 0.50, fp32: predicted peak 410 MiB of 512 MiB, 1.20x time"
  // Applies the choice to training options (micro-batch, checkpoint ratio, precision).
  void applyTo(TrainOptions& options) const;
};

struct MemoryFitOptions {
  int64_t budget_bytes = 0;
  bool allow_precision = false;  // may also choose bf16 (CPU/CUDA) or fp16 (CUDA) where available
  double margin = 1.15;          // predicted peak × margin must fit (the base model's measured peak ran 6 % over its prediction)
};

// Probes `model` (not modified: the probes run on a copy prepared as `options` would train it:
// frozen layers, LoRA) on the largest molecules of `train`. Fails with the smallest footprint when
// nothing fits.
Result<MemoryFit> fitTrainingToMemory(const model::LoadedModel& model, const std::vector<TrainExample>& train,
                                      const TrainOptions& options, const MemoryFitOptions& fit);

}  // namespace gs::engine
