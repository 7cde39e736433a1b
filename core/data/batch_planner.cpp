#include "data/batch_planner.h"

#include <algorithm>
#include <numeric>

namespace gs::data {

std::vector<Batch> planBatches(const std::vector<int>& sizes, const PlanOptions& options) {
  const int n = static_cast<int>(sizes.size());
  const int cap = std::max(options.max_batch_size, 1);
  const int window = options.bucketing ? std::max(options.window, 1) : std::max(n, 1);
  std::vector<Batch> batches;
  std::vector<int> order;
  for (int start = 0; start < n; start += window) {
    const int end = std::min(n, start + window);
    order.resize(end - start);
    std::iota(order.begin(), order.end(), start);
    // stable: equal sizes keep input order, so the plan is deterministic
    if (options.bucketing)
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sizes[a] < sizes[b]; });
    Batch current;
    int current_max = 0;
    for (int idx : order) {
      const int new_max = std::max(current_max, sizes[idx]);
      const bool over_tokens =
          !current.empty() && !withinTokenBudget(static_cast<int64_t>(current.size()) + 1, new_max, options);
      if (static_cast<int>(current.size()) == cap || over_tokens) {
        batches.push_back(std::move(current));
        current.clear();
        current_max = 0;
      }
      current.push_back(idx);
      current_max = std::max(current_max, sizes[idx]);
    }
    if (!current.empty()) batches.push_back(std::move(current));
  }
  return batches;
}

bool withinTokenBudget(int64_t molecules, int max_atoms, const PlanOptions& options) {
  const int64_t n = max_atoms;
  if (options.max_padded_nodes > 0 && molecules * n > options.max_padded_nodes) return false;
  if (options.max_attention_cells > 0 && molecules * n * n > options.max_attention_cells) return false;
  return true;
}

int64_t paddedNodes(const std::vector<Batch>& batches, const std::vector<int>& sizes) {
  int64_t total = 0;
  for (const Batch& b : batches) {
    int mx = 0;
    for (int i : b) mx = std::max(mx, sizes[i]);
    total += static_cast<int64_t>(b.size()) * mx;
  }
  return total;
}

}  // namespace gs::data
