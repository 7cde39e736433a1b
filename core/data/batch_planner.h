#pragma once
// Length bucketing: inside a window of consecutive molecules, sort by atom count and cut batches
// of similar size, so padding stays small without reordering the whole file. Batches hold indices
// into the caller's sequence; scatter results back with those indices to restore input order.
#include <cstdint>
#include <vector>

namespace gs::data {

struct PlanOptions {
  int max_batch_size = 32;     // molecules per batch
  bool bucketing = true;       // false: batches of consecutive molecules, in input order
  int window = 1024;           // molecules sorted together when bucketing
  int64_t max_padded_nodes = 0;  // if > 0: batch_size * max_nodes_in_batch stays under this
};

using Batch = std::vector<int>;  // indices into the input sequence

// sizes[i] = atom count of item i. Every index appears in exactly one batch. Batches are emitted
// window by window, so a streaming caller can plan each window as it arrives.
std::vector<Batch> planBatches(const std::vector<int>& sizes, const PlanOptions& options);

// Padded node slots a plan costs: sum over batches of size * max atom count (a padding measure).
int64_t paddedNodes(const std::vector<Batch>& batches, const std::vector<int>& sizes);

}  // namespace gs::data
