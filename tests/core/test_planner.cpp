#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "data/batch_planner.h"

namespace gs {
namespace {

std::vector<int> randomSizes(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> s(n);
  for (int& x : s) x = 1 + static_cast<int>(rng() % 60);
  return s;
}

TEST(BatchPlanner, EveryIndexExactlyOnceAndCapRespected) {
  const auto sizes = randomSizes(1000, 1);
  data::PlanOptions opt;
  opt.max_batch_size = 32;
  opt.window = 256;
  const auto batches = data::planBatches(sizes, opt);
  std::vector<int> seen(sizes.size(), 0);
  for (const auto& b : batches) {
    EXPECT_LE(b.size(), 32u);
    for (int i : b) ++seen[i];
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
}

TEST(BatchPlanner, BatchesStayInsideTheirWindow) {
  const auto sizes = randomSizes(1000, 2);
  data::PlanOptions opt;
  opt.window = 100;
  for (const auto& b : data::planBatches(sizes, opt)) {
    const int w = b.front() / 100;
    for (int i : b) EXPECT_EQ(i / 100, w);
  }
}

TEST(BatchPlanner, BucketingReducesPadding) {
  const auto sizes = randomSizes(2000, 3);
  data::PlanOptions plain;
  plain.bucketing = false;
  data::PlanOptions bucketed;
  const auto a = data::planBatches(sizes, plain);
  const auto b = data::planBatches(sizes, bucketed);
  EXPECT_EQ(a.size(), b.size());
  EXPECT_LT(data::paddedNodes(b, sizes), data::paddedNodes(a, sizes) * 0.7);
  // Without bucketing, batches are consecutive input rows.
  int next = 0;
  for (const auto& batch : a)
    for (int i : batch) EXPECT_EQ(i, next++);
}

TEST(BatchPlanner, PaddedNodeBudget) {
  const auto sizes = randomSizes(500, 4);
  data::PlanOptions opt;
  opt.max_batch_size = 1000;
  opt.max_padded_nodes = 300;
  for (const auto& b : data::planBatches(sizes, opt)) {
    int mx = 0;
    for (int i : b) mx = std::max(mx, sizes[i]);
    EXPECT_LE(static_cast<int64_t>(b.size()) * mx, 300);
  }
}

TEST(BatchPlanner, EmptyInput) { EXPECT_TRUE(data::planBatches({}, {}).empty()); }

}  // namespace
}  // namespace gs
