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

// Probes `model` (not modified: the probes run on a copy prepared as `options` would train it:
// frozen layers, LoRA) on the largest molecules of `train`. Fails with the smallest footprint when
// nothing fits.
Result<MemoryFit> fitTrainingToMemory(const model::LoadedModel& model, const std::vector<TrainExample>& train,
                                      const TrainOptions& options, const MemoryFitOptions& fit);

}  // namespace gs::engine
