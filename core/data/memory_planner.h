#pragma once
// Batches sized to a memory budget. A MemoryModel predicts a batch's peak tensor memory (bytes
// above the level before the batch) from its shape — B molecules padded to T = max atoms + 1
// (the graph token) — as c0 + c1·B·T + c2·B·T²: node activations grow with B·T, attention
// scores and bias with B·heads·T². It is fitted by non-negative least squares on a few measured
// probe batches (engine::InferenceSession measures them with the memory probe).
#include <cstdint>
#include <string>
#include <vector>

#include "data/batch_planner.h"

namespace gs::data {

struct BatchShape {
  int64_t batch = 1;
  int64_t max_atoms = 1;
};

class MemoryModel {
 public:
  static MemoryModel fit(const std::vector<BatchShape>& shapes, const std::vector<int64_t>& peak_bytes);
  double predict(const BatchShape& shape) const;
  bool valid() const { return valid_; }
  std::string describe() const;  // "peak ≈ a + b·B·T + c·B·T² bytes"

 private:
  double c_[3] = {0, 0, 0};
  bool valid_ = false;
};

struct BudgetPlan {
  std::vector<Batch> batches;    // every index not over budget, in exactly one batch
  std::vector<int> over_budget;  // molecules that alone are predicted to exceed the budget
};

// Molecules sorted by size within `options.window`; each batch is the largest (at most
// options.max_batch_size) whose predicted peak times `margin` stays within `budget_bytes`.
BudgetPlan planWithinBudget(const std::vector<int>& sizes, const MemoryModel& model, int64_t budget_bytes,
                            const PlanOptions& options, double margin = 1.2);

}  // namespace gs::data
