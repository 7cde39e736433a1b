#include "data/memory_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace gs::data {
namespace {

void features(const BatchShape& s, double x[3]) {
  const double t = double(s.max_atoms + 1);
  x[0] = 1.0;
  x[1] = double(s.batch) * t;
  x[2] = double(s.batch) * t * t;
}

// Least squares over the features marked active (normal equations, Gaussian elimination).
bool solve(const std::vector<BatchShape>& shapes, const std::vector<int64_t>& y, const bool active[3], double out[3]) {
  double a[3][4] = {};
  for (size_t i = 0; i < shapes.size(); ++i) {
    double x[3];
    features(shapes[i], x);
    for (int r = 0; r < 3; ++r) {
      if (!active[r]) continue;
      for (int c = 0; c < 3; ++c)
        if (active[c]) a[r][c] += x[r] * x[c];
      a[r][3] += x[r] * double(y[i]);
    }
  }
  for (int r = 0; r < 3; ++r)
    if (!active[r]) a[r][r] = 1.0;  // the coefficient is 0
  for (int p = 0; p < 3; ++p) {
    int best = p;
    for (int r = p + 1; r < 3; ++r)
      if (std::abs(a[r][p]) > std::abs(a[best][p])) best = r;
    std::swap(a[p], a[best]);
    if (std::abs(a[p][p]) < 1e-300) return false;
    for (int r = 0; r < 3; ++r) {
      if (r == p) continue;
      const double f = a[r][p] / a[p][p];
      for (int c = p; c < 4; ++c) a[r][c] -= f * a[p][c];
    }
  }
  for (int r = 0; r < 3; ++r) out[r] = active[r] ? a[r][3] / a[r][r] : 0.0;
  return true;
}

}  // namespace

MemoryModel MemoryModel::fit(const std::vector<BatchShape>& shapes, const std::vector<int64_t>& peak_bytes) {
  MemoryModel m;
  if (shapes.size() != peak_bytes.size() || shapes.size() < 2) return m;
  bool active[3] = {true, true, true};
  // Non-negative: drop a feature whose coefficient comes out negative and refit.
  for (int round = 0; round < 3; ++round) {
    double c[3];
    if (!solve(shapes, peak_bytes, active, c)) return m;
    int negative = -1;
    for (int k = 0; k < 3; ++k)
      if (active[k] && c[k] < 0 && (negative < 0 || c[k] < c[negative])) negative = k;
    if (negative < 0) {
      std::copy(c, c + 3, m.c_);
      m.valid_ = m.c_[1] > 0 || m.c_[2] > 0;
      return m;
    }
    active[negative] = false;
  }
  return m;
}

double MemoryModel::predict(const BatchShape& shape) const {
  double x[3];
  features(shape, x);
  return c_[0] * x[0] + c_[1] * x[1] + c_[2] * x[2];
}

std::string MemoryModel::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "peak = %.0f + %.1f*B*T + %.2f*B*T^2 bytes", c_[0], c_[1], c_[2]);
  return buf;
}

BudgetPlan planWithinBudget(const std::vector<int>& sizes, const MemoryModel& model, int64_t budget_bytes,
                            const PlanOptions& options, double margin) {
  BudgetPlan plan;
  const size_t window = options.bucketing ? static_cast<size_t>(std::max(1, options.window)) : sizes.size();
  auto fits = [&](int64_t batch, int max_atoms) {
    return model.predict({batch, max_atoms}) * margin <= double(budget_bytes);
  };
  for (size_t begin = 0; begin < sizes.size(); begin += std::max<size_t>(1, window)) {
    const size_t end = std::min(sizes.size(), begin + std::max<size_t>(1, window));
    std::vector<int> order(end - begin);
    std::iota(order.begin(), order.end(), static_cast<int>(begin));
    if (options.bucketing)
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sizes[a] < sizes[b]; });
    Batch current;
    int current_max = 0;
    for (int i : order) {
      if (!fits(1, sizes[i])) {
        plan.over_budget.push_back(i);
        continue;
      }
      const int max_atoms = std::max(current_max, sizes[i]);
      if (!current.empty() && (static_cast<int>(current.size()) >= options.max_batch_size ||
                               !fits(static_cast<int64_t>(current.size()) + 1, max_atoms))) {
        plan.batches.push_back(std::move(current));
        current.clear();
        current_max = 0;
      }
      current.push_back(i);
      current_max = std::max(current_max, sizes[i]);
    }
    if (!current.empty()) plan.batches.push_back(std::move(current));
  }
  return plan;
}

}  // namespace gs::data
