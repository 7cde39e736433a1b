#pragma once
// Length bucketing: inside a window of consecutive molecules, sort by atom count and cut batches
// of similar size, so padding stays small without reordering the whole file. Batches hold indices
// into the caller's sequence; scatter results back with those indices to restore input order.
//
// Token budget: max_batch_size is a maximum. A batch is also cut when its padded node slots
// (molecules x largest atom count) or its attention cells (molecules x largest atom count^2, what
// the attention bias and scores cost) would pass their budgets, so a batch of large molecules
// holds fewer of them and a large batch-size setting never makes the work per batch outgrow the
// caches. A molecule alone over a budget still gets a batch of its own.
#include <cstdint>
#include <vector>

namespace gs::data {

struct PlanOptions {
  static constexpr int64_t kDefaultPaddedNodes = 1024;
  static constexpr int64_t kDefaultAttentionCells = 32768;
  int max_batch_size = 32;                               // at most this many molecules per batch
  bool bucketing = true;                                 // false: batches of consecutive molecules, in input order
  int window = 1024;                                     // molecules sorted together when bucketing
  int64_t max_padded_nodes = kDefaultPaddedNodes;        // > 0: molecules * max atoms stays within this
  int64_t max_attention_cells = kDefaultAttentionCells;  // > 0: molecules * max atoms^2 stays within this
};

using Batch = std::vector<int>;  // indices into the input sequence

// sizes[i] = atom count of item i. Every index appears in exactly one batch. Batches are emitted
// window by window, so a streaming caller can plan each window as it arrives.
std::vector<Batch> planBatches(const std::vector<int>& sizes, const PlanOptions& options);

// Padded node slots a plan costs: sum over batches of size * max atom count (a padding measure).
int64_t paddedNodes(const std::vector<Batch>& batches, const std::vector<int>& sizes);
// Whether `molecules` molecules of at most `max_atoms` atoms fit the options' token budgets.
bool withinTokenBudget(int64_t molecules, int max_atoms, const PlanOptions& options);

}  // namespace gs::data
