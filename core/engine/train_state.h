#pragma once
// The saved state of a training run (state.json beside last.safetensors and optimizer.pt): where
// it stands and the memory settings in effect, so that `resume` continues it exactly. Internal to
// the trainer; written atomically.
#include <limits>
#include <string>

#include "common/status.h"

namespace gs::engine {

// Where a run is: epochs done, steps done in the next epoch (a run cancelled mid-epoch) and the
// loss summed over them, early-stopping counters and the memory settings in effect.
struct TrainState {
  int epoch = 0, step = 0, best_epoch = 0, since_best = 0;
  double loss_sum = 0;
  double best = std::numeric_limits<double>::infinity();
  int micro_batch = 0;
  double checkpoint_ratio = 0;
};

// Writes the state as JSON (atomically); reads it back, refusing an incomplete file by name.
Status writeState(const std::string& path, const TrainState& s);
Result<TrainState> readState(const std::string& path);

}  // namespace gs::engine
